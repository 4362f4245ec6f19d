"""Sweep plots against capacity and batch (thesis Figs. 5.2, 5.3, 5.4 and 5.6).

Each takes a sweep DataFrame (one row per design point, SI base units: ``dnnmem.sweep`` or rows
of ``Result.to_dict()``), keeps the rows matching the filters given (``network=``, ``batch=``,
``policy=``, ``bandwidth=``, ``throughput=``, ``capacity=``: a value, a unit string such as
``"616GB/s"``, or several in a list, tuple, set, range, array or Series; typed
``NameFilter``, ``BatchFilter``, ``AmountFilter``), and draws one line (or bar
group) per combination of the design-point columns that still vary. Each returns the
matplotlib Axes it drew on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import LazyModule
from .._optional import require
from ..units import format_throughput
from . import style
from ._common import (
    BANDWIDTH,
    BYTES,
    TIME,
    AmountFilter,
    BatchFilter,
    NameFilter,
    check_frame,
    context,
    describe,
    groups,
    new_axes,
    outside_legend,
    select,
    title,
    unit,
    varying,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "traffic_vs_capacity",
    "time_vs_capacity",
    "bandwidth_vs_capacity",
    "throughput_vs_batch",
    "sweep_overview",
]


def _color(i: int, n: int) -> Any:
    """The colour of series i of n: matplotlib's 10-colour cycle, or tab20 beyond 10 series."""
    if n <= 10:
        return f"C{i}"
    import matplotlib

    return matplotlib.colormaps["tab20"](i % 20)


def _style_keys() -> list[Any]:
    """Legend entries for the line styles of traffic plots: in solid, out dashed."""
    from matplotlib.lines import Line2D

    return [
        Line2D([], [], color="k", ls="-", label="traffic in"),
        Line2D([], [], color="k", ls="--", label="traffic out"),
    ]


def _capacity_axis(ax: Axes, df: pd.DataFrame) -> float:
    factor, name = unit(df["capacity"], BYTES, headroom=10)
    ax.set_xlabel(f"on-chip capacity ({name})")
    ax.grid(True, alpha=0.3)
    return factor


def _against_capacity(
    df: pd.DataFrame, need: list[str], where: str, ax: Axes | None, **filters: Any
) -> tuple[Axes, pd.DataFrame, float]:
    """The rows of ``df`` a plot against capacity draws (``filters``: network, batch, policy,
    bandwidth, throughput), the axes it draws on with the capacity axis set up, and that axis'
    unit factor."""
    d = select(df, need, where, **filters)
    ax = new_axes(ax)
    return ax, d, _capacity_axis(ax, d)


def _marked_lines(
    ax: Axes, parts: list[tuple[str, pd.DataFrame]], y: str, xf: float, yf: float, name: str
) -> None:
    """One marked line per group of ``parts``: ``y / yf`` against capacity, labelled
    ``"<name> <group>"``."""
    for i, (label, g) in enumerate(parts):
        ax.plot(
            g["capacity"] / xf,
            g[y] / yf,
            "-o",
            ms=3,
            color=_color(i, len(parts)),
            label=f"{name} {label}".strip(),
        )


