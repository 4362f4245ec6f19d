"""Importers: foreign model descriptions → dnnmem network documents (``docs/importers.md``).

Every importer has the same signature style: ``from_X(model, *, batch=1, strict=True,
document=False, ...)`` returns a :class:`dnnmem.Network` at ``batch`` (``document=True``: the
JSON document as a dict, to save or edit). ``strict=False`` turns unsupported operators into
zero-FLOP placeholders with a warning instead of one error listing them all.

:func:`import_model` dispatches a file on its extension through :data:`IMPORTERS`, the table
the command line (``dnnmem import``) uses; importers in other modules register themselves here.
"""

from __future__ import annotations

import importlib
import os
from typing import Any, Callable, Literal, overload

from .._optional import require
from ..network import Network
from ._common import FoldedBatchNormWarning, ImporterWarning, UnsupportedOperatorError
from .darknet import from_darknet
from .onnx import from_onnx

__all__ = [
    "IMPORTERS",
    "FoldedBatchNormWarning",
    "ImporterWarning",
    "UnsupportedOperatorError",
    "from_darknet",
    "from_onnx",
    "import_model",
]


def _lazy(module: str, function: str) -> Callable[..., Any]:
    """An importer living in ``dnnmem.importers.<module>``, imported on first use."""

    def run(path: str, **options: Any) -> Any:
        try:
            f = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        except (ImportError, AttributeError) as e:
            raise ValueError(f"{path}: the {module} importer is not available ({e})") from None
        return f(path, **options)

    run.__name__ = function
    return run


#: File extension (lower case, with the dot) → importer ``f(path, *, batch, strict, document)``.
#: ``keras.py`` (``from_keras``) and ``torch.py`` (``from_torch``) are loaded lazily, so that
#: importing this package never imports keras or torch.
IMPORTERS: dict[str, Callable[..., Any]] = {
    ".cfg": from_darknet,
    ".onnx": from_onnx,
    ".keras": _lazy("keras", "from_keras"),
    ".h5": _lazy("keras", "from_keras"),
    ".pt": _lazy("torch", "from_torch"),
    ".pth": _lazy("torch", "from_torch"),
    ".pt2": _lazy("torch", "from_torch"),
}


#: File extension → the optional package its importer needs (checked before importing).
NEEDS: dict[str, str] = {
    ".onnx": "onnx",
    ".keras": "keras",
    ".h5": "keras",
    ".pt": "torch",
    ".pth": "torch",
    ".pt2": "torch",
}


@overload
def import_model(
    path: str | os.PathLike[str],
    *,
    batch: int = ...,
    strict: bool = ...,
    document: Literal[False] = ...,
) -> Network: ...
@overload
def import_model(
    path: str | os.PathLike[str], *, batch: int = ..., strict: bool = ..., document: Literal[True]
) -> dict[str, Any]: ...
@overload
def import_model(
    path: str | os.PathLike[str], *, batch: int = ..., strict: bool = ..., document: bool = ...
) -> Network | dict[str, Any]: ...


def import_model(
    path: str | os.PathLike[str], *, batch: int = 1, strict: bool = True, document: bool = False
) -> Network | dict[str, Any]:
    """Import a model file with the importer its extension selects (:data:`IMPORTERS`).

    Parameters
    ----------
    path : str or os.PathLike
        The model file: ``.cfg`` (darknet), ``.onnx``, and whatever else :data:`IMPORTERS` lists.
    batch : int
        Mini-batch size of the returned network.
    strict : bool
        False: unsupported operators become zero-FLOP placeholders (with a warning).
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.

    Raises
    ------
    ValueError
        The extension has no importer (the message lists the known ones).
    dnnmem._optional.MissingDependency
        An ImportError: the importer's package (onnx, keras, torch) is not installed; the
        message names the extra to install.
    """
    p = os.fspath(path)
    name = p.lower()
    # Longest extension first, so ".weights.h5"-style double extensions can be registered.
    for ext in sorted(IMPORTERS, key=len, reverse=True):
        if name.endswith(ext):
            if ext in NEEDS:
                require(NEEDS[ext], f"importing {ext} files")
            return IMPORTERS[ext](p, batch=batch, strict=strict, document=document)
    raise ValueError(
        f"{p}: no importer for this file extension (known: {', '.join(sorted(IMPORTERS))})"
    )
