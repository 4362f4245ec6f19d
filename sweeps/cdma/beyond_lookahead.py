"""Beyond the paper: compression on the thesis's own policy. ``lookahead`` (Bélády-style
offloads and latency-aware prefetches of any tensor) with and without ZVC, against vDNN with
and without ZVC, on the same GPU memory: the size vDNN needs (its peak residency) and half of
it. Gradients and weights cross uncompressed (C1). Titan Xp, PCIe gen3.

    python sweeps/cdma/beyond_lookahead.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd

import dnnmem
from dnnmem import cdma

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "beyond-lookahead"
ZVC = f"zvc(target={C.TARGET}, cap=200GB/s)"
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
            df = cdma.compare(net, hw, list(POLICIES.values()), batch=batch)
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


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    shares = sorted(df["memory"].unique(), reverse=True)
    fig, axes = plt.subplots(1, len(shares), figsize=(11, 3.6), sharey=True)
    for ax, share in zip(axes, shares):
        d = df[df["memory"] == share].pivot(index="network", columns="policy", values="performance")
        d[list(POLICIES)].plot.bar(ax=ax, rot=0)
        ax.set_title(f"GPU memory = {share:g} x vDNN's need")
        ax.set_ylabel("performance (oracle = 1)")
        ax.set_ylim(0, 1.2)
        ax.legend(ncol=2, loc="upper center", fontsize=8)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
