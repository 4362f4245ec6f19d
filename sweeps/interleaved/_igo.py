"""What the interleaved-gradient-order figure scripts share: the paper's two NPUs, its workloads
and its ablation ladder as dnnmem compositions (docs/model/interleaved.md).

Setup (Kim et al., "Improving Data Reuse in NPU On-chip Memory with Interleaved Gradient Order
for DNN Training", MICRO 2023, Table 3 and §6.1): the small NPU (one 45 x 45 array, 1 MB
scratchpad, 22 GB/s, 1 GHz, batch 4) and the large NPU (one 128 x 128 core, 8 MB, 150 GB/s,
1050 MHz, batch 8); 2 bytes per element (the presets' bf16: the paper states no type); tiles of
the array's rows; the `none` cache manager (the paper's NPUs keep nothing between layers). Every
script has ``compute(small=False) -> DataFrame``, ``plot(df) -> Figure`` (saved as
``figures/<NAME>.png``) and ``markdown(tables)`` (its tables on docs/seeds/interleaved.md;
``--markdown``, see sweeps/_pages.py); ``--small`` is the CI mode (BERT-tiny only).

One sign for every relative time or traffic here: ``change_pct`` = 100 × (new / baseline − 1),
negative = faster (or fewer bytes); the paper's reductions are written the same way.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pandas as pd

import dnnmem
import dnnmem.interleaved as igo
from dnnmem.plots import style

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _pages
import _pages  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SEED = "interleaved"
REPO = Path(__file__).resolve().parents[2]

# The paper's NPUs (dnnmem presets) and their batch sizes (§6.1).
NPUS = {"small": ("igo-edge-npu", 4), "large": ("igo-server-npu", 8)}

# Table 4's models: the zoo's (MobileNet taken as v2) and YOLO through the darknet importer.
NETWORKS = [
    "faster_rcnn",
    "googlenet",
    "ncf",
    "resnet50",
    "dlrm",
    "mobilenet_v2",
    "bert_large",
    "bert_tiny",
    "t5_large",
    "t5_small",
    "yolov3",
]
# Networks that are not zoo names: YOLO is darknet's YOLOv3 cfg (the one the repository holds,
# tests/data/darknet; the paper's v5 / v2-tiny cfgs are not there) at its usual 416 x 416 input,
# imported at the presets' 2 bytes per element, on both NPUs.
DARKNET = {
    "yolov3": ("tests/data/darknet/yolov3.cfg", (416, 416, 3)),
    # The small NPU's YOLO of Table 4, "YOLO (v5/v2-tiny)": darknet's yolov2-tiny cfg, 416 x 416.
    "yolov2_tiny": ("tests/data/darknet/yolov2-tiny.cfg", (416, 416, 3)),
}
#: Models a script's full mode runs on one NPU only, beyond :data:`NETWORKS`: the paper's
#: YOLOv2-tiny on the small NPU (Table 4; hypotheses.py; the scorecard's small-NPU YOLO).
NPU_ONLY = {"small": ["yolov2_tiny"], "large": []}
SMALL_NETWORKS = ["bert_tiny"]

# The ablation ladder (Fig. 12) and the paper's averages (execution-time reduction, %).
LADDER = {
    "Baseline": {"order": "seq"},
    "Interleaving": {"order": "interleave"},
    "+ Rearrangement (Alg. 1)": {"order": "alg1"},
    "+ Rearrangement (ideal)": {"order": "best"},
    "+ Partitioning": {"order": "alg1", "partition": "best", "parts": 2},
    # Beyond the paper's ladder: order and partition searched together per layer (the best
    # (order, partition) pair, unpartitioned included), docs/model/interleaved.md.
    "+ Partitioning (joint)": {"order": "best", "partition": "joint", "parts": 2},
}
PAPER_LADDER = {
    "small": {"Interleaving": -0.8, "+ Rearrangement (Alg. 1)": -23.8,
              "+ Rearrangement (ideal)": -25.1, "+ Partitioning": -29.3},
    "large": {"Interleaving": -7.4, "+ Rearrangement (Alg. 1)": -10.9,
              "+ Rearrangement (ideal)": -12.4, "+ Partitioning": -14.5},
}  # fmt: skip


# The baseline tiler every rung of a run uses (docs/model/interleaved.md, "Reading (baseline
# tiler)"): dnnmem's default (each family's least-traffic nest, farthest-next-use replacement),
# or the simpler tiler a simulator plausibly has (output-stationary nests, LRU), and each half.
TILERS: dict[str, dict[str, str]] = {
    "best": {},
    "fixed": {"nest": "fixed"},
    "lru": {"replace": "lru"},
    "simple": {"nest": "fixed", "replace": "lru"},
    "handicap": {},  # the baseline alone gets fixed nests: see tiler_options
}
# ``handicap``: only the sequential baseline has the weak tiler (fixed output-stationary nests),
# every fused rung keeps the best nests: the upper bound of how much of the paper's gap a weak
# baseline can explain.
HANDICAP_BASELINE = {"nest": "fixed"}


def tiler_options(tiler: str, rung: str) -> dict[str, str]:
    """The tile-model options of ``tiler`` (one of :data:`TILERS`) for the ladder rung ``rung``."""
    if tiler == "handicap" and rung == "Baseline":
        return HANDICAP_BASELINE
    return TILERS[tiler]


# The partition-choice and GPU scripts run on a subset of the models; the sensitivity figures
# (Fig. 14-16) on all of them (the large NPU at 8 cores and batch 64 takes T5-large about 30 s).
SENSITIVITY_NETWORKS = ["resnet50", "googlenet", "mobilenet_v2", "bert_tiny", "t5_small"]
# The full technique of the sensitivity figures: Algorithm 1 with the best partition.
TECHNIQUE = {"order": "alg1", "partition": "best", "parts": 2}


def networks(small: bool) -> list[str]:
    return SMALL_NETWORKS if small else NETWORKS


def sensitivity_networks(small: bool) -> list[str]:
    return ["bert_tiny"] if small else SENSITIVITY_NETWORKS


# How dnnmem reads the paper's simulator (docs/seeds/interleaved.md, "Hypotheses"). Each
# reading is a set of options, each argued from the paper's text there; `dnnmem` is the page's
# reading before issue 28, `paper` all of issue 28's hypotheses together. The others add one
# hypothesis at a time (the page's hypotheses table, in this order).
#   accounting: "iteration" (every step's time) or "gemm" (only the GEMM layers' steps, forward
#       and backward: the paper's SCALE-Sim-based simulator runs every convolution as a GEMM and
#       times the GEMMs, §6.1);
#   precision: the presets' "bf16" or "fp32" (4 bytes: the paper's GPU kernels are SGEMM, §6.6,
#       and it follows PyTorch, §6.1, whose training default is FP32);
#   replace: the walk's tile replacement, "belady" or "lru" (§4.2's reuse window: a tile is
#       reused when what was touched since its last use fits in half the SPM);
#   im2col: "raw" or "expanded" (§6.1: the convolutions run as GEMMs "by applying im2col");
#   oracle: the dY oracle's order, "dy-oracle" (the dW-ops' dY reads free) or "dy-once" (§3.3's
#       "assuming that dY is read only once for computing both dX and dW", taken literally);
#   intermediates: "evict" (a partial sum is a victim like any tile) or "keep" (§4.3: "we assume
#       these intermediate results are stored in the SPM to the extent possible").
#   reduction: "chip" (a partition's parts add into one output on chip) or "dram" (§5: the batch
#       split "necessitates additional overhead to accumulate intermediate results obtained from
#       multiple partitions ... additional off-chip memory access": each part's dW, or dX for an
#       N split, written off chip and read back to be summed).
READINGS: dict[str, dict[str, str]] = {
    "dnnmem": {"accounting": "iteration", "precision": "bf16", "replace": "belady", "im2col": "raw", "oracle": "dy-oracle", "intermediates": "evict", "reduction": "chip"},
    "gemm": {"accounting": "gemm", "precision": "bf16", "replace": "belady", "im2col": "raw", "oracle": "dy-oracle", "intermediates": "evict", "reduction": "chip"},
    "fp32": {"accounting": "gemm", "precision": "fp32", "replace": "belady", "im2col": "raw", "oracle": "dy-oracle", "intermediates": "evict", "reduction": "chip"},
    "window": {"accounting": "gemm", "precision": "fp32", "replace": "lru", "im2col": "raw", "oracle": "dy-oracle", "intermediates": "evict", "reduction": "chip"},
    "im2col": {"accounting": "gemm", "precision": "fp32", "replace": "lru", "im2col": "expanded", "oracle": "dy-oracle", "intermediates": "evict", "reduction": "chip"},
    "paper": {"accounting": "gemm", "precision": "fp32", "replace": "lru", "im2col": "expanded", "oracle": "dy-once", "intermediates": "evict", "reduction": "chip"},
    "keep": {"accounting": "gemm", "precision": "fp32", "replace": "lru", "im2col": "expanded", "oracle": "dy-once", "intermediates": "keep", "reduction": "chip"},
    "reduce": {"accounting": "gemm", "precision": "fp32", "replace": "lru", "im2col": "expanded", "oracle": "dy-once", "intermediates": "keep", "reduction": "dram"},
}  # fmt: skip
#: The reading of every run (a script's paper-reading tables set it while they compute).
READING = "dnnmem"
#: The layer kinds the paper's simulator runs as GEMMs (accounting "gemm").
GEMM_KINDS = ("conv2d", "depthwise_conv2d", "dense", "matmul")


def reading(name: str | None = None) -> dict[str, str]:
    """The options of reading ``name`` (default :data:`READING`)."""
    return READINGS[name or READING]


class using:
    """``with using("paper"): ...``: every run inside reads the paper's simulator that way."""

    def __init__(self, name: str) -> None:
        if name not in READINGS:
            raise ValueError(f"reading: {name!r} is not one of {', '.join(READINGS)}")
        self.name, self.before = name, READING

    def __enter__(self) -> None:
        global READING
        READING = self.name

    def __exit__(self, *exc: object) -> None:
        global READING
        READING = self.before


