"""MBS paper Fig. 10: DRAM traffic, time and energy of Baseline, IL, MBS-FS, MBS1 and MBS2 per
network, normalized to the Baseline; plus MBS2 with the exact grouping, MBS2 planned on the
training footprint, MBS1 and MBS2 with the fit trusted (the strict accounting on an unlimited
buffer: the paper's reading, where nothing inside a group ever spills), and dnnmem's
``lookahead`` cache manager on the MBS2 schedule. The ``encodings`` column says whether the
strict accounting uses the paper's encodings (``paper``: a 1-bit ReLU mask and two passes over a
normalization input that does not fit on chip, ``_mbs.PAPER_ENCODINGS``) or dnnmem's default
(``default``: the same re-reads for every configuration).

    python sweeps/mbs/fig10_configs.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_fig10_configs"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (network, configuration) on one WaveCore core with a 10 MiB buffer."""
    rows = []
    nets = {"resnet50": 32} if small else C.NETWORKS
    hw = C.core()
    for name, batch in nets.items():
        net = C.load(name, batch)
        for encodings, opts in (("default", ""), ("paper", C.PAPER_ENCODINGS)):
            configs = C.configurations(hw.capacity, opts)
            if not opts:
                configs["MBS2 (dp)"] = configs["MBS2"].replace(
                    "variant=mbs2,", "variant=mbs2, grouping=dp,"
                )
                configs["MBS2 (training footprint)"] = configs["MBS2"].replace(
                    "variant=mbs2,", "variant=mbs2, footprint=training,"
                )
                configs["MBS2 + lookahead"] = configs["MBS2"].split(" + ")[0] + " + lookahead"
            for config, policy in configs.items():
                row = C.run(net, hw, policy)
                rows.append({"network": name, "encodings": encodings, "config": config, **row})
            trusted = hw.replace(capacity=2**40)
            for config in ("MBS1", "MBS2"):
                row = C.run(net, trusted, configs[config])
                config = f"{config} (fit trusted)"
                rows.append({"network": name, "encodings": encodings, "config": config, **row})
    df = pd.DataFrame(rows)
    key = ["network", "encodings"]
    base = df[df["config"] == "Baseline"].set_index(key)
    at = pd.MultiIndex.from_frame(df[key])
    for col in ("traffic", "time", "energy", "energy_j"):
        df[f"{col}_ratio"] = df[col].to_numpy() / base[col].reindex(at).to_numpy()
    return df


def plot(df: pd.DataFrame) -> Figure:
    """Grouped bars per network: traffic, time and energy relative to the Baseline."""
    import matplotlib.pyplot as plt

    df = df[df["encodings"] == "default"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4), sharey=False)
    for ax, col in zip(axes, ("traffic_ratio", "time_ratio", "energy_ratio")):
        df.pivot(index="network", columns="config", values=col)[df["config"].unique()].plot.bar(
            ax=ax, legend=ax is axes[0], rot=0
        )
        ax.set_title(col.replace("_ratio", " / Baseline"))
        ax.axhline(1, color="k", lw=0.5)
    fig.suptitle("MBS Fig. 10 analogue: one WaveCore core, 10 MiB, 150 GiB/s")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
