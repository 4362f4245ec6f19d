"""cDMA paper Fig. 12 analogue: the bytes crossing PCIe per iteration, normalised to vDNN's
(NCHW).

    python sweeps/cdma/fig12_offload_size.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd
from _pages import num, table

from dnnmem import cdma
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "fig12", "offload_size")
BARS = {k: v for k, v in C.POLICIES.items() if k != "BW"}


def compute(small: bool = False) -> pd.DataFrame:
    hw = cdma.gpu("titan-xp")
    rows = []
    for net, batch in C.networks(small).items():
        df = cdma.compare(
            net, hw, [C.with_target(p, C.target(net)) for p in BARS.values()], batch=batch
        )
        base = float(df["link"].iloc[0])
        for bar, link in zip(BARS, df["link"]):
            rows.append({"network": net, "bar": bar, "normalised_size": float(link) / base})
    return pd.DataFrame(rows)


def _table(df: pd.DataFrame) -> pd.DataFrame:
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    t = df.pivot(index="network", columns="bar", values="normalised_size").loc[nets, list(BARS)]
    return t.rename(columns=C.BAR_NAMES)


def plot(df: pd.DataFrame) -> Figure:
    """Bars per network in the paper's order and their average."""
    fig, axes = style.figure(panel=(7.0, 3.6))
    ax = axes[0, 0]
    style.bars(ax, _table(df), average="mean", reference=1.0)
    ax.set_ylabel("bytes on PCIe (vDNN = 1)")
    ax.set_title(
        "cDMA Fig. 12 analogue: offloaded bytes per iteration, Titan Xp\n"
        "(RLE, ZVC, zlib at 200 GB/s; NCHW)",
        fontsize=10,
    )
    style.legend(ax)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Bytes on PCIe per network, normalised to vDNN's."""
    t = _table(tables["fig12_offload_size"])
    t.loc["average"] = t.mean()
    rows = [[style.display_name(n), *(num(v) for v in r)] for n, r in t.iterrows()]
    return {"fig12_offload_size": table(["network", *t.columns], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