def npu_hardware(key: str, **overrides: Any) -> dnnmem.Hardware:
    """A preset at the reading's precision (fp32: ``unspecified``, the networks' 4 bytes)."""
    precision = "unspecified" if reading()["precision"] == "fp32" else "bf16"
    return dnnmem.hardware(key, precision=precision, **overrides)


def tile_options(**options: Any) -> dict[str, Any]:
    """``options`` with the reading's tile-model options added (the caller's win)."""
    r = reading()
    extra = {"replace": r["replace"]} if r["replace"] != "belady" else {}
    if r["im2col"] != "raw":
        extra["im2col"] = r["im2col"]
    if r["intermediates"] != "evict":
        extra["intermediates"] = r["intermediates"]
    if r["reduction"] != "chip":
        extra["reduction"] = r["reduction"]
    return {**extra, **options}


def accounted_time(r: dnnmem.Result) -> float:
    """The iteration's time as the reading counts it: every step, or the GEMM layers' steps."""
    if reading()["accounting"] == "iteration":
        return r.time
    st = r.steps
    return float(st["time"][st["kind"].isin(GEMM_KINDS)].sum())


def large_npu(cores: int = 1, bandwidth_scale: float = 1.0) -> dnnmem.Hardware:
    """The large NPU with `cores` cores, scaled as the paper's §6.3: scratchpad, bandwidth and
    peak grow with the cores (the scratchpad is shared)."""
    hw = npu_hardware("igo-server-npu")
    return hw.replace(
        capacity=hw.capacity * cores,
        bandwidth=hw.bandwidth * cores * bandwidth_scale,
        throughput=hw.throughput * cores,
    )


