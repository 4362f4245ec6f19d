"""Interleaved-gradient paper Fig. 5: dY's share of the backward GEMMs' DRAM reads and of all
their traffic under the sequential baseline (the paper: 51.4 % of reads, 39.0 % of all traffic on
the large NPU).

    python sweeps/interleaved/fig5_dy_share.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, share, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig5", "dy_share")
PAPER = {"large": {"dy_share_of_reads": 0.514, "dy_share_of_traffic": 0.390}}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, network) and an average row per NPU, with the paper's figures."""
    rows = [C.run(net, npu, order="seq") for npu in C.NPUS for net in C.networks(small)]
    df = pd.DataFrame(rows)
    cols = ["dy_share_of_reads", "dy_share_of_traffic", "dy_share_of_iteration", "dy_reads"]
    avg = df.groupby("npu", sort=False)[cols].mean().reset_index()
    avg["network"] = "average"
    out = pd.concat([df, avg], ignore_index=True)[["npu", "network", *cols]]
    for c in ("dy_share_of_reads", "dy_share_of_traffic"):
        out[f"paper_{c}"] = [
            PAPER.get(n, {}).get(c) if w == "average" else None
            for n, w in zip(out["npu"], out["network"])
        ]
    return out


def plot(df: pd.DataFrame) -> Figure:
    """dY's share of reads and of traffic per model (and the average), one panel per NPU."""
    fig, axes = style.figure(1, 2, panel=(6.5, 3.8), sharey=True)
    cols = {"dy_share_of_reads": "dY share of backward-GEMM reads",
            "dy_share_of_traffic": "dY share of backward-GEMM traffic"}  # fmt: skip
    for ax, npu in zip(axes[0], C.NPUS):
        d = df[(df["npu"] == npu) & (df["network"] != "average")].set_index("network")
        style.bars(ax, 100 * d[list(cols)].rename(columns=cols), average="mean")
        for c, v in (("dy_share_of_reads", "reads"), ("dy_share_of_traffic", "traffic")):
            p = PAPER.get(npu, {}).get(c)
            if p is not None:
                ax.axhline(100 * p, color="0.35", ls="--" if v == "reads" else ":",
                           lw=1.2, label=f"paper, {v} ({100 * p:g} %)")  # fmt: skip
        ax.set_title(f"{npu} NPU, sequential baseline", fontsize=10)
    axes[0, 0].set_ylabel("share (%)")
    fig.suptitle("Interleaved-gradient Fig. 5 analogue: dY's share of the backward GEMMs' DRAM "
                 "traffic", fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's Fig. 5 rows."""
    df = tables["fig5_dy_share"]
    large = df[df["npu"] == "large"].set_index("network")
    nets = large.drop("average")
    small_gemm = nets.sort_values("dy_share_of_reads").head(2)
    rest = nets.drop(small_gemm.index)["dy_share_of_reads"]
    rows = [
        ("Fig. 5: dY share of backward-GEMM reads, large NPU", "51.4 %",
         f"{share(large.at['average', 'dy_share_of_reads'])} (average of the {len(nets)} models; "
         f"{num(100 * rest.min(), 0)}–{share(rest.max(), 0)} per model, "
         + " and ".join(f"{style.display_name(m)} {share(v, 0)}"
                        for m, v in small_gemm["dy_share_of_reads"].items()) + " aside)",
         "dnnmem counts the tiled layers' reads (partial-sum reloads included); the paper's "
         "denominator is not stated exactly; NCF and DLRM are embedding-dominated, their GEMMs "
         "small."),
        ("Fig. 5: dY share of all traffic, large NPU", "39.0 %",
         f"{share(large.at['average', 'dy_share_of_traffic'])} of the tiled layers' bytes; "
         f"{share(large.at['average', 'dy_share_of_iteration'])} of the whole iteration",
         "the paper's \"all traffic\" is read as the backward GEMMs'; the whole iteration "
         "(forward, activations, weights) dilutes dY further."),
    ]  # fmt: skip
    return {"fig5_dy_share": table(["quantity", "paper", "dnnmem", "why different"], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
