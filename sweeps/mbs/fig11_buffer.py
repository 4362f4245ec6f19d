"""MBS paper Fig. 11: ResNet-50's traffic and time against the per-core global buffer (5 to 40
MiB) for IL, MBS-FS, MBS1 and MBS2, normalized to IL at 5 MiB.

    python sweeps/mbs/fig11_buffer.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_fig11_buffer"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (buffer, configuration); the mbs schedulers plan for the buffer."""
    net = C.load("resnet50", 32)
    rows = []
    for mib in (5, 40) if small else (5, 10, 15, 20, 25, 30, 35, 40):
        hw = C.core(capacity=mib * C.MiB)
        for config, policy in C.configurations(hw.capacity).items():
            if config != "Baseline":
                rows.append({"buffer_mib": mib, "config": config, **C.run(net, hw, policy)})
    df = pd.DataFrame(rows)
    ref = df[(df["config"] == "IL") & (df["buffer_mib"] == 5)].iloc[0]
    df["traffic_vs_il5"] = df["traffic"] / ref["traffic"]
    df["time_vs_il5"] = df["time"] / ref["time"]
    return df


def plot(df: pd.DataFrame) -> Figure:
    """Traffic and time against the buffer, one line per configuration."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, col in zip(axes, ("traffic_vs_il5", "time_vs_il5")):
        for config, g in df.groupby("config", sort=False):
            ax.plot(g["buffer_mib"], g[col], marker="o", label=config)
        ax.set_xlabel("global buffer per core (MiB)")
        ax.set_ylabel(col.replace("_vs_il5", " / IL at 5 MiB"))
    axes[0].legend()
    fig.suptitle("MBS Fig. 11 analogue: ResNet-50, 32 samples per core")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
