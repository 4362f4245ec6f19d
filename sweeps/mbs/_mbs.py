"""What the mini-batch serialization figure scripts share: the paper's setup and its six
configurations as dnnmem compositions (docs/model/mbs.md).

Setup ("Mini-batch Serialization: CNN Training with Inter-layer Data Reuse", §4-§5): one WaveCore
core — a 128 x 128 systolic array at 0.7 GHz (22.9 TFLOP/s FP16), a 10 MiB global buffer, half
of one HBM2 stack (150 GiB/s, 4 of 8 channels) — training with 16-bit data, 32 samples per core
for the deep CNNs and 64 for AlexNet. Every script has ``compute(small=False) -> DataFrame`` and
``plot(df) -> Figure`` (saved as ``figures/<name>.png``); ``--small`` is the CI mode.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPO = Path(__file__).resolve().parents[2]
FIGURES_DIR = REPO / "figures"
MiB = 2**20
GiB = 2**30

# The paper's networks and per-core mini-batches (§5).
NETWORKS = {"resnet50": 32, "inception_v3": 32, "inception_v4": 32, "alexnet": 64}

# Main-memory options per core (Tab. 4, halved: a core has half the channels).
MEMORY = {"HBM2x2": 300 * GiB, "HBM2": 150 * GiB, "GDDR5": 192 * GiB, "LPDDR4": 119.6 * GiB}


def core(capacity: float = 10 * MiB, bandwidth: float = 150 * GiB) -> dnnmem.Hardware:
    """One WaveCore core (§4.1-4.2): one 128 x 128 array at 0.7 GHz, fp16."""
    return dnnmem.Hardware(
        capacity=capacity,
        bandwidth=bandwidth,
        throughput=2 * 128 * 128 * 0.7e9,
        name="WaveCore core",
        precision="fp16",
        compute="systolic(rows=128, cols=128)",
    )


def configurations(buffer: float) -> dict[str, str]:
    """The paper's configurations (Tab. 3) as compositions; the mbs ones plan for ``buffer``."""
    b = int(buffer)
    return {
        "Baseline": "default + none",
        "IL": "default + mbs-strict(reuse=fits)",
        "MBS-FS": f"mbs(variant=fs, buffer={b}) + mbs-strict(reuse=adjacent)",
        "MBS1": f"mbs(variant=mbs1, buffer={b}) + mbs-strict(reuse=adjacent)",
        "MBS2": f"mbs(variant=mbs2, buffer={b}) + mbs-strict(reuse=group)",
    }


def load(name: str, batch: int) -> dnnmem.Network:
    return dnnmem.network(name, batch=batch, bytes_per_element=2)


def run(net: dnnmem.Network, hw: dnnmem.Hardware, policy: str) -> dict[str, Any]:
    """One estimate as a row: traffic, time, utilization, energy (:func:`energy`)."""
    r = dnnmem.estimate(net, hw, policy=policy)
    return {
        "traffic": r.traffic,
        "traffic_in": r.traffic_in,
        "traffic_out": r.traffic_out,
        "time": r.time,
        "utilization": r.utilization,
        **energy(r),
    }


# Energy per byte and per MAC, in units of one DRAM byte. The paper gives ratios only (§6): a
# global-buffer access costs 1/8 of a DRAM access; the MAC energy is set so that DRAM is 21.6 %
# of the Baseline's energy on ResNet-50 (§6: "reducing the DRAM energy portion from 21.6%"),
# i.e. one MAC costs E_MAC DRAM bytes (ResNet-50, Baseline, one core: 11.35 GB DRAM,
# 11.35 GB global buffer, 366.6 G MACs give 0.1085).
E_GB = 1 / 8
E_MAC = 0.1085


def energy(r: dnnmem.Result) -> dict[str, float]:
    """DRAM bytes + global-buffer bytes / 8 + MACs x E_MAC, in DRAM-byte units; the global
    buffer is touched by every access of every step (each byte a step reads or writes)."""
    steps = r.network.steps
    gb = float((steps["bytes_read"] + steps["bytes_written"]).sum())
    macs = float(steps["macs"].sum())
    dram = float(r.traffic)
    total = dram + E_GB * gb + E_MAC * macs
    return {"gb_bytes": gb, "energy": total, "dram_energy_share": dram / total}


def main(
    name: str, compute: Callable[..., pd.DataFrame], plot: Callable[[pd.DataFrame], Figure]
) -> None:
    p = argparse.ArgumentParser(description=f"{name}: compute, print and plot")
    p.add_argument("--small", action="store_true", help="the CI mode: fewer points")
    p.add_argument("--no-plot", action="store_true", help="print the table only")
    a = p.parse_args()
    df = compute(small=a.small)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(df.to_string(index=False))
    if not a.no_plot:
        FIGURES_DIR.mkdir(exist_ok=True)
        fig = plot(df)
        fig.savefig(FIGURES_DIR / f"{name}.png", dpi=120)
        print(f"wrote figures/{name}.png")
