"""Interleaved-gradient paper Fig. 6: the speedup of the dY oracle (the dW half's dY reads free)
over the sequential baseline (the paper: 1.70x small NPU, 1.43x large).

    python sweeps/interleaved/fig6_dy_oracle.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig6_dy_oracle"
PAPER = {"small": 1.70, "large": 1.43}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, network) and a geometric-mean row per NPU, with the paper's."""
    rows = []
    for npu in C.NPUS:
        for net in C.networks(small):
            base, oracle = C.run(net, npu, order="seq"), C.run(net, npu, order="dy-oracle")
            rows.append({"npu": npu, "network": net, "speedup": base["time"] / oracle["time"]})
    df = pd.DataFrame(rows)
    gm = df.groupby("npu", sort=False)["speedup"].apply(lambda s: float(s.prod() ** (1 / len(s))))
    avg = pd.DataFrame({"npu": gm.index, "network": "geomean", "speedup": gm.to_numpy()})
    avg["paper"] = [PAPER[n] for n in avg["npu"]]
    return pd.concat([df, avg], ignore_index=True)


def plot(df: pd.DataFrame) -> Figure:
    """Speedup per network, one panel per NPU."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, npu in zip(axes, C.NPUS):
        df[df["npu"] == npu].set_index("network")["speedup"].plot.bar(ax=ax, rot=45)
        ax.axhline(PAPER[npu], color="r", lw=1, ls="--", label=f"paper {PAPER[npu]}x")
        ax.axhline(1, color="k", lw=0.5)
        ax.set_title(f"{npu} NPU")
        ax.legend()
    fig.suptitle("Interleaved-gradient Fig. 6 analogue: dY-oracle speedup over the baseline")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)
