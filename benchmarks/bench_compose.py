"""Benchmark compositions: µs per design point of the sweep engine, one thread, for the thesis's
policies and for compositions with the new parts (schedulers, the ratio link, the systolic
compute model), each prepared once per schedule as dnnmem.sweep does.

Run: ``.venv/bin/python benchmarks/bench_compose.py``. Capacities cycle over 24–1000 MiB.
Report ratios from one run (docs/policies.md, "What composition costs"), never absolute numbers
across machines.
"""

from __future__ import annotations

import time

import numpy as np

import dnnmem
from dnnmem import _core

MiB = 2**20
POLICIES = [
    "lookahead",
    "lookahead + ratio(activation=2.5, gradient=1.5)",
    "lookahead + ratio(all=3, cap=48GB/s)",
    "lookahead + systolic(rows=128, cols=128)",
    "split-backward + lookahead",
    "inference + lookahead",
    "lru + ratio(activation=2)",
]


def per_point_us(net: dnnmem.Network, policy: str, points: int = 489, repeat: int = 3) -> float:
    p = dnnmem.Policy.parse(policy)
    schedule = net.with_scheduler(p.scheduler).schedule
    prepared = [p.prepare(schedule)]
    cap = np.array([(24 + 2 * (i % 489)) * MiB for i in range(points)], dtype=np.int64)
    bw, thr = np.full(points, 616e9), np.full(points, 13.45e12)
    pol = np.zeros(points, dtype=np.int32)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        _core.sweep(schedule, cap, bw, thr, pol, 1, 2, None, None, policies=prepared)
        best = min(best, (time.perf_counter() - t0) / points)
    return best * 1e6


def main() -> None:
    nets = [dnnmem.network("resnet50", batch=32), dnnmem.network("transformer", batch=128)]
    print(f"{'policy':<50}" + "".join(f"{n.name:>14}" for n in nets) + "   (µs per point)")
    for policy in POLICIES:
        print(f"{policy:<50}" + "".join(f"{per_point_us(n, policy):>14.1f}" for n in nets))


if __name__ == "__main__":
    main()
