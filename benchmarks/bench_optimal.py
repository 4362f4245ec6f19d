"""Seconds per traffic lower bound (dnnmem.optimal, docs/performance.md "Bounds"): ResNet-50
N = 32 at five capacities, each the median of 5 solves in this process; ``--gnmt`` adds GNMT
N = 128 at 24 MiB (one solve, about a minute and a half)."""

from __future__ import annotations

import argparse
import statistics
import time

import dnnmem
from dnnmem import optimal


def per_point(name: str, batch: int, caps: list[str], repeat: int) -> None:
    net = dnnmem.network(name, batch=batch)
    optimal._instance(net.schedule)  # the instance is built once per schedule
    for cap in caps:
        times, solver = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            b = optimal.traffic_lower_bound(net, capacity=cap)
            times.append(time.perf_counter() - t0)
            solver.append(b.solver_time)
        print(
            f"{name} N={batch} {cap:>7}: {1e3 * statistics.median(times):8.1f} ms a point "
            f"(HiGHS {1e3 * statistics.median(solver):8.1f} ms), bound {b.value / 1e9:.3f} GB"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gnmt", action="store_true")
    args = ap.parse_args()
    per_point("resnet50", 32, ["4MiB", "24MiB", "128MiB", "500MiB", "4GiB"], 5)
    if args.gnmt:
        per_point("gnmt", 128, ["24MiB"], 1)
