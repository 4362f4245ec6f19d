"""Benchmark the fusion levels (docs/model/fusion.md): µs per design point of the sweep engine,
one thread, at fusion none, pointwise and accelerator, and the time to build each schedule.

A fused schedule has fewer steps, so a point costs less; ``none`` is the unfused schedule and
costs what it cost before the fusion stage existed (the driver's hashes check that its results
are bit-identical, docs/performance.md). Levels are timed (CPU time) in alternating rounds in one
process, best of each; report the ratios to ``none``, never absolute numbers across machines.

    .venv/bin/python benchmarks/bench_fusion.py [--rounds 3] [--points 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dnnmem
from dnnmem import _core

MiB = 2**20
LEVELS = ("none", "pointwise", "accelerator")
NETWORKS = (("resnet50", 32), ("bert_base", 8), ("gnmt", 32))
POLICIES = ("lookahead", "lru", "none")


def per_point_us(net: dnnmem.Network, policy: str, level: str, points: int) -> float:
    """One sweep of `points` capacities (24 MiB upward in 2 MiB steps): µs per point."""
    p = dnnmem.Policy.parse(policy).replace(fusion=level)
    schedule = net.with_scheduler(p.scheduler).schedule
    prepared = [p.prepare(schedule)]
    cap = np.array([(24 + 2 * (i % 489)) * MiB for i in range(points)], dtype=np.int64)
    bw, thr = np.full(points, 616e9), np.full(points, 13.45e12)
    pol = np.zeros(points, dtype=np.int32)
    t0 = time.process_time()  # CPU time: the sweep runs on this thread (threads=1)
    _core.sweep(schedule, cap, bw, thr, pol, 1, 2, None, None, policies=prepared)
    return (time.process_time() - t0) / points * 1e6


def build_ms(net: dnnmem.Network, level: str) -> float:
    """Time to build the schedule at `level` (ms)."""
    t0 = time.process_time()
    _core.build_schedule(net._core, net.batch, 4, "default", {"fusion": level})
    return (time.process_time() - t0) * 1e3


def main() -> None:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--points", type=int, default=200)
    args = a.parse_args()
    print(
        f"{'network':<12} {'policy':<10} {'level':<12} {'steps':>6} {'µs/point':>10} {'ratio':>7}"
    )
    for name, batch in NETWORKS:
        net = dnnmem.network(name, batch=batch)
        steps = {lv: net.with_fusion(lv).num_steps for lv in LEVELS}
        for policy in POLICIES:
            points = args.points if name != "gnmt" else max(5, args.points // 20)
            best = dict.fromkeys(LEVELS, float("inf"))
            for _ in range(args.rounds):  # alternating rounds: the machine's drift hits all
                for lv in LEVELS:
                    best[lv] = min(best[lv], per_point_us(net, policy, lv, points))
            for lv in LEVELS:
                ratio = best[lv] / best["none"]
                print(
                    f"{name:<12} {policy:<10} {lv:<12} {steps[lv]:>6} {best[lv]:>10.1f} {ratio:>7.3f}"
                )
        built = dict.fromkeys(LEVELS, float("inf"))
        for _ in range(args.rounds):
            for lv in LEVELS:
                built[lv] = min(built[lv], build_ms(net, lv))
        print(
            f"{name:<12} schedule build (ms): "
            + ", ".join(f"{lv} {built[lv]:.1f} ({built[lv] / built['none']:.2f}×)" for lv in LEVELS)
        )


if __name__ == "__main__":
    main()
