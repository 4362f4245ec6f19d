"""Beyond the paper's figures: ZVC's gain over vDNN as every ReLU output's sparsity goes from
0 to 0.9 (the paper: "approximately 50 % to 90 % of the activations are zero-valued").
Titan Xp, PCIe gen3.

    python sweeps/cdma/gain_vs_sparsity.py [--small] [--no-plot] [--markdown] [--cached]
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

NAME = style.figure_name("cdma", "beyond", "gain_vs_sparsity")
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


def _table(df: pd.DataFrame) -> pd.DataFrame:
    """ZVC's gain (a fraction) per network (rows, the paper's order) and sparsity (columns)."""
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    return df.pivot(index="network", columns="sparsity", values="gain").loc[nets]


def plot(df: pd.DataFrame) -> Figure:
    """ZVC's gain over vDNN against the sparsity, one line per network (the paper's order)."""
    fig, axes = style.figure(panel=(7.0, 3.8))
    ax = axes[0, 0]
    t = _table(df)
    style.lines(ax, {n: (list(t.columns), 100 * t.loc[n].to_numpy()) for n in t.index})
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(list(t.columns))
    ax.set_xlabel("sparsity of every ReLU output")
    ax.set_ylabel("ZVC gain over vDNN (%)")
    ax.grid(True, alpha=0.3)
    ax.set_title("ZVC's gain vs sparsity (Titan Xp, PCIe 16 GB/s, ZVC at 200 GB/s)", fontsize=10)
    style.legend(ax)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """ZVC's gain per network and sparsity, and the sentence the page says it with."""
    t = _table(tables["gain_vs_sparsity"])
    header = ["network", *(f"sparsity {s:g}" for s in t.columns)]
    rows = [[style.display_name(n), *(share(v, 1, sign=True) for v in r)] for n, r in t.iterrows()]
    cost = -t[t.columns[0]]  # at sparsity 0 the masks cost
    top = t[t.columns[-1]].idxmax()
    mid = min(t.columns, key=lambda s: abs(s - 0.5))
    text = (
        f"With every ReLU output at sparsity 0, ZVC costs {num(100 * cost.min(), 1)}–"
        f"{share(cost.max(), 1)} (the masks; {style.display_name(cost.idxmin())} least, "
        f"{style.display_name(cost.idxmax())} most); the gain grows steeply past {mid:g}: "
        f"{style.display_name(top)} from {share(t.at[top, mid], 0)} at {mid:g} to "
        f"{share(t.at[top, t.columns[-1]], 0)} at {t.columns[-1]:g}."
    )
    return {"gain_vs_sparsity": table(header, rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