def traffic_vs_capacity(
    df: pd.DataFrame,
    *,
    network: NameFilter = None,
    batch: BatchFilter = None,
    policy: NameFilter = None,
    bandwidth: AmountFilter = None,
    throughput: AmountFilter = None,
    ax: Axes | None = None,
) -> Axes:
    """Off-chip traffic in and out of one iteration against on-chip capacity (thesis Fig. 5.2).

    Needs the columns ``capacity``, ``traffic_in``, ``traffic_out`` (bytes), and any column used
    as a filter. Draws, per remaining group, "in" solid and "out" dashed in one colour; the gap
    between them is the re-fetched data. Groups with identical traffic are one line with one
    legend entry naming them all. The legend is outside the axes, on the right: one entry per
    group (its colour) and the two line styles.

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
    ax, d, xf = _against_capacity(
        df,
        ["capacity", "traffic_in", "traffic_out"],
        where,
        ax,
        network=network,
        batch=batch,
        policy=policy,
        bandwidth=bandwidth,
        throughput=throughput,
    )
    yf, yname = unit(d[["traffic_in", "traffic_out"]].to_numpy(), BYTES, headroom=10)
    parts = groups(d, "capacity", where, values=["traffic_in", "traffic_out"])
    for i, (label, g) in enumerate(parts):
        color = _color(i, len(parts))
        ax.plot(
            g["capacity"] / xf, g["traffic_in"] / yf, "-", color=color, label=label or "traffic in"
        )
        ax.plot(
            g["capacity"] / xf,
            g["traffic_out"] / yf,
            "--",
            color=color,
            label="_nolegend_" if label else "traffic out",
        )
    ax.set_ylabel(f"traffic per iteration ({yname})")
    ax.set_ylim(bottom=0)
    title(ax, "Off-chip traffic vs capacity", context(d, ["capacity"]))
    handles, labels = ax.get_legend_handles_labels()
    if len(parts) > 1 or parts[0][0]:
        keys = _style_keys()
        handles, labels = handles + keys, labels + [k.get_label() for k in keys]
    outside_legend(ax, handles, labels)
    return ax


def time_vs_capacity(
    df: pd.DataFrame,
    *,
    speedup: bool | None = None,
    network: NameFilter = None,
    batch: BatchFilter = None,
    policy: NameFilter = None,
    bandwidth: AmountFilter = None,
    throughput: AmountFilter = None,
    ax: Axes | None = None,
) -> Axes:
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
    ax, d, xf = _against_capacity(
        df,
        need,
        where,
        ax,
        network=network,
        batch=batch,
        policy=policy,
        bandwidth=bandwidth,
        throughput=throughput,
    )
    tf, tname = unit(d["time"], TIME)
    _marked_lines(ax, groups(d, "capacity", where, values=["time"]), "time", xf, tf, "time")
    ax.set_ylabel(f"time per iteration ({tname})")
    ax.set_ylim(bottom=0)
    handles, labels = ax.get_legend_handles_labels()
    can = (
        "throughput" in d.columns
        and d["throughput"].nunique() == 2
        and varying(d, ["capacity"]) == ["throughput"]
    )
    if speedup and not can:
        raise ValueError(
            f"{where}: speedup needs exactly two throughputs and nothing else "
            f"varying besides capacity; filter the rows (varying now: "
            f"{varying(d, ['capacity'])})"
        )
    twin = can and speedup is not False
    if twin:
        lo, hi = sorted(d["throughput"].unique())
        t = d.pivot(index="capacity", columns="throughput", values="time").dropna()
        right = ax.twinx()
        right.plot(
            t.index / xf,
            t[lo] / t[hi],
            "-",
            color="k",
            lw=1.2,
            label=f"speedup {format_throughput(hi)} / {format_throughput(lo)}",
        )
        bound = hi / lo
        right.axhline(
            bound,
            color="k",
            ls="--",
            lw=1,
            label=f"bound {hi / 1e12:.4g}/{lo / 1e12:.4g} = {bound:.2f}",
        )
        right.set_ylabel("speedup (×)")
        right.set_ylim(0.9, bound * 1.1)
        h2, l2 = right.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    title(ax, "Iteration time vs capacity", context(d, ["capacity"]))
    # With the speedup's axis on the right, the legend goes below the axes.
    outside_legend(ax, handles, labels, below=twin)
    return ax


def bandwidth_vs_capacity(
    df: pd.DataFrame,
    *,
    relative: bool = True,
    peak: bool = True,
    network: NameFilter = None,
    batch: BatchFilter = None,
    policy: NameFilter = None,
    bandwidth: AmountFilter = None,
    throughput: AmountFilter = None,
    ax: Axes | None = None,
) -> Axes:
    """Average off-chip bandwidth (Eq. 4.1) against capacity (thesis Fig. 5.4).

    Needs ``capacity``, ``avg_bandwidth`` (bytes/s) and, with ``relative`` or ``peak``,
    ``bandwidth`` (the peak).

    Parameters
    ----------
    relative : bool
        True (default): each line in % of its own peak bandwidth (the memory's active time,
        Eq. 4.2), on 0–100 %, so that lines of different peaks share one scale and none is
        squashed under a peak far above it. False: bytes/s (GB/s), as the thesis draws it, on a
        log axis, with each peak dotted and named on its line.
    peak : bool
        Draw the peak: the 100 % line (relative), or one dotted line per peak (absolute).

    Returns
    -------
    Axes
        One legend entry per line (identical lines merged into one), outside the axes.

    Raises
    ------
    ValueError
        A needed column missing, no matching row, or duplicates.
    """
    where = "bandwidth_vs_capacity"
    need = ["capacity", "avg_bandwidth"] + (["bandwidth"] if relative or peak else [])
    ax, d, xf = _against_capacity(
        df,
        need,
        where,
        ax,
        network=network,
        batch=batch,
        policy=policy,
        bandwidth=bandwidth,
        throughput=throughput,
    )
    if relative:
        d = d.assign(_y=100.0 * d["avg_bandwidth"] / d["bandwidth"])
        yf, ylabel = 1.0, "average bandwidth (% of peak)"
    else:
        cols = ["avg_bandwidth"] + (["bandwidth"] if peak else [])
        yf, yname = unit(d[cols].to_numpy(), BANDWIDTH, headroom=10)
        d = d.assign(_y=d["avg_bandwidth"])
        ylabel = f"average bandwidth ({yname})"
    _marked_lines(ax, groups(d, "capacity", where, values=["_y"]), "_y", xf, yf, "average")
    if peak and relative:
        ax.axhline(100.0, color="k", ls=":", lw=1, label="peak bandwidth (100 %)")
    elif peak:
        # Each peak named on its line (one legend style could not tell several apart).
        for bw in sorted(d["bandwidth"].unique()):
            ax.axhline(bw / yf, color="0.3", ls=":", lw=1)
            # At the right, where more capacity has brought the lines down.
            ax.annotate(
                f"peak {describe('bandwidth', bw)}",
                (0.99, bw / yf),
                xycoords=("axes fraction", "data"),
                xytext=(0, 2),
                textcoords="offset points",
                fontsize=7,
                color="0.3",
                va="bottom",
                ha="right",
            )
    ax.set_ylabel(ylabel)
    if relative:
        ax.set_ylim(0, 105)
    else:
        from matplotlib.ticker import LogLocator, ScalarFormatter

        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0), numticks=30))
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter("")
    title(ax, "Average off-chip bandwidth vs capacity", context(d, ["capacity"]))
    outside_legend(ax)
    return ax


def throughput_vs_batch(
    df: pd.DataFrame,
    *,
    network: NameFilter = None,
    policy: NameFilter = None,
    capacity: AmountFilter = None,
    bandwidth: AmountFilter = None,
    throughput: AmountFilter = None,
    ax: Axes | None = None,
) -> Axes:
    """Training throughput in samples/s (Eq. 5.2) against batch size (thesis Fig. 5.6).

    Needs ``batch`` and ``samples_per_s``. Grouped bars: one group per batch, one bar per
    combination of the other design-point columns that vary (the thesis: 24 MB and 400 MB).

    Returns
    -------
    Axes
        x the batch sizes, y in samples/s; one legend entry per bar series (none if only one),
        outside the axes.

    Raises
    ------
    ValueError
        A needed column missing, no matching row, or duplicates.
    """
    where = "throughput_vs_batch"
    d = select(
        df,
        ["batch", "samples_per_s"],
        where,
        network=network,
        policy=policy,
        capacity=capacity,
        bandwidth=bandwidth,
        throughput=throughput,
    )
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
        outside_legend(ax)
    return ax


#: At most this many lines per panel of :func:`sweep_overview` before it also splits by policy.
OVERVIEW_MAX_LINES = 8


def sweep_overview(df: pd.DataFrame) -> Figure:
    """Traffic (Fig. 5.2) and time (Fig. 5.3) against capacity for a whole sweep.

    One row of two panels — :func:`traffic_vs_capacity` and :func:`time_vs_capacity` — per
    network and batch, and also per policy when a row would otherwise hold more than
    :data:`OVERVIEW_MAX_LINES` lines; each panel has its own legend outside it. A real grid (4
    networks × 2 policies × 2 bandwidths × 2 throughputs) thus gives readable panels of 4 lines
    each instead of one panel with a legend of a hundred entries. ``dnnmem sweep --plot`` draws
    this.

    Returns
    -------
    Figure
        Constrained layout, ``2 × rows`` axes; a suptitle with the number of design points.

    Raises
    ------
    ValueError
        A needed column (``capacity``, ``traffic_in``, ``traffic_out``, ``time``) missing.
    """
    where = "sweep_overview"
    check_frame(df, ["capacity", "traffic_in", "traffic_out", "time"], where)
    if df.empty:
        raise ValueError(f"{where}: no rows")
    require("matplotlib", "drawing plots")
    from matplotlib.figure import Figure

    facets = [c for c in ("network", "batch") if c in df.columns]
    inner = varying(df, exclude=["capacity", *facets])
    per_row = len(df[inner].drop_duplicates()) if inner else 1
    if per_row > OVERVIEW_MAX_LINES and "policy" in inner:
        facets.append("policy")
    rows = [df] if not facets else [g for _, g in df.groupby(facets, sort=False, observed=True)]
    fig = Figure(figsize=(14.0, 3.9 * len(rows)), layout="constrained")
    axes = fig.subplots(len(rows), 2, squeeze=False)
    for g, (left, right) in zip(rows, axes):
        traffic_vs_capacity(g, ax=left)
        time_vs_capacity(g, ax=right, speedup=False)
    fig.suptitle(
        f"Sweep: {len(df)} design points"
        + (f"; a row of panels per {' × '.join(facets)}" if facets else ""),
        fontsize=11,
    )
    return fig


def gap_vs_capacity(
    df: pd.DataFrame,
    *,
    kind: str = "traffic",
    network: NameFilter = None,
    batch: BatchFilter = None,
    policy: NameFilter = None,
    bandwidth: AmountFilter = None,
    throughput: AmountFilter = None,
    ax: Axes | None = None,
) -> Axes:
    """Each policy's gap to the lower bound against capacity: ``result / bound − 1`` in %, from
    a sweep with ``bounds=True`` (:mod:`dnnmem.optimal`, docs/model/optimal.md).

    Parameters
    ----------
    kind : {"traffic", "time"}
        The gap drawn: ``traffic_gap`` (off-chip bytes) or ``time_gap`` (iteration time).

    Returns
    -------
    Axes

    Raises
    ------
    ValueError
        A needed column missing (a sweep without ``bounds=True``), no matching row, duplicates,
        or another ``kind``.
    """
    where = "gap_vs_capacity"
    if kind not in ("traffic", "time"):
        raise ValueError(f"{where}: kind must be 'traffic' or 'time', got {kind!r}")
    col = f"{kind}_gap"
    d = select(
        df,
        ["capacity", col],
        where,
        network=network,
        batch=batch,
        policy=policy,
        bandwidth=bandwidth,
        throughput=throughput,
    )
    ax = new_axes(ax)
    xf = _capacity_axis(ax, d)
    parts = groups(d, "capacity", where, values=[col])
    # The figures' one look (dnnmem.plots.style): where only the policy varies, a series is
    # styled by its first policy, so that each policy keeps its look whatever merges (the
    # traffic and time panels of one figure then agree); otherwise by its label.
    by_policy = varying(d, ["capacity"]) == ["policy"]
    keys = [str(g["policy"].iloc[0]) if by_policy else str(label) for label, g in parts]
    looks = style.styles(sorted(d["policy"].astype(str).unique()) if by_policy else keys)
    for key, (label, g) in zip(keys, parts):
        look = looks[key]
        ax.plot(
            g["capacity"] / xf,
            100 * g[col],
            color=look["color"],
            linestyle=look["linestyle"],
            marker=look["marker"] or "o",
            ms=3,
            label=label or col.replace("_", " "),
        )
    ax.axhline(0, color="0.5", lw=0.8)
    caps = d["capacity"][d["capacity"] > 0] / xf
    if len(caps) and caps.max() >= 8 * caps.min() and (d["capacity"] > 0).all():
        # Capacities spread over decades (4 MiB ... 500 MiB): a log axis labelled with them.
        style.log_ticks(ax, caps)
    ax.set_ylabel(f"{kind} above the lower bound (%)")
    ax.set_ylim(bottom=min(0.0, float(100 * d[col].min()) if len(d) else 0.0))
    title(ax, f"Gap to the {kind} lower bound vs capacity", context(d, ["capacity"]))
    style.legend(ax)
    return ax
