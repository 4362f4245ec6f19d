"""Interleaved-gradient paper Fig. 16: the full technique on the large NPU at several batch sizes;
the paper: about flat.

    python sweeps/interleaved/fig16_batch.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig16_batch"


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (batch, network) and a mean row per batch."""
    rows = []
    for batch in (4, 8) if small else (4, 8, 16, 32):
        for net in C.networks(small):
            rows.append({"batch": batch, **C.reduction(net, C.large_npu(), batch)})
    df = pd.DataFrame(rows)
    avg = df.groupby("batch")["reduction_pct"].mean().reset_index()
    avg["network"] = "average"
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Reduction per batch, one line per network."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for net, d in df.groupby("network"):
        ax.plot(d["batch"], d["reduction_pct"], "o-", label=net)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch")
    ax.set_ylabel("execution time reduction (%)")
    ax.set_title("Interleaved-gradient Fig. 16 analogue: batch")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
