"""Helpers shared by the plots: row selection, display units, group labels, new axes."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Union

from .._lazy import LazyModule
from .._optional import require
from ..hardware import FIELD_PARSERS
from ..sweep import INPUT_COLUMNS
from ..units import format_bandwidth, format_bytes, format_throughput

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Columns that identify a design point in a sweep DataFrame (the rest are results).
ID_COLUMNS = tuple(INPUT_COLUMNS)

# The filters of the sweep plots (``network=``, ``policy=``, ``batch=``, ``capacity=``,
# ``bandwidth=``, ``throughput=``): one value, or several in any iterable but a string (a list,
# tuple, set, range, NumPy array, Series); None keeps every row.
#: A name filter: a network's name, a policy's string form (as in the sweep's column).
NameFilter = Union[str, Iterable[str], None]
#: A batch filter: mini-batch sizes.
BatchFilter = Union[int, Iterable[int], None]
#: An amount filter: capacity in bytes, bandwidth in bytes/s, throughput in FLOP/s, or unit
#: strings (``"24MiB"``, ``"616GB/s"``, ``"13.45TFLOPS"``).
AmountFilter = Union[str, float, Iterable[Union[str, float]], None]

BYTES = [(2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"), (1.0, "B")]
TIME = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
BANDWIDTH = [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")]
FLOPS = [(1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"), (1.0, "FLOP/s")]


def unit(
    values: Iterable[float] | float, steps: list[tuple[float, str]], headroom: float = 1.0
) -> tuple[float, str]:
    """(factor, name) of the largest unit with headroom × factor <= the largest |value| (the
    smallest unit if none). ``headroom=10`` keeps 1555 GB/s and 1000 MiB in GB/s and MiB."""
    v = np.abs(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    top = float(v.max()) if v.size else 0.0
    for factor, name in steps:
        if top >= headroom * factor:
            return factor, name
    return steps[-1]


def check_frame(df: Any, need: Sequence[str], where: str) -> None:
    """Raise naming the columns of ``need`` that ``df`` lacks."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"{where}: expected a pandas DataFrame (e.g. from dnnmem.sweep), "
            f"got {type(df).__name__}"
        )
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ValueError(
            f"{where}: missing column(s) {missing}; the DataFrame has {list(df.columns)}"
        )


def select(
    df: pd.DataFrame,
    need: Sequence[str],
    where: str,
    **filters: NameFilter | BatchFilter | AmountFilter,
) -> pd.DataFrame:
    """The rows of ``df`` matching every filter that is not None (a value or an iterable of
    values; unit strings such as ``"24MiB"`` work for capacity, bandwidth and throughput)."""
    active = {k: v for k, v in filters.items() if v is not None}
    check_frame(df, list(need) + [k for k in active if k not in need], where)
    mask = np.ones(len(df), dtype=bool)
    absent = []  # the filters no row matches at all, with the values the column has
    for col, value in active.items():
        values: list[Any] = (
            [value] if isinstance(value, str) or not isinstance(value, Iterable) else list(value)
        )
        parse = FIELD_PARSERS.get(col)
        if parse is not None:
            values = [parse(v) if isinstance(v, str) else v for v in values]
        hit = df[col].isin(values).to_numpy()
        if len(df) and not hit.any():
            present = list(pd.unique(df[col]))
            shown = [describe(col, v) for v in present[:12]] + (["…"] if len(present) > 12 else [])
            absent.append(f"{col} has {', '.join(shown)}")
        mask &= hit
    out = df.loc[mask]
    if out.empty:
        if not active:
            raise ValueError(f"{where}: no rows")
        why = "; ".join(absent) if absent else "each filter matches rows, but none matches all"
        raise ValueError(f"{where}: no rows match {active} ({why})")
    return out


def describe(col: str, value: Any) -> str:
    """A design-point value as people read it: ``24 MiB``, ``616 GB/s``, ``N=32``."""
    if col == "capacity":
        return format_bytes(value)
    if col == "bandwidth":
        return format_bandwidth(value)
    if col == "throughput":
        return format_throughput(value)
    if col == "batch":
        return f"N={value}"
    return str(value)


def varying(df: pd.DataFrame, exclude: Sequence[str]) -> list[str]:
    """The design-point columns of ``df`` (not in ``exclude``) with more than one value."""
    return [c for c in ID_COLUMNS if c in df.columns and c not in exclude and df[c].nunique() > 1]


def context(df: pd.DataFrame, exclude: Sequence[str]) -> str:
    """The single-valued design-point columns as one line, e.g. for a title."""
    parts = [
        describe(c, df[c].iloc[0])
        for c in ID_COLUMNS
        if c in df.columns and c not in exclude and df[c].nunique() == 1
    ]
    return " · ".join(parts)


def _factored(keys: Sequence[str], members: list[dict[str, Any]]) -> str:
    """One label for several identical series: the values the members share once, then the
    others — "lru, 616 GB/s / 1.555 TB/s" when the members are every combination of their
    values, else each member's own values joined by "; " — wrapped to lines of 44 characters."""
    if not keys:
        return ""
    values = {k: list(dict.fromkeys(m[k] for m in members)) for k in keys}
    shared = [describe(k, values[k][0]) for k in keys if len(values[k]) == 1]
    differ = [k for k in keys if len(values[k]) > 1]
    if not differ:
        text = ", ".join(shared)
    elif len(members) == int(np.prod([len(values[k]) for k in differ])):
        text = ", ".join(shared + [" / ".join(describe(k, v) for v in values[k]) for k in differ])
    else:
        own = "; ".join(" ".join(describe(k, m[k]) for k in differ) for m in members)
        text = ", ".join(shared + [own])
    return "\n".join(textwrap.wrap(text, 44, break_long_words=False)) or text


