"""Interleaved-gradient paper Fig. 14: the full technique (Algorithm 1 + partitioning) on 1-8
cores of the large NPU sharing one scratchpad, scratchpad, bandwidth and batch scaled with the
cores (§6.3); the paper: 14.5 % faster at 1 core to 27.7 % at 8. Its ``markdown`` writes the
page's sensitivity table, this figure's row and those of ``fig15_bandwidth`` and
``fig16_batch`` (their tables as the page shows them).

    python sweeps/interleaved/fig14_cores.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, pct, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig14", "cores")
PAPER = {1: -14.5, 8: -27.7}  # the paper's reductions as changes (negative = faster)


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (cores, network) and a mean row per core count, with the paper's."""
    rows = []
    for cores in (1, 2) if small else (1, 2, 4, 8):
        for net in C.networks(small):
            rows.append({"cores": cores, **C.change(net, C.large_npu(cores), 8 * cores, cores)})
    df = pd.DataFrame(rows)
    avg = df.groupby("cores")["change_pct"].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [PAPER.get(c) for c in avg["cores"]]
    return pd.concat([df, avg], ignore_index=True)


def _line(ax: Axes, df: pd.DataFrame, x: str) -> None:
    """The average change per ``x`` and the paper's, as two lines."""
    a = df[df["network"] == "average"].sort_values(x)
    data = {"dnnmem": (a[x], a["change_pct"])}
    if "paper_pct" in a.columns:
        p = a.dropna(subset=["paper_pct"])
        data["paper"] = (p[x], p["paper_pct"])
    style.lines(ax, data)
    ax.axhline(0, color="k", lw=0.6)
    ax.grid(True, alpha=0.3)
    style.legend(ax)


def plot(df: pd.DataFrame) -> Figure:
    """The average change per core count, dnnmem beside the paper."""
    fig, axes = style.figure(panel=(6.5, 3.8))
    ax = axes[0, 0]
    _line(ax, df, "cores")
    style.log_ticks(ax, sorted(df["cores"].unique()), fmt=lambda v: f"{v:g}")
    ax.set_xlabel("cores sharing the scratchpad")
    ax.set_ylabel("execution time vs the baseline (%)")
    ax.set_title("Interleaved-gradient Fig. 14 analogue: cores (negative = faster)", fontsize=10)
    return fig


def _row(df: pd.DataFrame, x: str, paper: str, why: str, what: str) -> list[str]:
    a = df[df["network"] == "average"].set_index(x)["change_pct"]
    nets = df[df["network"] != "average"]
    top = nets.loc[nets["change_pct"].idxmin()]
    per = nets.pivot(index="network", columns=x, values="change_pct")[list(a.index)]
    big = per.min(axis=1).sort_values().head(2)
    return [
        what, paper,
        " / ".join(num(v, 1, sign=True) for v in a) + " % (most: "
        + f"{style.display_name(top['network'])} {pct(top['change_pct'], 1, sign=True)} at "
        + f"{top[x]:g}); "
        + "; ".join(f"{style.display_name(m)} " + " / ".join(num(v, 1, sign=True) for v in per.loc[m]) + " %"
                    for m in big.index),
        why,
    ]  # fmt: skip


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's sensitivity table: Fig. 14, 15 and 16."""
    rows = [
        _row(tables["fig14_cores"], "cores", "−14.5 % → −27.7 %",
             "the scratchpad grows with the cores as the paper says, so each core's share stays "
             "8 MiB-sized and the baseline already keeps most operands; in dnnmem's lock step P "
             "parts must be on chip together, which costs the technique as much as the baseline. "
             "The paper's growth with cores needs contention dnnmem's shared share does not "
             "produce.", "Fig. 14: change at 1 / 2 / 4 / 8 cores"),
        _row(tables["fig15_bandwidth"], "bandwidth_scale", "−14.5 / −19.3 / −22.7 %",
             "the same small base gain; it grows as the steps become memory-bound (most on the "
             "large transformers, where the paper's growth shows), then the steps the technique "
             "does not touch (forward, non-GEMM) dominate; where Algorithm 1's picks with the "
             "partition move more bytes than `seq`, scarce bandwidth makes them cost.",
             "Fig. 15: change at 1× / 0.5× / 0.25× bandwidth"),
        _row(tables["fig16_batch"], "batch", "about flat",
             "larger batches make M (and dY) larger than the share, which is where the orders "
             "matter.", "Fig. 16: batch 4 / 8 / 16 / 32"),
    ]  # fmt: skip
    return {"sensitivities": table(["quantity", "paper", "dnnmem", "why different"], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
