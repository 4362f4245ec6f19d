"""cDMA paper Fig. 3(b) analogue: vDNN's performance normalised to the oracle across GPU
generations (the paper's Table I math throughput) at a fixed PCIe gen3 16 GB/s.

    python sweeps/cdma/fig3b_generations.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd
from _pages import num, table

import dnnmem
from dnnmem import cdma
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "fig3b", "generations")
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


def _table(df: pd.DataFrame) -> pd.DataFrame:
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    return df.pivot(index="gpu", columns="network", values="performance").loc[
        list(GENERATIONS), nets
    ]


def plot(df: pd.DataFrame) -> Figure:
    """vDNN's performance per GPU generation (in the order of Table I), one bar per network
    (the paper's order), and the average."""
    fig, axes = style.figure(panel=(7.5, 3.6))
    ax = axes[0, 0]
    t = _table(df)
    t["average"] = t.mean(axis=1)
    t.index = [f"{g}\n{GENERATIONS[g]:g} TFLOP/s" for g in t.index]
    style.bars(ax, t, reference=1.0)
    ax.set_ylabel("vDNN performance (oracle = 1)")
    ax.set_title("cDMA Fig. 3(b) analogue: vDNN across GPU generations, PCIe 16 GB/s", fontsize=10)
    style.legend(ax)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The trend of vDNN's performance over the generations."""
    mean = _table(tables["fig3b_generations"]).mean(axis=1)
    monotone = bool((mean.diff().dropna() < 0).all())
    trend = " → ".join(f"{num(v)} ({g})" for g, v in mean.items())
    rows = [
        (
            "vDNN loss trend over GPU generations (Fig. 3b)",
            "grows with math throughput at fixed PCIe",
            ("grows monotonically" if monotone else "does not grow monotonically")
            + f": average performance {trend}",
            "—",
        )
    ]
    return {"fig3b_generations": table(["quantity", "paper", "dnnmem", "difference"], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
