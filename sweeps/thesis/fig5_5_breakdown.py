"""Thesis Fig. 5.5: iteration time by layer kind at several capacities.

24 MiB and 128 MiB ("existing small and large caches": the i9-10980XE's LLC and the Radeon
6900 XT's Infinity Cache), 400 MiB, and points in between; RTX 2080 Ti, lookahead. Each step's
time (end − previous end, stalls included) goes to its layer's kind and class (type I / II);
the loss steps to "loss", off-chip writes after the last step to "drain".

    python sweeps/thesis/fig5_5_breakdown.py [--small] [--force]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _common as C
import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "thesis-fig5_5-breakdown"  # its figure: figures/NAME.png (dnnmem.plots.style.figure_name)
FULL_CAPACITIES = [c * C.MIB for c in (24, 64, 128, 192, 256, 320, 400)]
SMALL_CAPACITIES = [c * C.MIB for c in (24, 128, 400)]


def breakdown(result: dnnmem.Result) -> pd.DataFrame:
    """``kind``, ``class``, ``time`` (s) of one estimate; sums to ``result.time``."""
    s = result.steps
    kind = s["kind"].where(s["phase"] != "loss", "loss")
    cls = s["class"].where(s["phase"] != "loss", "loss")
    out = s["time"].groupby([kind, cls], sort=False).sum().rename("time").reset_index()
    out.columns = ["kind", "class", "time"]
    if result.drain_time > 0:
        out.loc[len(out)] = ["drain", "drain", result.drain_time]
    return out


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """Iteration time by layer kind and class at a few capacities.

    Parameters
    ----------
    small : bool
        CI mode: 24, 128 and 400 MiB only.
    force : bool
        Recompute even if ``results/thesis/`` holds this result.

    Returns
    -------
    DataFrame
        One row per (network, capacity, kind): ``network``, ``batch``, ``capacity``
        (bytes), ``kind``, ``class`` ("I", "II", "loss", "drain"), ``time`` (s).
    """
    names = C.workloads()
    caps = SMALL_CAPACITIES if small else FULL_CAPACITIES
    params = {
        "networks": {n: C.WORKLOADS[n] for n in names},
        "capacity": caps,
        **C.RTX_2080_TI,
        "policy": C.POLICY,
    }

    def run() -> pd.DataFrame:
        parts = []
        for n in names:
            net = C.load(n, C.WORKLOADS[n])
            for cap in caps:
                r = dnnmem.estimate(
                    net, policy=C.POLICY, capacity=cap, **C.RTX_2080_TI, ops_per_mac=C.ops_per_mac()
                )
                parts.append(breakdown(r).assign(network=n, batch=net.batch, capacity=cap))
        df = pd.concat(parts, ignore_index=True)
        return df[["network", "batch", "capacity", "kind", "class", "time"]]

    return C.cached(NAME, params, run, force)


def class_share(df: pd.DataFrame) -> pd.DataFrame:
    """``network``, ``capacity``, and the share of the iteration time in each class."""
    t = df.pivot_table(
        index=["network", "capacity"], columns="class", values="time", aggfunc="sum", fill_value=0.0
    )
    return t.div(t.sum(axis=1), axis=0).reset_index()


def plot(df: pd.DataFrame) -> Figure:
    """One :func:`dnnmem.plots.time_breakdown` panel (stacked bars by kind) per network."""
    from dnnmem.plots import time_breakdown

    names = C.networks_in(df)
    fig, axes = C.panels(names)
    for name, ax in zip(names, axes):
        d = df[df.network == name].groupby(["capacity", "kind"], as_index=False)["time"].sum()
        time_breakdown(d, by="kind", ax=ax)
        ax.set_title(f"{name} (N={int(df.loc[df.network == name, 'batch'].iloc[0])})", fontsize=10)
    fig.suptitle(
        "Fig. 5.5 — iteration time by layer kind vs capacity "
        "(RTX 2080 Ti: 13.45 TFLOP/s, 616 GB/s; lookahead)"
    )
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
