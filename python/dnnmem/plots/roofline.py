"""Rooflines: the thesis's modified roofline (Fig. 5.1) and a classic one from an estimate.

Modified roofline (no cache, no estimate): each layer at x = its reuse frequency rf(l) (Eq. 3.4,
FLOPs of its step over the bytes that step accesses), y = min(rf(l) × bandwidth, throughput)
(Eq. 5.1). The ridge point throughput / bandwidth (Eq. 3.2) splits memory-bound from
compute-bound layers; type-I layers (convolution, dense: each output from many inputs) and type-II
layers (point-wise: batch norm, activations, add) are coloured apart.

Classic roofline of an estimate: each step at x = its FLOPs over the link bytes of its own
off-chip accesses (``link_streamed_in + link_streamed_out`` of :attr:`Result.steps`: the
operands that are not on chip, read and written while it computes, as they cross the link —
after compression; the bytes themselves for the ``raw`` link), y = its FLOPs over its time. That
is what the roof bounds: those transfers are issued at the step's start and due at its end, and
each takes at least its bytes on the wire / bandwidth (a link's efficiency and compressor cap
only lengthen it), so the step lasts at least link bytes / bandwidth and at least FLOPs /
throughput, and every point lies on or under the roof, for every link. (With the uncompressed
bytes on x, a compressing link would put steps above the roof: their time follows the link
bytes.) Prefetches and offloads are left out on purpose: they move while other steps
compute (that overlap is the point of the policy), so counting them where they are issued (or
where their data is used) would put steps above the roof.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Union

from .._lazy import LazyModule
from .._optional import require
from ..units import format_bandwidth, format_bytes, format_throughput
from ._common import FLOPS, new_axes, outside_legend, title, unit

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..estimate import Result
    from ..network import Network

__all__ = ["modified_roofline", "modified_roofline_grid", "roofline"]

NetworksLike = Union["Network", str, Sequence[Union["Network", str]]]

#: RTX 2080 Ti, thesis Table 5.2: the hardware of Fig. 5.1's ridge point.
RTX_2080_TI_BANDWIDTH = 616e9
RTX_2080_TI_THROUGHPUT = 13.45e12

_CLASS_COLOR = {"I": "C0", "II": "C1", "loss": "C2"}
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _networks(networks: NetworksLike, batch: int) -> list[Network]:
    from ..network import Network
    from ..zoo import network as zoo_network

    items = [networks] if isinstance(networks, (str, Network)) else list(networks)
    if not items:
        raise ValueError("networks: give at least one network")
    out = []
    for n in items:
        if isinstance(n, str):
            out.append(zoo_network(n, batch=batch))
        elif isinstance(n, Network):
            out.append(n)
        else:
            raise TypeError(
                f"networks: expected a dnnmem.Network or a built-in name, got {type(n).__name__}"
            )
    return out


def _check_rates(bandwidth: float, throughput: float) -> None:
    for name, v in (("bandwidth", bandwidth), ("throughput", throughput)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name}: must be a number > 0 (SI units), got {v!r}")


def layer_points(network: Network, phases: Sequence[str] = ("fwd", "bwd")) -> pd.DataFrame:
    """One row per (layer, phase) with a step and a reuse frequency > 0: ``name``, ``kind``,
    ``class``, ``phase``, ``rf`` (FLOP/byte). Folded layers and inputs have no class and no step
    and are left out, as are steps with no FLOPs (rf = 0 has no place on a log axis)."""
    bad = [p for p in phases if p not in ("fwd", "bwd")]
    if bad or not phases:
        raise ValueError(f"phases: expected 'fwd' and/or 'bwd', got {list(phases)!r}")
    L = network.layers
    parts = []
    for p in phases:
        part = L[["name", "kind", "class"]].assign(phase=p, rf=L[f"rf_{p}"])
        parts.append(part)
    pts = pd.concat(parts, ignore_index=True)
    return pts[(pts["class"] != "") & (pts["rf"] > 0)].reset_index(drop=True)


def _roof(ax: Axes, xlo: float, xhi: float, bandwidth: float, throughput: float, yf: float) -> None:
    ridge = throughput / bandwidth
    xs = np.geomspace(min(xlo, ridge) / 2, max(xhi, ridge) * 2, 200)
    ax.plot(
        xs,
        np.minimum(xs * bandwidth, throughput) / yf,
        "k-",
        lw=1.2,
        label=f"roof: {format_bandwidth(bandwidth)}, {format_throughput(throughput)}",
    )
    ax.axvline(ridge, color="k", ls="--", lw=1, label=f"ridge point {ridge:.3g} FLOP/byte")


def modified_roofline(
    networks: NetworksLike,
    *,
    bandwidth: float = RTX_2080_TI_BANDWIDTH,
    throughput: float = RTX_2080_TI_THROUGHPUT,
    phases: Sequence[str] = ("fwd", "bwd"),
    batch: int = 1,
    ax: Axes | None = None,
) -> Axes:
    """The thesis's modified roofline (Fig. 5.1): reuse frequency per layer, type I / II.

    Parameters
    ----------
    networks : Network, str, or a list of them
        A loaded network, or a built-in name loaded at ``batch``. Several networks share the
        axes, one marker each.
    bandwidth, throughput : float
        bytes/s and FLOP/s of the roof; default RTX 2080 Ti (616 GB/s, 13.45 TFLOP/s, thesis
        Table 5.2), whose ridge point is 21.8 FLOP/byte. They move only the roof and the y of
        the points, not their x.
    phases : sequence of "fwd", "bwd"
        Which steps of each layer to show (both by default, as separate points).
    batch : int
        Batch of the networks given by name (reuse frequency depends on it: a weight is reused
        by every sample). The thesis: 32 for ResNet-50, 128 for the Transformer (Table 5.1).
    ax : Axes, optional

    Returns
    -------
    Axes
        Log-log; legend (outside the axes): roof, ridge point, then "<network> type I (n)" and
        "type II (n)".

    Raises
    ------
    ValueError
        Non-positive bandwidth or throughput, bad phases, or no network.
    """
    _check_rates(bandwidth, throughput)
    nets = _networks(networks, batch)
    pts = [layer_points(n, phases) for n in nets]
    ax = new_axes(ax)
    yf, yname = unit(throughput, FLOPS)
    allx = np.concatenate([p["rf"].to_numpy() for p in pts] + [np.array([1.0])])
    _roof(ax, float(allx.min()), float(allx.max()), bandwidth, throughput, yf)
    for i, (net, p) in enumerate(zip(nets, pts)):
        marker = _MARKERS[i % len(_MARKERS)]
        prefix = f"{net.name} " if len(nets) > 1 else ""
        for cls in ("I", "II"):
            q = p[p["class"] == cls]
            if q.empty:
                continue
            y = np.minimum(q["rf"] * bandwidth, throughput) / yf
            ax.scatter(
                q["rf"],
                y,
                s=18,
                marker=marker,
                facecolors="none",
                edgecolors=_CLASS_COLOR[cls],
                label=f"{prefix}type {cls} ({len(q)})",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("reuse frequency (FLOP/byte)")
    ax.set_ylabel(f"attainable performance ({yname})")
    ax.grid(True, which="both", alpha=0.25)
    sub = ", ".join(f"{n.name} N={n.batch}" for n in nets) + f" · {'+'.join(phases)} steps"
    title(ax, "Modified roofline (thesis Fig. 5.1)", sub)
    outside_legend(ax)
    return ax


def modified_roofline_grid(
    networks: NetworksLike,
    *,
    ncols: int = 2,
    bandwidth: float = RTX_2080_TI_BANDWIDTH,
    throughput: float = RTX_2080_TI_THROUGHPUT,
    phases: Sequence[str] = ("fwd", "bwd"),
    batch: int = 1,
) -> Figure:
    """One :func:`modified_roofline` panel per network, same roof (the layout of Fig. 5.1a–d).

    Returns
    -------
    Figure
        With one axes per network (titles name them), sharing the y range.
    """
    require("matplotlib", "drawing plots")
    import matplotlib.pyplot as plt

    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols: must be an integer >= 1, got {ncols!r}")
    nets = _networks(networks, batch)
    ncols = min(ncols, len(nets))
    nrows = -(-len(nets) // ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(5.2 * ncols, 4.2 * nrows),
        squeeze=False,
        sharey=True,
        layout="constrained",
    )
    for net, ax in zip(nets, axes.flat):
        modified_roofline(net, bandwidth=bandwidth, throughput=throughput, phases=phases, ax=ax)
    for ax in list(axes.flat)[len(nets) :]:
        ax.set_visible(False)
    return fig


def roofline(result: Result, *, ax: Axes | None = None) -> Axes:
    """A classic roofline with the achieved performance of every step of one estimate.

    Each step is drawn at x = FLOPs / the link bytes of its streamed off-chip accesses
    (``link_streamed_in + link_streamed_out`` of :attr:`Result.steps`: its own operands that
    are not on chip, as they cross the link: compressed by a compressing link, the bytes
    themselves for ``raw``), y = FLOPs / its time. The roof min(throughput, bandwidth × x) bounds
    every point, for every link (a step lasts at least its compute time and at least its
    streamed link bytes / bandwidth), so a point under the roof shows time lost to other
    transfers, to capacity waits, or to the link's efficiency or compressor cap. Steps whose data is all on
    chip (no streamed byte: x is infinite) are drawn at the right edge with a ▷ marker; steps
    with no FLOPs or no time are left out and counted in the title.

    Returns
    -------
    Axes
        Log-log; x "operational intensity (FLOP per link byte of the step's own off-chip
        accesses)", y in
        TFLOP/s (or the unit that fits); legend outside the axes: roof, ridge point, one entry
        per step class present (type I, type II, loss) and one for the steps with all data on
        chip.

    Raises
    ------
    TypeError
        ``result`` is not a :class:`dnnmem.Result`.
    """
    from ..estimate import Result

    if not isinstance(result, Result):
        raise TypeError(f"result: expected a dnnmem.Result, got {type(result).__name__}")
    s = result.steps
    flops = s["flops"].to_numpy(dtype=float)
    seconds = s["time"].to_numpy(dtype=float)
    moved = (s["link_streamed_in"] + s["link_streamed_out"]).to_numpy(dtype=float)
    ok = (flops > 0) & (seconds > 0)
    with np.errstate(divide="ignore"):
        oi = np.where(moved > 0, flops / np.where(moved > 0, moved, 1.0), np.inf)
    perf = np.where(ok, flops / np.where(seconds > 0, seconds, 1.0), 0.0)
    hw = result.hardware
    ax = new_axes(ax)
    yf, yname = unit(hw.throughput, FLOPS)
    finite = ok & np.isfinite(oi)
    ridge = hw.throughput / hw.bandwidth
    lo = float(oi[finite].min()) if finite.any() else ridge
    hi = float(oi[finite].max()) if finite.any() else ridge
    _roof(ax, lo, hi, hw.bandwidth, hw.throughput, yf)
    xmax = max(hi, ridge) * 2  # the roof's right end: where the on-chip-only steps go
    cls = s["class"].where(s["phase"] != "loss", "loss").to_numpy()
    for c in ("I", "II", "loss"):
        m = finite & (cls == c)
        if m.any():
            name = "loss" if c == "loss" else f"type {c}"
            ax.scatter(
                oi[m],
                perf[m] / yf,
                s=14,
                alpha=0.7,
                color=_CLASS_COLOR[c],
                label=f"{name} steps ({int(m.sum())})",
            )
    on_chip = ok & ~np.isfinite(oi)
    if on_chip.any():
        ax.scatter(
            np.full(int(on_chip.sum()), xmax),
            perf[on_chip] / yf,
            s=22,
            marker=">",
            facecolors="none",
            edgecolors="0.35",
            label=f"all data on chip ({int(on_chip.sum())}):\nx = ∞, drawn at the edge",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(right=xmax * 1.6)
    ax.set_xlabel("operational intensity (FLOP per link byte of the step's own off-chip accesses)")
    ax.set_ylabel(f"achieved performance ({yname})")
    ax.grid(True, which="both", alpha=0.25)
    skipped = int((~ok).sum())
    note = f"\n{skipped} of {len(s)} steps have no FLOPs and are not shown" if skipped else ""
    net = result.network
    title(
        ax,
        "Roofline: achieved performance per step",
        f"{net.name} N={net.batch} · {result.policy} · {format_bytes(hw.capacity)} · "
        f"{format_bandwidth(hw.bandwidth)} · {format_throughput(hw.throughput)}{note}",
    )
    outside_legend(ax)
    return ax
