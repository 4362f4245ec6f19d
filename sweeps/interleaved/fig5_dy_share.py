"""Interleaved-gradient paper Fig. 5: dY's share of the backward GEMMs' DRAM reads and of all
their traffic under the sequential baseline (the paper: 51.4 % of reads, 39.0 % of all traffic on
the large NPU).

    python sweeps/interleaved/fig5_dy_share.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig5_dy_share"
PAPER = {"large": {"dy_share_of_reads": 0.514, "dy_share_of_traffic": 0.390}}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, network) and an average row per NPU, with the paper's figures."""
    rows = [C.run(net, npu, order="seq") for npu in C.NPUS for net in C.networks(small)]
    df = pd.DataFrame(rows)
    cols = ["dy_share_of_reads", "dy_share_of_traffic", "dy_share_of_iteration", "dy_reads"]
    avg = df.groupby("npu", sort=False)[cols].mean().reset_index()
    avg["network"] = "average"
    out = pd.concat([df, avg], ignore_index=True)[["npu", "network", *cols]]
    for c in ("dy_share_of_reads", "dy_share_of_traffic"):
        out[f"paper_{c}"] = [
            PAPER.get(n, {}).get(c) if w == "average" else None
            for n, w in zip(out["npu"], out["network"])
        ]
    return out


def plot(df: pd.DataFrame) -> Figure:
    """dY's share of reads and of traffic per network, one panel per NPU."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, npu in zip(axes, C.NPUS):
        d = df[df["npu"] == npu].set_index("network")
        d[["dy_share_of_reads", "dy_share_of_traffic"]].plot.bar(ax=ax, rot=45)
        ax.set_title(f"{npu} NPU, sequential baseline")
        ax.set_ylabel("dY share")
    fig.suptitle("Interleaved-gradient Fig. 5 analogue: dY's share of backward GEMM traffic")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
