"""Darknet ``.cfg`` files → dnnmem network documents (``docs/importers.md``).

Darknet (pjreddie/darknet and AlexeyAB/darknet) describes a network as ``[section]`` blocks of
``key=value`` lines; layer *i* is the *i*-th block after ``[net]``, and ``route`` / ``shortcut``
refer to layers by index (negative: relative to the current layer). The semantics below follow
darknet's ``src/parser.c`` and the ``make_*_layer`` functions it calls.
"""

from __future__ import annotations

import builtins
import os
from typing import Any

from ..network import Network, NetworkError
from ._common import DocumentBuilder, to_network

__all__ = ["from_darknet", "parse_cfg", "DARKNET_ACTIVATIONS"]

#: darknet activation → dnnmem kind (``None``: no layer). Others are unsupported operators.
DARKNET_ACTIVATIONS: dict[str, str | None] = {
    "linear": None,
    "leaky": "leaky_relu",  # slope 0.1 (darknet's leaky_activate)
    "relu": "relu",
    "mish": "mish",
    "swish": "swish",
    "logistic": "sigmoid",
    "tanh": "tanh",
    "relu6": "relu6",
    "hard_mish": "hard_swish",  # not exact, counted alike: a clipped product (AlexeyAB)
}

# Sections that only annotate the network or compute the training loss: no layer of their own;
# their input is a network output (YOLO heads), and a later `route` to them means their input.
_HEADS = {"yolo", "yolo4", "region", "detection", "gaussian_yolo", "cost"}


def parse_cfg(path: str | os.PathLike[str]) -> list[tuple[str, dict[str, str], int]]:
    """The sections of a darknet cfg: ``(type, {key: value}, line number)`` in file order.

    Comments (``#``, ``;``) and blank lines are skipped; keys and values are stripped.

    Raises
    ------
    ValueError
        A ``key=value`` line outside any section, or a line that is neither.
    """
    p = os.fspath(path)
    sections: list[tuple[str, dict[str, str], int]] = []
    try:
        with open(p, "rb") as binary:
            text = binary.read().decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{p}: not a darknet cfg (not UTF-8 text at byte {e.start})") from None
    except FileNotFoundError:
        raise ValueError(f"{p}: no such file") from None  # as the other importers say it
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as text mode reads
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("["):
            if not s.endswith("]"):
                raise ValueError(f"{p}:{no}: a section header must end with ']', got {s!r}")
            sections.append((s[1:-1].strip().lower(), {}, no))
        elif "=" in s:
            if not sections:
                raise ValueError(f"{p}:{no}: {s!r} comes before the first [section]")
            k, v = s.split("=", 1)
            sections[-1][1][k.strip()] = v.strip()
        else:
            raise ValueError(f"{p}:{no}: expected [section] or key=value, got {s!r}")
    return sections


class _Section:
    """Typed access to one section's options with darknet's defaults and clear errors."""

    def __init__(self, source: str, kind: str, opts: dict[str, str], line: int) -> None:
        self.source, self.kind, self.opts, self.line = source, kind, opts, line

    def _fail(self, key: str, what: str) -> ValueError:
        return ValueError(f"{self.source}:{self.line}: [{self.kind}] '{key}': {what}")

    def int(self, key: str, default: int | None = None, minimum: int | None = None) -> int:
        if key not in self.opts:
            if default is None:
                raise self._fail(key, "is missing")
            v = default
        else:
            try:
                v = int(self.opts[key])
            except ValueError:
                raise self._fail(key, f"must be an integer, got {self.opts[key]!r}") from None
        if minimum is not None and v < minimum:
            raise self._fail(key, f"must be an integer >= {minimum}, got {v}")
        return v

    def stride(self, key: str = "stride", default: builtins.int = 1) -> builtins.int:
        """A stride (or stride_x / stride_y, defaulting to `stride`): a positive integer."""
        return self.int(key, default, minimum=1)

    def ints(self, key: str) -> list[builtins.int]:  # `int` here is the method above
        if key not in self.opts:
            raise self._fail(key, "is missing")
        try:
            values = [int(t) for t in self.opts[key].split(",") if t.strip()]
        except ValueError:
            raise self._fail(key, f"must list integers, got {self.opts[key]!r}") from None
        if not values:
            raise self._fail(key, "must list at least one layer index")
        return values

    def float(self, key: str, default: float) -> float:
        try:
            return float(self.opts.get(key, default))
        except ValueError:
            raise self._fail(key, f"must be a number, got {self.opts[key]!r}") from None

    def str(self, key: str, default: str) -> str:
        return self.opts.get(key, default).strip().lower()