#: The fusion level of every run (docs/model/fusion.md; ``--fusion``): the reproductions keep the
#: thesis's ``none`` until each is settled (docs/seeds/interleaved.md, "Fusion").
FUSION = "none"


def fused(policy: str) -> str:
    """``policy`` at :data:`FUSION`."""
    return policy if FUSION == "none" else str(dnnmem.Policy.parse(policy).replace(fusion=FUSION))


def set_fusion(level: str) -> None:
    """Every run of this seed's scripts at fusion ``level`` (``--fusion``)."""
    global FUSION
    FUSION = level


def change(network: str, hw: dnnmem.Hardware, batch: int, cores: int = 1) -> dict[str, Any]:
    """Execution-time change (%, negative = faster) of the full technique against the
    sequential baseline; with several cores both split the batch dimension M across them (one
    part per core), the technique picks its partition."""
    compute = f"systolic(rows=128, cols=128, arrays={cores})"
    times = {}
    for label, options in (("baseline", {"order": "seq"}), ("technique", TECHNIQUE)):
        opts = dict(options)
        if cores > 1:
            opts.update(cores=cores, parts=1, partition=opts.get("partition", "m"))
        policy = f"{igo.policy(hardware=hw, **tile_options(**opts))} + {compute}"
        r = dnnmem.estimate(load(network, batch, hw), hw, fused(policy), batch=batch)
        times[label] = accounted_time(r)
    return {
        "network": network,
        "baseline": times["baseline"],
        "technique": times["technique"],
        "change_pct": 100 * (times["technique"] / times["baseline"] - 1),
    }


