"""Seconds per traffic lower bound (dnnmem.optimal, docs/performance.md "Bounds"): the
Lagrangian bound (the default) and the LP (HiGHS, one thread), alternated in this process, for
ResNet-50 N = 32 at five capacities; CPU seconds of this process (the machine may be shared:
CPU time is what a point costs, whatever else runs). ``--gnmt`` adds GNMT N = 128 at 24 MiB
(the Lagrangian, three runs); ``--gnmt-lp`` its LP too (one run, about a minute and a half)."""

from __future__ import annotations

import argparse
import statistics
import time

import dnnmem
from dnnmem import optimal


def _timed(net: dnnmem.Network, cap: str, method: str) -> tuple[float, optimal.Bound]:
    t0 = time.process_time()
    b = optimal.traffic_lower_bound(net, capacity=cap, method=method)
    return time.process_time() - t0, b


def per_point(name: str, batch: int, caps: list[str], repeat: int, methods: list[str]) -> None:
    net = dnnmem.network(name, batch=batch)
    optimal._instance(net.schedule)  # the instance is built once per schedule
    for cap in caps:
        times: dict[str, list[float]] = {m: [] for m in methods}
        bound: dict[str, optimal.Bound] = {}
        for _ in range(repeat):  # alternated, so that both see the same machine
            for m in methods:
                t, bound[m] = _timed(net, cap, m)
                times[m].append(t)
        line = f"{name} N={batch} {cap:>7}:"
        for m in methods:
            b = bound[m]
            line += (
                f"  {m} {1e3 * statistics.median(times[m]):8.1f} ms CPU"
                f" ({b.status}), {b.value / 1e9:.4f} GB"
            )
        if len(methods) == 2:
            a, b = (bound[m].lp_value for m in methods)
            ratio = statistics.median(times[methods[1]]) / statistics.median(times[methods[0]])
            line += f"  | {methods[1]}/{methods[0]} time {ratio:.2f}x, bound {(a - b) / b:+.2e}"
        print(line, flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--gnmt", action="store_true")
    ap.add_argument("--gnmt-lp", action="store_true")
    args = ap.parse_args()
    per_point(
        "resnet50", 32, ["4MiB", "24MiB", "128MiB", "500MiB", "4GiB"], 5, ["lagrangian", "lp"]
    )
    if args.gnmt or args.gnmt_lp:
        per_point("gnmt", 128, ["24MiB"], 3, ["lagrangian"])
    if args.gnmt_lp:
        per_point("gnmt", 128, ["24MiB"], 1, ["lp"])
