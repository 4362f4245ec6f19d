"""Benchmark loading and scheduling long networks: chains of N layers, N up to a million.

Run: ``.venv/bin/python benchmarks/bench_load.py [N ...]`` (default 25,000, 100,000 and
1,000,000). Three chains, each an input followed by N layers of one kind and a dense(4) head:
``relu`` (no weights), ``dense`` (16 units: a weight per layer) and ``identity`` (folded: every
layer re-indexes its input, so resolving a tensor walks the chain). For each it prints the JSON
text's size (MB), the time the core takes to parse it and infer every shape
(``_core.parse_network``, s), to build the schedule (``_core.build_schedule``, batch 4, s), and
both per layer (µs). Both are linear in the number of layers: the µs per layer stay flat as N
grows. (Before issue 19 three things were quadratic: nlohmann's callback parser, used for the
depth limit, re-examined the layer list after every layer; a linear search looked up each
weight's name; resolving a folded layer walked its chain. 1M relus took 379 s to parse.)
"""

from __future__ import annotations

import json
import sys
import time

from dnnmem import _core

KINDS = {"relu": {}, "dense": {"units": 16}, "identity": {}}


def chain(n: int, kind: str) -> str:
    """The JSON text of an input [16], `n` layers of `kind`, and a dense(4) head."""
    extra = KINDS[kind]
    layers = [{"name": "x", "kind": "input", "shape": [16]}]
    layers += [
        {"name": f"l{i}", "kind": kind, "inputs": [f"l{i - 1}" if i else "x"], **extra}
        for i in range(n)
    ]
    layers.append({"name": "head", "kind": "dense", "units": 4, "inputs": [f"l{n - 1}"]})
    return json.dumps({"name": f"{kind}{n}", "layers": layers})


def main(sizes: list[int]) -> None:
    print(
        f"{'chain':<9} {'layers':>9} {'JSON MB':>8} {'parse s':>8} {'schedule s':>11} "
        f"{'parse µs/layer':>15} {'schedule µs/layer':>18}"
    )
    for kind in KINDS:
        for n in sizes:
            text = chain(n, kind)
            t0 = time.perf_counter()
            net = _core.parse_network(text, "chain")
            t1 = time.perf_counter()
            sched = _core.build_schedule(net, 4, 4)
            t2 = time.perf_counter()
            assert net.num_layers == n + 2 and sched.num_steps > 0
            del sched, net
            print(
                f"{kind:<9} {n:>9,} {len(text) / 1e6:>8.1f} {t1 - t0:>8.2f} {t2 - t1:>11.2f} "
                f"{(t1 - t0) / n * 1e6:>15.2f} {(t2 - t1) / n * 1e6:>18.2f}"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [25_000, 100_000, 1_000_000])
