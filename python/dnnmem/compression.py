"""The compressing links' Python side: activation sparsity and measured compression ratios.

The links ``zvc``, ``rle`` and ``zlib`` (docs/model/cdma.md, ``cpp/src/links/cdma.cpp``) need, per
tensor, the fraction of zero elements (``zvc``) or a compression ratio (``rle``, ``zlib``). This
module supplies them, and :mod:`dnnmem.registry` hands them to the core:

* :func:`tensor_sparsity` — per tensor, from a per-layer table (a DataFrame or CSV with columns
  ``layer`` and ``sparsity``), else from the type/depth rule (rules S1–S6), optionally
  calibrated to a network-wide size-weighted target;
* :func:`measured_ratio` — the RLE or zlib ratio of a generated activation tensor of a given
  sparsity, layout and shape class, compressed for real in 4 KB windows (cached);
* :func:`link_tables` — what :meth:`dnnmem.Policy.prepare` hands the core.

The cDMA paper's report (:func:`dnnmem.cdma.compare`) and its GPUs are in :mod:`dnnmem.cdma`.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Union

from ._lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .network import Network
    from .part import Part
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "COMPRESSING_LINKS",
    "SparsityLike",
    "layer_sparsity",
    "link_tables",
    "measured_ratio",
    "rle_bytes",
    "tensor_sparsity",
]

#: Links whose per-tensor inputs this module computes.
COMPRESSING_LINKS = ("zvc", "rle", "zlib")
#: Sparsity rule defaults (the links' declared options: first, deep, fc, pool, target, uniform).
RULE_DEFAULTS = {
    "first": 0.5,
    "deep": 0.75,
    "fc": 0.9,
    "pool": 0.1,
    "target": -1.0,
    "uniform": -1.0,
}
_ZERO_MAKERS = {"relu", "relu6"}  # S1: exact zeros
_POOLS = {"maxpool", "avgpool", "global_avgpool", "global_maxpool"}  # S4
_PASS = {"dropout", "flatten", "reshape", "identity", "zero_padding"}  # S5
_CONV = {"conv2d", "depthwise_conv2d"}

SparsityLike = Union["pd.DataFrame", Mapping[str, float], str, "os.PathLike[str]", None]


def _table(sparsity: SparsityLike, layers: Sequence[str], network: str) -> dict[str, float]:
    """layer -> sparsity from a user's table; ValueError naming the row for an unknown layer,
    a value outside [0, 1] or NaN."""
    if sparsity is None:
        return {}
    if isinstance(sparsity, (str, os.PathLike)):
        sparsity = pd.read_csv(sparsity)
    if isinstance(sparsity, Mapping):
        rows = list(sparsity.items())
    elif isinstance(sparsity, pd.DataFrame):
        missing = {"layer", "sparsity"} - set(sparsity.columns)
        if missing:
            raise ValueError(
                f"sparsity table: missing column(s) {sorted(missing)} "
                f"(expected 'layer' and 'sparsity', got {list(sparsity.columns)})"
            )
        rows = list(zip(sparsity["layer"], sparsity["sparsity"]))
    else:
        raise TypeError(
            f"sparsity: expected a DataFrame, a mapping, a CSV path or None, "
            f"got {type(sparsity).__name__}"
        )
    known = set(layers)
    out: dict[str, float] = {}
    for i, (name, value) in enumerate(rows):
        where = f"sparsity table row {i} (layer {name!r})"
        if name not in known:
            raise ValueError(f"{where}: {network} has no layer {name!r}")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: sparsity must be a number, got {value!r}") from None
        if not (0.0 <= v <= 1.0):  # NaN fails too
            raise ValueError(f"{where}: sparsity must be in [0, 1], got {value!r}")
        if name in out:
            raise ValueError(f"{where}: layer {name!r} given twice")
        out[name] = v
    return out


def _rule(layers: pd.DataFrame, o: Mapping[str, float]) -> dict[str, float]:
    """layer -> output sparsity by the type/depth rule (S1–S6); layers absent are dense."""
    kinds = dict(zip(layers["name"], layers["kind"]))
    inputs = dict(zip(layers["name"], layers["inputs"]))
    sizes = dict(zip(layers["name"], layers["output_bytes"]))
    convs = [n for n in layers["name"] if kinds[n] in _CONV]
    depth = {n: i for i, n in enumerate(convs)}

    def producer(name: str) -> str | None:
        # S2: the nearest conv / dense above a ReLU, through point-wise layers (batchnorm, add).
        seen = 0
        while name in inputs and inputs[name] and seen < 8:
            name = inputs[name][0]
            if kinds[name] in _CONV or kinds[name] == "dense":
                return name
            seen += 1
        return None

    out: dict[str, float] = {}
    for name in layers["name"]:
        kind = kinds[name]
        ins = list(inputs[name])
        if kind in _ZERO_MAKERS:
            p = producer(name)
            if p is not None and kinds[p] == "dense":
                s = o["fc"]
            elif p is not None and depth.get(p, 0) > 0 and len(convs) > 1:
                s = o["first"] + (o["deep"] - o["first"]) * depth[p] / (len(convs) - 1)
            else:
                s = o["first"]
            out[name] = s if o["uniform"] < 0 else o["uniform"]
        elif kind in _POOLS and ins and ins[0] in out:
            out[name] = max(0.0, out[ins[0]] - o["pool"])
        elif kind in _PASS and ins and ins[0] in out:
            out[name] = out[ins[0]]
        elif kind == "concat" and any(i in out for i in ins):
            total = sum(sizes[i] for i in ins)
            out[name] = sum(out.get(i, 0.0) * sizes[i] for i in ins) / total if total else 0.0
    return out


def _calibrate(
    rule: dict[str, float], sizes: Mapping[str, int], fixed: set[str], target: float
) -> dict[str, float]:
    """S6: scale every rule density (1 - s) but the fixed layers' by one factor so that the
    size-weighted sparsity over the rule's layers is ``target``."""
    names = list(rule)
    w = np.array([sizes[n] for n in names], dtype=float)
    s = np.array([rule[n] for n in names])
    free = np.array([n not in fixed for n in names])
    if not names or w.sum() == 0:
        return rule

    def mean(alpha: float) -> float:
        t = np.where(free, np.clip(1 - (1 - s) * alpha, 0.0, 1.0), s)
        return float((t * w).sum() / w.sum())

    hi = 1.0 / max(1e-9, float((1 - s[free]).min())) if free.any() else 1.0
    if not (mean(hi) - 1e-12 <= target <= mean(0.0) + 1e-12):
        raise ValueError(
            f"sparsity target {target}: out of reach of the rule "
            f"(from {mean(hi):.3f} to {mean(0.0):.3f} with these anchors)"
        )
    lo_a, hi_a = 0.0, hi
    for _ in range(100):
        mid = (lo_a + hi_a) / 2
        if mean(mid) > target:
            lo_a = mid
        else:
            hi_a = mid
    a = (lo_a + hi_a) / 2
    return {
        n: (rule[n] if n in fixed else float(np.clip(1 - (1 - rule[n]) * a, 0.0, 1.0)))
        for n in names
    }


