"""Beyond the OnSRAM paper: speedup over No SPM Mgmt vs scratchpad size, 256 KiB to 64 MiB, on
the paper's accelerator and networks (2 bytes per element, batch 1 inference).

    python sweeps/onsram/spm_size.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd
from _pages import num, table

from dnnmem.plots import style
from dnnmem.units import format_bytes

#: ``--resnext``: the ResNeXt of Table I comes from ``_onsram.NETWORKS``.
RUNS_TABLE_I_NETWORKS = True

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("onsram", "beyond", "spm_size")
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
    """OnSRAM-Static's speedup vs SPM size, one line per network (the paper's order), each
    with its own colour."""
    fig, axes = style.figure(panel=(8.0, 4.6))
    ax = axes[0, 0]
    sizes = sorted(df["spm_kib"].unique())
    data = {n: (g["spm_kib"], g["static"]) for n, g in df.groupby("network", sort=False)}
    style.lines(ax, data)
    style.log_ticks(
        ax, sizes, fmt=lambda k: format_bytes(k * 1024, digits=3).replace(" ", "\u2009")
    )
    ax.set_xlabel("scratchpad")
    ax.set_ylabel("OnSRAM-Static speedup over No SPM Mgmt (×)")
    ax.grid(True, alpha=0.3)
    ax.set_title("OnSRAM-Static vs scratchpad size (2 B/element, batch 1)", fontsize=10)
    style.legend(ax)
    return style.tidy(fig)


#: The sizes the page's table shows (KiB).
PAGE_SIZES_KIB = [256, 1024, 2048, 4096, 8192, 16384, 65536]


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """OnSRAM-Static's speedup per network and size, ∞ SPM last, and the sentence the page
    says it with."""
    df = tables["spm_size"]
    t = df.pivot(index="network", columns="spm_kib", values="static")
    t = t.loc[list(dict.fromkeys(df["network"])), [k for k in PAGE_SIZES_KIB if k in t.columns]]
    inf = df.groupby("network", sort=False)["inf"].first()
    header = ["network", *(format_bytes(k * 1024) for k in t.columns), "∞ SPM"]
    rows = [[n, *(num(v) for v in r), num(inf[n])] for n, r in t.iterrows()]
    at2, at4 = t[2048], t[4096]
    full = [n for n in t.index if abs(at4[n] - inf[n]) < 0.005 and inf[n] - at2[n] > 0.05]
    text = (
        "Doubling 2 MiB to 4 MiB gives "
        + ", ".join(f"{n} {num(at4[n])} against {num(at2[n])}" for n in full[:2])
        + (" (all of ∞ SPM)" if full else "")
        + "; at 8 MiB the networks that still fall short of ∞ SPM are "
        + ", ".join(n for n in t.index if inf[n] - t.at[n, 8192] > 0.005)
        + "."
    )
    return {"spm_size": table(header, rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
