"""Beyond the MBS paper: the paper's configurations on networks it did not run (MobileNetV2,
EfficientNet-B0) next to ResNet-50, on one WaveCore core with a 10 MiB buffer: traffic relative
to the Baseline and speedup over it.

    python sweeps/mbs/beyond_networks.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_beyond_networks"


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    hw = C.core()
    nets = ("mobilenet_v2",) if small else ("resnet50", "mobilenet_v2", "efficientnet_b0")
    for name in nets:
        net = C.load(name, 32)
        configs = C.configurations(hw.capacity)
        configs["MBS2 + lookahead"] = configs["MBS2"].split(" + ")[0] + " + lookahead"
        for config, policy in configs.items():
            rows.append({"network": name, "config": config, **C.run(net, hw, policy)})
    df = pd.DataFrame(rows)
    base = df[df["config"] == "Baseline"].set_index("network")
    df["traffic_ratio"] = df["traffic"] / df["network"].map(base["traffic"])
    df["speedup"] = df["network"].map(base["time"]) / df["time"]
    return df


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, col in zip(axes, ("traffic_ratio", "speedup")):
        df.pivot(index="network", columns="config", values=col)[df["config"].unique()].plot.bar(
            ax=ax, legend=ax is axes[0], rot=0
        )
        ax.axhline(1, color="k", lw=0.5)
        ax.set_title(col.replace("_", " ") + " vs Baseline")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
