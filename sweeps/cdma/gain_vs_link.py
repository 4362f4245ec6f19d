"""Beyond the paper's figures (its §VIII motivates it): ZVC's gain over vDNN as the per-GPU
link bandwidth grows from 8 GB/s (four GPUs sharing gen3) to 80 GB/s (NVLink to POWER), and
vDNN's own performance. Titan Xp.

    python sweeps/cdma/gain_vs_link.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd
from _pages import num, share, table

from dnnmem import cdma
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "beyond", "gain_vs_link")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for label, bw in cdma.LINK_BANDWIDTHS.items():
        hw = cdma.gpu("titan-xp", link=bw)
        for net, batch in C.networks(small).items():
            df = cdma.compare(
                net, hw, ["vdnn-all", C.with_target(C.POLICIES["ZV"], C.target(net))], batch=batch
            )
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


def _table(df: pd.DataFrame) -> pd.DataFrame:
    """ZVC's gain (a fraction) per network (rows, the paper's order) and link (columns)."""
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    t = df.pivot(index="network", columns="bandwidth", values="zvc_gain").loc[nets]
    return t[sorted(t.columns)]


def plot(df: pd.DataFrame) -> Figure:
    """ZVC's gain over vDNN against the link bandwidth, one line per network (the paper's
    order) and their average."""
    fig, axes = style.figure(panel=(7.0, 3.8))
    ax = axes[0, 0]
    t = _table(df)
    t.loc["average"] = t.mean()
    bw = [b / 1e9 for b in t.columns]
    style.lines(ax, {n: (bw, 100 * t.loc[n].to_numpy()) for n in t.index})
    style.log_ticks(ax, bw, fmt=lambda v: f"{v:g}")
    ax.set_xlabel("link bandwidth per GPU (GB/s)")
    ax.set_ylabel("ZVC gain over vDNN (%)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title("ZVC's gain vs the link (Titan Xp, ZVC at 200 GB/s)", fontsize=10)
    style.legend(ax)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """ZVC's gain per network and link, and the sentence the page says it with."""
    df = tables["gain_vs_link"]
    t = _table(df)
    t.loc["average"] = t.mean()
    names = df.drop_duplicates("bandwidth").set_index("bandwidth")["link"]
    header = ["network", *(f"{b / 1e9:g} GB/s ({names[b]})" for b in t.columns)]
    rows = [[style.display_name(n), *(share(v, 0) for v in r)] for n, r in t.iterrows()]
    avg, last = t.loc["average"], t.columns[-1]
    top2 = t.drop("average")[last].sort_values(ascending=False).head(2)
    text = (
        "ZVC's average gain over vDNN falls from "
        + ", ".join(f"{share(avg[b], 0)} at {num(b / 1e9, 0)}" for b in t.columns[:-1])
        + f" to {share(avg[last], 0)} at {num(last / 1e9, 0)} GB/s; "
        + " and ".join(style.display_name(n) for n in top2.index)
        + f" still gain {share(top2.iloc[0], 0)} and {share(top2.iloc[1], 0)} at "
        f"{num(last / 1e9, 0)} GB/s."
    )
    return {"gain_vs_link": table(header, rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
