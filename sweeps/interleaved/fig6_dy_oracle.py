"""Interleaved-gradient paper Fig. 6: the speedup of the dY oracle (the dW half's dY reads free)
over the sequential baseline (the paper: 1.70x small NPU, 1.43x large).

    python sweeps/interleaved/fig6_dy_oracle.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, table, times

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig6", "dy_oracle")
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
    """Speedup per model and the geomean, one panel per NPU, the paper's geomean beside."""
    fig, axes = style.figure(1, 2, panel=(6.5, 3.8), sharey=True)
    for ax, npu in zip(axes[0], C.NPUS):
        d = df[(df["npu"] == npu) & (df["network"] != "geomean")].set_index("network")
        style.bars(ax, d[["speedup"]].rename(columns={"speedup": "dY oracle"}), average="geomean",
                   reference=1.0)  # fmt: skip
        ax.axhline(PAPER[npu], color="0.3", ls="--", lw=1, label="paper (geomean)")
        ax.set_title(f"{npu} NPU (paper: {PAPER[npu]:g}×)", fontsize=10)
    axes[0, 0].set_ylabel("speedup over the sequential baseline (×)")
    fig.suptitle("Interleaved-gradient Fig. 6 analogue: the dY oracle (the dW half's dY reads free)",
                 fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's Fig. 6 row."""
    df = tables["fig6_dy_oracle"]
    g = df[df["network"] == "geomean"].set_index("npu")["speedup"]
    small = df[(df["npu"] == "small") & (df["network"] != "geomean")].set_index("network")[
        "speedup"
    ]
    top = small.sort_values(ascending=False).head(4)
    row = (
        "Fig. 6: dY-oracle speedup (geometric mean)", "1.70× small, 1.43× large",
        f"{times(g['small'])} small ({num(small.min())}–{num(small.max())}× per model: "
        + ", ".join(f"{style.display_name(m)} {num(v)}" for m, v in top.items())
        + f"), {times(g['large'], 3)} large",
        "the oracle frees only the dW half's dY reads; where dY survives between the halves "
        "(the walk keeps it whenever the share allows) there is nothing to free, and the steps' "
        "other bytes and compute stay.",
    )  # fmt: skip
    return {"fig6_dy_oracle": table(["quantity", "paper", "dnnmem", "why different"], [row])}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
