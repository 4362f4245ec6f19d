"""MBS paper Fig. 14: systolic-array utilization of the convolution and fully-connected layers
with unlimited DRAM bandwidth, per configuration and network.

The paper (§6, averages over the CNNs): Baseline 53.8 % ("inter-wave idle time"), ArchOpt
81.5 % (weight double buffering), MBS-FS 66.7 % ("the sub-batch size is determined solely by
the large early layers"), MBS1 and MBS2 78.6 % ("within 3% of a full mini-batch"). Here the
utilization of a configuration is Σ FLOPs / (peak × Σ compute time) over the conv2d, depthwise
and dense steps, from the ``systolic`` compute model's cycles for each step's GEMMs at its
(sub-)batch; the bandwidth is set so high that no step waits for memory. ``array`` says which
array: ``WaveCore`` (the paper's: the Baseline's waves pipelined behind each weight load, every
other configuration's double-buffered, tiles of 256 rows; ``_mbs.ARRAY``) or ``SCALE-Sim``
(dnnmem's default ``systolic``, every wave a drained fold; the Baseline is not modelled there).

    python sweeps/mbs/fig14_utilization.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import num, share, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "fig14", "utilization")

GEMM_KINDS = ("conv2d", "depthwise_conv2d", "dense")


def gemm_utilization(steps: pd.DataFrame, throughput: float) -> float:
    """Σ FLOPs / (throughput × Σ compute time) over the GEMM layers' steps (fraction)."""
    g = steps[steps["kind"].isin(GEMM_KINDS)]
    return float(g["flops"].sum() / (throughput * g["compute_time"].sum()))


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = {"resnet50": 32} if small else C.NETWORKS
    configs = {
        ("ArchOpt" if k == "Baseline" else k): v
        for k, v in C.configurations(10 * C.MiB).items()
        if k in ("Baseline", "MBS-FS", "MBS1", "MBS2")
    }
    arrays = {
        "WaveCore": {C.SINGLE: C.single_buffered(configs["ArchOpt"]), **configs},
        "SCALE-Sim": configs,
    }
    for name, batch in nets.items():
        net = C.load(name, batch)
        for array, compute in (("WaveCore", C.ARRAY), ("SCALE-Sim", C.SCALESIM_ARRAY)):
            hw = C.core(bandwidth=1e18, array=compute)  # unlimited: no step waits for memory
            for config, policy in arrays[array].items():
                r = C.dnnmem.estimate(net, hw, policy=C.fused(policy))
                rows.append(
                    {
                        "network": name,
                        "array": array,
                        "config": config,
                        "gemm_utilization": gemm_utilization(r.steps, hw.throughput),
                        "utilization": r.utilization,
                        "sub_batches": r.sub_batches,
                    }
                )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """Conv + FC utilization per network and configuration, and the average (the paper's)."""
    fig, axes = style.figure(panel=(7.5, 3.8))
    ax = axes[0, 0]
    df = df[df["array"] == "WaveCore"]
    t = df.pivot(index="network", columns="config", values="gemm_utilization")
    t = 100 * t.loc[C.ordered(list(df["network"])), list(dict.fromkeys(df["config"]))]
    style.bars(ax, t, average="mean")
    ax.set_ylabel("conv + FC utilization (%)")
    ax.set_ylim(0, 100)
    ax.set_title("MBS Fig. 14 analogue: unlimited DRAM bandwidth, one WaveCore core", fontsize=10)
    style.legend(ax)
    return style.tidy(fig)


PAPER = {C.SINGLE: 53.8, "ArchOpt": 81.5, "MBS-FS": 66.7, "MBS1": 78.6, "MBS2": 78.6}


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's Fig. 14 rows: the average over the networks, per configuration, on WaveCore's
    array and on SCALE-Sim's."""
    df = tables["fig14_utilization"]
    mean = df.groupby(["array", "config"], sort=False)["gemm_utilization"].mean()
    wc, ss = mean["WaveCore"], mean["SCALE-Sim"]
    net = df[df["array"] == "WaveCore"].set_index(["network", "config"])["gemm_utilization"]
    lowest = net.xs("ArchOpt", level="config").idxmin()
    rows = [
        (
            f"{c} (Fig. 14, §6)",
            f"{num(p, 1)} %",
            share(wc[c]),
            share(ss[c]) if c in ss else "—",
        )
        for c, p in PAPER.items()
    ]
    rows.append(
        (
            'MBS2 / ArchOpt ("within 3%", §1)',
            num(PAPER["MBS2"] / PAPER["ArchOpt"]),
            num(wc["MBS2"] / wc["ArchOpt"]),
            num(ss["MBS2"] / ss["ArchOpt"]),
        )
    )
    rows.append(
        (
            "ArchOpt, per network: " + " / ".join(style.display_name(n) for n in C.ordered(
                list(net.index.get_level_values("network")))),
            "—",
            " / ".join(share(net[n, "ArchOpt"]) for n in C.ordered(
                list(net.index.get_level_values("network")))),
            f"lowest: {style.display_name(lowest)}",
        )
    )  # fmt: skip
    header = ["conv + FC utilization, mean of the four CNNs", "paper",
              "dnnmem, WaveCore's array", "dnnmem, SCALE-Sim's array (before)"]  # fmt: skip
    return {"fig14_utilization": table(header, rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
