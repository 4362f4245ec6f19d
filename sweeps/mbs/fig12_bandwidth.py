"""MBS paper Fig. 12: ResNet-50 (64 samples per core) on the paper's memory options, speedup
normalized to the Baseline with two HBM2 stacks.

    python sweeps/mbs/fig12_bandwidth.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_fig12_bandwidth"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (memory, configuration) on one core with a 10 MiB buffer."""
    net = C.load("resnet50", 32 if small else 64)
    rows = []
    memories = {k: C.MEMORY[k] for k in ("HBM2x2", "LPDDR4")} if small else C.MEMORY
    for memory, bw in memories.items():
        hw = C.core(bandwidth=bw)
        for config, policy in C.configurations(hw.capacity).items():
            rows.append(
                {"memory": memory, "bandwidth": bw, "config": config, **C.run(net, hw, policy)}
            )
    df = pd.DataFrame(rows)
    ref = df[(df["config"] == "Baseline") & (df["memory"] == "HBM2x2")].iloc[0]
    df["speedup"] = ref["time"] / df["time"]
    return df


def plot(df: pd.DataFrame) -> Figure:
    """Speedup over Baseline on HBM2 x 2, bars per memory and configuration."""
    return C.bars(
        df,
        "memory",
        "config",
        "speedup",
        "speedup vs Baseline on HBM2 x 2",
        "MBS Fig. 12 analogue: ResNet-50, 64 samples per core",
    )


if __name__ == "__main__":
    C.main(NAME, compute, plot)