def from_darknet(
    cfg_path: str | os.PathLike[str],
    *,
    batch: int = 1,
    strict: bool = True,
    input_shape: tuple[int, int, int] | None = None,
    document: bool = False,
    bytes_per_element: int = 4,
) -> Network | dict[str, Any]:
    """Import a darknet ``.cfg`` network description.

    Translation (darknet → dnnmem kinds), per darknet's ``parser.c``:

    - ``[net]``: ``height``, ``width``, ``channels`` give the input (``input_shape`` overrides).
    - ``[convolutional]``: ``conv2d`` (``filters``, ``size``, ``stride``, ``groups``,
      ``dilation``); ``pad=1`` pads ``size // 2`` on every side, else ``padding`` (0).
      ``batch_normalize=1`` → a convolution without bias followed by ``batchnorm`` (darknet
      stores scales, biases, rolling mean and variance: 4 per filter, as γ, β + 2 state);
      otherwise a convolution with bias. Then the activation as a layer (table
      :data:`DARKNET_ACTIVATIONS`; ``linear`` writes none).
    - ``[connected]``: ``dense`` (``output``; a folded ``flatten`` first for rank-3 inputs),
      optional ``batchnorm`` and activation.
    - ``[maxpool]``: ``maxpool``, ``size``, ``stride`` (default 1), darknet's total padding
      ``padding`` (default ``size - 1``) split ``padding // 2`` before and the rest after.
    - ``[avgpool]``: ``global_avgpool`` (keepdims, as darknet's 1×1×C output).
    - ``[route] layers=…``: one layer is a reference (no layer); several are a ``concat``.
      AlexeyAB's ``groups``/``group_id`` channel slice becomes a zero-FLOP ``opaque`` slice.
    - ``[shortcut] from=…``: ``add`` of the previous layer and ``from``, then ``activation``.
      Where the shapes differ (darknet's ResNet cfgs have no projection convolutions: darknet
      adds the first min(C) channels, sampling every s-th pixel) the ``from`` operand is first
      resampled to the previous layer's shape by a zero-FLOP ``opaque`` copy.
    - ``[upsample] stride=s``: ``upsample`` by s.  ``[dropout] probability``: ``dropout``.
    - ``[softmax]``: nothing when it is the last layer (the loss step applies it, SPEC §2),
      else ``softmax``.  ``[batchnorm]``: ``batchnorm``.
    - ``[yolo]``, ``[yolo4]``, ``[region]``, ``[detection]``, ``[cost]``: no layer; the input of
      a YOLO head is a network output (each gets a loss step).

    - ``[scale_channels]``, ``[sam]`` ``from=…``: a broadcasting ``multiply`` (squeeze-excite,
      spatial attention), then ``activation``. ``[reorg] stride=s``: space-to-depth, a folded
      ``reshape`` to (H/s, W/s, C·s²). ``[local_avgpool]``: ``avgpool`` padded as maxpool.

    Any other section (``[local]``, ``[rnn]``, ``[crnn]``, ``[gru]``, …) or activation is an
    unsupported operator: ``strict=True`` raises one
    :class:`~dnnmem.importers.UnsupportedOperatorError` listing them all; ``strict=False`` warns
    and writes a zero-FLOP ``opaque`` placeholder with the input's shape.

    Layer names are ``<section>_<index>`` with darknet's layer index (``conv_0``, ``conv_0_bn``,
    ``conv_0_mish``, ``route_8``…); every layer carries ``meta.darknet_index``.

    Parameters
    ----------
    cfg_path : str or os.PathLike
        The ``.cfg`` file.
    batch : int
        Mini-batch size of the returned network (the cfg's own ``batch`` is ignored).
    strict : bool
        See above.
    input_shape : tuple of int, optional
        (height, width, channels) instead of the ``[net]`` section's.
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.
    bytes_per_element : int
        Element size of the returned network.

    Returns
    -------
    Network or dict

    Raises
    ------
    ValueError
        A malformed cfg (file, line, section and key named), a route / shortcut index out of
        range, or unsupported sections under ``strict=True``.
    """
    p = os.fspath(cfg_path)
    sections = parse_cfg(p)
    if not sections or sections[0][0] not in ("net", "network"):
        raise ValueError(f"{p}: a darknet cfg starts with a [net] section")
    net_sec = _Section(p, *sections[0])
    if input_shape is None:
        shape = (net_sec.int("height", 0), net_sec.int("width", 0), net_sec.int("channels", 0))
    else:
        shape = tuple(int(d) for d in input_shape)  # type: ignore[assignment]
    if len(shape) != 3 or min(shape) < 1:
        raise ValueError(
            f"{p}: input shape (height, width, channels) must be 3 positive integers, got {shape}"
        )

    name = os.path.splitext(os.path.basename(p))[0]
    b = DocumentBuilder(p, name)
    b.input("input", shape)
    outs: list[str] = []  # darknet layer index → name of the layer holding its output
    shapes: dict[str, tuple[int, ...]] = {"input": tuple(shape)}
    body = sections[1:]

    def add(
        i: int, name: str, kind: str, inputs: list[str], out_shape: tuple[int, ...], **fields: Any
    ) -> str:
        b.add(name, kind, inputs, meta={"darknet_index": i}, **fields)
        shapes[name] = out_shape
        return name

    def activation(i: int, sec: _Section, x: str, base: str) -> str:
        act = sec.str("activation", "logistic" if sec.kind == "convolutional" else "linear")
        if act not in DARKNET_ACTIVATIONS:
            b.unsupported(f"activation={act}", f"{base}_{act}")
            return add(i, f"{base}_{act}", "opaque", [x], shapes[x], shape=list(shapes[x]))
        kind = DARKNET_ACTIVATIONS[act]
        if kind is None:
            return x
        fields = {"alpha": 0.1} if kind == "leaky_relu" else {}
        return add(i, f"{base}_{act}", kind, [x], shapes[x], **fields)

    def ref(i: int, sec: _Section, idx: int, key: str) -> str:
        # Darknet numbers the sections after [net] from 0; a negative index counts back from
        # this one (-1: the layer just before).
        j = idx if idx >= 0 else i + idx
        if not 0 <= j < i:
            numbering = "darknet numbers the layers after [net] from 0"
            if i == 0:
                can = "the first layer has none to use"
            elif i == 1:
                can = "it can only use layer 0 (-1 counted back)"
            else:
                can = f"it can use layers 0 to {i - 1} (-1 to -{i} counted back)"
            if idx < 0:
                what = f"{idx} counts {-idx} layers back from layer {i}, past the first"
            else:
                what = f"layer {idx} is not before this one, layer {i}"
            raise sec._fail(key, f"{what} ({numbering}); {can}")
        return outs[j]

    for i, (kind, opts, line) in enumerate(body):
        sec = _Section(p, kind, opts, line)
        x = outs[-1] if outs else "input"
        h, w, c = shapes[x] if len(shapes[x]) == 3 else (1, 1, shapes[x][-1])
        if kind in ("convolutional", "conv"):
            if len(shapes[x]) != 3:
                raise sec._fail("filters", f"a convolution needs an H×W×C input, got {shapes[x]}")
            n, k = sec.int("filters", 1), sec.int("size", 1)
            s = sec.stride()
            sy, sx = sec.stride("stride_y", s), sec.stride("stride_x", s)
            groups, dil = sec.int("groups", 1), sec.int("dilation", 1)
            pad = k // 2 if sec.int("pad", 0) else sec.int("padding", 0)
            bn = sec.int("batch_normalize", 0) == 1
            ke = (k - 1) * dil + 1
            out_shape = ((h + 2 * pad - ke) // sy + 1, (w + 2 * pad - ke) // sx + 1, n)
            base = f"conv_{i}"
            y = add(
                i,
                base,
                "conv2d",
                [x],
                out_shape,
                filters=n,
                kernel_size=k,
                strides=[sy, sx],
                padding=pad,
                dilation=dil,
                groups=groups,
                use_bias=not bn,
            )
            if bn:
                y = add(i, f"{base}_bn", "batchnorm", [y], out_shape)
            outs.append(activation(i, sec, y, base))
        elif kind == "connected":
            base = f"connected_{i}"
            if len(shapes[x]) > 1:
                flat = 1
                for d in shapes[x]:
                    flat *= d
                x = add(i, f"{base}_flatten", "flatten", [x], (flat,))
            units = sec.int("output", 1)
            bn = sec.int("batch_normalize", 0) == 1
            y = add(i, base, "dense", [x], (units,), units=units, use_bias=not bn)
            if bn:
                y = add(i, f"{base}_bn", "batchnorm", [y], (units,))
            outs.append(activation(i, sec, y, base))
        elif kind in ("maxpool", "max"):
            s = sec.stride()
            k = sec.int("size", s)
            sy, sx = sec.stride("stride_y", s), sec.stride("stride_x", s)
            total = sec.int("padding", k - 1)
            before, after = total // 2, total - total // 2
            out_shape = ((h + total - k) // sy + 1, (w + total - k) // sx + 1, c)
            outs.append(
                add(
                    i,
                    f"maxpool_{i}",
                    "maxpool",
                    [x],
                    out_shape,
                    pool_size=k,
                    strides=[sy, sx],
                    padding=[[before, after], [before, after]],
                )
            )
        elif kind in ("avgpool", "avg"):
            outs.append(add(i, f"avgpool_{i}", "global_avgpool", [x], (1, 1, c), keepdims=True))
        elif kind == "route":
            srcs = [ref(i, sec, j, "layers") for j in sec.ints("layers")]
            groups, gid = sec.int("groups", 1), sec.int("group_id", 0)
            if len(srcs) == 1:
                y = srcs[0]
            else:
                for sname in srcs:
                    if shapes[sname][:2] != shapes[srcs[0]][:2]:
                        raise sec._fail(
                            "layers",
                            f"concatenates {srcs[0]} {shapes[srcs[0]]} "
                            f"and {sname} {shapes[sname]}: spatial sizes differ",
                        )
                cat = sum(shapes[sname][-1] for sname in srcs)
                y = add(i, f"route_{i}", "concat", srcs, shapes[srcs[0]][:2] + (cat,))
            if groups > 1:
                ch = shapes[y][-1]
                if ch % groups or not 0 <= gid < groups:
                    raise sec._fail(
                        "groups",
                        f"{ch} channels cannot be split into {groups} groups to take group {gid}",
                    )
                sl = shapes[y][:-1] + (ch // groups,)
                # A channel slice is a copy: 0 FLOPs, like concat; dnnmem has no slice kind.
                y = b.add(
                    f"route_{i}_group{gid}",
                    "opaque",
                    [y],
                    shape=list(sl),
                    meta={"darknet_index": i, "op_type": "route_group_slice"},
                )
                shapes[y] = sl
            outs.append(y)
        elif kind == "shortcut":
            if sec.str("weights_type", "none") != "none":
                b.unsupported("shortcut weights_type", f"shortcut_{i}")
            srcs = [ref(i, sec, j, "from") for j in sec.ints("from")]
            ins = [x]
            for k_, sname in enumerate(srcs):
                if shapes[sname] != shapes[x]:
                    # darknet's shortcut_cpu: sample every (w_from / w)-th pixel of `from`, add
                    # its first min(C) channels; the rest pass unchanged. A copy: 0 FLOPs.
                    sname = b.add(
                        f"shortcut_{i}_resample{k_ or ''}",
                        "opaque",
                        [sname],
                        shape=list(shapes[x]),
                        meta={"darknet_index": i, "op_type": "shortcut_resample"},
                    )
                    shapes[sname] = shapes[x]
                ins.append(sname)
            y = add(i, f"shortcut_{i}", "add", ins, shapes[x])
            outs.append(activation(i, sec, y, f"shortcut_{i}"))
        elif kind in ("scale_channels", "sam"):
            # x · from, darknet's squeeze-excite (prev is 1×1×C, or H×W×1 with scale_wh) and
            # spatial attention (same shapes): a broadcasting multiply, then the activation.
            (src,) = [ref(i, sec, j, "from") for j in sec.ints("from")][:1] or [x]
            y = add(i, f"{kind}_{i}", "multiply", [src, x], shapes[src])
            outs.append(activation(i, sec, y, f"{kind}_{i}"))
        elif kind == "reorg":
            s = sec.stride()
            if sec.int("reverse", 0) or h % s or w % s:
                outs.append(b.placeholder(f"reorg_{i}", "[reorg] reverse", [x], shapes[x]))
                shapes[outs[-1]] = shapes[x]
            else:  # space-to-depth: a re-index, folded like a reshape
                sh = (h // s, w // s, c * s * s)
                outs.append(add(i, f"reorg_{i}", "reshape", [x], sh, target_shape=list(sh)))
        elif kind == "local_avgpool":
            s = sec.stride()
            k = sec.int("size", s)
            total = sec.int("padding", k - 1)
            before, after = total // 2, total - total // 2
            out_shape = ((h + total - k) // s + 1, (w + total - k) // s + 1, c)
            outs.append(
                add(
                    i,
                    f"avgpool_{i}",
                    "avgpool",
                    [x],
                    out_shape,
                    pool_size=k,
                    strides=s,
                    padding=[[before, after], [before, after]],
                )
            )
        elif kind == "upsample":
            s = sec.int("stride", 2)
            if s == 0:
                raise sec._fail("stride", "must not be 0 (> 0 upsamples, < 0 downsamples)")
            if s < 0:
                b.unsupported("upsample stride<0 (downsample)", f"upsample_{i}")
                outs.append(
                    add(
                        i,
                        f"upsample_{i}",
                        "opaque",
                        [x],
                        (h // -s, w // -s, c),
                        shape=[h // -s, w // -s, c],
                    )
                )
            else:
                outs.append(add(i, f"upsample_{i}", "upsample", [x], (h * s, w * s, c), size=s))
        elif kind == "dropout":
            rate = sec.float("probability", 0.5)
            outs.append(add(i, f"dropout_{i}", "dropout", [x], shapes[x], rate=rate))
        elif kind == "batchnorm":
            outs.append(add(i, f"batchnorm_{i}", "batchnorm", [x], shapes[x]))
        elif kind == "softmax":
            last = all(k2 in _HEADS for k2, _, _ in body[i + 1 :])
            if last:
                outs.append(x)  # the loss step applies the softmax (SPEC §2)
            else:
                outs.append(add(i, f"softmax_{i}", "softmax", [x], shapes[x]))
        elif kind in _HEADS:
            outs.append(x)  # its input is a network output; a route to it means its input
        else:
            outs.append(b.placeholder(f"{kind}_{i}", f"[{kind}]", [x], shapes[x]))
            b.items[-1]["meta"]["darknet_index"] = i
            shapes[outs[-1]] = shapes[x]
    doc = b.finish(strict)
    try:
        return to_network(doc, batch, bytes_per_element, document)
    except NetworkError as e:
        raise _cfg_error(e, p, sections, doc) from None


# dnnmem field -> the darknet key it comes from, per section type (what _cfg_error names).
_CFG_KEYS: dict[str, dict[str, str]] = {
    "convolutional": {
        "filters": "filters",
        "kernel_size": "size",
        "strides": "stride",
        "dilation": "dilation",
        "groups": "groups",
        "padding": "pad",
    },
    "connected": {"units": "output"},
    "maxpool": {"pool_size": "size", "strides": "stride", "padding": "padding"},
    "local_avgpool": {"pool_size": "size", "strides": "stride", "padding": "padding"},
    "route": {"inputs": "layers", "axis": "layers", "shape": "groups"},
    "shortcut": {"inputs": "from", "shape": "from"},
    "scale_channels": {"inputs": "from"},
    "sam": {"inputs": "from"},
    "reorg": {"target_shape": "stride"},
    "upsample": {"size": "stride"},
    "dropout": {"rate": "probability"},
}
_CFG_KEYS["conv"] = _CFG_KEYS["convolutional"]
_CFG_KEYS["max"] = _CFG_KEYS["maxpool"]


def _cfg_error(e: NetworkError, path: str, sections: list, doc: dict[str, Any]) -> NetworkError:
    """The core's error about the imported document, told in the cfg's terms: the file, the line
    and section the layer comes from, and darknet's key (``size``, not ``kernel_size``)."""
    item = next((x for x in doc["layers"] if x.get("name") == e.layer), None)
    key = e.field
    if item is None or not e.layer:
        where = path
    elif item["kind"] == "input":  # the [net] section
        kind, _, line = sections[0]
        key = {"shape": "height, width, channels"}.get(e.field, e.field)
        where = f"{path}:{line}: [{kind}]"
    else:
        kind, _, line = sections[1 + item["meta"]["darknet_index"]]
        if e.layer.endswith("_bn"):
            key = "batch_normalize"
        elif item["kind"] in DARKNET_ACTIVATIONS.values() and kind not in ("softmax", "dropout"):
            key = "activation"
        else:
            key = _CFG_KEYS.get(kind, {}).get(e.field, e.field)
        where = f"{path}:{line}: [{kind}]"
    message = where + (f" '{key}'" if key else "") + f": {e.detail}"
    if e.layer:
        message += f" (dnnmem layer '{e.layer}'" + (f", field '{e.field}')" if e.field else ")")
    err = NetworkError(message)
    err.source, err.layer, err.field, err.detail = path, e.layer, key, e.detail
    return err
