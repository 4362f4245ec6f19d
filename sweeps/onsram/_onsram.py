"""What every OnSRAM figure script shares: the paper's accelerator, its twelve networks, its
numbers, and a speedup table.

The paper is Pal, Venkataramani, Srinivasan, Gopalakrishnan, "Efficient Management of
Scratch-Pad Memories in Deep Learning Accelerators" (ISPASS 2021). Its accelerator (section IV)
is the ``onsram`` hardware preset: 2 MiB scratchpad, 32 GB/s DRAM, 3 TFLOP/s for GEMMs and
375 GFLOP/s for everything else (``peak(vector=0.125)``); batch 1 inference. The rules are
docs/model/onsram.md; the comparison with the paper is docs/seeds/onsram.md.

Every script has ``compute(small=False) -> DataFrame``, ``plot(df) -> Figure`` (saved as
``figures/<NAME>.png``) and ``markdown(tables)`` (its tables on docs/seeds/onsram.md;
``--markdown``, see sweeps/_pages.py); ``--small`` is the CI mode (two networks, one element
size).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

import pandas as pd

import dnnmem

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _pages
import _pages  # noqa: E402

SEED = "onsram"

#: Table I's networks, in its column order (the paper's name -> the zoo's).
NETWORKS: dict[str, str] = {
    "AlexNet": "alexnet",
    "VGG16": "vgg16",
    "GoogLeNet": "googlenet",
    "Inception-v3": "inception_v3",
    "Inception-v4": "inception_v4",
    "ResNet-50": "resnet50",
    "SSD300": "ssd300",
    "ResNeXt": "resnext50c32",
    "MobileNetV1": "mobilenet_v1",
    "SqueezeNet": "squeezenet",
    "PTB": "ptb_lstm",
    "Multi-Head Attn": "mha_block",
}
#: CI mode: two networks (residual, depthwise).
SMALL = ["ResNet-50", "MobileNetV1"]

#: Table I: speedup over No SPM Mgmt of (infinite SPM, 1-Step).
TABLE_I: dict[str, tuple[float, float]] = {
    "AlexNet": (1.04, 1.04),
    "VGG16": (1.19, 1.03),
    "GoogLeNet": (1.94, 1.01),
    "Inception-v3": (1.64, 1.10),
    "Inception-v4": (1.58, 1.11),
    "ResNet-50": (1.75, 1.33),
    "SSD300": (1.31, 1.18),
    "ResNeXt": (3.86, 1.40),
    "MobileNetV1": (5.17, 2.84),
    "SqueezeNet": (2.84, 1.57),
    "PTB": (1.02, 1.01),
    "Multi-Head Attn": (1.06, 1.02),
}

HARDWARE = "onsram"

#: The speedup columns of the scripts' tables as the figures and the page name them.
POLICY_NAMES: dict[str, str] = {
    "inf": "∞ SPM",
    "static": "OnSRAM-Static",
    "static_thesis_order": "OnSRAM-Static, thesis order",
    "one_step": "1-Step",
    "lru": "LRU",
    "fifo": "FIFO",
    "lru_hw": "LRU, hardware",
    "fifo_hw": "FIFO, hardware",
    "eager_wb": "Eager W/B",
    "eager_spec": "Eager Spec",
    "eager_wb_64": "Eager W/B, 64 entries",
    "eager_spec_64": "Eager Spec, 64 entries",
    "eager_spec_cost": "Eager Spec, speculate=cost",
}


def networks(small: bool) -> list[str]:
    """The paper's names of the networks a run covers."""
    return SMALL if small else list(NETWORKS)


#: The fusion level of every run (docs/model/fusion.md; ``--fusion``): the reproductions keep the
#: thesis's ``none`` until each is settled (docs/seeds/onsram.md, "Fusion").
FUSION = "none"


def fused(policy: str) -> str:
    """``policy`` at :data:`FUSION`."""
    return policy if FUSION == "none" else str(dnnmem.Policy.parse(policy).replace(fusion=FUSION))


def set_fusion(level: str) -> None:
    """Every run of this seed's scripts at fusion ``level`` (``--fusion``)."""
    global FUSION
    FUSION = level


#: Whether every run folds each batch norm into the convolution before it (``--batchnorm``):
#: the paper's "optimized DNN graph from the DL framework" (§III) for batch-1 inference, as a
#: framework's inference optimizer hands it over (docs/seeds/onsram.md, "The inference graph").
BATCHNORM = "fold"


def set_batchnorm(mode: str) -> None:
    """Every run of this seed's scripts with batch norms ``fold``-ed or ``keep``-t
    (``--batchnorm``)."""
    global BATCHNORM
    BATCHNORM = mode


#: The node order of every policy that does not name its scheduler (``--order``): 1-Step and
#: the cache-based LRU and FIFO run the nodes in the order they are handed, breadth-first, not
#: in OnSRAM-Static's hybrid order (docs/model/onsram.md, rule O12). No SPM Mgmt and infinite SPM
#: do not depend on it (rule O1).
ORDER = "bfs"


def set_order(order: str) -> None:
    """Every policy without a scheduler of its own run in node order ``order`` (``--order``)."""
    global ORDER
    ORDER = order


