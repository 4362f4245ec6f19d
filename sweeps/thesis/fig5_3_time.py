"""Thesis Fig. 5.3: iteration time vs capacity at 13.45 and 23.04 TFLOP/s, and their speedup.

The caption: the RTX 2080 Ti's 13.45 TFLOP/s against the Radeon 6900 XT's 23.04 TFLOP/s, "the
two lines share exactly the same hardware parameters except the throughput" — so both use the
2080 Ti's 616 GB/s. Speedup = time(13.45) / time(23.04), bounded by 23.04 / 13.45 = 1.71.

    python sweeps/thesis/fig5_3_time.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_3-time"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)
THROUGHPUTS = [C.RTX_2080_TI["throughput"], C.RADEON_6900_XT["throughput"]]
BOUND = THROUGHPUTS[1] / THROUGHPUTS[0]


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Iteration time at 13.45 and 23.04 TFLOP/s over the capacity grid.

    Parameters
    ----------
    small : bool
        CI mode: the seven capacities the tables quote.
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, throughput, capacity) at 616 GB/s.
    """
    return C.capacity_sweep(NAME, small, [C.RTX_2080_TI["bandwidth"]], THROUGHPUTS, force)


def speedup(df: pd.DataFrame) -> pd.DataFrame:
    """``network``, ``capacity``, ``speedup`` = time at 13.45 / time at 23.04 TFLOP/s."""
    t = df.pivot_table(index=["network", "capacity"], columns="throughput", values="time")
    out = (t[THROUGHPUTS[0]] / t[THROUGHPUTS[1]]).rename("speedup").reset_index()
    return out


def plot(df: pd.DataFrame) -> Figure:
    """One :func:`dnnmem.plots.time_vs_capacity` panel per network (speedup on the right
    axis, the 1.71 bound dashed)."""
    from dnnmem.plots import time_vs_capacity

    return C.per_network_figure(
        df,
        time_vs_capacity,
        "Fig. 5.3 — iteration time vs capacity at 13.45 and 23.04 TFLOP/s "
        "(616 GB/s), speedup and its bound 1.71",
    )


if __name__ == "__main__":
    C.main(NAME, compute, plot)
