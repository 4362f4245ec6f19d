"""SHA-256 of every engine column over the driver's 489 capacities (bit identity between builds).

Run ``python benchmarks/hash_engine_columns.py`` with each build's package and compare the
lines: one per (network, policy), the engine's columns of one ``_core.sweep`` call over the
capacities ``benchmarks/sweep_driver.cpp`` cycles (24 MiB, 26 MiB, ..., 1000 MiB at 616 GB/s and
13.45 TFLOPS, one thread), the columns' bytes in name order. The 31 combinations of issue 31:
three networks under eight cache managers, GNMT under two, and five seed compositions on
ResNet-50 that walk tiles or serialize. ``--quick`` keeps only the seed compositions.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
from instructions_per_point import driver_sweep  # benchmarks/, beside this script

PLAIN = [
    "lookahead",
    "belady",
    "prefetch-next",
    "no-lookahead",
    "lru",
    "none",
    "onsram-static",
    "lookahead(streaming=through-cache)",
]
SEEDS = [
    "split-backward(order=best) + lookahead",
    "split-backward(order=seq) + lru",
    "split-backward(order=interleave, partition=joint, parts=2) + lookahead",
    "split-backward(order=alg1, replace=lru) + belady",
    "mbs(variant=mbs2) + mbs-strict",
]


def combinations(quick: bool) -> list[tuple[str, str]]:
    seeds = [("resnet50", p) for p in SEEDS]
    if quick:
        return seeds
    plain = [(n, p) for n in ("resnet50", "bert_large", "gpt2") for p in PLAIN]
    return plain + [("gnmt", "lookahead"), ("gnmt", "belady")] + seeds


def digest(network: str, policy: str, n: int = 489) -> str:
    """The SHA-256 of the engine's columns for one network (N = 32) and policy."""
    out = driver_sweep(network, 32, policy, n)
    h = hashlib.sha256()
    for name in sorted(out):
        h.update(name.encode())
        h.update(np.ascontiguousarray(out[name]).tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    for network, policy in combinations("--quick" in sys.argv):
        print(f"{digest(network, policy)}  {network}  {policy}", flush=True)


if __name__ == "__main__":
    main()
