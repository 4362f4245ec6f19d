"""What the mini-batch serialization figure scripts share: the paper's setup and its six
configurations as dnnmem compositions (docs/model/mbs.md).

Setup ("Mini-batch Serialization: CNN Training with Inter-layer Data Reuse", §4-§5): one WaveCore
core — a 128 x 128 systolic array at 0.7 GHz (22.9 TFLOP/s FP16) with double-buffered weights and
tiles of 256 rows (ArchOpt, the array of every configuration but the Baseline), a 10 MiB global
buffer, half
of one HBM2 stack (150 GiB/s, 4 of 8 channels) — training with 16-bit data, 32 samples per core
for the deep CNNs and 64 for AlexNet. Every script has ``compute(small=False) -> DataFrame``,
``plot(df) -> Figure`` (saved as ``figures/<NAME>.png``) and ``markdown(tables)`` (its tables on
docs/seeds/mbs.md; ``--markdown``, see sweeps/_pages.py); ``--small`` is the CI mode.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

import dnnmem

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _pages
import _pages  # noqa: E402

SEED = "mbs"
MiB = 2**20
GiB = 2**30

# The paper's networks and per-core mini-batches (§5), in its order.
NETWORKS = {"resnet50": 32, "inception_v3": 32, "inception_v4": 32, "alexnet": 64}

# Main-memory options per core (Tab. 4, halved: a core has half the channels).
MEMORY = {"HBM2x2": 300 * GiB, "HBM2": 150 * GiB, "GDDR5": 192 * GiB, "LPDDR4": 119.6 * GiB}
#: The memories as the figures name them.
#: Their technologies (the energy model's DRAM pJ per byte, docs/model/energy.md).
MEMORY_TYPE = {"HBM2x2": "hbm2", "HBM2": "hbm2", "GDDR5": "gddr5", "LPDDR4": "lpddr4"}
MEMORY_NAMES = {"HBM2x2": "HBM2 × 2", "HBM2": "HBM2", "GDDR5": "GDDR5", "LPDDR4": "LPDDR4"}
#: The configurations as the figures name them (the rest keep their name).
CONFIG_NAMES = {
    "MBS2 (dp)": "MBS2, exact grouping",
    "MBS2 (training footprint)": "MBS2, training footprint",
    "MBS1 (fit trusted)": "MBS1, fit trusted",
    "MBS2 (fit trusted)": "MBS2, fit trusted",
}


#: WaveCore's array (§4.1): 128 x 128, weight stationary (a block of B is "read and distributed
#: to the PEs", then a block of A "pipelined into the array"), output tiles of m = 256 rows (the
#: 64 KiB half of the local A buffer over 128 rows of 2 bytes, §4.2), and weight double buffering:
#: "there are no gaps between waves" (ArchOpt, in every configuration but the Baseline).
ARRAY = "systolic(rows=128, cols=128, waves=double-buffered, tile=256)"
#: The Baseline's array: the same without the second weight register; "before every
#: multiplication of blocks of A and B, the B block is read and distributed to the PEs, which
#: requires k (PE array height) cycles [...] No arithmetic occurs during these k cycles" (§4.1).
BASELINE_ARRAY = "systolic(rows=128, cols=128, waves=pipelined, tile=256)"
#: SCALE-Sim's array (dnnmem's default `systolic`): every wave a fold that loads, fills, streams
#: all of a GEMM's rows and drains; what the page showed before the array's options existed.
SCALESIM_ARRAY = "systolic(rows=128, cols=128)"
#: The name of the paper's Baseline row (the ``Baseline`` rows are the reference: ArchOpt's array,
#: the same traffic).
SINGLE = "Baseline (no double buffering)"


def core(
    capacity: float = 10 * MiB,
    bandwidth: float = 150 * GiB,
    array: str = ARRAY,
    memory_type: str = "hbm2",
) -> dnnmem.Hardware:
    """One WaveCore core (§4.1-4.2, §5): one 128 x 128 array at 0.7 GHz, fp16, in 32 nm
    (``array``: the compute model, ArchOpt's by default; ``memory_type``: the DRAM's technology
    for the joule model, docs/model/energy.md)."""
    return dnnmem.Hardware(
        capacity=capacity,
        bandwidth=bandwidth,
        throughput=2 * 128 * 128 * 0.7e9,
        name="WaveCore core",
        precision="fp16",
        compute=array,
        memory_type=memory_type,
        node="32nm",
        clock="700MHz",
    )


def single_buffered(policy: str) -> str:
    """``policy`` on the Baseline's array (:data:`BASELINE_ARRAY`): the paper's Baseline when
    ``policy`` is the Baseline's composition."""
    return f"{policy} + {BASELINE_ARRAY}"


