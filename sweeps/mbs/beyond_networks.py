"""Beyond the MBS paper: the paper's configurations on networks it did not run (MobileNetV2,
EfficientNet-B0) next to ResNet-50, on one WaveCore core with a 10 MiB buffer: traffic relative
to the Baseline and speedup over it.

    python sweeps/mbs/beyond_networks.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import num, table, times

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "beyond", "networks")


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
    """Traffic relative to the Baseline and speedup over it, per network and configuration."""
    fig, axes = style.figure(1, 2, panel=(5.5, 3.6))
    nets = list(dict.fromkeys(df["network"]))
    configs = [c for c in dict.fromkeys(df["config"]) if c != "Baseline"]
    for ax, (col, what) in zip(axes[0], (("traffic_ratio", "traffic"), ("speedup", "speedup"))):
        t = df.pivot(index="network", columns="config", values=col).loc[nets, configs]
        style.bars(ax, t, reference=1.0)
        ax.set_title(f"{what} vs Baseline (×)", fontsize=10)
    fig.suptitle("MBS on networks the paper did not run: one WaveCore core, 10 MiB", fontsize=10)
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Traffic relative to the Baseline, then speedup, per network and configuration."""
    df = tables["beyond_networks"]
    configs = [c for c in dict.fromkeys(df["config"]) if c != "Baseline"]
    rows = []
    for name in dict.fromkeys(df["network"]):
        g = df[df["network"] == name].set_index("config")
        rows.append([style.display_name(name),
                     *(f"{num(g.at[c, 'traffic_ratio'], 3)}, {times(g.at[c, 'speedup'])}"
                       for c in configs)])  # fmt: skip
    return {"beyond_networks": table(["network", *configs], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
