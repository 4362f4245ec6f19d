"""MBS paper Fig. 3: the share of ResNet-50's forward inter-layer data that on-chip storage of a
given size can reuse when every layer processes the whole mini-batch (32 samples, 16-bit).

The paper states the share ("Only 9.3% of inter-layer data can be reused even with 10MiB on-chip
storage", §2) beside a figure of "the per-layer footprint" sorted by size, without defining it.
Two readings:

- ``per_layer`` (the claim's): the figure's own quantity. Each layer's inter-layer data is its
  forward step's activation inputs plus output for the whole batch (the per-layer footprint of §3
  and Fig. 4); the share is the sum over the layers whose data fit the storage over the sum over
  all layers.
- ``reusable`` (IL's reads): of all bytes a forward step reads from an activation another layer
  produced, the share whose producer is the previous step and whose two steps each fit their
  whole-batch inputs and output in the storage — the reads ``default + mbs-strict(reuse=fits)``
  serves on chip.

    python sweeps/mbs/fig3_motivation.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _mbs as C
import numpy as np
import pandas as pd
from _pages import share, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "fig3", "motivation")


def reusable_share(net: C.dnnmem.Network, capacity: float) -> float:
    """The share defined above, from the default schedule's forward steps."""
    steps = net.steps
    acc = net.accesses.merge(steps[["step", "phase"]], on="step")
    acc = acc[(acc["phase"] == "fwd") & (acc["role"] == "activation")]
    fwd_bytes = acc.groupby("step")["bytes"].sum()
    producer = acc[acc["write"]].set_index("tensor")["step"]
    reads = acc[acc["read"] & acc["tensor"].isin(producer.index)]
    prod = reads["tensor"].map(producer).to_numpy()
    step = reads["step"].to_numpy()
    fits = (fwd_bytes.reindex(prod).to_numpy() <= capacity) & (
        fwd_bytes.reindex(step).to_numpy() <= capacity
    )
    ok = (step == prod + 1) & fits
    return float(reads["bytes"].to_numpy()[ok].sum() / reads["bytes"].sum())


def per_layer_share(net: C.dnnmem.Network, capacity: float) -> float:
    """The ``per_layer`` reading above: the bytes of the forward per-layer footprints that fit
    ``capacity``, over all of them."""
    acc = net.accesses.merge(net.steps[["step", "phase"]], on="step")
    acc = acc[(acc["phase"] == "fwd") & (acc["role"] == "activation")]
    footprint = acc.groupby("step")["bytes"].sum()
    return float(footprint[footprint <= capacity].sum() / footprint.sum())


def other_readings(net: C.dnnmem.Network, capacity: float) -> dict[str, float]:
    """Three more readings of the figure's share at ``capacity`` (docs/seeds/mbs.md, "The claims
    that still miss"), measured, not chosen: ``outputs``, the bytes of the forward outputs (§2's
    "inter-layer data", x, y and z) that fit by themselves, over all of them; ``outputs_of_fitting``,
    the outputs of the layers whose per-layer footprint fits, over all outputs; ``with_params``,
    ``per_layer`` with each layer's parameters added to its footprint (the figure's caption: "the
    size of inter-layer data and parameters of each layer")."""
    acc = net.accesses.merge(net.steps[["step", "phase"]], on="step")
    acc = acc[acc["phase"] == "fwd"]
    act = acc[acc["role"] == "activation"]
    footprint = act.groupby("step")["bytes"].sum()
    outputs = (
        act[act["write"]].groupby("step")["bytes"].sum().reindex(footprint.index, fill_value=0)
    )
    params = (
        acc[acc["role"] == "weight"]
        .groupby("step")["bytes"]
        .sum()
        .reindex(footprint.index, fill_value=0)
    )
    return {
        "outputs": float(outputs[outputs <= capacity].sum() / outputs.sum()),
        "outputs_of_fitting": float(outputs[footprint <= capacity].sum() / outputs.sum()),
        "with_params": float(footprint[footprint + params <= capacity].sum() / footprint.sum()),
    }


def compute(small: bool = False) -> pd.DataFrame:
    net = C.load("resnet50", 32)
    grid = (5, 10, 40) if small else tuple(np.arange(1, 41))
    others = pd.DataFrame([other_readings(net, m * C.MiB) for m in grid])
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "storage_mib": grid,
                    "per_layer": [per_layer_share(net, m * C.MiB) for m in grid],
                    "reusable": [reusable_share(net, m * C.MiB) for m in grid],
                }
            ),
            others,
        ],
        axis=1,
    )


def plot(df: pd.DataFrame) -> Figure:
    fig, axes = style.figure(panel=(6.0, 3.8))
    ax = axes[0, 0]
    style.lines(
        ax,
        {
            "per-layer footprints that fit": (df["storage_mib"], 100 * df["per_layer"]),
            "reads IL serves on chip": (df["storage_mib"], 100 * df["reusable"]),
        },
    )
    ax.set_xlabel("on-chip storage (MiB)")
    ax.set_ylabel("reusable forward inter-layer data (%)")
    ax.set_xlim(0, df["storage_mib"].max() + 1)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title("MBS Fig. 3 analogue: ResNet-50, 32 samples, 16-bit", fontsize=10)
    style.legend(fig)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's Fig. 3 row: the reusable share at 10 MiB, 5 and 40 MiB, both readings."""
    df = tables["fig3_motivation"].set_index("storage_mib")
    p, r = df["per_layer"], df["reusable"]
    row = (
        "Reusable inter-layer data at 10 MiB (Fig. 3, ResNet-50)",
        "9.3 %",
        f"{share(p[10])} ({share(p[5])} at 5 MiB, {share(p[40], 0)} at 40 MiB); the forward "
        f"reads IL serves: {share(r[10])} ({share(r[5])}, {share(r[40], 0)})",
        "The paper does not define the quantity. Ours: the share of the per-layer forward "
        "footprints (a layer's whole-batch inputs and output, the figure's bars) that fit, "
        "batch norm and ReLU being layers; beside it, the reads IL serves on chip (see "
        "`fig3_motivation.py`). Other readings at 10 MiB, measured, not chosen: the outputs "
        f"that fit by themselves {share(df['outputs'][10])}; the outputs of the layers whose "
        f"footprint fits {share(df['outputs_of_fitting'][10])}; the footprint with the layer's "
        f"parameters {share(df['with_params'][10])}.",
    )
    return {"fig3_motivation": table(["quantity", "paper", "dnnmem", "why they differ"], [row])}


if __name__ == "__main__":
    C.main(sys.modules[__name__])
