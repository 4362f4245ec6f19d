"""Interleaved-gradient paper Fig. 14: the full technique (Algorithm 1 + partitioning) on 1-8
cores of the large NPU sharing one scratchpad, scratchpad, bandwidth and batch scaled with the
cores (§6.3); the paper: 14.5 % at 1 core to 27.7 % at 8.

    python sweeps/interleaved/fig14_cores.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig14_cores"
PAPER = {1: 14.5, 8: 27.7}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (cores, network) and a mean row per core count, with the paper's."""
    rows = []
    for cores in (1, 2) if small else (1, 2, 4, 8):
        for net in C.networks(small):
            rows.append({"cores": cores, **C.reduction(net, C.large_npu(cores), 8 * cores, cores)})
    df = pd.DataFrame(rows)
    avg = df.groupby("cores")["reduction_pct"].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [PAPER.get(c) for c in avg["cores"]]
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Mean reduction per core count."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    a = df[df["network"] == "average"]
    ax.plot(a["cores"], a["reduction_pct"], "o-", label="dnnmem")
    p = a.dropna(subset=["paper_pct"])
    ax.plot(p["cores"], p["paper_pct"], "s--", label="paper")
    ax.set_xlabel("cores")
    ax.set_ylabel("execution time reduction (%)")
    ax.set_title("Interleaved-gradient Fig. 14 analogue: cores sharing the scratchpad")
    ax.legend()
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
