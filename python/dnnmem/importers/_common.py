"""What every importer shares: a document builder, name sanitising, unsupported operators.

An importer walks a foreign model (a darknet cfg, an ONNX graph, a Keras model, a torch module)
and writes the JSON network document of ``docs/network-format.md`` with a
:class:`DocumentBuilder`. Operators it cannot translate are collected with
:meth:`DocumentBuilder.unsupported`; at the end :meth:`DocumentBuilder.finish` either raises one
:class:`UnsupportedOperatorError` listing every unsupported operator type with the names of its
nodes (``strict=True``) or warns once (:class:`ImporterWarning`) and keeps the zero-FLOP
placeholders already written for them (``strict=False``).
"""

from __future__ import annotations

import os
import re
import warnings
import zipfile
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..network import Network, NetworkError, load_network
from ..zoo._builder import Layers

__all__ = [
    "DocumentBuilder",
    "FoldedBatchNormWarning",
    "ImporterWarning",
    "UnsupportedOperatorError",
    "PLACEHOLDER_KIND",
    "collapse_pair",
    "hwc",
    "read_model_file",
    "sanitize_name",
    "to_network",
]

#: The kind a placeholder for an unsupported operator gets: ``opaque`` (docs/network-format.md)
#: takes its output shape from the file, has no weights, counts 0 FLOPs forward and backward and
#: passes the gradient through, so the network keeps its structure and the tensor its traffic.
PLACEHOLDER_KIND = "opaque"


class ImporterWarning(UserWarning):
    """Warned when ``strict=False`` replaces unsupported operators by placeholders."""


class FoldedBatchNormWarning(ImporterWarning):
    """The model's BatchNorm layers were folded into its convolutions by the exporter (an
    eval-mode export): the network has fewer layers than the model trains with."""


class UnsupportedOperatorError(NetworkError):
    """A model has operators the importer cannot translate (``strict=True``).

    Attributes
    ----------
    source : str
        The file (or model) name.
    ops : dict of str to list of str
        Unsupported operator type → the names of its nodes, in model order.
    """

    def __init__(self, source: str, ops: dict[str, list[str]]) -> None:
        self.source = source
        self.ops = {k: list(v) for k, v in ops.items()}
        self.layer, self.field = "", ""
        self.detail = (
            f"unsupported operator{'s' if len(ops) > 1 else ''} "
            + "; ".join(f"{op} (nodes: {', '.join(names)})" for op, names in self.ops.items())
            + " — pass strict=False (CLI: --no-strict) to import them as zero-FLOP "
            "placeholders"
        )
        super().__init__(f"{source}: {self.detail}")


_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.:\-]+")


def sanitize_name(raw: Any, fallback: str = "layer") -> str:
    """A layer name made of ``[A-Za-z0-9_.:-]`` only.

    Framework names such as torch's ONNX ``/layer1/layer1.0/conv1/Conv`` become
    ``layer1.layer1.0.conv1.Conv``: ``/`` turns into ``.`` (``/`` is reserved for the parts
    dnnmem creates when it expands an ``lstm_cell``), any other run of odd characters into
    ``_``, and leading / trailing separators are dropped. An empty result gives ``fallback``.
    """
    s = str(raw if raw is not None else "").replace("/", ".")
    s = _BAD_CHARS.sub("_", s).strip("._:-")
    s = re.sub(r"\.{2,}", ".", s)
    return s or fallback


def hwc(chw: Sequence[int]) -> tuple[int, int, int]:
    """A per-sample image shape from the frameworks' (C, H, W) to dnnmem's (H, W, C)."""
    c, h, w = chw
    return (int(h), int(w), int(c))


def collapse_pair(v: Sequence[int]) -> int | list[int]:
    """An ``[a, b]`` field (kernel, strides…) as the scalar ``a`` when ``a == b``, else a list."""
    return v[0] if v[0] == v[1] else list(v)


