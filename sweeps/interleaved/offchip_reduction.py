"""Interleaved-gradient paper Figs. 14-16 with a partition's parts summed off chip (§5): the
`reduce` reading (``_igo.READINGS``: the scorecard's `keep` plus ``reduction=dram``), beside
`keep` (sensitivities_paper.py's table). §5 on the batch (M) split: it "necessitates additional
overhead to accumulate intermediate results obtained from multiple partitions and calculate the
average. Such partitioning may not be optimal within interleaved gradient operations as it can
introduce overhead due to additional off-chip memory access"; the baseline on several cores cuts
M (one part per core, data-parallel), the technique the best of M, N and K.

    python sweeps/interleaved/offchip_reduction.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import hypotheses
import pandas as pd
import sensitivities_paper as S
from _pages import num, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "beyond", "offchip_reduction")
#: The reading of this script's runs and the one it is compared with (the scorecard's).
READING, BEFORE = "reduce", S.READING


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (figure, x, network) at :data:`READING`: the full technique's change (%)."""
    frames = []
    with C.using(READING):
        for fig, (script, x, _paper) in S.FIGURES.items():
            df = script.compute(small=small)
            frames.append(pd.DataFrame({"figure": fig, "x": df[x].astype(float),
                                        "network": df["network"],
                                        "change_pct": df["change_pct"]}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def _means(df: pd.DataFrame, figure: str, nets: list[str] | None) -> pd.Series:
    """The mean change per x of ``figure`` over ``nets`` (None: the "average" rows)."""
    d = df[df["figure"] == figure]
    if nets is None:
        return d[d["network"] == "average"].set_index("x")["change_pct"]
    return d[d["network"].isin(nets)].groupby("x")["change_pct"].mean()


def plot(df: pd.DataFrame) -> Figure:
    """Figs. 14-16: the change at :data:`READING` (eleven models) beside the paper's."""
    fig, axes = style.figure(1, 3, panel=(4.2, 3.6), sharey=True)
    for ax, (name, (_s, x, paper)) in zip(axes[0], S.FIGURES.items()):
        a = _means(df, name, None)
        p = sorted(paper.items())
        style.lines(ax, {f"dnnmem (`{READING}` reading)": (a.index, a.to_numpy()),
                         "paper": ([k for k, _ in p], [v for _, v in p])})  # fmt: skip
        ax.axhline(0, color="k", lw=0.6)
        style.log_ticks(ax, sorted(set(a.index) | set(paper)), fmt=lambda v: f"{v:g}")
        ax.set_xlabel({"cores": "cores", "bandwidth_scale": "bandwidth scale", "batch": "batch"}[x])
        ax.set_title(name, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0, 0].set_ylabel("time vs the baseline (%)")
    fig.suptitle("Interleaved gradient order, Figs. 14-16 with partitions summed off chip\n"
                 "(large NPU, mean of 11 models; negative = faster)", fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's table: each sensitivity at :data:`BEFORE` and at :data:`READING`, over the
    eleven models and over the large NPU's nine (the scorecard's set)."""
    after, before = tables["offchip_reduction"], tables["sensitivities_paper"]
    nine = list(hypotheses._claims().models("large"))
    rows = []
    for name, (_s, x, paper) in S.FIGURES.items():
        xs = sorted(_means(after, name, None).index)

        def cell(df: pd.DataFrame, nets: list[str] | None, name: str = name) -> str:
            m = _means(df, name, nets)
            return " / ".join(num(m[v], 1, sign=True) for v in xs) + " %"

        rows.append([
            f"{name}: {x.replace('_', ' ')} " + " / ".join(f"{v:g}" for v in xs),
            " / ".join(num(paper[v], 1) if v in paper else "—" for v in xs) + " %",
            f"{cell(before, None)} → {cell(after, None)}",
            f"{cell(before, nine)} → {cell(after, nine)}",
        ])  # fmt: skip
    h = hypotheses.averages(tables["hypotheses"]).set_index(["reading", "npu"])
    rung = "+ Partitioning"
    if (READING, "large") in h.index:
        rows.append([
            "Fig. 12: + Partitioning, small / large NPU (one core, two parts)",
            " / ".join(num(C.PAPER_LADDER[u][rung], 1) for u in ("small", "large")) + " %",
            " / ".join(num(h.at[(BEFORE, u), rung], 1, sign=True) for u in ("small", "large"))
            + " % → " + " / ".join(num(h.at[(READING, u), rung], 1, sign=True)
                                   for u in ("small", "large")) + " %",
            "",
        ])  # fmt: skip
    head = ["figure: points", "paper", f"`{BEFORE}` → `{READING}`: eleven models",
            "the large NPU's nine (the scorecard's set)"]  # fmt: skip
    return {"offchip_reduction": table(head, rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
