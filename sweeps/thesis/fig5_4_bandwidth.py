"""Thesis Fig. 5.4: average off-chip bandwidth (Eq. 4.1) vs capacity at 616 and 1555 GB/s.

The caption: throughput 13.45 TFLOP/s (RTX 2080 Ti) for both lines; GDDR6 616 GB/s and HBM2e
1555 GB/s (the A100's bandwidth, Table 5.2).

    python sweeps/thesis/fig5_4_bandwidth.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_4-bandwidth"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)
BANDWIDTHS = [C.RTX_2080_TI["bandwidth"], C.A100["bandwidth"]]


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Average bandwidth at 616 and 1555 GB/s over the capacity grid.

    Parameters
    ----------
    small : bool
        CI mode: the seven capacities the tables quote.
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, bandwidth, capacity) at 13.45 TFLOP/s; ``avg_bandwidth``
        (bytes/s) is the figure's y.
    """
    return C.capacity_sweep(NAME, small, BANDWIDTHS, [C.RTX_2080_TI["throughput"]], force)


def plot(df: pd.DataFrame) -> Figure:
    """One :func:`dnnmem.plots.bandwidth_vs_capacity` panel per network in GB/s, as the thesis
    draws it (a log axis, so that the lines are not squashed under the 1555 GB/s peak; peaks
    dotted)."""
    from functools import partial

    from dnnmem.plots import bandwidth_vs_capacity

    return C.per_network_figure(
        df,
        partial(bandwidth_vs_capacity, relative=False),
        "Fig. 5.4 — average off-chip bandwidth vs capacity at 616 and 1555 GB/s (13.45 TFLOP/s)",
    )


if __name__ == "__main__":
    C.main(NAME, compute, plot)
