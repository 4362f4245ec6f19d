"""Interleaved-gradient paper Fig. 15: the full technique on the large NPU at 1x, 0.5x and 0.25x
its DRAM bandwidth; the paper: 14.5 / 19.3 / 22.7 % faster (changes of −14.5 / −19.3 / −22.7 %).
Its numbers are on the page's sensitivity table, which ``fig14_cores`` writes.

    python sweeps/interleaved/fig15_bandwidth.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig15", "bandwidth")
PAPER = {1.0: -14.5, 0.5: -19.3, 0.25: -22.7}  # as changes (negative = faster)


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (bandwidth scale, network) and a mean row per scale, with the paper's."""
    rows = []
    for scale in list(PAPER)[:2] if small else PAPER:
        for net in C.networks(small):
            hw = C.large_npu(bandwidth_scale=scale)
            rows.append({"bandwidth_scale": scale, **C.change(net, hw, 8)})
    df = pd.DataFrame(rows)
    avg = df.groupby("bandwidth_scale", sort=False)["change_pct"].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [PAPER[s] for s in avg["bandwidth_scale"]]
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """The average change per bandwidth scale, dnnmem beside the paper."""
    fig, axes = style.figure(panel=(6.5, 3.8))
    ax = axes[0, 0]
    a = df[df["network"] == "average"].sort_values("bandwidth_scale", ascending=False)
    t = a.set_index("bandwidth_scale")[["change_pct", "paper_pct"]]
    t = t.rename(columns={"change_pct": "dnnmem", "paper_pct": "paper"})
    t.index = [f"{s:g}×" for s in t.index]
    style.bars(ax, t, reference=0.0)
    ax.set_xlabel("DRAM bandwidth (× the large NPU's)")
    ax.set_ylabel("execution time vs the baseline (%)")
    ax.set_title(
        "Interleaved-gradient Fig. 15 analogue: bandwidth (negative = faster)", fontsize=10
    )
    style.legend(ax)
    return fig


if __name__ == "__main__":
    C.main(sys.modules[__name__])
