"""The cDMA paper's view of compressed offload: its GPUs, its link bandwidths, its report.

The compressing links themselves (``zvc``, ``rle``, ``zlib``) and their per-tensor inputs —
activation sparsity, measured RLE / zlib ratios — are in :mod:`dnnmem.compression` (re-exported
here: :func:`tensor_sparsity`, :func:`layer_sparsity`, :func:`measured_ratio`,
:func:`rle_bytes`, :func:`link_tables`). This module adds what the paper reports on top of
:func:`dnnmem.estimate`:

* :func:`gpu` — a GPU as the paper sees it (the cache is its memory, the link PCIe);
* :func:`dram_rate`, :func:`buffer_bytes` — the compressor's DRAM read rate and DMA buffer;
* :func:`compute_slowdown`, :func:`measured_gpu` — a GPU no faster than the memory rate the
  paper measured its compute at (§VI, :data:`MEASURED_COMPUTE_RATE`; docs/model/cdma.md G1);
* :func:`compare` — the cDMA paper's report: time beside the oracle, normalised performance,
  gain over vDNN, logical and physical link bytes, compression ratios, the DRAM read rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ._lazy import LazyModule
from .compression import (
    COMPRESSING_LINKS,
    RULE_DEFAULTS,
    SparsityLike,
    layer_sparsity,
    link_tables,
    measured_ratio,
    rle_bytes,
    tensor_sparsity,
)
from .estimate import estimate
from .presets import _lookup as lookup
from .presets import hardware, load_presets

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .hardware import Hardware
    from .policy import PolicyLike
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "COMPRESSING_LINKS",
    "LINK_BANDWIDTHS",
    "MEASURED_COMPUTE_RATE",
    "RULE_DEFAULTS",
    "buffer_bytes",
    "dram_rate",
    "gpu",
    "layer_sparsity",
    "SparsityLike",
    "compare",
    "compute_slowdown",
    "link_tables",
    "measured_gpu",
    "measured_ratio",
    "rle_bytes",
    "tensor_sparsity",
]

#: The link bandwidths of the cDMA paper (§III, §VIII), per GPU: a sweep axis.
LINK_BANDWIDTHS = {
    "pcie3-shared4": 8e9,  # 4 GPUs sharing 32 GB/s to one socket
    "pcie3": 16e9,  # PCIe gen3 x16
    "pcie4": 32e9,  # gen4 x16 (2x gen3)
    "nvlink-power": 80e9,  # NVLink to an IBM POWER CPU
}


def gpu(name: str = "titan-xp", link: str | float = "16GB/s", **overrides: Any) -> Hardware:
    """A GPU as the cDMA paper sees it: the cache is the GPU's memory (``capacity`` = its
    DRAM, 12 GB on both Titans), the link is PCIe (``bandwidth``, 16 GB/s gen3 by default),
    ``throughput`` the preset's FP32 peak. ``name``: ``"titan-x-maxwell"`` or ``"titan-xp"``
    (any preset with a ``memory`` size)."""
    memory = load_presets()[lookup(name)]["memory"]
    if not memory:
        raise ValueError(f"gpu: preset {name!r} has no memory size")
    return hardware(name, **{"capacity": memory, "bandwidth": link, **overrides})


def _amount(name: str, value: float, *, positive: bool = False, at_most: float = math.inf) -> float:
    """`value` as a float, or a ValueError naming the argument: finite, >= 0 (> 0 if
    ``positive``), at most ``at_most``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__}")
    v = float(value)
    low_ok = v > 0 if positive else v >= 0
    if not (math.isfinite(v) and low_ok and v <= at_most):
        bound = "> 0" if positive else ">= 0"
        if at_most != math.inf:
            bound += f" and <= {at_most:g}"
        raise ValueError(f"{name}: must be a finite number {bound}, got {value!r}")
    return v


def dram_rate(ratio: float, bandwidth: float, efficiency: float = 1.0) -> float:
    """The GPU-memory read rate a compressor needs to keep the link busy with data compressed
    ``ratio``:1 (cDMA paper §V-B: 16 GB/s x 13.8 = 220.8 GB/s): bytes/s, from ``bandwidth`` in
    bytes/s and the link's ``efficiency`` (in (0, 1], as the links' option). A negative
    bandwidth, a ratio <= 0, an efficiency outside (0, 1], NaN or infinity is a ``ValueError``
    naming the argument."""
    return (
        _amount("ratio", ratio, positive=True)
        * _amount("bandwidth", bandwidth)
        * _amount("efficiency", efficiency, positive=True, at_most=1.0)
    )


def buffer_bytes(cap: float, latency: float = 350e-9) -> float:
    """The DMA buffer that covers the memory latency at the compressor's read rate (cDMA paper
    §V-C: 200 GB/s x 350 ns = 70 KB): bytes, from ``cap`` in bytes/s and ``latency`` in s. A
    negative, NaN or infinite argument is a ``ValueError`` naming it."""
    return _amount("cap", cap) * _amount("latency", latency)


#: The GPU-memory bandwidth the cDMA paper measured its networks' compute to use (§VI: "Using
#: the NVIDIA CUDA profiler (nvprof), we observed less than an average of 100 GB/sec of
#: off-chip memory bandwidth utilization across all six networks", on the Maxwell Titan X).
MEASURED_COMPUTE_RATE = 100e9


