"""Interleaved-gradient paper Fig. 16: the full technique on the large NPU at several batch sizes;
the paper: about flat. Its numbers are on the page's sensitivity table, which ``fig14_cores``
writes.

    python sweeps/interleaved/fig16_batch.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig16", "batch")


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (batch, network) and a mean row per batch."""
    rows = []
    for batch in (4, 8) if small else (4, 8, 16, 32):
        for net in C.networks(small):
            rows.append({"batch": batch, **C.change(net, C.large_npu(), batch)})
    df = pd.DataFrame(rows)
    avg = df.groupby("batch")["change_pct"].mean().reset_index()
    avg["network"] = "average"
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """The change per batch, one line per model (the paper's order) and the average."""
    fig, axes = style.figure(panel=(7.0, 4.0))
    ax = axes[0, 0]
    nets = list(dict.fromkeys(df["network"]))
    style.lines(ax, {n: (df[df["network"] == n]["batch"], df[df["network"] == n]["change_pct"])
                     for n in nets})  # fmt: skip
    style.log_ticks(ax, sorted(df["batch"].unique()), fmt=lambda v: f"{v:g}")
    ax.axhline(0, color="k", lw=0.6)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("batch")
    ax.set_ylabel("execution time vs the baseline (%)")
    ax.set_title("Interleaved-gradient Fig. 16 analogue: batch (negative = faster)", fontsize=10)
    style.legend(ax)
    return fig


if __name__ == "__main__":
    C.main(sys.modules[__name__])
