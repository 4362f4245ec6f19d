"""Interleaved-gradient paper §6.6 (Fig. 17) as a what-if: the ablation ladder on a GPU-class
preset, the RTX 3090 (``rtx3090``: 6 MiB L2, 936 GB/s, 35.58 TFLOP/s FP32), batch 4 (the paper:
"the same batch size as small NPU"), FP32 (its kernels derive from an SGEMM worklog), tiles of
128 (that worklog's 128 x 128 block tiles), the `none` manager. Two on-chip capacities: the L2
alone (``L2``, the preset) and L2 plus the 82 SMs' 128 KiB of L1 / shared memory (``L2+L1``,
16.25 MiB: everything a fused kernel could keep); and one SM's level (``SM``): its 128 KiB of L1 /
shared memory as the scratchpad with 1/82 of the bandwidth and of the peak (each SM a small NPU
working on its share; the times are 82x, the changes are what count), 32-element tiles — the
level where the paper's SMEM-tiled kernels reuse dY; and the paper's baseline kernel (``kernel``):
§6.6's reference [5], whose thread blocks keep their 128 x 128 output blocks in registers and
only the current input slices in shared memory, walked with nothing kept between tile
operations (``replace=none``, its output-stationary nests ``nest=fixed``; the whole GPU, tiles of
128, every rung; docs/model/interleaved.md, "Reading (no reuse)"). The paper measures the backward pass only
(``gemm_change_pct``: the tiled backward GEMM steps' time) and reports 8.6 / 20.3 / 30.3 % for
Interleaving / + Rearrangement / + Partitioning.

    python sweeps/interleaved/gpu_whatif.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, pct, table

import dnnmem
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig17", "gpu_whatif")
BATCH = 4
TILE = 128
SM_TILE = 32  # one SM's level: 4 KiB FP32 tiles, 16 in the 64 KiB share of its 128 KiB
L1_PER_SM, SMS = 128 * 1024, 82  # GA102: 128 KiB of L1 / shared memory per SM, 82 SMs
PAPER = {"Interleaving": -8.6, "+ Rearrangement (Alg. 1)": -20.3, "+ Partitioning": -30.3}
LEVEL_NAMES = {"L2": "6 MiB, 936 GB/s", "L2+L1": "16.25 MiB (L2 + 82 × 128 KiB)",
               "SM": "one SM, 128 KiB, 1/82 of bandwidth and peak",
               "kernel": "§6.6's baseline kernel [5], nothing kept between tiles"}  # fmt: skip
#: Tile-model options of a level beyond the rung's (``kernel``: [5]'s thread blocks, which keep
#: nothing in shared memory from one tile operation to the next and walk each output block's
#: reduction innermost; docs/model/interleaved.md, "Reading (no reuse)").
LEVEL_OPTIONS: dict[str, dict[str, str]] = {"kernel": {"replace": "none", "nest": "fixed"}}


def gpus() -> dict[str, tuple[dnnmem.Hardware, int]]:
    """The what-if levels of the RTX 3090 preset and their tile edges."""
    hw = dnnmem.hardware("rtx3090")
    sm = hw.replace(
        capacity=L1_PER_SM, bandwidth=hw.bandwidth / SMS, throughput=hw.throughput / SMS
    )
    return {
        "L2": (hw, TILE),
        "L2+L1": (hw.replace(capacity=hw.capacity + L1_PER_SM * SMS), TILE),
        "SM": (sm, SM_TILE),
        "kernel": (hw, TILE),
    }


def compute(small: bool = False, levels: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (capacity, network, rung): time and its change vs the sequential baseline
    (%), whole iteration and backward GEMM steps alone; "average" rows hold the means and the
    paper's. ``levels``: the capacities of :func:`gpus` to run (default all)."""
    rows = []
    ladder = {k: v for k, v in C.LADDER.items() if k != "+ Partitioning (joint)"}
    for label, (hw, tile) in gpus().items():
        if levels is not None and label not in levels:
            continue
        for net in C.sensitivity_networks(small):
            for rung, options in ladder.items():
                r = C.run_on(net, hw, BATCH, label, tile=tile,
                             **{**options, **LEVEL_OPTIONS.get(label, {})})  # fmt: skip
                rows.append({"rung": rung, **r})
    df = pd.DataFrame(rows).rename(columns={"npu": "capacity"})
    base = df[df["rung"] == "Baseline"].set_index(["capacity", "network"])
    for column, source in (("change_pct", "time"), ("gemm_change_pct", "gemm_time")):
        df[column] = [
            100 * (v / base[source][(c, w)] - 1) if base[source][(c, w)] else 0.0
            for c, w, v in zip(df["capacity"], df["network"], df[source])
        ]
    means = ["change_pct", "gemm_change_pct"]
    avg = df.groupby(["capacity", "rung"], sort=False)[means].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [PAPER.get(r, 0.0 if r == "Baseline" else float("nan")) for r in avg["rung"]]
    return pd.concat([df, avg], ignore_index=True)[
        ["capacity", "network", "rung", "time", *means, "dy_reads", "paper_pct"]
    ]


