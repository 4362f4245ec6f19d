"""Interleaved-gradient paper Fig. 12: the ablation ladder (interleaving, + rearrangement by
Algorithm 1 and ideal, + partitioning), execution time relative to the sequential baseline, per
model and on average, small and large NPU, beside the paper's averages.

    python sweeps/interleaved/fig12_ladder.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig12_ladder"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, network, rung): time and its change vs the baseline (%); the rows with
    network "average" hold the mean change and the paper's."""
    rows = []
    for npu in C.NPUS:
        for net in C.networks(small):
            for rung, options in C.LADDER.items():
                rows.append({"rung": rung, **C.run(net, npu, **options)})
    df = pd.DataFrame(rows)
    base = df[df["rung"] == "Baseline"].set_index(["npu", "network"])["time"]
    df["change_pct"] = [
        100 * (t / base[(n, w)] - 1) for n, w, t in zip(df["npu"], df["network"], df["time"])
    ]
    avg = df.groupby(["npu", "rung"], sort=False)["change_pct"].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [C.PAPER_LADDER[n].get(r, 0.0) for n, r in zip(avg["npu"], avg["rung"])]
    return pd.concat([df, avg], ignore_index=True)[
        ["npu", "network", "rung", "time", "change_pct", "paper_pct"]
    ]


def plot(df: pd.DataFrame) -> Figure:
    """Average change per rung, dnnmem beside the paper, one panel per NPU."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, npu in zip(axes, C.NPUS):
        a = df[(df["network"] == "average") & (df["npu"] == npu)].set_index("rung")
        a[["change_pct", "paper_pct"]].rename(
            columns={"change_pct": "dnnmem", "paper_pct": "paper"}
        ).plot.bar(ax=ax, rot=20)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_title(f"{npu} NPU")
        ax.set_ylabel("execution time vs baseline (%)")
    fig.suptitle("Interleaved-gradient Fig. 12 analogue: the ablation ladder")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