#: mbs-strict's options for the paper's encodings (docs/model/mbs.md): a 1-bit ReLU mask and two
#: passes over a normalization input that does not fit on chip.
PAPER_ENCODINGS = "norm_passes=2, relu_mask=on"
#: The paper's encodings and the convolution's two backward GEMMs each reading the output
#: gradient (``dy_passes=2``, §2 and Tab. 1): every re-read §2 names, the reads that an IL with a
#: larger buffer saves (docs/seeds/mbs.md, "IL's footprint").
PAPER_READS = f"{PAPER_ENCODINGS}, dy_passes=2"
#: The rows of the configurations under :data:`PAPER_READS` (``fig11_buffer.py``).
IL_PAPER_READS = "IL (paper's reads)"
MBS2_PAPER_READS = "MBS2 (paper's reads)"


#: mbs-strict's reuse for MBS-FS and MBS1, the configurations without inter-branch reuse: a layer's
#: output to the next layer in the forward pass (a block input re-read by its second branch, a
#: shortcut output spilled before the add), and anywhere in a sub-batch in the backward pass
#: (docs/seeds/mbs.md, "MBS1's reuse rule": the paper's multi-branch optimization is Eq. 1/2's
#: forward provisioning; backward reuse within a sub-batch is MBS's own, §3).
NO_BRANCH_REUSE = "reuse=adjacent, backward_reuse=group"
#: The same with the summed branch gradients spilled (the page's reading before issue 28).
SPILLED_GRADIENTS = "reuse=adjacent"


#: IL with the paper's per-layer footprint in both passes (docs/seeds/mbs.md, "IL's footprint"):
#: a backward step is measured by its layer's forward input and output, the footprint the paper
#: defines (§3, Fig. 4) and sizes MBS with, rather than by its own bytes.
IL_FORWARD_FOOTPRINT = "default + mbs-strict(reuse=fits, fits_footprint=forward)"
#: Its row's name in the scripts' tables.
IL_FORWARD = "IL (forward footprint)"
#: IL with no footprint test: a layer's output kept for the next layer whenever the kept data fit
#: the buffer (rule 4 alone; docs/seeds/mbs.md, "IL's footprint"), a bound on any reading of the
#: test, not the paper's rule.
IL_NO_TEST_POLICY = "default + mbs-strict(reuse=adjacent)"
IL_NO_TEST = "IL (no footprint test)"


def configurations(buffer: float, encodings: str = "") -> dict[str, str]:
    """The paper's configurations (Tab. 3) as compositions; the mbs ones plan for ``buffer``.
    ``encodings`` (e.g. :data:`PAPER_ENCODINGS`) are mbs-strict options added to every
    configuration, the Baseline then being ``default + mbs-strict(reuse=none, ...)``."""
    b = int(buffer)
    e = f", {encodings}" if encodings else ""
    return {
        "Baseline": f"default + mbs-strict(reuse=none{e})" if encodings else "default + none",
        "IL": f"default + mbs-strict(reuse=fits{e})",
        "MBS-FS": f"mbs(variant=fs, buffer={b}) + mbs-strict({NO_BRANCH_REUSE}{e})",
        "MBS1": f"mbs(variant=mbs1, buffer={b}) + mbs-strict({NO_BRANCH_REUSE}{e})",
        "MBS2": f"mbs(variant=mbs2, buffer={b}) + mbs-strict(reuse=group{e})",
    }


def beyond_configurations(buffer: float) -> dict[str, str]:
    """The configurations of the "beyond the paper" scripts: the Baseline, dnnmem's
    ``lookahead`` on the unserialized schedule, and the MBS2 schedule for ``buffer`` under the
    paper's strict accounting and under ``lookahead``."""
    mbs = f"mbs(variant=mbs2, buffer={int(buffer)})"
    return {
        "Baseline": "default + none",
        "lookahead": "default + lookahead",
        "MBS2 strict": f"{mbs} + mbs-strict",
        "MBS2 + lookahead": f"{mbs} + lookahead",
    }


