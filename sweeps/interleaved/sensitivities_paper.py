"""Interleaved-gradient paper Figs. 14-16 and the GPU what-if (Fig. 17) at the scorecard's reading
of its simulator, `keep` (issue 28's hypothesis 2: GEMM-level accounting, FP32, §4.2's reuse
window, im2col-expanded operands, §4.3's intermediate results kept on chip; ``_igo.READINGS``),
beside the page's default reading: the same compute functions as ``fig14_cores``,
``fig15_bandwidth``, ``fig16_batch`` and ``gpu_whatif``, run inside ``_igo.using(READING)``. The GPU
at :data:`GPU_LEVEL` only (the scorecard's rows): the paper's baseline kernel, §6.6's reference [5].

    python sweeps/interleaved/sensitivities_paper.py [--small] [--no-plot] [--markdown] [--cached]

No fusion: at GEMM-level accounting a fused point-wise step is not counted either way (the
products keep their own steps, docs/model/fusion.md), and §6.1 names fusion as something that
"will further improve performance" on top of what it measured.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import fig14_cores
import fig15_bandwidth
import fig16_batch
import gpu_whatif
import pandas as pd
from _pages import num, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "beyond", "sensitivities_paper")
#: The reading (``_igo.READINGS``): `keep`, the `paper` reading with §4.3's intermediate results
#: kept on chip (docs/seeds/interleaved.md).
READING = "keep"
#: Each figure: its script, the column of its x axis and the paper's average changes (%).
FIGURES = {
    "Fig. 14": (fig14_cores, "cores", {1: -14.5, 2: -22.4, 4: -23.7, 8: -27.7}),
    "Fig. 15": (fig15_bandwidth, "bandwidth_scale", {1.0: -14.5, 0.5: -19.3, 0.25: -22.7}),
    "Fig. 16": (fig16_batch, "batch", {8: -14.5, 16: -14.7, 32: -14.0}),
}
GPU_PAPER = gpu_whatif.PAPER
#: The GPU what-if's level of the scorecard's rows: §6.6's baseline kernel [5], which keeps nothing
#: in shared memory between tile operations (docs/seeds/interleaved.md, "The GPU's baseline
#: kernel"; before it, one SM's 128 KiB as a scratchpad, ``SM``).
GPU_LEVEL = "kernel"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (figure, x, rung, network) at :data:`READING`, "average" rows holding
    the means: ``change_pct`` the accounted time's change (GEMM layers' steps) and, for the GPU,
    ``backward_change_pct`` the tiled backward GEMM steps' (what §6.6 measures)."""
    frames = []
    with C.using(READING):
        for fig, (script, x, _paper) in FIGURES.items():
            df = script.compute(small=small)
            frames.append(pd.DataFrame({
                "figure": fig, "x": df[x].astype(float), "rung": "+ Partitioning",
                "network": df["network"], "change_pct": df["change_pct"],
                "backward_change_pct": float("nan"),
            }))  # fmt: skip
        g = gpu_whatif.compute(small=small, levels=(GPU_LEVEL,))
        frames.append(pd.DataFrame({
            "figure": "Fig. 17", "x": float("nan"), "rung": g["rung"], "network": g["network"],
            "change_pct": g["change_pct"], "backward_change_pct": g["gemm_change_pct"],
        }))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Figs. 14-16's average change at :data:`READING` beside the paper's, one panel each."""
    fig, axes = style.figure(1, 3, panel=(4.2, 3.6), sharey=True)
    for ax, (name, (_s, x, paper)) in zip(axes[0], FIGURES.items()):
        a = df[(df["figure"] == name) & (df["network"] == "average")].sort_values("x")
        p = sorted(paper.items())
        style.lines(ax, {f"dnnmem (`{READING}` reading)": (a["x"], a["change_pct"]),
                         "paper": ([k for k, _ in p], [v for _, v in p])})  # fmt: skip
        ax.axhline(0, color="k", lw=0.6)
        style.log_ticks(ax, sorted(set(a["x"]) | set(paper)), fmt=lambda v: f"{v:g}")
        ax.set_xlabel({"cores": "cores", "bandwidth_scale": "bandwidth scale", "batch": "batch"}[x])
        ax.set_title(name, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0, 0].set_ylabel("time vs the baseline (%)")
    fig.suptitle(f"Interleaved gradient order, Figs. 14-16 at the `{READING}` reading\n"
                 "(large NPU, mean of 11 models; negative = faster)", fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def averages(df: pd.DataFrame, figure: str, column: str = "change_pct") -> pd.Series:
    """The average rows of ``figure``: by x (Figs. 14-16) or by rung (Fig. 17)."""
    a = df[(df["figure"] == figure) & (df["network"] == "average")]
    return a.set_index("rung" if figure == "Fig. 17" else "x")[column]


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's table: each sensitivity at the default and at :data:`READING`."""
    df = tables["sensitivities_paper"]
    default = {"Fig. 14": tables["fig14_cores"], "Fig. 15": tables["fig15_bandwidth"],
               "Fig. 16": tables["fig16_batch"]}  # fmt: skip
    rows = []
    for name, (_s, x, paper) in FIGURES.items():
        d = default[name].query("network == 'average'").set_index(x)["change_pct"]
        p = averages(df, name)
        xs = [v for v in p.index if v in d.index]
        rows.append([
            f"{name}: {x.replace('_', ' ')} " + " / ".join(f"{v:g}" for v in xs),
            " / ".join(num(paper[v], 1) if v in paper else "—" for v in xs) + " %",
            " / ".join(num(d[v], 1, sign=True) for v in xs) + " %",
            " / ".join(num(p[v], 1, sign=True) for v in xs) + " %",
        ])  # fmt: skip
    g = tables["gpu_whatif"].query(f"network == 'average' and capacity == '{GPU_LEVEL}'")
    g = g.set_index("rung")
    p = averages(df, "Fig. 17", "backward_change_pct")
    rows.append([
        "Fig. 17 (GPU what-if, [5]'s kernel): " + " / ".join(GPU_PAPER),
        " / ".join(num(v, 1) for v in GPU_PAPER.values()) + " % (backward pass)",
        " / ".join(num(g.loc[r, "gemm_change_pct"], 1, sign=True) for r in GPU_PAPER) + " %",
        " / ".join(num(p[r], 1, sign=True) for r in GPU_PAPER) + " %",
    ])  # fmt: skip
    head = ["figure: points", "paper", "default reading", f"`{READING}` reading"]
    return {"sensitivities_paper": table(head, rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
