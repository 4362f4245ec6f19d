"""Thesis Fig. 5.6: training throughput (samples/s, Eq. 5.2) vs batch size at 24 and 400 MiB.

RTX 2080 Ti (13.45 TFLOP/s, 616 GB/s), lookahead. The thesis copy does not list its batch
sizes; we use powers of two from 8 to 256 (Table 5.1's 32 and 128 among them).

    python sweeps/thesis/fig5_6_batch.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_6-batch"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)
CAPACITIES = [24 * C.MIB, 400 * C.MIB]
FULL_BATCHES = [8, 16, 32, 64, 128, 256]
SMALL_BATCHES = [4, 8, 16]


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Throughput of every workload at each batch, at 24 and 400 MiB.

    Parameters
    ----------
    small : bool
        CI mode: batches 4, 8 and 16.
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, batch, capacity): the sweep columns; ``samples_per_s`` is
        the figure's y.
    """
    names = C.workloads()
    batches = SMALL_BATCHES if small else FULL_BATCHES
    params = {
        "networks": names,
        "batch": batches,
        "capacity": CAPACITIES,
        **C.RTX_2080_TI,
        "policy": C.POLICY,
    }

    def run() -> pd.DataFrame:
        return pd.concat(
            [
                C.run_sweep(
                    n,
                    batch=batches,
                    capacity=CAPACITIES,
                    bandwidth=[C.RTX_2080_TI["bandwidth"]],
                    throughput=[C.RTX_2080_TI["throughput"]],
                )
                for n in names
            ],
            ignore_index=True,
        )

    return C.cached(NAME, params, run, force)


def plot(df: pd.DataFrame) -> Figure:
    """One :func:`dnnmem.plots.throughput_vs_batch` panel per network (a bar per capacity)."""
    from dnnmem.plots import throughput_vs_batch

    names = C.networks_in(df)
    fig, axes = C.panels(names)
    for name, ax in zip(names, axes):
        throughput_vs_batch(df, network=name, ax=ax)
        ax.set_title(name, fontsize=10)
    fig.suptitle(
        "Fig. 5.6 — training throughput vs batch size at 24 and 400 MiB "
        "(RTX 2080 Ti: 13.45 TFLOP/s, 616 GB/s; lookahead)"
    )
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
