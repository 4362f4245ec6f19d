"""Helpers shared by the plots: row selection, display units, group labels, new axes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np
import pandas as pd

from .._optional import require
from ..hardware import FIELD_PARSERS
from ..sweep import INPUT_COLUMNS
from ..units import format_bandwidth, format_bytes, format_throughput

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Columns that identify a design point in a sweep DataFrame (the rest are results).
ID_COLUMNS = tuple(INPUT_COLUMNS)

BYTES = [(2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"), (1.0, "B")]
TIME = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
BANDWIDTH = [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")]
FLOPS = [(1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"),
         (1.0, "FLOP/s")]


def unit(values: Iterable[float] | float, steps: list[tuple[float, str]],
         headroom: float = 1.0) -> tuple[float, str]:
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
        raise TypeError(f"{where}: expected a pandas DataFrame (e.g. from dnnmem.sweep), "
                        f"got {type(df).__name__}")
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise ValueError(f"{where}: missing column(s) {missing}; the DataFrame has "
                         f"{list(df.columns)}")


def select(df: pd.DataFrame, need: Sequence[str], where: str, **filters: Any) -> pd.DataFrame:
    """The rows of ``df`` matching every filter that is not None (a value or a list of values;
    unit strings such as ``"24MiB"`` work for capacity, bandwidth and throughput)."""
    active = {k: v for k, v in filters.items() if v is not None}
    check_frame(df, list(need) + [k for k in active if k not in need], where)
    mask = np.ones(len(df), dtype=bool)
    for col, value in active.items():
        values = list(value) if isinstance(value, (list, tuple, set, np.ndarray, pd.Series)) \
            else [value]
        parse = FIELD_PARSERS.get(col)
        if parse is not None:
            values = [parse(v) if isinstance(v, str) else v for v in values]
        mask &= df[col].isin(values).to_numpy()
    out = df.loc[mask]
    if out.empty:
        raise ValueError(f"{where}: no rows match {active}" if active else f"{where}: no rows")
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
    parts = [describe(c, df[c].iloc[0]) for c in ID_COLUMNS
             if c in df.columns and c not in exclude and df[c].nunique() == 1]
    return " · ".join(parts)


def groups(df: pd.DataFrame, x: str, where: str) -> list[tuple[str, pd.DataFrame]]:
    """Split ``df`` into one (label, rows sorted by ``x``) per combination of the design-point
    columns that vary (other than ``x``); raise if a group has two rows at the same ``x``."""
    keys = varying(df, exclude=[x])
    parts = [("", df)] if not keys else [
        (", ".join(describe(k, v) for k, v in zip(keys, key if isinstance(key, tuple) else (key,))),
         g) for key, g in df.groupby(keys, sort=True, observed=True)]
    out = []
    for label, g in parts:
        if g[x].duplicated().any():
            raise ValueError(f"{where}: several rows share one {x} for {label or 'the data'}; "
                             f"filter them (network=, batch=, policy=, bandwidth=, throughput=)")
        out.append((label, g.sort_values(x)))
    return out


def new_axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.5)) -> Axes:
    """``ax``, or the axes of a new figure (matplotlib imported only here)."""
    if ax is not None:
        return ax
    require("matplotlib", "drawing plots")
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=figsize)
    return new


def title(ax: Axes, main: str, sub: str) -> None:
    ax.set_title(f"{main}\n{sub}" if sub else main, fontsize=10)
