"""Beyond the paper's figures: ZVC's gain over vDNN as every ReLU output's sparsity goes from
0 to 0.9 (the paper: "approximately 50 % to 90 % of the activations are zero-valued").
Titan Xp, PCIe gen3.

    python sweeps/cdma/gain_vs_sparsity.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "gain-vs-sparsity"
SPARSITY = (0.0, 0.3, 0.5, 0.7, 0.9)


def compute(small: bool = False) -> pd.DataFrame:
    hw = cdma.gpu("titan-xp")
    rows = []
    for net, batch in C.networks(small).items():
        pols = [f"vdnn-all + zvc(uniform={s}, cap=200GB/s)" for s in SPARSITY]
        df = cdma.compare(net, hw, pols, batch=batch)
        for s, gain, ratio in zip(SPARSITY, df["gain"], df["ratio"]):
            rows.append({"network": net, "sparsity": s, "gain": float(gain), "ratio": float(ratio)})
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for net, d in df.groupby("network"):
        ax.plot(d["sparsity"], d["gain"], marker="o", label=net)
    ax.set_xlabel("sparsity of every ReLU output")
    ax.set_ylabel("ZVC gain over vDNN")
    ax.legend()
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
