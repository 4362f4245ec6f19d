"""Thesis Fig. 5.1: the modified roofline of the four workloads of Table 5.1.

Each layer's forward and backward step at x = its reuse frequency (Eq. 3.4: FLOPs over the bytes
the step accesses when every access is streamed) and y = min(rf × bandwidth, throughput)
(Eq. 5.1), with the RTX 2080 Ti's roof (13.45 TFLOP/s, 616 GB/s: ridge 21.8 FLOP/byte) for all
four panels, as the caption says. No cache and no estimate: the x of every point depends only on
the network and its batch.

    python sweeps/thesis/fig5_1_roofline.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_1-roofline"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)
BANDWIDTH = C.RTX_2080_TI["bandwidth"]
THROUGHPUT = C.RTX_2080_TI["throughput"]


def _points(name: str, batch: int) -> pd.DataFrame:
    L = C.load(name, batch).layers
    parts = []
    for phase in ("fwd", "bwd"):
        flops = L["fwd_flops"] if phase == "fwd" else L["bwd_dx_flops"] + L["bwd_dw_flops"]
        parts.append(
            L[["name", "kind", "class"]].assign(phase=phase, rf=L[f"rf_{phase}"], flops=flops)
        )
    pts = pd.concat(parts, ignore_index=True)
    # Inputs and folded layers have no class (no step); rf = 0 has no place on a log axis.
    pts = pts[(pts["class"] != "") & (pts["rf"] > 0)].reset_index(drop=True)
    pts.insert(0, "batch", batch)
    pts.insert(0, "network", name)
    return pts


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Modified-roofline points of the four workloads (Eq. 3.4, Eq. 5.1).

    Parameters
    ----------
    small : bool
        CI mode: the same points (no hardware sweep: they are cheap).
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, layer, phase): ``network``, ``batch``, ``name``, ``kind``,
        ``class`` ("I" / "II"), ``phase``, ``rf`` (FLOP/byte), ``flops`` (of that step),
        ``attainable`` (FLOP/s, Eq. 5.1 on the RTX 2080 Ti), ``memory_bound`` (rf < ridge).
    """
    names = C.workloads()
    params = {
        "networks": {n: C.WORKLOADS[n] for n in names},
        "bandwidth": BANDWIDTH,
        "throughput": THROUGHPUT,
    }

    def run() -> pd.DataFrame:
        df = pd.concat([_points(n, C.WORKLOADS[n]) for n in names], ignore_index=True)
        df["attainable"] = np.minimum(df["rf"] * BANDWIDTH, THROUGHPUT)
        df["memory_bound"] = df["rf"] < THROUGHPUT / BANDWIDTH
        return df

    return C.cached(NAME, params, run, force)


def plot(df: pd.DataFrame) -> Figure:
    """Four panels (a–d), one per network, each :func:`dnnmem.plots.modified_roofline` of the
    network rebuilt at the batch ``df`` records (cheap: no estimate)."""
    from dnnmem.plots import modified_roofline

    keys = df[["network", "batch"]].drop_duplicates().itertuples(index=False)
    keys = list(keys)
    fig, axes = C.panels([k.network for k in keys])
    for (name, batch), ax in zip(keys, axes):
        modified_roofline(
            C.load(name, int(batch)), bandwidth=BANDWIDTH, throughput=THROUGHPUT, ax=ax
        )
        ax.set_title(f"{name} (N={batch})", fontsize=10)
    fig.suptitle("Fig. 5.1 — modified roofline, RTX 2080 Ti roof (13.45 TFLOP/s, 616 GB/s)")
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