def layer_sparsity(
    network: Network, options: Mapping[str, Any] | None = None, sparsity: SparsityLike = None
) -> tuple[dict[str, float], str]:
    """Per layer: the sparsity of its output, and where the values come from (``"rule"``,
    ``"table"`` or ``"table+rule"``). Layers absent are dense (sparsity 0)."""
    o = {**RULE_DEFAULTS, **{k: float(v) for k, v in (options or {}).items() if k in RULE_DEFAULTS}}
    layers = network.layers
    table = _table(sparsity, list(layers["name"]), network.name)
    rule = _rule(layers, o)
    out = {**rule, **table}
    if o["target"] >= 0:
        sizes = dict(zip(layers["name"], layers["output_bytes"]))
        # S6: the table's values and the first conv's output (50 % whatever the training stage,
        # cDMA paper §IV-A) keep theirs.
        fixed = set(table) | set(list(rule)[:1])
        out = _calibrate(out, sizes, fixed, o["target"])
    source = "table" if table and set(rule) <= set(table) else "table+rule" if table else "rule"
    return out, source


def tensor_sparsity(
    network: Network, options: Mapping[str, Any] | None = None, sparsity: SparsityLike = None
) -> tuple[np.ndarray, str]:
    """Per tensor of ``network.schedule`` (its tensor order): the fraction of zero elements
    (activations only; every other role 0), and the source (see :func:`layer_sparsity`)."""
    per_layer, source = layer_sparsity(network, options, sparsity)
    t = network.tensors
    s = [
        per_layer.get(layer, 0.0) if role == "activation" else 0.0
        for layer, role in zip(t["layer"], t["role"])
    ]
    return np.asarray(s, dtype=float), source