def plot(df: pd.DataFrame) -> Figure:
    """Average change of the backward GEMM steps per rung, dnnmem beside the paper."""
    return C.ladder_bars(
        df, "capacity", list(gpus()), "gemm_change_pct",
        lambda cap: f"RTX 3090, {cap}: {LEVEL_NAMES[cap]}", "backward GEMMs' time vs baseline (%)",
        "Interleaved-gradient §6.6 what-if: the ladder on a GPU (negative = faster)",
    )  # fmt: skip


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The what-if's table (GEMM steps / iteration per level and rung) and its headline row."""
    df = tables["gpu_whatif"]
    avg = df[df["network"] == "average"].set_index(["capacity", "rung"])
    rungs = [r for r in dict.fromkeys(df["rung"]) if r != "Baseline"]
    rows = [
        [
            "paper (RTX 3090, backward only)",
            "",
            *(pct(PAPER[r], 1) if r in PAPER else "" for r in rungs),
        ]
    ]
    for cap, (_hw, tile) in gpus().items():
        rows.append([f"`{cap}`: {LEVEL_NAMES[cap]} (GEMM steps / iteration)", str(tile),
                     *(f"{num(avg.loc[(cap, r), 'gemm_change_pct'], 1, sign=True)} / "
                       f"{pct(avg.loc[(cap, r), 'change_pct'], 1, sign=True)}" for r in rungs)])  # fmt: skip
    nets = df[(df["network"] != "average") & (df["rung"] == "Baseline")]
    reads = nets[nets["capacity"] == "L2"]["dy_reads"]
    text = f"At the L2's scale the baseline reads dY {num(reads.min(), 1)}–{num(reads.max(), 1)} times."
    head = (
        "GPU (RTX 3090, §6.6): Interleaving / + Rearrangement / + Partitioning",
        " / ".join(num(PAPER[r], 1) for r in PAPER) + " % (backward pass)",
        "; ".join(
            f"{LEVEL_NAMES[cap].split(',')[0]}: "
            + " / ".join(num(avg.loc[(cap, r), "gemm_change_pct"], 1, sign=True) for r in PAPER)
            + " %" for cap in ("L2", "SM", "kernel")
        ) + " of the backward GEMM steps",
        "a what-if, not the paper's kernels: at the L2's scale batch 4 nearly fits; at one SM's "
        "the orders matter but plain interleaving halves each stream's share, as on the small NPU; "
        "with [5]'s kernel (no reuse between tiles) only a shared dY tile is saved.",
    )  # fmt: skip
    header = ["level", "tile", *rungs]
    return {
        "gpu_whatif": table(header, rows) + "\n" + text + "\n",
        "gpu_whatif_headline": table(["quantity", "paper", "dnnmem", "why different"], [head]),
    }


if __name__ == "__main__":
    C.main(sys.modules[__name__])
