"""Benchmark stages 1–2: parse a network and build its schedule.

Run: ``.venv/bin/python benchmarks/bench_schedule.py``. Prints the median of repeated runs for
each network, in milliseconds. The schedule is built once per (network, batch) and shared by
every design point of a sweep, so these costs are paid once per sweep, not per point.
"""

from __future__ import annotations

import json
import statistics
import time

import dnnmem
from dnnmem import _core
from dnnmem.zoo import network_document


def _median_ms(fn, repeat: int = 15) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    cases = [("resnet50", 32, {}), ("transformer", 128, {})]
    print(
        f"{'network':<12} {'layers':>6} {'steps':>6} {'parse ms':>9} {'schedule ms':>12} "
        f"{'DataFrames ms':>14}"
    )
    for name, batch, opts in cases:
        text = json.dumps(network_document(name, **opts))
        core = _core.parse_network(text, name)
        parse = _median_ms(lambda: _core.parse_network(text, name))
        sched = _median_ms(lambda: _core.build_schedule(core, batch, 4))

        def frames() -> None:
            net = dnnmem.Network(core, batch)
            net.layers, net.steps, net.tensors  # noqa: B018 - build the tables

        tables = _median_ms(frames, repeat=5)
        s = _core.build_schedule(core, batch, 4)
        print(
            f"{name:<12} {core.num_layers:>6} {s.num_steps:>6} {parse:>9.3f} {sched:>12.3f} "
            f"{tables:>14.1f}"
        )


if __name__ == "__main__":
    main()
