"""Beyond the paper: compression on the thesis's own policy. ``lookahead`` (Bélády-style
offloads and latency-aware prefetches of any tensor) with and without ZVC, against vDNN with
and without ZVC, on the same GPU memory: the size vDNN needs (its peak residency) and half of
it. Gradients and weights cross uncompressed (C1). Titan Xp, PCIe gen3.

    python sweeps/cdma/beyond_lookahead.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd
from _pages import num, table
from _pages import share as share_of

import dnnmem
from dnnmem import cdma
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "beyond", "lookahead")
ZVC = "zvc(cap=200GB/s)"  # with each network's sparsity target (_cdma.TARGETS)
POLICIES = {
    "vDNN": "vdnn-all",
    "vDNN + ZVC": f"vdnn-all + {ZVC}",
    "lookahead": "lookahead",
    "lookahead + ZVC": f"lookahead + {ZVC}",
}


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for net, batch in C.networks(small).items():
        hw0 = cdma.gpu("titan-xp")
        need = int(dnnmem.estimate(net, hw0, "vdnn-all", batch=batch).steps["resident_bytes"].max())
        for share in (1.0, 0.5):
            hw = hw0.replace(capacity=int(need * share))
            pols = [C.with_target(p, C.target(net)) for p in POLICIES.values()]
            df = cdma.compare(net, hw, pols, batch=batch)
            for label, (_, r) in zip(POLICIES, df.iterrows()):
                rows.append(
                    {
                        "network": net,
                        "memory": share,
                        "capacity": int(need * share),
                        "policy": label,
                        "performance": float(r["performance"]),
                        "link_bytes": int(r["link"]),
                    }
                )
    return pd.DataFrame(rows)


def _table(df: pd.DataFrame, share_: float, col: str = "performance") -> pd.DataFrame:
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    d = df[df["memory"] == share_].pivot(index="network", columns="policy", values=col)
    return d.loc[nets, list(POLICIES)]


def plot(df: pd.DataFrame) -> Figure:
    """Bars per network (the paper's order) and their average, one panel per GPU memory."""
    shares = sorted(df["memory"].unique(), reverse=True)
    fig, axes = style.figure(1, len(shares), panel=(6.0, 3.6), sharey=True)
    for ax, m in zip(axes[0], shares):
        style.bars(ax, _table(df, m), average="mean", reference=1.0)
        ax.set_title(f"GPU memory = {m:g} × vDNN's peak residency", fontsize=10)
        ax.set_ylim(0, 1.1)
    axes[0, 0].set_ylabel("performance (oracle = 1)")
    fig.suptitle("Compression on the thesis's policy: Titan Xp, PCIe 16 GB/s, ZVC at 200 GB/s",
                 fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Performance per network, policy and GPU memory, and the lift compression gives
    ``lookahead`` with half the memory."""
    df = tables["beyond_lookahead"]
    blocks = []
    for m in sorted(df["memory"].unique(), reverse=True):
        t = _table(df, m)
        rows = [[style.display_name(n), *(num(v) for v in r)] for n, r in t.iterrows()]
        blocks.append(f"GPU memory = {m:g} × vDNN's peak residency (performance, oracle = 1):\n\n"
                      + table(["network", *t.columns], rows))  # fmt: skip
    half = _table(df, min(df["memory"]))
    lift = half["lookahead + ZVC"] / half["lookahead"] - 1
    below = int((half["lookahead + ZVC"] < half["vDNN + ZVC"]).sum())
    text = (
        f"With {min(df['memory']):g} × the memory, `lookahead + zvc` is below `vdnn-all + zvc` on "
        f"{below} of {len(half)} networks (vDNN does not look at the capacity: it needs twice the "
        f"memory), and compression lifts `lookahead` by {num(100 * lift.min(), 0)}–"
        f"{share_of(lift.max(), 0)}."
    )
    return {"beyond_lookahead": "\n".join(blocks) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
