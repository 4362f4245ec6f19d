"""MBS paper Fig. 14: systolic-array utilization of the convolution and fully-connected layers
with unlimited DRAM bandwidth, per configuration and network.

The paper (§6, averages over the CNNs): Baseline 53.8 % ("inter-wave idle time"), ArchOpt
81.5 % (weight double buffering), MBS-FS 66.7 % ("the sub-batch size is determined solely by
the large early layers"), MBS1 and MBS2 78.6 % ("within 3% of a full mini-batch"). Here the
utilization of a configuration is Σ FLOPs / (peak × Σ compute time) over the conv2d, depthwise
and dense steps, from the ``systolic`` compute model's cycles for each step's GEMMs at its
(sub-)batch; the bandwidth is set so high that no step waits for memory. The model has no
inter-wave idle time (it is ArchOpt's double-buffered array), so Baseline and ArchOpt are one
row.

    python sweeps/mbs/fig14_utilization.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_fig14_utilization"

GEMM_KINDS = ("conv2d", "depthwise_conv2d", "dense")


def gemm_utilization(steps: pd.DataFrame, throughput: float) -> float:
    """Σ FLOPs / (throughput × Σ compute time) over the GEMM layers' steps (fraction)."""
    g = steps[steps["kind"].isin(GEMM_KINDS)]
    return float(g["flops"].sum() / (throughput * g["compute_time"].sum()))


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = {"resnet50": 32} if small else C.NETWORKS
    hw = C.core(bandwidth=1e18)  # unlimited: no step waits for memory
    configs = {
        k: v
        for k, v in C.configurations(10 * C.MiB).items()
        if k in ("Baseline", "MBS-FS", "MBS1", "MBS2")
    }
    for name, batch in nets.items():
        net = C.load(name, batch)
        for config, policy in configs.items():
            r = C.dnnmem.estimate(net, hw, policy=C.fused(policy))
            rows.append(
                {
                    "network": name,
                    "config": "ArchOpt" if config == "Baseline" else config,
                    "gemm_utilization": gemm_utilization(r.steps, hw.throughput),
                    "utilization": r.utilization,
                    "sub_batches": r.sub_batches,
                }
            )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    t = df.pivot(index="network", columns="config", values="gemm_utilization")
    (100 * t[df["config"].unique()]).plot.bar(ax=ax, rot=0)
    ax.set_ylabel("conv + FC utilization (%)")
    ax.set_title("MBS Fig. 14 analogue: unlimited DRAM bandwidth, one WaveCore core")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
