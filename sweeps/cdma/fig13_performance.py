"""cDMA paper Fig. 13 analogue: performance normalised to the oracle, for vDNN, RLE, ZVC,
zlib (performance-optimal, 200 GB/s) and bandwidth-aware ZVC (48 GB/s), on the Maxwell
Titan X and the Pascal Titan Xp, PCIe gen3.

    python sweeps/cdma/fig13_performance.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "fig13-performance"
GPUS = ("titan-x-maxwell", "titan-xp")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for gpu in GPUS:
        hw = cdma.gpu(gpu)
        for net, batch in C.networks(small).items():
            pols = [C.with_target(p) for p in C.POLICIES.values()]
            df = cdma.compare(net, hw, pols, batch=batch)
            df.insert(0, "bar", list(C.POLICIES))
            df.insert(0, "network", net)
            df.insert(0, "gpu", gpu)
            rows.append(df)
    return pd.concat(rows, ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(GPUS), figsize=(11, 3.6), sharey=True)
    for ax, gpu in zip(axes, GPUS):
        d = df[df["gpu"] == gpu].pivot(index="network", columns="bar", values="performance")
        d[list(C.POLICIES)].plot.bar(ax=ax, rot=0)
        ax.set_title(gpu)
        ax.set_ylabel("performance (oracle = 1)")
        ax.set_ylim(0, 1.2)
        ax.legend(ncol=5, loc="upper center", fontsize=8)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
