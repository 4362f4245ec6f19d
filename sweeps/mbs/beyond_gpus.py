"""Beyond the MBS paper: mini-batch serialization on the thesis's GPU presets (RTX 2080 Ti,
Radeon RX 6900 XT, A100 40 GB; the last-level cache as the buffer, FP32, peak compute), against
the thesis's ``lookahead`` on the unserialized schedule: ResNet-50 and Inception-v3 at the
paper's 32 samples. MBS2 plans its sub-batches for the preset's cache; where one sample of a
layer does not fit it (the scheduler's error, kept in the ``error`` column), serialization
cannot run at all.

    python sweeps/mbs/beyond_gpus.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_beyond_gpus"

GPUS = ("rtx2080ti", "rx6900xt", "a100")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = ("resnet50",) if small else ("resnet50", "inception_v3")
    gpus = ("a100",) if small else GPUS
    for name in nets:
        net = dnnmem.network(name, batch=32, bytes_per_element=4)
        for gpu in gpus:
            hw = dnnmem.hardware(gpu, precision="fp32")
            for config, policy in C.beyond_configurations(hw.capacity).items():
                row = {
                    "network": name,
                    "gpu": gpu,
                    "capacity_mib": hw.capacity / C.MiB,
                    "config": config,
                }
                try:
                    row.update(C.run(net, hw, policy))
                except ValueError as e:  # the cache is smaller than one sample of a layer
                    row["error"] = str(e)
                rows.append(row)
    return C.vs_baseline(pd.DataFrame(rows), ["network", "gpu"])


def plot(df: pd.DataFrame) -> Figure:
    import matplotlib.pyplot as plt

    nets = list(df["network"].unique())
    fig, axes = plt.subplots(2, len(nets), figsize=(6 * len(nets), 7), squeeze=False)
    for j, name in enumerate(nets):
        d = df[(df["network"] == name) & (df["config"] != "Baseline")]
        for i, col in enumerate(("traffic_ratio", "speedup")):
            ax = axes[i][j]
            d.pivot(index="gpu", columns="config", values=col)[d["config"].unique()].plot.bar(
                ax=ax, legend=i == 0 and j == 0, rot=0
            )
            ax.axhline(1, color="k", lw=0.5)
            ax.set_ylabel(f"{col.replace('_', ' ')} vs Baseline")
            ax.set_title(name)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
