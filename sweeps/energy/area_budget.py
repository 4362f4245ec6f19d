"""How should a fixed die area be split between SRAM, memory bandwidth and compute?

For ResNet-50 (batch 32) and the Transformer (batch 64) on a 7 nm, bf16, HBM2e design (the A100's
technology), a grid of on-chip capacity x off-chip bandwidth x peak throughput: each point's
time, joules and die area (docs/model/energy.md, docs/model/cost.md). At each area budget the
fastest point whose modelled die fits, and how its area splits; the three-way Pareto front of
(time, energy, area) on the thesis's capacity grid (24 to 1000 MiB) drawn as energy and area
against time (figures/energy-beyond-pareto_front.png).

    python sweeps/energy/area_budget.py [--small] [--no-plot] [--markdown]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES_DIR = Path(__file__).resolve().parents[2] / "figures"
#: The figure's file name (figures/NAME.png; dnnmem.plots.style.figure_name).
NAME = "energy-beyond-pareto_front"
NETWORKS = {"resnet50": 32, "transformer": 64}
BUDGETS_MM2 = (150, 250, 400)


def technology() -> dnnmem.Hardware:
    """The A100's technology (HBM2e, 7 nm, 1.41 GHz, bf16); the grid sets the three axes."""
    return dnnmem.hardware("a100", precision="bf16")


def grid(small: bool = False) -> pd.DataFrame:
    """Capacity x bandwidth x throughput for each network."""
    caps = ["8MiB", "64MiB"] if small else ["4MiB", "16MiB", "64MiB", "256MiB"]
    bws = ["0.46TB/s", "1.84TB/s"] if small else ["0.46TB/s", "0.92TB/s", "1.84TB/s", "3.68TB/s"]
    thrs = (
        ["78TFLOPS", "312TFLOPS"]
        if small
        else ["39TFLOPS", "78TFLOPS", "156TFLOPS", "312TFLOPS", "624TFLOPS"]
    )
    nets = {"resnet50": 8} if small else NETWORKS
    frames = [
        dnnmem.sweep(
            name,
            batch=batch,
            capacity=caps,
            bandwidth=bws,
            throughput=thrs,
            hardware=technology(),
            progress=False,
        )
        for name, batch in nets.items()
    ]
    return pd.concat(frames, ignore_index=True)


def best_under_budget(df: pd.DataFrame, budgets: tuple[int, ...] = BUDGETS_MM2) -> pd.DataFrame:
    """Per network and area budget: the fastest point whose die fits, its split of the area."""
    rows = []
    for name, g in df.groupby("network", observed=True, sort=False):
        for budget in budgets:
            fits = g[g["area_mm2"] <= budget]
            if fits.empty:
                continue
            b = fits.loc[fits["time"].idxmin()]
            blocks = b["area_sram_mm2"] + b["area_phy_mm2"] + b["area_compute_mm2"]
            rows.append(
                {
                    "network": name,
                    "budget_mm2": budget,
                    "capacity_MiB": b["capacity"] / 2**20,
                    "bandwidth_TBps": b["bandwidth"] / 1e12,
                    "throughput_TFLOPS": b["throughput"] / 1e12,
                    "time_ms": b["time"] * 1e3,
                    "energy_J": b["energy_j"],
                    "area_mm2": b["area_mm2"],
                    "sram_share": b["area_sram_mm2"] / blocks,
                    "phy_share": b["area_phy_mm2"] / blocks,
                    "compute_share": b["area_compute_mm2"] / blocks,
                }
            )
    return pd.DataFrame(rows)


def thesis_front(small: bool = False) -> pd.DataFrame:
    """ResNet-50 (batch 32) on the thesis's capacity grid (24 to 1000 MiB, every 16 MiB) at three
    bandwidths and three throughputs: every point, with ``front`` marking the three-way Pareto
    front of (time, energy_j, area_mm2)."""
    caps = {"start": "24MiB", "stop": "1000MiB", "step": "16MiB" if not small else "488MiB"}
    df = dnnmem.sweep(
        "resnet50",
        batch=8 if small else 32,
        capacity=caps,
        bandwidth=["0.46TB/s", "1.555TB/s", "3.1TB/s"],
        throughput=["78TFLOPS", "312TFLOPS", "624TFLOPS"],
        hardware=technology(),
        progress=False,
    )
    front = dnnmem.pareto(df, minimize=["time", "energy_j", "area_mm2"])
    return df.assign(front=df.index.isin(front.index))


