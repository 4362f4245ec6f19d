"""Pareto fronts of a sweep: the design points no other point beats on every objective.

A row *a* dominates a row *b* when *a* is at least as good as *b* on every objective and strictly
better on at least one. :func:`pareto` keeps the rows that no row dominates. Two rows with equal
values on every objective do not dominate each other, so both stay on the front (pass
``keep_ties=False`` to keep only the first of them).

Two objectives take one sort and one sweep, O(n log n); any other number uses a sort-filter
skyline (rows in lexicographic order can only be dominated by rows before them), O(n · f · k) for
a front of f rows and k objectives, which is O(n² k) at worst.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = ["pareto", "pareto_mask"]


def _names(value: str | Iterable[str] | None, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    names = list(value)
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"{what}: expected column names, got {n!r}")
    return names


def _objectives(
    df: pd.DataFrame, minimize: str | Iterable[str] | None, maximize: str | Iterable[str] | None
) -> np.ndarray:
    """The objective matrix, every column turned into one to minimize (maximized ones negated)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    lo, hi = _names(minimize, "minimize"), _names(maximize, "maximize")
    if not lo and not hi:
        raise ValueError("pareto: name at least one column in minimize or maximize")
    both = sorted(set(lo) & set(hi))
    if both:
        raise ValueError(f"pareto: column(s) {both} are in both minimize and maximize")
    for what, names in (("minimize", lo), ("maximize", hi)):
        if len(set(names)) != len(names):
            raise ValueError(f"{what}: a column is named twice in {names}")
    missing = [c for c in lo + hi if c not in df.columns]
    if missing:
        raise ValueError(
            f"pareto: missing column(s) {missing}; the DataFrame has {list(df.columns)}"
        )
    cols = []
    for c in lo + hi:
        if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            raise ValueError(f"pareto: column {c!r} is not numeric (dtype {df[c].dtype})")
        v = df[c].to_numpy(dtype=float)
        if np.isnan(v).any():
            rows = list(df.index[np.isnan(v)][:5])
            raise ValueError(f"pareto: column {c!r} has NaN at row(s) {rows}")
        cols.append(v if c in lo else -v)
    return np.column_stack(cols) if cols else np.empty((len(df), 0))


def _front_2d(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Non-dominated mask for minimizing (x, y), ties kept: one lexicographic sort + one scan.

    After sorting by x then y, split the rows into groups of equal x. A row with a larger y than
    its group's first is dominated by that one (same x, smaller y). The group's first rows (all
    with the group's smallest y) are dominated iff an earlier group (smaller x) reached a y as
    small: they survive iff their y is below the running minimum of the earlier groups.
    """
    n = len(x)
    keep = np.zeros(n, dtype=bool)
    if n == 0:
        return keep
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    first = np.r_[True, xs[1:] != xs[:-1]]  # the first row of each group of equal x
    group = np.cumsum(first) - 1
    gmin = ys[first]  # each group's smallest y
    before = np.r_[np.inf, np.minimum.accumulate(gmin)[:-1]]  # min y over earlier groups
    keep[order] = (ys == gmin[group]) & (gmin[group] < before[group])
    return keep


def _front_general(values: np.ndarray) -> np.ndarray:
    """Non-dominated mask for minimizing every column, ties kept (sort-filter skyline)."""
    n, k = values.shape
    keep = np.zeros(n, dtype=bool)
    order = np.lexsort(values.T[::-1])  # lexicographic by column 0, then 1, …
    front = np.empty((0, k))
    for idx in order:
        v = values[idx]
        # A dominator is lexicographically smaller, so it came earlier; and a dominated earlier
        # row has a non-dominated dominator earlier still (transitivity), so checking the front
        # found so far is enough.
        if len(front):
            dominated = np.all(front <= v, axis=1) & np.any(front < v, axis=1)
            if dominated.any():
                continue
        keep[idx] = True
        front = np.vstack([front, v])
    return keep


def pareto_mask(
    df: pd.DataFrame,
    minimize: str | Iterable[str] | None = None,
    maximize: str | Iterable[str] | None = None,
    *,
    keep_ties: bool = True,
) -> np.ndarray:
    """Boolean array, True for the rows of :func:`pareto`'s front (same arguments)."""
    values = _objectives(df, minimize, maximize)
    if len(df) == 0:
        return np.zeros(0, dtype=bool)
    if values.shape[1] == 2:
        mask = _front_2d(values[:, 0], values[:, 1])
    else:
        mask = _front_general(values)
    if not keep_ties:
        dup = pd.DataFrame(values).duplicated(keep="first").to_numpy()
        mask &= ~dup
    return mask


def pareto(
    df: pd.DataFrame,
    minimize: str | Iterable[str] | None = None,
    maximize: str | Iterable[str] | None = None,
    *,
    keep_ties: bool = True,
) -> pd.DataFrame:
    """The non-dominated rows of ``df`` (its Pareto front), in their original order.

    Parameters
    ----------
    df : DataFrame
        E.g. a :func:`dnnmem.sweep` result, one row per design point.
    minimize, maximize : str or list of str
        Numeric columns to make small (``"time"``, ``"area_mm2"``, ``"traffic_in"``) and to make
        large (``"samples_per_s"``, ``"utilization"``). At least one column in all.
    keep_ties : bool
        Rows equal on every objective do not dominate each other: with True (default) all of them
        stay on the front; with False only the first (in ``df``'s order) does.

    Returns
    -------
    DataFrame
        The rows of ``df`` (index and all columns kept) that no other row dominates.

    Raises
    ------
    ValueError
        No objective; a column missing, not numeric, holding NaN, or both minimized and
        maximized.
    TypeError
        ``df`` is not a DataFrame.

    Examples
    --------
    >>> df = pd.DataFrame({"area": [1, 2, 3, 2], "time": [5, 3, 4, 3]})
    >>> pareto(df, minimize=["area", "time"]).index.tolist()
    [0, 1, 3]
    """
    mask = pareto_mask(df, minimize, maximize, keep_ties=keep_ties)  # checks df before .loc
    return df.loc[mask]