def groups(
    df: pd.DataFrame,
    x: str,
    where: str,
    values: Sequence[str] = (),
    keys: Sequence[str] | None = None,
) -> list[tuple[str, pd.DataFrame]]:
    """Split ``df`` into one (label, rows sorted by ``x``) per combination of the design-point
    columns that vary (other than ``x``; or of ``keys``); raise if a group has two rows at the
    same ``x``.

    Groups whose ``x`` and ``values`` columns are identical would be drawn on top of each other
    and only the last one seen: they are merged into one, labelled with all their members
    (``"616 GB/s / 1.555 TB/s, lru"``), so that the legend has no entry for a hidden line.
    """
    keys = varying(df, exclude=[x]) if keys is None else list(keys)
    parts = (
        [({}, df)]
        if not keys
        else [
            (dict(zip(keys, key if isinstance(key, tuple) else (key,))), g)
            for key, g in df.groupby(keys, sort=True, observed=True)
        ]
    )
    merged: list[tuple[list[dict[str, Any]], pd.DataFrame, np.ndarray | None]] = []
    for key, g in parts:
        if g[x].duplicated().any():
            label = ", ".join(describe(k, v) for k, v in key.items())
            raise ValueError(
                f"{where}: several rows share one {x} for {label or 'the data'}; "
                f"filter them (network=, batch=, policy=, bandwidth=, throughput=)"
            )
        g = g.sort_values(x)
        data = g[[x, *values]].to_numpy(dtype=float) if values else None
        for members, _, seen in merged:
            if (
                data is not None
                and seen is not None
                and seen.shape == data.shape
                and np.array_equal(seen, data)
            ):
                members.append(key)
                break
        else:
            merged.append(([key], g, data))
    return [(_factored(keys, members), g) for members, g, _ in merged]


def new_axes(ax: Axes | None, figsize: tuple[float, float] = (8.0, 4.5)) -> Axes:
    """``ax``, or the axes of a new figure (matplotlib imported only here). New figures use
    matplotlib's constrained layout, which makes room for the legends drawn outside the axes."""
    if ax is not None:
        return ax
    require("matplotlib", "drawing plots")
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=figsize, layout="constrained")
    return new


def outside_legend(
    ax: Axes,
    handles: list[Any] | None = None,
    labels: list[str] | None = None,
    *,
    below: bool = False,
    title: str | None = None,
) -> Any:
    """A legend outside the axes, where it cannot cover data: right of them, or below them
    (``below=True``, for axes with a second y axis on the right). Long legends get columns.
    Returns the Legend, or None when there is nothing to label."""
    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    if below:
        # Under the x label: constrained layout (new_axes) makes room for it.
        return ax.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncol=min(len(handles), 3),
            fontsize=8,
            title=title,
            title_fontsize=8,
        )
    ncol = 1 + (len(handles) - 1) // 18
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        ncol=ncol,
        fontsize=8,
        title=title,
        title_fontsize=8,
    )


#: Display name and unit steps of the sweep columns (axis labels with units, e.g. for Pareto).
COLUMN_UNITS: dict[str, tuple[str, list[tuple[float, str]] | None]] = {
    "time": ("time per iteration", TIME),
    "compute_time": ("compute time", TIME),
    "stall_time": ("stall time", TIME),
    "capacity_stall_time": ("capacity stall time", TIME),
    "drain_time": ("drain time", TIME),
    "capacity": ("on-chip capacity", BYTES),
    "traffic_in": ("off-chip traffic in", BYTES),
    "traffic_out": ("off-chip traffic out", BYTES),
    "traffic": ("off-chip traffic", BYTES),
    "bandwidth": ("peak off-chip bandwidth", BANDWIDTH),
    "avg_bandwidth": ("average off-chip bandwidth", BANDWIDTH),
    "throughput": ("peak throughput", FLOPS),
    "flops": (
        "FLOPs per iteration",
        [(1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1.0, "FLOP")],
    ),
}
_FIXED_UNITS = {
    "area_mm2": ("SRAM area", "mm²"),
    "samples_per_s": ("training throughput", "samples/s"),
    "utilization": ("compute utilization", "fraction"),
    "active_time": ("memory active time", "fraction of the iteration"),
    "batch": ("batch size", "samples"),
}


def column_axis(col: str, values: Any) -> tuple[float, str]:
    """(divisor, axis label with its unit) for a sweep column: ``("time", …)`` → (1e-3,
    "time per iteration (ms)"); a column not known here keeps its name and no divisor."""
    if col in COLUMN_UNITS:
        name, steps = COLUMN_UNITS[col]
        factor, u = unit(values, steps, headroom=1.0) if steps else (1.0, "")
        return factor, f"{name} ({u})"
    if col in _FIXED_UNITS:
        name, u = _FIXED_UNITS[col]
        return 1.0, f"{name} ({u})"
    return 1.0, col


def title(ax: Axes, main: str, sub: str) -> None:
    ax.set_title(f"{main}\n{sub}" if sub else main, fontsize=10)
