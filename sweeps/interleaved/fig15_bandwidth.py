"""Interleaved-gradient paper Fig. 15: the full technique on the large NPU at 1x, 0.5x and 0.25x
its DRAM bandwidth; the paper: 14.5 / 19.3 / 22.7 % execution-time reduction.

    python sweeps/interleaved/fig15_bandwidth.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig15_bandwidth"
PAPER = {1.0: 14.5, 0.5: 19.3, 0.25: 22.7}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (bandwidth scale, network) and a mean row per scale, with the paper's."""
    rows = []
    for scale in list(PAPER)[:2] if small else PAPER:
        for net in C.networks(small):
            hw = C.large_npu(bandwidth_scale=scale)
            rows.append({"bandwidth_scale": scale, **C.reduction(net, hw, 8)})
    df = pd.DataFrame(rows)
    avg = df.groupby("bandwidth_scale", sort=False)["reduction_pct"].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [PAPER[s] for s in avg["bandwidth_scale"]]
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Mean reduction per bandwidth scale, dnnmem beside the paper."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    a = df[df["network"] == "average"].set_index("bandwidth_scale")
    a[["reduction_pct", "paper_pct"]].rename(
        columns={"reduction_pct": "dnnmem", "paper_pct": "paper"}
    ).plot.bar(ax=ax, rot=0)
    ax.set_xlabel("DRAM bandwidth (x the large NPU's)")
    ax.set_ylabel("execution time reduction (%)")
    ax.set_title("Interleaved-gradient Fig. 15 analogue: bandwidth")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
