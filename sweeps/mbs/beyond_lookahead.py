"""Beyond the MBS paper: the MBS2 schedule under dnnmem's ``lookahead`` cache manager (Bélády
replacement, latency-aware prefetch, look-ahead offload over the serialized steps) against the
paper's strict accounting on the same schedule, and against ``lookahead`` on the unserialized
schedule, at the same buffer sizes (ResNet-50 and Inception-v3, one WaveCore core).

    python sweeps/mbs/beyond_lookahead.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_beyond_lookahead"


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = ("resnet50",) if small else ("resnet50", "inception_v3")
    for name in nets:
        net = C.load(name, 32)
        for mib in (10, 20) if small else (10, 20, 40):
            hw = C.core(capacity=mib * C.MiB)
            for config, policy in C.beyond_configurations(hw.capacity).items():
                rows.append(
                    {"network": name, "buffer_mib": mib, "config": config, **C.run(net, hw, policy)}
                )
    return C.vs_baseline(pd.DataFrame(rows), ["network", "buffer_mib"])


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    nets = list(df["network"].unique())
    fig, axes = plt.subplots(2, len(nets), figsize=(5 * len(nets), 7), squeeze=False)
    for j, name in enumerate(nets):
        d = df[(df["network"] == name) & (df["config"] != "Baseline")]
        for i, col in enumerate(("traffic_ratio", "speedup")):
            ax = axes[i][j]
            for config, g in d.groupby("config", sort=False):
                ax.plot(g["buffer_mib"], g[col], marker="o", label=config)
            ax.set_xlabel("buffer (MiB)")
            ax.set_ylabel(f"{col.replace('_', ' ')} vs Baseline")
            ax.set_title(name)
    axes[0][0].legend()
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