def load(network: str, batch: int, hw: dnnmem.Hardware | None = None) -> str | dnnmem.Network:
    """A zoo name as it is, or a :data:`DARKNET` network imported at ``batch`` at the element
    size of ``hw`` (2 bytes without one; 4 where its precision implies none)."""
    if network not in DARKNET:
        return network
    from dnnmem.importers import from_darknet

    size = 2 if hw is None else (hw.bytes_per_element or 4)
    cfg, shape = DARKNET[network]
    net = from_darknet(REPO / cfg, batch=batch, input_shape=shape, bytes_per_element=size)
    assert isinstance(net, dnnmem.Network)
    return net


def run(network: str, npu: str, **options: Any) -> dict[str, Any]:
    """One estimate on one of the paper's NPUs under a tile-model policy; ``gemm_time`` is the
    time of the tiled backward GEMM steps alone (``gemm_bytes`` their traffic)."""
    key, batch = NPUS[npu]
    return run_on(network, npu_hardware(key), batch, npu, **options)


def run_on(
    network: str, hw: dnnmem.Hardware, batch: int, label: str, **options: Any
) -> dict[str, Any]:
    """:func:`run` on any hardware ``hw`` (``label`` names it in the row)."""
    npu = label
    policy = fused(str(igo.policy(hardware=hw, **tile_options(**options))))
    r = dnnmem.estimate(load(network, batch, hw), hw, policy, batch=batch)
    tiled = {s for t in r._core.tile_table() for s in (t["step"], t["step2"]) if s >= 0}
    gemm_time = float(r.steps["time"].iloc[sorted(tiled)].sum()) if tiled else 0.0
    return {
        "network": network,
        "npu": npu,
        "time": accounted_time(r),
        "iteration_time": r.time,
        "traffic": r.traffic,
        "gemm_time": gemm_time,
        **igo.totals(r),
    }


#: The ladder's rungs as the figures name them.
RUNG_NAMES = {"Baseline": "sequential (dX then dW)"}


def ladder_bars(
    df: pd.DataFrame,
    panel: str,
    panels: list[str],
    column: str,
    title: Callable[[str], str],
    ylabel: str,
    suptitle: str,
) -> Figure:
    """One bar panel per value of ``panel``: for every rung of the ladder (after the
    baseline), the average row's ``column`` beside the paper's ``paper_pct``."""
    fig, axes = style.figure(1, len(panels), panel=(5.5, 3.8), sharey=True)
    for ax, value in zip(axes[0], panels):
        a = df[(df["network"] == "average") & (df[panel] == value) & (df["rung"] != "Baseline")]
        t = a.set_index("rung")[[column, "paper_pct"]].rename(
            columns={column: "dnnmem", "paper_pct": "paper"}
        )
        style.bars(ax, t, reference=0.0, missing="not in the paper")
        ax.set_title(title(value), fontsize=10)
    axes[0, 0].set_ylabel(ylabel)
    fig.suptitle(suptitle, fontsize=10)
    style.legend(fig)
    return style.tidy(fig)


def main(script: ModuleType, argv: Sequence[str] | None = None, tiler: bool = False) -> None:
    """The command line of every script (sweeps/_pages.py); ``tiler``: the script takes
    ``--tiler`` (one of :data:`TILERS`)."""
    _pages.main(SEED, script, argv, tilers=list(TILERS) if tiler else None, fusion=set_fusion)
