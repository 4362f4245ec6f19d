"""Every cache manager's gap to the lower bounds across capacity (docs/optimality.md).

``compute(small)`` sweeps the thesis's networks with ``bounds="lp"`` (the LP relaxations, the
tightest bounds short of the integer programs) and adds each point's Lagrangian bounds (the
default of ``bounds=True``: columns ``traffic_lower_bound_lagrangian``,
``time_lower_bound_lagrangian``); ``plot(df)`` draws the traffic and time gaps of each policy
against capacity (in the figures' one style, :mod:`dnnmem.plots.style`); ``table(df)`` the rows
of the page. ``--small`` (CI): ResNet-50 at N = 4, two capacities; it draws its figure under
``results/optimal/``, never into ``docs/``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

import dnnmem
from dnnmem import optimal
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

POLICIES = ["lookahead", "belady", "prefetch-next", "lru", "lp-rounded"]
FULL = [("resnet50", 32), ("mobilenet_v2", 32), ("transformer", 128)]
CAPACITIES_MIB = [4, 8, 16, 24, 48, 128, 256, 500]


def compute(small: bool = False) -> pd.DataFrame:
    nets = [("resnet50", 4)] if small else FULL
    caps = [f"{c}MiB" for c in ([24, 128] if small else CAPACITIES_MIB)]
    frames = []
    for name, batch in nets:
        t0 = time.perf_counter()
        df = dnnmem.sweep(
            name, batch=batch, capacity=caps, policy=POLICIES, progress=False, bounds="lp"
        )
        df["seconds"] = time.perf_counter() - t0
        net = dnnmem.network(name, batch=batch)
        traffic, times = {}, {}
        for cap in df["capacity"].unique():
            row = df[df["capacity"] == cap].iloc[0]
            hw = dnnmem.Hardware(
                capacity=int(cap), bandwidth=row["bandwidth"], throughput=row["throughput"]
            )
            traffic[cap] = optimal.traffic_lower_bound(net, hw).value
            times[cap] = optimal.time_lower_bound(net, hw).value
        df["traffic_lower_bound_lagrangian"] = df["capacity"].map(traffic)
        df["time_lower_bound_lagrangian"] = df["capacity"].map(times)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Per network, the traffic and the time gap of each policy against capacity."""
    nets = list(dict.fromkeys(df["network"]))
    fig, axes = style.figure(len(nets), 2, panel=(6.4, 3.6))
    for row, name in zip(axes, nets):
        for ax, kind in zip(row, ("traffic", "time")):
            dnnmem.plots.gap_vs_capacity(df, kind=kind, network=name, ax=ax)
    return style.tidy(fig)


def below(lp: float, lagrangian: float) -> str:
    """How far the Lagrangian bound is below the LP's, in %, to two significant places (0
    where they agree to the bounds' rounding: the LP's is the solver's value less 10⁻⁶)."""
    return f"{max(100 * (lp - lagrangian) / lp, 0.0):.2g}"


def table(df: pd.DataFrame) -> str:
    lines = []
    for (name, batch), g in df.groupby(["network", "batch"], sort=False):
        lines.append(f"\n**{name}, N = {batch}** (traffic gap / time gap, %)\n")
        caps = sorted(g["capacity"].unique())
        lines.append("| policy | " + " | ".join(f"{c // 2**20} MiB" for c in caps) + " |")
        lines.append("|---" * (len(caps) + 1) + "|")
        for p in POLICIES:
            gp = g[g["policy"] == p].set_index("capacity")
            cells = [
                f"{100 * gp.loc[c, 'traffic_gap']:.1f} / {100 * gp.loc[c, 'time_gap']:.1f}"
                for c in caps
            ]
            lines.append(f"| `{p}` | " + " | ".join(cells) + " |")
        b = g.drop_duplicates("capacity").set_index("capacity")
        lines.append(
            "| LP bound | "
            + " | ".join(
                f"{b.loc[c, 'traffic_lower_bound'] / 1e9:.3f} GB / "
                f"{b.loc[c, 'time_lower_bound'] * 1e3:.2f} ms"
                for c in caps
            )
            + " |"
        )
        lines.append(
            "| Lagrangian, % below | "
            + " | ".join(
                f"{below(b.loc[c, 'traffic_lower_bound'], b.loc[c, 'traffic_lower_bound_lagrangian'])}"
                f" / {below(b.loc[c, 'time_lower_bound'], b.loc[c, 'time_lower_bound_lagrangian'])}"
                for c in caps
            )
            + " |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--small", action="store_true")
    ap.add_argument(
        "--out",
        help="the figure (default docs/images/optimal_gaps.png; --small: "
        "results/optimal/optimal_gaps.png)",
    )
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    df = compute(args.small)
    print(table(df))
    if not args.no_plot:
        out = Path(
            args.out
            or (
                "results/optimal/optimal_gaps.png" if args.small else "docs/images/optimal_gaps.png"
            )
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        plot(df).savefig(out, dpi=110)
        print(f"wrote {out}")
