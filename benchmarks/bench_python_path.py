"""The Python sweep path against the engine alone: CPU µs per point, one thread.

Run: ``.venv/bin/python benchmarks/bench_python_path.py [NETWORK [BATCH]] [--repeat N]``
(default resnet50, 32, 7 repeats).

The grid is the thesis grid's part for one network: 489 capacities (24–1000 MiB, 2 MiB steps)
× bandwidths {616, 1555} GB/s × throughputs {13.45, 23.04} TFLOPS, ``lookahead``, 1,956 points.

- ``engine``: ``_core.sweep`` on a schedule made beforehand, the policy prepared in the call
  (what ``benchmarks/sweep_driver.cpp`` times without COMPUTE: its ``sweep()`` prepares the
  policy; a user's sweep pays that, and the first call's memos);
- ``engine, warm``: the same with one prepared policy kept across the repeats (its memos warm);
- ``sweep()``: ``dnnmem.sweep(net, capacity=..., bandwidth=..., throughput=..., threads=1)`` on a
  Network loaded beforehand: the whole call (grid, schedule, policy, the engine, the DataFrame).

Both are timed alternately in one process (process CPU time, best of the repeats); the ratio
is the Python path's cost per point over the engine's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dnnmem
from dnnmem import _core
from dnnmem.policy import policy as as_policy
from dnnmem.sweep import _engine_columns

MiB = 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("network", nargs="?", default="resnet50")
    ap.add_argument("batch", nargs="?", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    net = dnnmem.network(args.network, batch=args.batch)
    caps = [(24 + 2 * i) * MiB for i in range(489)]
    bws, thrs = [616e9, 1555e9], [13.45e12, 23.04e12]
    # The engine's points in the grid's order (capacity fastest, as dnnmem.sweep lays them out).
    grid = [(c, b, t) for t in thrs for b in bws for c in caps]
    cap = np.array([g[0] for g in grid], dtype=np.int64)
    bw = np.array([g[1] for g in grid])
    thr = np.array([g[2] for g in grid])
    pol = np.zeros(len(grid), dtype=np.int32)
    schedule = net.schedule
    warm = [as_policy("lookahead").prepare(schedule, 2, net)]
    n = len(grid)

    def engine() -> None:
        out = _engine_columns(n)
        prepared = [as_policy("lookahead").prepare(schedule, 2, net)]
        _core.sweep(schedule, cap, bw, thr, pol, 1, 2, None, out, policies=prepared)

    def engine_warm() -> None:
        out = _engine_columns(n)
        _core.sweep(schedule, cap, bw, thr, pol, 1, 2, None, out, policies=warm)

    def python_path() -> None:
        dnnmem.sweep(net, capacity=caps, bandwidth=bws, throughput=thrs, threads=1, progress=False)

    best = {"engine": 1e300, "engine, warm": 1e300, "sweep()": 1e300}
    for _ in range(args.repeat):
        for name, fn in (
            ("engine", engine),
            ("engine, warm", engine_warm),
            ("sweep()", python_path),
        ):
            c0 = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - c0)
    for name, t in best.items():
        print(f"{args.network} N={args.batch} {name}: {t / n * 1e6:.2f} us/point CPU ({n} points)")
    print(f"ratio sweep()/engine: {best['sweep()'] / best['engine']:.3f}")


if __name__ == "__main__":
    main()