#: Which ResNeXt-50 stands for the paper's ResNeXt (``--resnext``): the Keras one, whose grouped
#: convolutions are depthwise convolutions with a multiplier and a sum (``resnext50c32``), as the
#: paper's TensorFlow framework builds it, or torchvision's (``resnext50_32x4d``, grouped
#: convolutions) (docs/seeds/onsram.md, "Which ResNeXt").
RESNEXT_VARIANTS: dict[str, str] = {"keras": "resnext50c32", "torchvision": "resnext50_32x4d"}


def set_resnext(variant: str) -> None:
    """Every run of this seed's scripts with the ResNeXt ``variant`` (``--resnext``)."""
    NETWORKS["ResNeXt"] = RESNEXT_VARIANTS[variant]


#: Which GoogLeNet stands for the paper's (``--googlenet``): TensorFlow's, TF-slim's
#: ``inception_v1`` (tensorflow/models, research/slim: a batch norm after every convolution, no
#: LRN, a 3×3 convolution in the "5×5" branch, a 2×2 pool before Mixed_5b), which is the zoo's
#: ``googlenet(variant="torchvision")`` layer for layer, or Caffe's ``bvlc_googlenet`` (LRN, 5×5
#: branches; the zoo's default) (docs/seeds/onsram.md, "Which GoogLeNet").
GOOGLENET_VARIANTS: dict[str, dict[str, str]] = {"tf": {"variant": "torchvision"}, "caffe": {}}
#: Keyword arguments of ``dnnmem.network`` for the networks that take a variant.
NETWORK_OPTIONS: dict[str, dict[str, str]] = {"GoogLeNet": GOOGLENET_VARIANTS["tf"]}


def set_googlenet(variant: str) -> None:
    """Every run of this seed's scripts with the GoogLeNet ``variant`` (``--googlenet``)."""
    NETWORK_OPTIONS["GoogLeNet"] = GOOGLENET_VARIANTS[variant]


def inference_graph(name: str, bytes_per_element: int = 2) -> dnnmem.Network:
    """The network the paper's name ``name`` stands for, batch 1, at :data:`BATCHNORM`."""
    options = NETWORK_OPTIONS.get(name, {})
    net = dnnmem.network(NETWORKS[name], batch=1, bytes_per_element=bytes_per_element, **options)
    return net.fold_batchnorm() if BATCHNORM == "fold" else net


def speedups(
    names: Iterable[str],
    policies: dict[str, str],
    bytes_per_element: int = 2,
    capacity: str | int = "2MiB",
) -> pd.DataFrame:
    """Speedup of each policy over ``inference + none`` (the paper's No SPM Mgmt), per network.

    Parameters
    ----------
    names : iterable of str
        Keys of :data:`NETWORKS`.
    policies : dict
        Column label -> policy string (each is run after ``inference(order=ORDER) +``, rule
        O12, unless it names a scheduler itself).
    bytes_per_element : int
        Element size (the paper does not state one).
    capacity : str or int
        The scratchpad.

    Returns
    -------
    DataFrame
        One row per network: ``network``, ``bytes_per_element``, ``baseline`` (s) and one
        speedup column per policy (:attr:`dnnmem.Result.speedup`), plus, from the result's pin
        report (docs/model/report.md, "Pinning"), ``<label>_pinned`` (tensors pinned),
        ``<label>_pinned_bytes`` (bytes), ``<label>_recompute`` (s of re-executed steps,
        OnSRAM-Eager Spec) and ``<label>_resident`` (largest bytes resident at one step).
    """
    hw = dnnmem.hardware(HARDWARE, capacity=capacity)
    rows = []
    for name in names:
        net = inference_graph(name, bytes_per_element)
        none = dnnmem.estimate(net, hw, policy=fused("inference + none"))
        row: dict[str, object] = {
            "network": name,
            "bytes_per_element": bytes_per_element,
            "baseline": none.time,
        }
        for label, policy in policies.items():
            full = (
                policy
                if "inference" in policy or "default" in policy
                else f"inference(order={ORDER}) + {policy}"
            )
            r = dnnmem.estimate(net, hw, policy=fused(full))
            base = r.composition.replace(cache="none")
            if base.replace(scheduler=none.composition.scheduler) == none.composition and (
                base.scheduler.name == none.composition.scheduler.name
            ):
                # The same composition with none but for the node order, which none's latency
                # does not depend on (rule O1, tested): computed once per network.
                r.baseline = none
            row[label] = r.speedup
            row[f"{label}_pinned"] = r.pinned
            row[f"{label}_pinned_bytes"] = r.pinned_bytes
            row[f"{label}_recompute"] = r.recompute_time
            row[f"{label}_resident"] = int(r.steps["resident_bytes"].max())
        rows.append(row)
    return pd.DataFrame(rows)


geomean = statistics.geometric_mean  # the scripts' tables: geometric means of speedups


def main(script: ModuleType, argv: Sequence[str] | None = None) -> None:
    """The command line of every script (sweeps/_pages.py)."""
    # --order only where a policy takes the order from ORDER (Table I and Fig. 2).
    order = set_order if getattr(script, "TAKES_ORDER", False) else None
    # --resnext and --googlenet only where the script runs Table I's networks (not training.py's
    # workloads).
    table_i = getattr(script, "RUNS_TABLE_I_NETWORKS", False)
    _pages.main(
        SEED,
        script,
        argv,
        fusion=set_fusion,
        batchnorm=set_batchnorm,
        order=order,
        resnext=set_resnext if table_i else None,
        googlenet=set_googlenet if table_i else None,
    )
