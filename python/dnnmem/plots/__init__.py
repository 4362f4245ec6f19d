"""Figures of the thesis's Chapter 5 and more, from sweep DataFrames and estimates.

matplotlib is imported only when a function draws (``pip install ".[plot]"`` in a clone). Every
function takes ``ax=None`` (a new figure when None) and returns the Axes it drew on, except
:func:`modified_roofline_grid` and :func:`sweep_overview`, which return a Figure; none calls
``plt.show()``. Legends sit outside the axes (new figures use constrained layout to make room;
with axes of your own, use ``layout="constrained"`` or ``bbox_inches="tight"``), and series
that coincide are drawn once with one legend entry naming them all.

========================== =================================================== ==============
function                   what                                                thesis
========================== =================================================== ==============
modified_roofline          reuse frequency per layer, type I / II, ridge point Fig. 5.1
modified_roofline_grid     one modified-roofline panel per network             Fig. 5.1a–d
roofline                   achieved FLOP/s per step vs operational intensity
traffic_vs_capacity        off-chip traffic in / out vs capacity               Fig. 5.2
time_vs_capacity           iteration time (+ speedup of two throughputs)       Fig. 5.3
bandwidth_vs_capacity      average bandwidth vs capacity                       Fig. 5.4
time_breakdown             stacked time by layer kind at chosen capacities     Fig. 5.5
throughput_vs_batch        samples/s vs batch size                             Fig. 5.6
sweep_overview             traffic and time vs capacity, a row per network     Figs. 5.2, 5.3
timeline                   per-step compute / stall / transfers of one estimate
plot_pareto                all points faint, the Pareto front highlighted
========================== =================================================== ==============

:mod:`dnnmem.plots.style` is the one look of every figure, these and the seed scripts'
(``sweeps/``): a fixed colour per policy, legends outside the data, sizes in numeric order,
averages, readable tick labels, the ``<seed>-<figure>-<what>`` file names.
"""

from __future__ import annotations

from . import style as style  # the figures' one look: dnnmem.plots.style
from .capacity import (
    bandwidth_vs_capacity,
    gap_vs_capacity,
    sweep_overview,
    throughput_vs_batch,
    time_vs_capacity,
    traffic_vs_capacity,
)
from .pareto import plot_pareto
from .result import breakdown_table, time_breakdown, timeline
from .roofline import layer_points, modified_roofline, modified_roofline_grid, roofline

__all__ = [
    "modified_roofline",
    "modified_roofline_grid",
    "layer_points",
    "roofline",
    "traffic_vs_capacity",
    "time_vs_capacity",
    "gap_vs_capacity",
    "bandwidth_vs_capacity",
    "throughput_vs_batch",
    "sweep_overview",
    "breakdown_table",
    "time_breakdown",
    "timeline",
    "plot_pareto",
]
