"""Beyond the paper's figures (its §VIII motivates it): ZVC's gain over vDNN as the per-GPU
link bandwidth grows from 8 GB/s (four GPUs sharing gen3) to 80 GB/s (NVLink to POWER), and
vDNN's own performance. Titan Xp.

    python sweeps/cdma/gain_vs_link.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "gain-vs-link"


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for label, bw in cdma.LINK_BANDWIDTHS.items():
        hw = cdma.gpu("titan-xp", link=bw)
        for net, batch in C.networks(small).items():
            df = cdma.compare(net, hw, ["vdnn-all", C.with_target(C.POLICIES["ZV"])], batch=batch)
            rows.append(
                {
                    "link": label,
                    "bandwidth": bw,
                    "network": net,
                    "vdnn_performance": float(df["performance"].iloc[0]),
                    "zvc_gain": float(df["gain"].iloc[1]),
                }
            )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for net, d in df.groupby("network"):
        ax.plot(d["bandwidth"] / 1e9, d["zvc_gain"], marker="o", label=net)
    ax.set_xscale("log")
    ax.set_xlabel("link bandwidth per GPU (GB/s)")
    ax.set_ylabel("ZVC gain over vDNN")
    ax.legend()
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
