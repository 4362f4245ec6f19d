"""``lru(hardware=on)`` and ``fifo(hardware=on)``, the hardware cache of docs/model/onsram.md
(rule O11, H1-H6): by hand on the skip graph, against the oracle on random graphs, and against
libCacheSim's LRU and FIFO as recorded in tests/data/hardware_cache_libcachesim.json
(by scripts/hardware_cache_libcachesim.py; the test needs no libCacheSim)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import oracle
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_onsram import ACT, W, _check, _run
from test_policies_oracle import compare_with_oracle, random_network

import dnnmem

EXAMPLES = int(os.environ.get("DNNMEM_HYPOTHESIS_EXAMPLES", "40"))
RECORDED = Path(__file__).resolve().parents[1] / "data/hardware_cache_libcachesim.json"


@pytest.mark.parametrize("cache", ["lru", "fifo"])
def test_skip_graph_by_hand(cache: str) -> None:
    """256-byte lines (an activation is 4 lines, a weight 1 line of 80 bytes), 8 lines.

    F:a reads x (4 misses) and W_a (1), writes Y:a: its last line evicts x's first (clean).
    F:b hits Y:a, writes Y:b over x's other lines and W_a (clean). F:c hits Y:b, loads W_c over
    Y:a's line 0, writes Y:c over Y:a's lines 1-3 and Y:b's line 0: all dirty, although Y:a is
    read again at F:d (H4: no liveness): 1024 + 256 written back. F:d loads Y:a again (4 lines,
    evicting Y:b's lines 1-3, dirty, and W_c), hits Y:c, and writes Y:d over Y:a's clean lines
    (lru) or Y:c's dirty ones (fifo: Y:c was cached before Y:a); what is dirty then is written
    back with F:d (H6). Either way every activation is written back once: 4 × 1024 out, as
    ``none``; the reads save Y:b, Y:c and Y:a's first read."""
    r = _run(f"{cache}(hardware=on, line=256)", 8 * 256)
    _check(r, [ACT + W, 0, W, ACT], [0, 0, ACT + 256, 768 + 2 * ACT])
    assert r.counts == {"kept": 3, "prefetched": 0, "born": 4, "offloads": 5}
    assert list(r.steps["resident_bytes"]) == [
        3 * 256 + W + ACT,
        2 * ACT,
        3 * 256 + W + ACT,
        2 * ACT,
    ]
    # The whole-tensor cache at the same capacity keeps Y:a to F:d and writes no dead tensor.
    smart = _run(cache, 8 * 256)
    assert smart.traffic_out < r.traffic_out == _run("none", 0).traffic_out


def test_no_lines_is_none() -> None:
    """A capacity under one line caches nothing: exactly ``none``'s bytes and times."""
    r, none = _run("lru(hardware=on, line=256)", 255), _run("none", 0)
    assert (r.traffic_in, r.traffic_out, r.time) == (none.traffic_in, none.traffic_out, none.time)


def test_too_many_lines_is_a_clear_error() -> None:
    net = dnnmem.network("vgg16", batch=64)
    with pytest.raises(ValueError, match="line"):
        dnnmem.estimate(net, policy="lru(hardware=on, line=1)", capacity=2**21)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc=random_network(),
    scheduler=st.sampled_from(["inference", "default", "inference(order=random, seed=3)"]),
    cache=st.sampled_from(["lru", "fifo"]),
    line=st.sampled_from([1, 7, 64, 1000]),
    capacity=st.sampled_from([0, 500, 4000, 2**40]),
)
def test_matches_the_oracle(doc, scheduler, cache, line, capacity) -> None:
    """H1-H6 against tests/python/oracle.py (written from the docs)."""
    net = dnnmem.load_network(doc, batch=1)
    policy = dnnmem.Policy.parse(f"{scheduler} + {cache}(hardware=on, line={line})")
    opts = {"hardware": "on", "line": line}
    o = oracle.estimate(
        net.with_scheduler(policy.scheduler), capacity, 10**6, 10**8, cache, cache_options=opts
    )
    r = dnnmem.estimate(net, policy=policy, capacity=capacity, bandwidth=10**6, throughput=10**8)
    compare_with_oracle(r, o, str(policy))


def _recorded() -> list[dict]:
    return json.loads(RECORDED.read_text())["cases"]


@pytest.mark.parametrize(
    "case", _recorded(), ids=lambda c: f"{c['network']}-{c['policy']}-{c['capacity']}-{c['line']}"
)
def test_against_libcachesim(case: dict) -> None:
    """libCacheSim's hits, as loaded and written-back bytes and full-read hits, equal ours."""
    net = dnnmem.network(
        case["network"], batch=case["batch"], bytes_per_element=case["bytes_per_element"]
    )
    r = dnnmem.estimate(
        net,
        policy=f"{case['scheduler']} + {case['policy']}(hardware=on, line={case['line']})",
        capacity=case["capacity"],
    )
    assert r.traffic_in == case["loaded_bytes"]
    assert r.traffic_out == case["written_back_bytes"]
    assert r.counts["kept"] == case["kept"]


def test_recorded_provenance() -> None:
    doc = json.loads(RECORDED.read_text())
    assert doc["tool"].startswith("libCacheSim") and doc["version"] and doc["command"]
    assert {c["policy"] for c in doc["cases"]} == {"lru", "fifo"}