class DocumentBuilder(Layers):
    """A :class:`~dnnmem.zoo._builder.Layers` that keeps names unique and records gaps.

    Parameters
    ----------
    source : str
        The model's file name (or a description); error messages start with it.
    name : str
        The ``name`` of the network document.
    """

    def __init__(self, source: str, name: str) -> None:
        super().__init__()
        self.source = source
        self.name = name
        self._used: set[str] = set()
        self._unsupported: dict[str, list[str]] = {}

    def unique(self, raw: Any, fallback: str = "layer") -> str:
        """A sanitised (:func:`sanitize_name`) name not used yet: ``x``, ``x_1``, ``x_2``…

        The name is reserved; pass it to :meth:`input` / :meth:`add`.
        """
        base = sanitize_name(raw, fallback)
        name, i = base, 0
        while name in self._used:
            i += 1
            name = f"{base}_{i}"
        self._used.add(name)
        return name

    def input(self, name: str, shape: list[int] | tuple[int, ...], **fields: Any) -> str:
        """Add an input layer; ``name`` is used as given (reserve it with :meth:`unique`)."""
        self._used.add(name)
        return super().input(name, [int(d) for d in shape], **fields)

    def add(self, name: str, kind: str, inputs: list[str] | str, **fields: Any) -> str:
        """Add a layer; ``name`` is used as given (reserve it with :meth:`unique`)."""
        self._used.add(name)
        return super().add(name, kind, inputs, **fields)

    def unsupported(self, op_type: str, node: str) -> None:
        """Record an operator the importer cannot translate (reported by :meth:`finish`)."""
        self._unsupported.setdefault(str(op_type), []).append(str(node))

    def placeholder(
        self, name: str, op_type: str, inputs: Sequence[str], shape: Sequence[int]
    ) -> str:
        """Record ``op_type`` as unsupported and add its zero-FLOP placeholder layer.

        The placeholder (kind :data:`PLACEHOLDER_KIND`) has the operator's per-sample output
        ``shape`` (channels last), reads ``inputs`` and carries ``meta.op_type``. Under
        ``strict=True`` :meth:`finish` raises before the document is used.
        """
        self.unsupported(op_type, name)
        return self.add(
            name,
            PLACEHOLDER_KIND,
            list(inputs),
            shape=[int(d) for d in shape],
            meta={"op_type": str(op_type), "placeholder": True},
        )

    @property
    def unsupported_ops(self) -> dict[str, list[str]]:
        """Unsupported operator type → node names, as recorded so far."""
        return {k: list(v) for k, v in self._unsupported.items()}

    def finish(self, strict: bool = True) -> dict[str, Any]:
        """The network document, after dealing with unsupported operators.

        Parameters
        ----------
        strict : bool
            True: raise :class:`UnsupportedOperatorError` listing every unsupported operator
            type and its nodes. False: warn once (:class:`ImporterWarning`) and keep the
            placeholders.

        Returns
        -------
        dict
            ``{"name": ..., "layers": [...]}``.
        """
        if self._unsupported:
            err = UnsupportedOperatorError(self.source, self._unsupported)
            if strict:
                raise err
            warnings.warn(
                f"{self.source}: imported "
                + "; ".join(f"{op} (nodes: {', '.join(n)})" for op, n in self._unsupported.items())
                + " as zero-FLOP placeholders (kind 'opaque')",
                ImporterWarning,
                stacklevel=3,
            )
        return self.document(self.name)


def to_network(
    doc: dict[str, Any], batch: int, bytes_per_element: int = 4, document: bool = False
) -> Network | dict[str, Any]:
    """The importers' common return: the document itself, or the loaded :class:`Network`."""
    if document:
        return doc
    return load_network(doc, batch=batch, bytes_per_element=bytes_per_element)


_T = TypeVar("_T")


def read_model_file(
    path: str, what: str, load: Callable[[str], _T], zip_archive: bool = False
) -> _T:
    """``load(path)``, where a missing, unreadable or corrupt file is a ValueError naming the
    file and the format (``"net.onnx: cannot read it as an ONNX model: DecodeError: ..."``), not
    the loader's own exception from deep inside its package. ``zip_archive``: the format is a
    zip file (``.keras``, ``.pt2``), checked before the loader, which logs its own traceback."""
    if zip_archive and os.path.isfile(path) and not zipfile.is_zipfile(path):
        raise ValueError(f"{path}: cannot read it as {what}: not a zip archive")
    if not os.path.isfile(path):
        raise ValueError(
            f"{path}: no such file" if not os.path.exists(path) else f"{path}: not a file"
        )
    try:
        return load(path)
    except Exception as e:  # each package raises its own types (protobuf, zipfile, h5py, ...)
        detail = f": {str(e).strip()}" if str(e).strip() else ""
        raise ValueError(f"{path}: cannot read it as {what}: {type(e).__name__}{detail}") from None
