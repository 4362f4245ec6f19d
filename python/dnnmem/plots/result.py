"""Plots of estimates' per-step tables: time by layer kind (thesis Fig. 5.5) and a timeline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._lazy import LazyModule
from ..units import format_bandwidth, format_bytes, format_throughput
from ._common import TIME, check_frame, new_axes, outside_legend, title, unit
from .style import size_label, sort_sizes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..estimate import Result

__all__ = ["breakdown_table", "time_breakdown", "timeline"]

_BY = ("kind", "class")


def _check_result(result: Any, what: str) -> None:
    from ..estimate import Result

    if not isinstance(result, Result):
        raise TypeError(f"{what}: expected a dnnmem.Result, got {type(result).__name__}")


def breakdown_table(results: Mapping[Any, Result], by: str = "kind") -> pd.DataFrame:
    """A tidy table of time by layer kind (or class) for several estimates.

    Parameters
    ----------
    results : mapping
        Key → :class:`dnnmem.Result`, e.g. capacity in bytes → the estimate at that capacity.
    by : "kind" or "class"
        :meth:`Result.by_kind` or :meth:`Result.by_class`.

    Returns
    -------
    DataFrame
        Columns ``capacity`` (the key), ``by`` (the kind or class, plus "loss" and "drain"),
        ``time`` (s); each key's times add up to its result's time.
    """
    if by not in _BY:
        raise ValueError(f"by: expected 'kind' or 'class', got {by!r}")
    if not isinstance(results, Mapping) or not results:
        raise ValueError("results: expected a non-empty mapping key -> dnnmem.Result")
    rows = []
    for key, r in results.items():
        _check_result(r, f"results[{key!r}]")
        s = r.by_kind() if by == "kind" else r.by_class()
        rows += [(key, name, float(t)) for name, t in s.items()]
    return pd.DataFrame(rows, columns=["capacity", by, "time"])


def _label(key: Any) -> str:
    """A capacity as a reader writes it: ``24 MiB`` for 25165824 or ``"24MiB"``; any other
    label as it is."""
    return size_label(key)


def time_breakdown(
    data: Mapping[Any, Result] | pd.DataFrame,
    *,
    by: str = "kind",
    top: int = 8,
    ax: Axes | None = None,
) -> Axes:
    """Stacked bars of iteration time by layer kind (or class), one bar per capacity (Fig. 5.5).

    Parameters
    ----------
    data : mapping or DataFrame
        Capacity (bytes, or any label) → :class:`dnnmem.Result`, or a tidy DataFrame with the
        columns ``capacity``, ``by`` and ``time`` (s), as :func:`breakdown_table` makes.
    by : "kind" or "class"
    top : int
        Keep the ``top`` categories with the most time over all bars; sum the rest as "other".
    ax : Axes, optional

    Returns
    -------
    Axes
        One bar per capacity, in numeric order when every key is a size (bytes or a unit string:
        ``"24MiB"`` before ``"128MiB"``), else in the order given; sizes written as ``24 MiB``.
        y in ms (or the unit that fits), from 0 to above the tallest bar; the legend, outside
        the axes, lists the categories largest first (the bottom of the stack). The subtitle
        names the network, batch, policy and hardware when the results share them.

    Raises
    ------
    ValueError
        Bad ``by`` / ``top``, missing columns, or a category given twice for one capacity.
    """
    if by not in _BY:
        raise ValueError(f"by: expected 'kind' or 'class', got {by!r}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top: must be an integer >= 1, got {top!r}")
    sub = ""
    if isinstance(data, pd.DataFrame):
        check_frame(data, ["capacity", by, "time"], "time_breakdown")
        d = data
    else:
        d = breakdown_table(data, by)
        sub = _shared_context(list(data.values()))
    if d.duplicated(["capacity", by]).any():
        raise ValueError(f"time_breakdown: a {by} appears twice for one capacity")
    table = d.pivot(index="capacity", columns=by, values="time").fillna(0.0)
    # The bars in numeric order of the capacities (pivot sorts labels as strings: "128MiB"
    # before "24MiB"), or in the order the keys come.
    table = table.loc[sort_sizes(list(dict.fromkeys(d["capacity"])))]
    order = table.sum().sort_values(ascending=False).index
    if len(order) > top:
        rest = order[top:]
        table["other"] = table[rest].sum(axis=1)
        order = list(order[:top]) + ["other"]
    table = table[list(order)]
    ax = new_axes(ax)
    tf, tname = unit(table.sum(axis=1), TIME)
    x = np.arange(len(table))
    bottom = np.zeros(len(table))
    for i, cat in enumerate(table.columns):
        v = table[cat].to_numpy() / tf
        ax.bar(x, v, 0.6, bottom=bottom, color=f"C{i % 10}", label=str(cat))
        bottom += v
    ax.set_xticks(x)
    ax.set_xticklabels([_label(k) for k in table.index])
    ax.set_xlabel("on-chip capacity")
    ax.set_ylabel(f"time per iteration ({tname})")
    # Room above the tallest bar: its top segments would otherwise touch the frame.
    ax.set_ylim(0, 1.06 * float(bottom.max()) if bottom.size and bottom.max() > 0 else 1.0)
    ax.grid(True, axis="y", alpha=0.3)
    title(ax, f"Iteration time by layer {by}", sub)
    # Outside the axes: the tallest bar reaches the top, wherever it is.
    outside_legend(ax)
    return ax


def _shared_context(results: list[Result]) -> str:
    """What the results have in common (network, batch, policy, bandwidth, throughput), or ""
    if they differ in more than the capacity."""
    keys = {
        (r.network.name, r.network.batch, r.policy, r.hardware.bandwidth, r.hardware.throughput)
        for r in results
    }
    if len(keys) != 1:
        return ""
    name, batch, policy, bw, thr = keys.pop()
    return f"{name} N={batch} · {policy} · {format_bandwidth(bw)} · {format_throughput(thr)}"


def timeline(
    result: Result, *, steps: slice | tuple[int, int] | None = None, ax: Axes | None = None
) -> Axes:
    """A Gantt-like timeline of one estimate: compute, stalls and transfers issued per step.

    Rows, from :attr:`Result.steps`:

    - **compute**: ``[start, start + compute_time]`` of each step, coloured type I / type II /
      loss;
    - **stall**: ``[previous end, start]`` waiting for capacity, and
      ``[start + compute_time, end]`` waiting for transfers; the drain after the last step;
    - **loads** / **stores**: the channel time (bytes / bandwidth) of the bytes each step issued,
      drawn from the step's start. The step table does not keep the channel's real
      (earliest-deadline-first) order, so these bars show how much each step asked for, not
      exactly when it moved.

    Parameters
    ----------
    result : dnnmem.Result
    steps : slice or (first, last), optional
        Step indices to show (``(0, 40)`` shows steps 0 to 39); all by default.
    ax : Axes, optional

    Returns
    -------
    Axes
        x in ms (or the unit that fits); one legend entry per bar series present.

    Raises
    ------
    TypeError
        ``result`` is not a Result.
    ValueError
        ``steps`` selects no step.
    """
    _check_result(result, "result")
    s = result.steps
    if steps is not None:
        sl = slice(*steps) if isinstance(steps, tuple) else steps
        if not isinstance(sl, slice):
            raise ValueError(f"steps: expected a slice or (first, last), got {steps!r}")
        s = s.iloc[sl]
    if s.empty:
        raise ValueError(f"steps: {steps!r} selects no step of {len(result.steps)}")
    full = result.steps
    prev_end = full["end"].shift(fill_value=0.0).loc[s.index].to_numpy()
    start, end = s["start"].to_numpy(), s["end"].to_numpy()
    comp_end = start + s["compute_time"].to_numpy()
    tf, tname = unit(end, TIME)
    bw = result.hardware.bandwidth
    ax = new_axes(ax, figsize=(10, 3.6))
    rows = {"compute": 3, "stall": 2, "loads": 1, "stores": 0}

    def bars(left: np.ndarray, right: np.ndarray, row: str, color: str, label: str) -> None:
        m = right > left
        if m.any():
            spans = list(zip(left[m] / tf, (right[m] - left[m]) / tf))
            ax.broken_barh(
                spans, (rows[row] - 0.35, 0.7), facecolors=color, label=label, alpha=0.85
            )

    cls = s["class"].where(s["phase"] != "loss", "loss").to_numpy()
    for c, color, name in (
        ("I", "C0", "compute, type I"),
        ("II", "C1", "compute, type II"),
        ("loss", "C2", "compute, loss"),
    ):
        m = cls == c
        bars(start[m], comp_end[m], "compute", color, name)
    bars(prev_end, start, "stall", "C3", "stall: capacity")
    bars(comp_end, end, "stall", "C4", "stall: transfers")
    last = int(full.index[-1])
    if result.drain_time > 0 and last in s.index:
        t_end = float(full["end"].iloc[-1])
        bars(np.array([t_end]), np.array([t_end + result.drain_time]), "stall", "C5", "drain")
    bars(start, start + s["bytes_in"].to_numpy() / bw, "loads", "C7", "loads issued")
    bars(start, start + s["bytes_out"].to_numpy() / bw, "stores", "C8", "stores issued")
    ax.set_yticks(list(rows.values()))
    ax.set_yticklabels(list(rows))
    ax.set_ylim(-0.6, 3.6)
    ax.set_xlabel(f"time ({tname})")
    ax.grid(True, axis="x", alpha=0.3)
    net = result.network
    title(
        ax,
        "Timeline of one training iteration",
        f"{net.name} N={net.batch} · {result.policy} · {format_bytes(result.hardware.capacity)}"
        f" · steps {int(s.index[0])}–{int(s.index[-1])} of {len(full)}",
    )
    outside_legend(ax)
    return ax
