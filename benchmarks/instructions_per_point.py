"""Instructions per design point under callgrind, the same way for any two builds (issue 31).

Run: ``valgrind --tool=callgrind python benchmarks/instructions_per_point.py NETWORK BATCH
POLICY POINTS`` twice, with POINTS = P1 and P2, and take (Ir(P2) - Ir(P1)) / (P2 - P1) from
callgrind's "Collected" lines: the start-up (imports, the network, the schedule, the policy
prepared) cancels. POINTS = 0 runs everything but the sweep (a seed policy "cold": P1 = 0,
P2 = 489, one call over the driver's capacities). Capacities 24 MiB, 26 MiB, ... at 616 GB/s
and 13.45 TFLOPS, one thread, as ``benchmarks/sweep_driver.cpp`` cycles them. Works with an
installed package without symbols (the driver's ``--toggle-collect`` needs them).
"""

from __future__ import annotations

import sys

import numpy as np

import dnnmem
from dnnmem import _core
from dnnmem.policy import policy as as_policy
from dnnmem.sweep import _engine_columns


def driver_sweep(network: str, batch: int, policy: str, n: int) -> dict[str, np.ndarray]:
    """The engine's columns of one ``_core.sweep`` call over the driver's first ``n``
    capacities (the policy prepared in the call, one thread); none swept when ``n`` is 0."""
    net = dnnmem.network(network, batch=batch)
    pol = as_policy(policy)
    schedule = net.with_scheduler(str(pol.scheduler)).schedule
    prepared = [pol.prepare(schedule, 2, net)]
    out = _engine_columns(n)
    if n:
        cap = np.array([(24 + 2 * (i % 489)) << 20 for i in range(n)], dtype=np.int64)
        _core.sweep(
            schedule,
            cap,
            np.full(n, 616e9),
            np.full(n, 13.45e12),
            np.zeros(n, np.int32),
            1,
            2,
            None,
            out,
            policies=prepared,
        )
    return out


def main() -> None:
    n = int(sys.argv[4])
    out = driver_sweep(sys.argv[1], int(sys.argv[2]), sys.argv[3], n)
    if n:
        print(out["seconds"].sum())


if __name__ == "__main__":
    main()