def compute_slowdown(
    network: Any,
    hardware: Hardware,
    rate: float = MEASURED_COMPUTE_RATE,
    *,
    batch: int | None = None,
) -> float:
    """How much slower than ``hardware``'s compute model a GPU whose compute averages at most
    ``rate`` bytes/s of its own memory runs ``network`` (docs/model/cdma.md, rule G1).

    *k* = max(1, *B* / (``rate`` · *T*)): *B* the bytes the iteration's steps read and write
    (:attr:`Network.steps`' ``bytes_read`` + ``bytes_written``, the operands of every step, the
    least a GPU moves through its memory when no tensor stays in its caches), *T* the
    iteration's compute time on ``hardware`` (the ``oracle`` policy's time). A network whose
    compute at ``hardware``'s speed would average more than ``rate`` gets *k* > 1; one that
    averages less, 1. ``rate`` in bytes/s, > 0 (a ``ValueError`` naming it otherwise).
    """
    r = estimate(network, hardware, "oracle", batch=batch)
    steps = r.network.steps
    moved = int(steps["bytes_read"].sum() + steps["bytes_written"].sum())
    return max(1.0, moved / (_amount("rate", rate, positive=True) * r.time))


def measured_gpu(
    network: Any,
    hardware: Hardware,
    rate: float = MEASURED_COMPUTE_RATE,
    *,
    batch: int | None = None,
    measured_on: Hardware | None = None,
) -> Hardware:
    """``hardware`` with its throughput divided by :func:`compute_slowdown` of ``network`` on
    ``measured_on`` (default ``hardware`` itself) at ``rate``: the compute of a GPU that the
    paper measured at that memory rate (docs/model/cdma.md, rule G1). The cDMA paper measured
    the Maxwell Titan X; ``measured_on=gpu("titan-x-maxwell")`` carries its slow-down to
    another GPU running the same kernels."""
    k = compute_slowdown(network, measured_on or hardware, rate, batch=batch)
    return replace(hardware, throughput=hardware.throughput / k)


def _map_bytes(result: Any, sparsity: SparsityLike) -> tuple[int, int]:
    """Logical and wire bytes of the transfers of the layers' activation maps: activations
    whose layer is not a network input (an input image is data, not an activation map)."""
    net = result.network
    t = net.tensors
    inputs = set(net.layers["name"][net.layers["kind"] == "input"])
    maps = np.asarray(
        [r == "activation" and x not in inputs for r, x in zip(t["role"], t["layer"])]
    )
    x = result._core.transfer_table()
    keep = maps[x["tensor"]] if len(x["tensor"]) else np.zeros(0, dtype=bool)
    logical = int(x["bytes"][keep].sum())
    if result.composition.link.name not in COMPRESSING_LINKS:
        return logical, logical
    prepared = result.composition.prepare(net.schedule, result.ops_per_mac, net, sparsity)
    wire = sum(
        prepared.link_wire_bytes(int(i), int(b))
        for i, b in zip(x["tensor"][keep], x["bytes"][keep])
    )
    return logical, int(wire)


def compare(
    network: Any,
    hardware: Hardware,
    policies: Sequence[PolicyLike],
    *,
    batch: int | None = None,
    sparsity: SparsityLike = None,
    baseline: PolicyLike = "vdnn-all",
    oracle: PolicyLike = "oracle",
) -> pd.DataFrame:
    """One row per policy: the cDMA paper's report (docs/model/cdma.md, "Report").

    ``baseline`` (the ``gain``'s reference) and ``oracle`` (the ``performance``'s) are policies
    too: when ``policies`` carry a fusion level or a compute model, give both the same one, so
    that every ratio compares like with like (``oracle="oracle + fusion=accelerator"``).

    Columns: ``policy``, ``time``, ``oracle_time`` (compute only), ``performance``
    (oracle / policy), ``gain`` (baseline time / policy time - 1), ``traffic`` and ``link``
    (logical and physical bytes across the link), ``ratio`` (traffic / link: the size-weighted
    network compression ratio), ``map_ratio`` (the same over the layers' activation maps alone:
    the transfers of activations other than the network's inputs, the paper's Fig. 11 average
    as its text defines it; docs/model/cdma.md, rule R), ``max_ratio`` (largest per-tensor ratio
    among the activations moved), ``dram_rate`` (the DRAM read rate a compressor needs to keep
    the link busy: ``max_ratio × bandwidth × efficiency``, capped by the link's ``cap``),
    ``sparsity_source``.
    """
    rows = []
    oracle_time = estimate(network, hardware, oracle, batch=batch).time
    base = estimate(network, hardware, baseline, batch=batch).time
    for p in policies:
        r = estimate(network, hardware, p, batch=batch, sparsity=sparsity)
        traffic = r.traffic_in + r.traffic_out
        link = r.link_in + r.link_out
        max_ratio = r.max_link_ratio
        opts = r.composition.link.option_dict
        rate = dram_rate(max_ratio, hardware.bandwidth, float(opts.get("efficiency", 1.0)))
        cap = float(opts.get("cap", 0.0))
        maps, maps_link = _map_bytes(r, sparsity)
        rows.append(
            {
                "policy": r.policy,
                "time": r.time,
                "oracle_time": oracle_time,
                "performance": oracle_time / r.time,
                "gain": base / r.time - 1,
                "traffic": traffic,
                "link": link,
                "ratio": traffic / link if link else math.nan,
                "map_ratio": maps / maps_link if maps_link else math.nan,
                "max_ratio": max_ratio,
                "dram_rate": min(rate, cap) if cap > 0 else rate,
                "sparsity_source": r.sparsity_source,
            }
        )
    return pd.DataFrame(rows)
