"""Thesis Fig. 5.2: off-chip traffic in and out of one training iteration vs on-chip capacity.

24 MiB to 1000 MiB in 2 MiB steps, RTX 2080 Ti (13.45 TFLOP/s, 616 GB/s), lookahead (the
thesis's policy), the four workloads of Table 5.1 at their batch. "In" is loaded into the
cache, "out" written back; in − out is data loaded more than once (caption: GNMT's recurrent
weights loaded T times add (T − 1) × cap(W)).

    python sweeps/thesis/fig5_2_traffic.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_2-traffic"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Traffic in / out of the four workloads over the capacity grid.

    Parameters
    ----------
    small : bool
        CI mode: the seven capacities the tables quote.
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, capacity): the sweep columns (``traffic_in``,
        ``traffic_out`` in bytes, ``time``, …) on the RTX 2080 Ti.
    """
    return C.capacity_sweep(
        NAME, small, [C.RTX_2080_TI["bandwidth"]], [C.RTX_2080_TI["throughput"]], force
    )


def plot(df: pd.DataFrame) -> Figure:
    """One :func:`dnnmem.plots.traffic_vs_capacity` panel per network."""
    from dnnmem.plots import traffic_vs_capacity

    return C.per_network_figure(
        df,
        traffic_vs_capacity,
        "Fig. 5.2 — off-chip traffic per iteration vs capacity "
        "(RTX 2080 Ti: 13.45 TFLOP/s, 616 GB/s; lookahead)",
    )


if __name__ == "__main__":
    C.main(NAME, compute, plot)
