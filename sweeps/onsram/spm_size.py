"""Beyond the OnSRAM paper: speedup over No SPM Mgmt vs scratchpad size, 256 KiB to 64 MiB, on
the paper's accelerator and networks (2 bytes per element, batch 1 inference).

    python sweeps/onsram/spm_size.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "spm_size"
SIZES_KIB = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
SMALL_SIZES_KIB = [256, 2048, 65536]
POLICIES = {
    "static": "inference(order=hybrid) + onsram-static",
    "one_step": "one-step",
    "lru": "lru",
    "inf": "infinite-spm",
}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (network, size): a speedup column per policy of :data:`POLICIES`."""
    frames = []
    for kib in SMALL_SIZES_KIB if small else SIZES_KIB:
        df = C.speedups(C.networks(small), POLICIES, capacity=kib * 1024)
        df.insert(1, "spm_kib", kib)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """OnSRAM-Static's speedup vs SPM size, one line per network (dashed: infinite SPM)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, g in df.groupby("network", sort=False):
        (line,) = ax.plot(g["spm_kib"], g["static"], marker="o", label=name)
        ax.axhline(g["inf"].iloc[0], color=line.get_color(), ls=":", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("scratchpad (KiB)")
    ax.set_ylabel("OnSRAM-Static speedup over No SPM Mgmt")
    ax.set_title("Scratchpad size (dotted: infinite SPM)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
