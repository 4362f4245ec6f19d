"""Ctrl-C stops long C++ work (issue 26): the core's loops poll a flag that the bindings set from
Python's signal handlers (cpp/include/dnnmem/interrupt.hpp), so KeyboardInterrupt arrives while
a plan is still running, not when it ends.

The work: the tile model at tile = 1 over a chain of dense layers, each backward GEMM walked
tile by tile (2^19 tile operations each, three orders under ``order=best``) — long, in little
memory: the whole plan takes about 50 s of one core (measured when the test was written), so an
interrupt that works arrives long before it could have finished. The bound, 10 s after the
signal, is generous for a loaded machine (under load the plan is longer still) and far below the
plan. (A layer's time cannot be measured beforehand: the walks are memoised across networks.)"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator

import pytest

import dnnmem

LAYERS = 40
POLICY = "split-backward(order=best, tile=1) + none"


def _chain(layers: int) -> dnnmem.Network:
    doc: dict = {"name": "tiles", "layers": [{"name": "x", "kind": "input", "shape": [96]}]}
    for i in range(layers):  # distinct widths: no walk is a memoised repeat of another
        doc["layers"].append(
            {
                "name": f"d{i}",
                "kind": "dense",
                "inputs": [doc["layers"][-1]["name"]],
                "units": 96 + (i * 37) % 64,
                "use_bias": False,
            }
        )
    return dnnmem.load_network(doc, batch=32)


@pytest.fixture
def sigint_after() -> Iterator[Callable[[float], None]]:
    """sigint_after(s): SIGINT to the main thread in s seconds, with Python's default handler
    (KeyboardInterrupt) in force meanwhile."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timers: list[threading.Timer] = []

    def arm(seconds: float) -> None:
        main = threading.main_thread().ident
        assert main is not None
        timer = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
        timers.append(timer)
        timer.start()

    try:
        yield arm
    finally:
        for t in timers:
            t.cancel()
            t.join()
        signal.signal(signal.SIGINT, previous)


#: Seconds after the signal by which the work must have stopped (the whole plan: ~50 s).
PROMPT = 10.0


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_stops_a_long_plan(sigint_after: Callable[[float], None]) -> None:
    net = _chain(LAYERS)  # (built before the alarm: its own interruptibility is not timed here)
    sigint_after(0.2)
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        dnnmem.estimate(net, capacity=0, policy=POLICY)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.2 + PROMPT, elapsed
    # The process is fine afterwards: the same call without an interrupt gives a result.
    assert dnnmem.estimate(_chain(1), capacity=0, policy=POLICY).time > 0


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals")
def test_ctrl_c_stops_a_sweep_inside_its_point(sigint_after: Callable[[float], None]) -> None:
    """A sweep of one long point: before, Ctrl-C cancelled only the points not yet started."""
    net = _chain(LAYERS)
    sigint_after(0.2)
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        dnnmem.sweep(net, capacity=[0], policy=POLICY, progress=False, on_interrupt="raise")
    elapsed = time.perf_counter() - start
    assert elapsed < 0.2 + PROMPT, elapsed
