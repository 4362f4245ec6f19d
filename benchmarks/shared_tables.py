"""How much of a plan could points with other bandwidths and throughputs share?

Run: ``.venv/bin/python benchmarks/shared_tables.py [NETWORK BATCH]`` (default: gnmt 32).

The thesis's planners read the bandwidth and the throughput only through two per-use tables:
rule 3's write-out deadline *w* after each full use and rule 4's earliest prefetch step *p\\**
of each full read (``docs/model/policies-thesis.md``). Two points of the same capacity whose
tables agree make the same plan; where an entry differs, every decision after it may differ.
This prints, for each pair of the thesis grid's (bandwidth, throughput) pairs, the share of
full uses whose *w* differs and the share of full reads whose *p\\** differs (``docs/performance.md``,
"Status of the goals"). Compute is the peak model's, 2 FLOPs per MAC; the comparisons are exact
(integers).
"""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import numpy.typing as npt

import dnnmem

# The thesis grid's bandwidths (bytes/s) and throughputs (FLOP/s): benchmarks/bench_sweep.py.
PAIRS = [(616 * 10**9, 1345 * 10**10), (616 * 10**9, 2304 * 10**10),
         (1555 * 10**9, 1345 * 10**10), (1555 * 10**9, 2304 * 10**10)]  # fmt: skip


def tables(
    prefix: npt.NDArray[np.int64],
    step: npt.NDArray[np.int64],
    previous: npt.NDArray[np.int64],
    nbytes: npt.NDArray[np.int64],
    bandwidth: int,
    throughput: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Rule 3's *w* and rule 4's *p\\** of every full use, as the model defines them.

    ``prefix[i]`` is the FLOPs of steps 0 … i − 1. A transfer of b bytes is hidden by compute of
    at least ⌈b · throughput / bandwidth⌉ FLOPs.
    """
    n = len(prefix) - 1
    g = math.gcd(bandwidth, throughput)  # (the reduced ratio keeps bytes × throughput in int64)
    need = -(-nbytes * (throughput // g) // (bandwidth // g))
    # w: the smallest w in u + 1 … n − 1 with FLOPs(u + 1 … w − 1) ≥ need, else n.
    start = np.minimum(step + 1, n)
    w = np.searchsorted(prefix, prefix[start] + need, side="left")
    w = np.where(w <= n - 1, w, n)
    # k: the smallest k ≥ 1 with FLOPs(v − k … v − 1) ≥ need, else v; p* = max(v − k, u + 1).
    a = np.searchsorted(prefix, prefix[step] - need, side="right") - 1
    k = np.where(a >= 0, step - a, step)
    pstar = np.maximum(step - np.maximum(k, 1), previous + 1)
    return w.astype(np.int64), pstar.astype(np.int64)


def main() -> None:
    """Print the shares of differing table entries for each pair of the grid's points."""
    net, batch = (sys.argv[1], int(sys.argv[2])) if len(sys.argv) > 2 else ("gnmt", 32)
    s = dnnmem.network(net, batch=batch).schedule
    steps, uses = s.step_table(), s.use_table()
    work = 2 * steps["macs"] + steps["flops"]
    prefix = np.concatenate([[0], np.cumsum(work)]).astype(np.int64)
    full = ~uses["partial"]
    tensor, step = uses["tensor"][full], uses["step"][full].astype(np.int64)
    read, nbytes = uses["read"][full], uses["bytes"][full].astype(np.int64)
    order = np.lexsort((step, tensor))
    tensor, step, read, nbytes = tensor[order], step[order], read[order], nbytes[order]
    same = np.r_[False, tensor[1:] == tensor[:-1]]
    previous = np.where(same, np.r_[-1, step[:-1]], -1)
    t = {p: tables(prefix, step, previous, nbytes, *p) for p in PAIRS}
    print(
        f"{net}, N = {batch}: {len(work)} steps, {len(step)} full uses, {int(read.sum())} full reads"
    )
    for a, b in itertools.combinations(PAIRS, 2):
        w_share = float(np.mean(t[a][0] != t[b][0]))
        p_share = float(np.mean((t[a][1] != t[b][1])[read]))
        print(
            f"  {a[0] / 1e9:.0f} GB/s, {a[1] / 1e12:.2f} TFLOPS vs {b[0] / 1e9:.0f} GB/s, "
            f"{b[1] / 1e12:.2f} TFLOPS: w differs at {w_share:.1%} of full uses, "
            f"p* at {p_share:.1%} of full reads"
        )


if __name__ == "__main__":
    main()