# -- measured RLE / zlib ratios ------------------------------------------------------------

_WINDOW = 4096  # bytes per compression window (cDMA paper, §VII-A: 4 KB)


def rle_bytes(words: np.ndarray) -> int:
    """Bytes of a run-length encoding of 32-bit words (R1): a stream of runs, each a 1-byte
    header (1 bit zero / literal, 7 bits length 1–128), literal runs followed by their words."""
    z = words == 0
    if len(z) == 0:
        return 0
    edges = np.flatnonzero(np.diff(z.astype(np.int8))) + 1
    starts = np.concatenate(([0], edges))
    ends = np.concatenate((edges, [len(z)]))
    lengths = ends - starts
    headers = int(np.sum((lengths + 127) // 128))
    literal = int(np.sum(lengths[~z[starts]]))
    return headers + 4 * literal


def pooled_shape(kernel: int, stride: int) -> str:
    """The shape class of a ``kernel`` × ``kernel`` max pool's output at ``stride`` (C3a)."""
    if not (1 <= stride <= kernel <= 16):
        raise ValueError(f"max pool: need 1 <= stride <= kernel <= 16, got {kernel}, {stride}")
    return f"maxpool{kernel}s{stride}"


def _pooled(shape: str) -> tuple[int, int] | None:
    """(kernel, stride) of a :func:`pooled_shape` class, None for ``map`` / ``vector``."""
    if not shape.startswith("maxpool"):
        return None
    k, _, st = shape[len("maxpool") :].partition("s")
    return int(k), int(st)


def _box_field(rng: np.random.Generator, size: int) -> np.ndarray:
    """(4, 16, size − 5, size − 5): Gaussian noise under a 5-wide box filter (a smooth field)."""
    x = rng.standard_normal((4, 16, size, size))
    for axis in (2, 3):
        c = np.cumsum(x, axis=axis)
        x = np.take(c, range(5, c.shape[axis]), axis=axis) - np.take(
            c, range(0, c.shape[axis] - 5), axis=axis
        )
    return x


def _generate(sparsity: float, layout: str, shape: str, seed: int = 0) -> np.ndarray:
    """A float32 activation tensor with a fraction ``sparsity`` of zeros. ``shape``:
    ``"map"`` (N=4, C=16, H=W=32, zeros clustered in space: a smoothed field thresholded,
    as ReLU maps look), ``"vector"`` (N=4 × 4096 features, zeros independent), or a
    :func:`pooled_shape` (C3a: the 32 × 32 output of a max pool of that window and stride,
    run on a larger smoothed field; thresholding after the pool is the same as a ReLU before
    it, max(relu(x)) = relu(max(x)), so the zeros are where the pool puts them and the non-zero
    values repeat where neighbouring windows share their maximum)."""
    rng = np.random.default_rng(seed)
    pooled = _pooled(shape)
    if pooled is not None:
        k, st = pooled
        f = _box_field(rng, 31 * st + k + 5)
        y = np.full((4, 16, 32, 32), -np.inf)
        for i in range(k):
            for j in range(k):
                y = np.maximum(y, f[:, :, i : i + 32 * st : st, j : j + 32 * st : st])
        y = y.astype(np.float32)
        thr = np.quantile(y, sparsity) if sparsity > 0 else -np.inf
        y = np.where(y <= thr, np.float32(0), y).astype(np.float32)
        order = {"nchw": (0, 1, 2, 3), "nhwc": (0, 2, 3, 1), "chwn": (1, 2, 3, 0)}[layout]
        return np.ascontiguousarray(y.transpose(order))
    if shape == "vector":
        v = rng.standard_normal((4, 4096)).astype(np.float32)
        cut = np.quantile(v, sparsity) if sparsity > 0 else -np.inf
        out = np.where(v <= cut, 0.0, np.abs(v)).astype(np.float32)
        return out.T.copy() if layout == "chwn" else out
    x = rng.standard_normal((4, 16, 36, 36))
    for axis in (2, 3):  # 5-wide box filter: spatially correlated field
        c = np.cumsum(x, axis=axis)
        x = np.take(c, range(5, c.shape[axis]), axis=axis) - np.take(
            c, range(0, c.shape[axis] - 5), axis=axis
        )
    x = x[:, :, :32, :32].astype(np.float32)
    thr = np.quantile(x, sparsity) if sparsity > 0 else -np.inf
    y = np.where(x <= thr, np.float32(0), x).astype(np.float32)
    order = {"nchw": (0, 1, 2, 3), "nhwc": (0, 2, 3, 1), "chwn": (1, 2, 3, 0)}[layout]
    return np.ascontiguousarray(y.transpose(order))


@lru_cache(maxsize=4096)
def measured_ratio(
    algorithm: str, sparsity: float, layout: str = "nchw", shape: str = "map"
) -> float:
    """Uncompressed / compressed bytes of a generated tensor (see :func:`_generate`) under
    ``algorithm`` (``"rle"`` or ``"zlib"``, level 6), in independent 4 KB windows. ``sparsity``
    is rounded to 0.01 (the cache's key). ``shape``: ``"map"``, ``"vector"`` or a
    :func:`pooled_shape`."""
    if algorithm not in ("rle", "zlib"):
        raise ValueError(f"algorithm: must be 'rle' or 'zlib', got {algorithm!r}")
    if shape not in ("map", "vector") and _pooled(shape) is None:
        raise ValueError(f"shape: must be map, vector or maxpool<k>s<stride>, got {shape!r}")
    if layout not in ("nchw", "nhwc", "chwn"):
        raise ValueError(f"layout: must be nchw, nhwc or chwn, got {layout!r}")
    s = round(min(1.0, max(0.0, float(sparsity))), 2)
    data = _generate(s, layout, shape).tobytes()
    total = 0
    for i in range(0, len(data), _WINDOW):
        chunk = data[i : i + _WINDOW]
        if algorithm == "zlib":
            total += len(zlib.compress(chunk, 6))
        else:
            total += rle_bytes(np.frombuffer(chunk, dtype=np.uint32))
    return len(data) / max(1, total)


def link_tables(
    link: Part, network: Network, sparsity: SparsityLike = None
) -> tuple[list[float], list[float], str]:
    """The per-tensor inputs of a compressing link (``link_sparsity``, ``link_ratio``, in
    tensor order) and the sparsity's source; empty lists and ``""`` for other links."""
    if link.name not in COMPRESSING_LINKS:
        if sparsity is not None:
            raise ValueError(f"sparsity: link {link.name!r} does not use it (zvc, rle, zlib do)")
        return [], [], ""
    opts = link.option_dict
    s, source = tensor_sparsity(network, opts, sparsity)
    if link.name == "zvc":
        return s.tolist(), [], source
    layout = str(opts.get("layout", "nchw"))
    pooled = str(opts.get("values", "random")) == "pooled"
    t = network.tensors
    layers = network.layers.set_index("name")
    ratio = []
    for si, layer, role in zip(s, t["layer"], t["role"]):
        if role != "activation":
            ratio.append(1.0)
            continue
        shape = layers.at[layer, "output_shape"] if layer in layers.index else ()
        cls = "map" if len(shape) >= 3 else "vector"
        if pooled and cls == "map" and layers.at[layer, "kind"] == "maxpool":
            cls = _maxpool_class(network, layers, layer)
        ratio.append(measured_ratio(link.name, float(si), layout, cls))
    return s.tolist(), ratio, source


def _maxpool_class(network: Network, layers: pd.DataFrame, layer: str) -> str:
    """A max pool's :func:`pooled_shape` (C3a): the window from its forward work (one compare
    per window element per output, kinds.cpp: ``fwd_flops`` = batch · outputs · k²), the stride
    from its input's and output's heights (rounded: ceil-mode pools)."""
    out = layers.at[layer, "output_shape"]
    per_output = layers.at[layer, "fwd_flops"] / (network.batch * int(np.prod(out)))
    k = round(float(per_output) ** 0.5)
    if k < 1 or k * k != round(per_output):
        raise ValueError(f"layer {layer!r}: a max pool whose window is not square ({per_output})")
    src = layers.at[layer, "inputs"][0]
    stride = max(1, round(layers.at[src, "output_shape"][0] / out[0]))
    return pooled_shape(k, min(stride, k))
