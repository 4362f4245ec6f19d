"""cDMA paper Fig. 3(b) analogue: vDNN's performance normalised to the oracle across GPU
generations (the paper's Table I math throughput) at a fixed PCIe gen3 16 GB/s.

    python sweeps/cdma/fig3b_generations.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

import dnnmem
from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "fig3b-generations"
#: cDMA paper Table I: GPU -> TFLOPS.
GENERATIONS = {"K40": 5.0, "M40": 6.8, "P100": 10.6, "V100": 15.0}


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for gpu, tflops in GENERATIONS.items():
        hw = dnnmem.Hardware(capacity="12GB", bandwidth="16GB/s", throughput=tflops * 1e12)
        for net, batch in C.networks(small).items():
            df = cdma.compare(net, hw, ["vdnn-all"], batch=batch)
            rows.append(
                {
                    "gpu": gpu,
                    "tflops": tflops,
                    "network": net,
                    "performance": float(df["performance"].iloc[0]),
                }
            )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    df.pivot(index="gpu", columns="network", values="performance").loc[list(GENERATIONS)].plot.bar(
        ax=ax, rot=0
    )
    ax.set_ylabel("vDNN performance (oracle = 1)")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
