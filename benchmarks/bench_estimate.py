"""Benchmark stages 3–5: µs per design point (plan + timeline + totals) for each policy.

Run: ``.venv/bin/python benchmarks/bench_estimate.py``. Each point is one call of the compiled
estimator on a schedule built once (as a sweep does), capacities cycling over 24–1000 MiB; the
figure includes the Python → C++ call. Single thread. Report ratios from one run, not absolute
numbers across machines.
"""

from __future__ import annotations

import statistics
import time

import dnnmem
from dnnmem import _core

MiB = 2**20


def per_point_us(schedule, policy: str, points: int = 300, repeat: int = 5) -> float:
    caps = [(24 + 2 * (i % 489)) * MiB for i in range(points)]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for c in caps:
            _core.estimate(schedule, c, 616e9, 13.45e12, policy)
        runs.append((time.perf_counter() - t0) / points)
    return statistics.median(runs) * 1e6


def main() -> None:
    nets = [("resnet50", 32), ("transformer", 128)]
    pols = list(dnnmem.parts("cache"))
    print(f"{'network':<12}" + "".join(f"{p:>15}" for p in pols) + "   (µs per point)")
    for name, batch in nets:
        s = dnnmem.network(name, batch=batch).schedule
        print(f"{name:<12}" + "".join(f"{per_point_us(s, p):>15.1f}" for p in pols))


if __name__ == "__main__":
    main()
