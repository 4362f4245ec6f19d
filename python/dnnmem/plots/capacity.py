"""Sweep plots against capacity and batch (thesis Figs. 5.2, 5.3, 5.4 and 5.6).

Each takes a sweep DataFrame (one row per design point, SI base units: ``dnnmem.sweep`` or rows
of ``Result.to_dict()``), keeps the rows matching the filters given (``network=``, ``batch=``,
``policy=``, ``bandwidth=``, ``throughput=``, ``capacity=``: a value, a unit string such as
``"616GB/s"``, or a list), and draws one line (or bar group) per combination of the design-point
columns that still vary. Each returns the matplotlib Axes it drew on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..units import format_throughput
from ._common import BANDWIDTH, BYTES, TIME, context, describe, groups, new_axes, select, title, \
    unit, varying

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["traffic_vs_capacity", "time_vs_capacity", "bandwidth_vs_capacity",
           "throughput_vs_batch"]


def _capacity_axis(ax: Axes, df: pd.DataFrame) -> float:
    factor, name = unit(df["capacity"], BYTES, headroom=10)
    ax.set_xlabel(f"on-chip capacity ({name})")
    ax.grid(True, alpha=0.3)
    return factor


def traffic_vs_capacity(df: pd.DataFrame, *, network: Any = None, batch: Any = None,
                        policy: Any = None, bandwidth: Any = None, throughput: Any = None,
                        ax: Axes | None = None) -> Axes:
    """Off-chip traffic in and out of one iteration against on-chip capacity (thesis Fig. 5.2).

    Needs the columns ``capacity``, ``traffic_in``, ``traffic_out`` (bytes), and any column used
    as a filter. Draws, per remaining group, "in" solid and "out" dashed in one colour; the gap
    between them is the re-fetched data.

    Returns
    -------
    Axes
        Title "Off-chip traffic vs capacity", x in MiB (or the unit that fits), y likewise.

    Raises
    ------
    ValueError
        A needed column missing, no row matching the filters, or two rows at one capacity in a
        group.
    """
    where = "traffic_vs_capacity"
    d = select(df, ["capacity", "traffic_in", "traffic_out"], where, network=network,
               batch=batch, policy=policy, bandwidth=bandwidth, throughput=throughput)
    ax = new_axes(ax)
    xf = _capacity_axis(ax, d)
    yf, yname = unit(d[["traffic_in", "traffic_out"]].to_numpy(), BYTES, headroom=10)
    for i, (label, g) in enumerate(groups(d, "capacity", where)):
        prefix = f"{label}: " if label else ""
        ax.plot(g["capacity"] / xf, g["traffic_in"] / yf, "-", color=f"C{i}",
                label=f"{prefix}in")
        ax.plot(g["capacity"] / xf, g["traffic_out"] / yf, "--", color=f"C{i}",
                label=f"{prefix}out")
    ax.set_ylabel(f"traffic per iteration ({yname})")
    ax.set_ylim(bottom=0)
    title(ax, "Off-chip traffic vs capacity", context(d, ["capacity"]))
    ax.legend(fontsize=8)
    return ax


def time_vs_capacity(df: pd.DataFrame, *, speedup: bool | None = None, network: Any = None,
                     batch: Any = None, policy: Any = None, bandwidth: Any = None,
                     throughput: Any = None, ax: Axes | None = None) -> Axes:
    """Iteration time against capacity, with the speedup of two throughputs (thesis Fig. 5.3).

    Needs ``capacity``, ``time`` and, for the speedup, ``throughput``. One line of time per
    group. When exactly two throughputs remain and nothing else varies, the speedup
    time(lower throughput) / time(higher) at each capacity both have goes on a twin right axis,
    with its bound, the throughput ratio (23.04/13.45 = 1.71 in the thesis), dashed.

    Parameters
    ----------
    speedup : bool, optional
        None (default): draw it when possible; True: raise if not possible; False: never.

    Returns
    -------
    Axes
        The left (time) axes; the speedup axes, when drawn, is ``ax.figure.axes[-1]``. One legend
        for both.

    Raises
    ------
    ValueError
        A needed column missing, no matching row, duplicates, or ``speedup=True`` without exactly
        two throughputs (and nothing else varying).
    """
    where = "time_vs_capacity"
    need = ["capacity", "time"] + (["throughput"] if speedup else [])
    d = select(df, need, where, network=network, batch=batch, policy=policy,
               bandwidth=bandwidth, throughput=throughput)
    ax = new_axes(ax)
    xf = _capacity_axis(ax, d)
    tf, tname = unit(d["time"], TIME)
    for i, (label, g) in enumerate(groups(d, "capacity", where)):
        ax.plot(g["capacity"] / xf, g["time"] / tf, "-o", ms=3, color=f"C{i}",
                label=f"time {label}".strip())
    ax.set_ylabel(f"time per iteration ({tname})")
    ax.set_ylim(bottom=0)
    handles, labels = ax.get_legend_handles_labels()
    can = ("throughput" in d.columns and d["throughput"].nunique() == 2
           and varying(d, ["capacity"]) == ["throughput"])
    if speedup and not can:
        raise ValueError(f"{where}: speedup needs exactly two throughputs and nothing else "
                         f"varying besides capacity; filter the rows (varying now: "
                         f"{varying(d, ['capacity'])})")
    if can and speedup is not False:
        lo, hi = sorted(d["throughput"].unique())
        t = d.pivot(index="capacity", columns="throughput", values="time").dropna()
        right = ax.twinx()
        right.plot(t.index / xf, t[lo] / t[hi], "-", color="k", lw=1.2,
                   label=f"speedup {format_throughput(hi)} / {format_throughput(lo)}")
        bound = hi / lo
        right.axhline(bound, color="k", ls="--", lw=1,
                      label=f"bound {hi / 1e12:.4g}/{lo / 1e12:.4g} = {bound:.2f}")
        right.set_ylabel("speedup (×)")
        right.set_ylim(0.9, bound * 1.1)
        h2, l2 = right.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    title(ax, "Iteration time vs capacity", context(d, ["capacity"]))
    ax.legend(handles, labels, fontsize=8, loc="center right")
    return ax


def bandwidth_vs_capacity(df: pd.DataFrame, *, peak: bool = True, network: Any = None,
                          batch: Any = None, policy: Any = None, bandwidth: Any = None,
                          throughput: Any = None, ax: Axes | None = None) -> Axes:
    """Average off-chip bandwidth (Eq. 4.1) against capacity (thesis Fig. 5.4).

    Needs ``capacity``, ``avg_bandwidth`` (bytes/s) and, with ``peak=True``, ``bandwidth``: each
    group's peak is drawn dotted in its colour.

    Returns
    -------
    Axes
        y in GB/s (or the unit that fits); one legend entry per line.

    Raises
    ------
    ValueError
        A needed column missing, no matching row, or duplicates.
    """
    where = "bandwidth_vs_capacity"
    need = ["capacity", "avg_bandwidth"] + (["bandwidth"] if peak else [])
    d = select(df, need, where, network=network, batch=batch, policy=policy,
               bandwidth=bandwidth, throughput=throughput)
    ax = new_axes(ax)
    xf = _capacity_axis(ax, d)
    cols = ["avg_bandwidth"] + (["bandwidth"] if peak else [])
    yf, yname = unit(d[cols].to_numpy(), BANDWIDTH, headroom=10)
    for i, (label, g) in enumerate(groups(d, "capacity", where)):
        ax.plot(g["capacity"] / xf, g["avg_bandwidth"] / yf, "-o", ms=3, color=f"C{i}",
                label=f"average {label}".strip())
        if peak:
            for bw in g["bandwidth"].unique():
                ax.axhline(bw / yf, color=f"C{i}", ls=":", lw=1,
                           label=f"peak {describe('bandwidth', bw)}")
    ax.set_ylabel(f"average bandwidth ({yname})")
    ax.set_ylim(bottom=0)
    title(ax, "Average off-chip bandwidth vs capacity", context(d, ["capacity"]))
    ax.legend(fontsize=8)
    return ax


def throughput_vs_batch(df: pd.DataFrame, *, network: Any = None, policy: Any = None,
                        capacity: Any = None, bandwidth: Any = None, throughput: Any = None,
                        ax: Axes | None = None) -> Axes:
    """Training throughput in samples/s (Eq. 5.2) against batch size (thesis Fig. 5.6).

    Needs ``batch`` and ``samples_per_s``. Grouped bars: one group per batch, one bar per
    combination of the other design-point columns that vary (the thesis: 24 MB and 400 MB).

    Returns
    -------
    Axes
        x the batch sizes, y in samples/s; one legend entry per bar series (none if only one).

    Raises
    ------
    ValueError
        A needed column missing, no matching row, or duplicates.
    """
    where = "throughput_vs_batch"
    d = select(df, ["batch", "samples_per_s"], where, network=network, policy=policy,
               capacity=capacity, bandwidth=bandwidth, throughput=throughput)
    ax = new_axes(ax)
    batches = np.sort(d["batch"].unique())
    pos = {b: i for i, b in enumerate(batches)}
    parts = groups(d, "batch", where)
    width = 0.8 / len(parts)
    for i, (label, g) in enumerate(parts):
        x = np.array([pos[b] for b in g["batch"]]) - 0.4 + width * (i + 0.5)
        ax.bar(x, g["samples_per_s"], width, color=f"C{i}", label=label or None)
    ax.set_xticks(range(len(batches)))
    ax.set_xticklabels([str(b) for b in batches])
    ax.set_xlabel("batch size (samples)")
    ax.set_ylabel("throughput (samples/s)")
    ax.grid(True, axis="y", alpha=0.3)
    title(ax, "Training throughput vs batch size", context(d, ["batch"]))
    if len(parts) > 1:
        ax.legend(fontsize=8)
    return ax
