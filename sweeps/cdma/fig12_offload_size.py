"""cDMA paper Fig. 12 analogue: the bytes crossing PCIe per iteration, normalised to vDNN's
(NCHW).

    python sweeps/cdma/fig12_offload_size.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "fig12-offload-size"
BARS = {k: v for k, v in C.POLICIES.items() if k != "BW"}


def compute(small: bool = False) -> pd.DataFrame:
    hw = cdma.gpu("titan-xp")
    rows = []
    for net, batch in C.networks(small).items():
        df = cdma.compare(net, hw, [C.with_target(p) for p in BARS.values()], batch=batch)
        base = float(df["link"].iloc[0])
        for bar, link in zip(BARS, df["link"]):
            rows.append({"network": net, "bar": bar, "normalised_size": float(link) / base})
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    df.pivot(index="network", columns="bar", values="normalised_size")[list(BARS)].plot.bar(
        ax=ax, rot=0
    )
    ax.set_ylabel("offloaded bytes (vDNN = 1)")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