def vs_baseline(df: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """Adds ``traffic_ratio`` (traffic / the Baseline's) and ``speedup`` (the Baseline's time /
    time), the Baseline being the row of configuration ``Baseline`` with the same ``key``."""
    base = df[df["config"] == "Baseline"].set_index(key)
    at = pd.MultiIndex.from_frame(df[key])
    df["traffic_ratio"] = df["traffic"].to_numpy() / base["traffic"].reindex(at).to_numpy()
    df["speedup"] = base["time"].reindex(at).to_numpy() / df["time"].to_numpy()
    return df


def load(name: str, batch: int) -> dnnmem.Network:
    return dnnmem.network(name, batch=batch, bytes_per_element=2)


#: The fusion level of every run (docs/model/fusion.md; ``--fusion``): the reproductions keep the
#: thesis's ``none`` until each is settled (docs/seeds/mbs.md, "Fusion").
FUSION = "none"


def fused(policy: str) -> str:
    """``policy`` at :data:`FUSION`."""
    return policy if FUSION == "none" else str(dnnmem.Policy.parse(policy).replace(fusion=FUSION))


def set_fusion(level: str) -> None:
    """Every run of this seed's scripts at fusion ``level`` (``--fusion``)."""
    global FUSION
    FUSION = level


def stores_drained_time(steps: pd.DataFrame, bandwidth: float) -> float:
    """A lower bound on the time of a streamed plan if its stores drained behind later steps.

    Each step lasts max(compute, its loads' bytes / ``bandwidth``); its stores (``bytes_out``)
    join a backlog that the one channel serves whenever the running step's loads leave it free;
    what is left after the last step adds to the time. Capacity (a store's bytes held on chip
    until written) and write-before-read hazards (a load behind its tensor's pending store) are
    ignored, so the reading "a step waits for its loads only" can be no faster than this
    (docs/seeds/mbs.md, "The claims that still miss": Fig. 12). Exact for the plans of
    ``mbs-strict``, whose transfers are all streamed: with the stores counted in their own step
    the same sum is the timeline's time.

    Parameters
    ----------
    steps : pandas.DataFrame
        A result's ``steps``: ``compute_time`` (s), ``bytes_in`` and ``bytes_out`` (bytes).
    bandwidth : float
        The link's bandwidth, bytes per second.

    Returns
    -------
    float
        Seconds.
    """
    total = backlog = 0.0
    for compute, loaded, stored in zip(
        steps["compute_time"],
        steps["bytes_in"] / bandwidth,
        steps["bytes_out"] / bandwidth,
        strict=True,
    ):
        length = max(float(compute), float(loaded))
        backlog = max(0.0, backlog + float(stored) - (length - float(loaded)))
        total += length
    return total + backlog


def run(
    net: dnnmem.Network, hw: dnnmem.Hardware, policy: str, stores_drained: bool = False
) -> dict[str, Any]:
    """One estimate as a row: the result's totals (docs/model/report.md): traffic (also by
    role), time, utilization, groups and sub-batch sizes, global-buffer bytes and energy
    (``dnnmem.energy.WAVECORE``: DRAM-byte units, the paper's §6 ratios) and joules (static
    energy included, docs/model/energy.md), also with streamed bytes bypassing the global buffer
    (``energy_j_bypass``); with ``stores_drained``, also ``time_stores_drained`` (seconds,
    :func:`stores_drained_time`)."""
    r = dnnmem.estimate(net, hw, policy=fused(policy))
    d = r.to_dict()
    keep = [
        "traffic_in",
        "traffic_out",
        "time",
        "utilization",
        "groups",
        "sub_batches",
        "gb_bytes",
        "energy",
        "energy_dram_share",
    ]
    row: dict[str, Any] = {"traffic": r.traffic, **{k: d[k] for k in keep}}
    # Joules (docs/model/energy.md: DRAM, SRAM, MACs and the static power over the time).
    row["energy_j"] = d["energy_j"]
    row["energy_dram_j"] = d["energy_dram_j"]
    row["energy_static_j"] = d["energy_static_j"] + d["energy_sram_leakage_j"]
    # WaveCore's global buffer (docs/seeds/mbs.md, "The global buffer's bytes"): streamed bytes
    # move between DRAM and the local buffers without crossing it (§4.2, §6).
    row["energy_j_bypass"] = (
        d["energy_j"] - d["energy_sram_j"] + dnnmem.energy.sram_joules(r, "bypass")
    )
    row["weight_bytes"] = d["traffic_in_weight"]  # the re-reads of serialization included
    row["weight_grad_bytes"] = d["traffic_in_weight_grad"] + d["traffic_out_weight_grad"]
    row["activation_bytes"] = d["traffic_in_activation"] + d["traffic_out_activation"]
    row["gradient_bytes"] = d["traffic_in_gradient"] + d["traffic_out_gradient"]
    if stores_drained:
        row["time_stores_drained"] = stores_drained_time(r.steps, hw.bandwidth)
    return row


def ordered(names: Sequence[str]) -> list[str]:
    """Network names in the paper's order (:data:`NETWORKS`), then the others as given."""
    known = [n for n in NETWORKS if n in names]
    return known + [n for n in dict.fromkeys(names) if n not in NETWORKS]


def main(script: ModuleType, argv: Sequence[str] | None = None) -> None:
    """The command line of every script (sweeps/_pages.py)."""
    _pages.main(SEED, script, argv, fusion=set_fusion)