def plot(df: pd.DataFrame) -> Figure:
    """The three-way front in two panels sharing the time axis: energy per iteration (J) and
    modelled die area (mm²) against time per iteration (ms). One colour per (bandwidth,
    throughput) pair (:func:`dnnmem.plots.style.styles`), its points along the capacity grid
    joined by a thin line; the points of the front large, black-edged; the legend right of the
    panels."""
    from dnnmem.plots import style

    fig, axes = style.figure(
        1,
        2,
        panel=(5.0, 4.4),
        sharex=True,
        title=f"{style.display_name(str(df['network'].iat[0]))}, batch {int(df['batch'].iat[0])}"
        f" (7 nm, bf16, HBM2e), capacity {df['capacity'].min() / 2**20:.0f}–"
        f"{df['capacity'].max() / 2**20:.0f} MiB × 3 bandwidths × 3 throughputs\n"
        f"the Pareto front of time (ms), energy (J) and die area (mm²): "
        f"{int(df['front'].sum())} of {len(df)} points",
    )
    pairs = df.sort_values(["throughput", "bandwidth", "capacity"]).groupby(
        ["throughput", "bandwidth"], sort=False
    )
    labels = {key: f"{key[0] / 1e12:g} TFLOPS, {key[1] / 1e12:.3g} TB/s" for key, _ in pairs}
    looks = style.styles(labels.values())
    for column, ax, ylabel in (
        ("energy_j", axes[0, 0], "energy per iteration (J)"),
        ("area_mm2", axes[0, 1], "modelled die area (mm²)"),
    ):
        for key, g in pairs:
            look = looks[labels[key]]
            ax.plot(g["time"] * 1e3, g[column], color=look["color"], lw=0.8, alpha=0.45)
            f = g[g["front"]]
            ax.scatter(
                f["time"] * 1e3,
                f[column],
                s=22,
                color=look["color"],
                marker=look["marker"],
                edgecolors="k",
                linewidths=0.6,
                label=labels[key],
                zorder=3,
            )
        ax.set_ylabel(ylabel)
        ax.set_xlabel("time per iteration (ms)")
        ax.grid(True, alpha=0.3)
    ticks = [
        t
        for t in (0.5, 1, 2, 5, 10, 20, 50)
        if df["time"].min() * 1e3 / 1.5 <= t <= df["time"].max() * 1e3 * 1.5
    ]
    style.log_ticks(axes[0, 0], ticks, base=10)
    axes[0, 0].set_title("energy against time", fontsize=9)
    axes[0, 1].set_title("area against time", fontsize=9)
    from matplotlib.lines import Line2D

    handles, names = axes[0, 0].get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.4", lw=0.8, alpha=0.45))
    names.append("each pair over capacity\n(24 → 1000 MiB, all points)")
    style.legend(
        fig, handles, names, below=True, ncol=5, title="front, by throughput and bandwidth"
    )
    return fig


def _markdown(df: pd.DataFrame) -> str:
    """``df`` as a markdown table, numbers to 3 significant digits (no tabulate needed)."""
    cells = [[f"{v:.3g}" if isinstance(v, float) else str(v) for v in row] for row in df.to_numpy()]
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="the CI mode: a few points")
    p.add_argument("--no-plot", action="store_true", help="print the tables only")
    p.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    a = p.parse_args()
    best = best_under_budget(grid(a.small))
    front = thesis_front(a.small)
    if a.markdown:
        print(_markdown(best))
    else:
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            print(best.to_string(index=False))
        print(f"three-way front: {int(front['front'].sum())} of {len(front)} points")
    if not a.no_plot and not a.small:
        FIGURES_DIR.mkdir(exist_ok=True)
        plot(front).savefig(FIGURES_DIR / f"{NAME}.png", dpi=120)
        print(f"wrote figures/{NAME}.png (docs/images/ has the page's copy)")


if __name__ == "__main__":
    main()
