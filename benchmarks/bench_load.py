"""Benchmark loading long networks: a chain of N relu layers, N up to a million.

Run: ``.venv/bin/python benchmarks/bench_load.py [N ...]`` (default 25,000, 100,000 and
1,000,000). For each N it prints the size of the JSON text (MB), the time the core takes to parse
it and infer every shape (``_core.parse_network``, s), that time per layer (µs), and, for
comparison, the time of Python's own ``json.loads`` on the same text (s). Loading is linear in
the number of layers: the µs per layer stay flat as N grows. (Before the depth limit moved to a
pre-scan, nlohmann's callback parser made it quadratic: 1M layers took minutes.)
"""

from __future__ import annotations

import json
import sys
import time

from dnnmem import _core


def chain(n: int) -> str:
    """The JSON text of an input followed by a chain of `n` relu layers."""
    layers = [{"name": "x", "kind": "input", "shape": [16]}]
    layers += [{"name": f"r{i}", "kind": "relu", "inputs": [f"r{i - 1}" if i else "x"]}
               for i in range(n)]
    return json.dumps({"name": f"chain{n}", "layers": layers})


def main(sizes: list[int]) -> None:
    print(f"{'layers':>9} {'JSON MB':>8} {'parse s':>8} {'µs/layer':>9} {'json.loads s':>13}")
    for n in sizes:
        text = chain(n)
        t0 = time.perf_counter()
        net = _core.parse_network(text, "chain")
        parse = time.perf_counter() - t0
        assert net.num_layers == n + 1
        del net
        t0 = time.perf_counter()
        json.loads(text)
        plain = time.perf_counter() - t0
        print(f"{n:>9,} {len(text) / 1e6:>8.1f} {parse:>8.2f} {parse / n * 1e6:>9.2f} "
              f"{plain:>13.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [25_000, 100_000, 1_000_000])
