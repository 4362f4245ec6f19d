"""The Pareto front of a sweep drawn: all points faint, the front on top (:func:`dnnmem.pareto`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..pareto import pareto
from ._common import column_axis, new_axes, outside_legend

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["plot_pareto"]


def plot_pareto(
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    maximize: Sequence[str] = (),
    ax: Axes | None = None,
    xscale: float | None = None,
    yscale: float | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    label: str = "Pareto front",
    **style: Any,
) -> Axes:
    """Scatter all rows of ``df`` faintly and draw the Pareto front of (``x``, ``y``) on top.

    Both columns are minimized unless named in ``maximize``. Values are divided by ``xscale`` /
    ``yscale`` for display; the front is computed on the raw values. By default the columns of
    a sweep get a display unit and an axis label with it (``time`` in ms: "time per iteration
    (ms)"; ``area_mm2``: "SRAM area (mm²)"; ``capacity`` in MiB; bandwidths in GB/s; ...);
    another column keeps its name as label and is not scaled.

    Parameters
    ----------
    df : DataFrame
        Needs the columns ``x`` and ``y``.
    x, y : str
        Column names.
    maximize : sequence of str
        The subset of (``x``, ``y``) to maximize.
    ax : matplotlib Axes, optional
        Where to draw (a new figure if None).
    xscale, yscale : float, optional
        Display units: plotted value = column / scale (default: the unit chosen for the column,
        as above; 1 for an unknown column).
    xlabel, ylabel, title : str, optional
        Default: the column's label with its unit, and "Pareto front: <y> vs <x>". Pass your
        own label with the unit of your own ``xscale`` / ``yscale``.
    label : str
        Legend label of the front.
    **style
        Passed to the front's ``plot`` call.

    Returns
    -------
    Axes
        With two legend entries, outside the axes: "all points (n)" and ``label``.

    Raises
    ------
    ValueError
        A column missing or bad (see :func:`pareto`), or a name in ``maximize`` that is neither
        ``x`` nor ``y``.
    """
    extra = [m for m in maximize if m not in (x, y)]
    if extra:
        raise ValueError(f"maximize: {extra} is neither x={x!r} nor y={y!r}")
    lo = [c for c in (x, y) if c not in maximize]
    hi = [c for c in (x, y) if c in maximize]
    front = pareto(df, minimize=lo, maximize=hi)
    front = front.sort_values([x, y])
    xf, xname = column_axis(x, df[x])
    yf, yname = column_axis(y, df[y])
    if xscale is not None:
        xf, xname = xscale, x
    if yscale is not None:
        yf, yname = yscale, y
    ax = new_axes(ax, figsize=(7.5, 4.5))
    ax.scatter(
        df[x] / xf, df[y] / yf, s=12, color="0.6", alpha=0.35, label=f"all points ({len(df)})"
    )
    style.setdefault("marker", "o")
    style.setdefault("color", "C3")
    # The front is a staircase: between two front points (sorted by x) the best y reachable is
    # the left one's when x is minimized, the right one's when x is maximized.
    ax.plot(
        front[x] / xf,
        front[y] / yf,
        drawstyle="steps-pre" if x in maximize else "steps-post",
        label=f"{label} ({len(front)})",
        **style,
    )
    ax.set_xlabel(xlabel or xname)
    ax.set_ylabel(ylabel or yname)
    ax.set_title(
        title or f"Pareto front: {yname.split(' (')[0]} vs {xname.split(' (')[0]}", fontsize=10
    )
    ax.grid(True, alpha=0.3)
    outside_legend(ax)
    return ax
