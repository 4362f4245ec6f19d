"""cDMA paper Fig. 11 analogue: the size-weighted average and the maximum per-tensor
compression ratio of the offloaded activations, per network, algorithm (RLE, ZVC, zlib) and
layout (NCHW, NHWC, CHWN). ZVC does not depend on the layout.

    python sweeps/cdma/fig11_ratio.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "fig11-ratio"
LAYOUTS = ("nchw", "nhwc", "chwn")


def compute(small: bool = False) -> pd.DataFrame:
    hw = cdma.gpu("titan-xp")
    rows = []
    for net, batch in C.networks(small).items():
        for algo in ("rle", "zvc", "zlib"):
            for layout in LAYOUTS:
                link = (
                    f"{algo}(target={C.TARGET})"
                    if algo == "zvc"
                    else (f"{algo}(target={C.TARGET}, layout={layout})")
                )
                df = cdma.compare(net, hw, [f"vdnn-all + {link}"], batch=batch)
                rows.append(
                    {
                        "network": net,
                        "algorithm": algo,
                        "layout": layout,
                        "ratio": float(df["ratio"].iloc[0]),
                        "max_ratio": float(df["max_ratio"].iloc[0]),
                    }
                )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(LAYOUTS), figsize=(12, 3.6), sharey=True)
    for ax, layout in zip(axes, LAYOUTS):
        d = df[df["layout"] == layout].pivot(index="network", columns="algorithm", values="ratio")
        d.plot.bar(ax=ax, rot=0, logy=True)
        ax.set_title(f"{layout.upper()}: size-weighted ratio")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
