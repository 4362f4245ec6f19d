"""Benchmark the sweep engine: µs per point per core, 1 → 2 thread scaling, and the thesis grid.

Run: ``.venv/bin/python benchmarks/bench_sweep.py [--quick] [--parts 1,2,3]``.

1. µs per point (one thread) for each built-in network of the thesis that exists
   (resnet50, transformer, and mobilenet_v2 / gnmt when ``dnnmem.networks()`` has them), every
   policy, capacities cycling over 24–1000 MiB; the call goes straight to ``_core.sweep`` on a
   schedule built once.
2. Scaling: the same points with 1 and 2 threads, lookahead (speed-up = t1 / t2).
3. The thesis grid (capacity 24–1000 MiB in 2 MiB steps = 489 capacities × networks ×
   throughputs {13.45, 23.04} TFLOPS × bandwidths {616, 1555} GB/s, lookahead), batch per
   thesis Table 5.1 (ResNet-50, MobileNet v2, GNMT: N = 32; Transformer: N = 128), through
   ``dnnmem.sweep`` with 2 threads: seconds, schedules included.

Each figure is the median of a few runs. Other processes share the machine: compare ratios
from one run (1 vs 2 threads, before vs after a change), not absolute numbers across runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import dnnmem
from dnnmem import _core

MiB = 2**20
# Thesis Table 5.1 (§5.1): the batch of each workload.
THESIS_BATCH = {"resnet50": 32, "mobilenet_v2": 32, "gnmt": 32, "transformer": 128}


def thesis_networks() -> list[str]:
    return [n for n in THESIS_BATCH if n in dnnmem.networks()]


def points(n: int, policy: int) -> tuple[np.ndarray, ...]:
    cap = np.array([(24 + 2 * (i % 489)) * MiB for i in range(n)], dtype=np.int64)
    return (cap, np.full(n, 616e9), np.full(n, 13.45e12), np.full(n, policy, dtype=np.int32))


def seconds(
    schedule: _core.Schedule, pts: tuple[np.ndarray, ...], threads: int, repeat: int
) -> float:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        _core.sweep(schedule, *pts, threads)
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer points and repeats")
    ap.add_argument("--points", type=int, default=489, help="points per (network, policy)")
    ap.add_argument("--parts", default="1,2,3", help="which parts to run (default 1,2,3)")
    args = ap.parse_args()
    parts = {int(p) for p in args.parts.split(",")}
    n = 100 if args.quick else args.points
    repeat = 3 if args.quick else 5
    nets = thesis_networks()
    schedules = {name: dnnmem.network(name, batch=THESIS_BATCH[name]).schedule for name in nets}
    pols = list(dnnmem.parts("cache"))
    print(f"OpenMP: {_core.openmp_enabled()}; networks {nets}; {n} points per cell")
    if 1 in parts:
        print(f"\n1. µs per point, 1 thread\n{'network':<13}" + "".join(f"{p:>14}" for p in pols))
    for name in nets if 1 in parts else []:
        cells = [
            seconds(schedules[name], points(n, i), 1, repeat) / n * 1e6 for i in range(len(pols))
        ]
        print(f"{name:<13}" + "".join(f"{c:>14.1f}" for c in cells))

    if 2 in parts:
        print("\n2. scaling, lookahead: 1 → 2 threads")
    for name in nets if 2 in parts else []:
        pts = points(4 * n, 0)
        t1 = seconds(schedules[name], pts, 1, repeat)
        t2 = seconds(schedules[name], pts, 2, repeat)
        print(
            f"{name:<13} 1 thread {t1 / len(pts[0]) * 1e6:8.1f} µs/pt, 2 threads "
            f"{t2 / len(pts[0]) * 1e6:8.1f} µs/pt, speed-up {t1 / t2:.2f}"
        )

    if 3 not in parts:
        return
    print("\n3. thesis grid, lookahead, dnnmem.sweep with 2 threads")
    caps = [(24 + 2 * i) * MiB for i in range(489)]
    runs = []
    for _ in range(1 if args.quick else 3):
        t0 = time.perf_counter()
        df = dnnmem.sweep(
            [dnnmem.network(name, batch=THESIS_BATCH[name]) for name in nets],
            capacity=caps,
            throughput=["13.45TFLOPS", "23.04TFLOPS"],
            bandwidth=["616GB/s", "1555GB/s"],
            policy="lookahead",
            threads=2,
            progress=False,
        )
        runs.append(time.perf_counter() - t0)
    print(
        f"{len(df)} points ({len(caps)} capacities × {len(nets)} networks × 2 × 2): "
        f"{statistics.median(runs):.3f} s (goal: ≤ 1 s on 2 cores)"
    )


if __name__ == "__main__":
    main()
