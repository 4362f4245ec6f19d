"""Lower bounds and the lp-rounded plan (docs/model/optimal.md, dnnmem.optimal).

Hand-computed instances; the integer programs against a brute-force enumeration of every plan
(tests/python/oracle_optimal.py); the bounds against every cache manager that keeps within the
capacity on random networks; lp-rounded against the model's traffic of its own kept set; and the
trace form against the FOO authors' code (tests/data/foo/).
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import dnnmem

pytest.importorskip("highspy", reason="the 'optimal' extra (highspy) is not installed")

from dnnmem import optimal  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import oracle_optimal as oo  # noqa: E402
from test_random_networks import networks  # noqa: E402

DATA = Path(__file__).parents[1] / "data" / "foo"

#: Cache managers whose plans are plans of the model (docs/model/optimal.md, "The plans
#: compared"); infinite-spm, vdnn-all, vdnn-conv and oracle ignore the capacity.
COVERED = [
    "lookahead",
    "belady",
    "prefetch-next",
    "no-lookahead",
    "lru",
    "fifo",
    "none",
    "lp-rounded",
    "one-step",
    "onsram-static",
    "onsram-eager-wb",
]


def chain(units: list[int]) -> dnnmem.Network:
    layers: list[dict] = [{"name": "x", "kind": "input", "shape": [2]}]
    prev = "x"
    for i, u in enumerate(units):
        layers.append({"name": f"d{i}", "kind": "dense", "inputs": [prev], "units": u})
        prev = f"d{i}"
    return dnnmem.load_network({"name": "chain", "layers": layers}, batch=1, bytes_per_element=1)


# -- hand-computed ---------------------------------------------------------------------------


def _trace(requests: list[tuple[str, int]]) -> dict[str, list]:
    ids = {name: i for i, name in enumerate(dict.fromkeys(n for n, _ in requests))}
    return {
        "time": list(range(len(requests))),
        "id": [ids[n] for n, _ in requests],
        "size": [s for _, s in requests],
    }


def _earliest_end_first(requests: list[tuple[str, int]], capacity: int) -> int:
    """Bélády on intervals (rule 2: by end, each if it fits): the bytes missed."""
    last: dict[str, int] = {}
    intervals = []
    for t, (name, size) in enumerate(requests):
        if name in last:
            intervals.append((t, last[name], size))
        last[name] = t
    occ = [0] * len(requests)
    missed = 0
    for end, start, size in sorted(intervals):
        if max(occ[start:end]) + size <= capacity:
            for k in range(start, end):
                occ[k] += size
        else:
            missed += size
    return missed


def test_three_objects_where_belady_is_optimal() -> None:
    """Unit sizes, capacity 1: B over requests 0–2, A over 1–4, C over 3–5. Keeping B and C
    misses A's 1 byte; no plan does better (A overlaps both); the LP is integral."""
    req = [("B", 1), ("A", 1), ("B", 1), ("C", 1), ("A", 1), ("C", 1)]
    pd = pytest.importorskip("pandas")
    assert _earliest_end_first(req, 1) == 1
    assert optimal.trace_bound(pd.DataFrame(_trace(req)), 1) == pytest.approx(1.0, abs=1e-9)


def test_three_objects_where_belady_is_not_optimal() -> None:
    """A is 3 bytes, B and C 1 byte, capacity 3 (the same requests). Bélády keeps B (it ends
    first) and C, and misses A: 3 bytes. Keeping A misses B and C: 2 bytes, the optimum. The LP
    keeps B and C whole and 2/3 of A (3·2/3 + 1 = 3 at each overlap): 1 byte."""
    req = [("B", 1), ("A", 3), ("B", 1), ("C", 1), ("A", 3), ("C", 1)]
    pd = pytest.importorskip("pandas")
    assert _earliest_end_first(req, 3) == 3
    assert optimal.trace_bound(pd.DataFrame(_trace(req)), 3) == pytest.approx(1.0, abs=1e-9)


def test_no_capacity_and_enough_capacity_are_exact() -> None:
    """At capacity 0 every plan streams (P2): the bound is `none`'s traffic; at the peak alive
    bytes every tensor moves once (P1): the bound is lookahead's."""
    net = chain([3, 1])
    none = dnnmem.estimate(net, capacity=0, policy="none")
    assert optimal.traffic_lower_bound(net, capacity=0).value == none.traffic == 53
    peak = net.schedule.peak_alive_bytes()
    at_peak = dnnmem.estimate(net, capacity=peak)
    assert optimal.traffic_lower_bound(net, capacity=peak).value == at_peak.traffic == 28


# -- the integer programs against brute force ------------------------------------------------


@pytest.mark.parametrize("units", [[3, 1], [2, 3, 1], [4, 2]])
def test_integer_programs_equal_brute_force(units: list[int]) -> None:
    net = chain(units)
    p = oo.tiny(net)
    for cap in (0, 3, 6, 10, net.schedule.peak_alive_bytes()):
        traffic, time = oo.optimum(p, cap)
        exact = optimal.traffic_lower_bound(net, capacity=cap, exact=True)
        assert exact.exact and exact.value == traffic, cap
        assert optimal.traffic_lower_bound(net, capacity=cap).value <= traffic
        t = optimal.time_lower_bound(net, capacity=cap, bandwidth=1, throughput=1, exact=True)
        assert t.exact and t.lp_value == pytest.approx(time, rel=1e-9), cap
        lp = optimal.time_lower_bound(net, capacity=cap, bandwidth=1, throughput=1)
        assert lp.value <= time * (1 + 1e-12)
        r = dnnmem.estimate(net, capacity=cap, bandwidth=1, throughput=1, policy="lp-rounded")
        assert r.traffic >= traffic and r.time >= t.value


def test_exact_is_refused_for_large_schedules() -> None:
    with pytest.raises(ValueError, match="MAX_EXACT_USES"):
        optimal.traffic_lower_bound("resnet50", batch=1, exact=True)


# -- lp-rounded ------------------------------------------------------------------------------


def test_lp_rounded_moves_the_model_traffic_of_its_kept_set() -> None:
    net = dnnmem.network("resnet18", batch=2)
    s = net.schedule
    peak = s.peak_alive_bytes()
    for cap in (0, peak // 20, peak // 4, peak):
        kept = optimal.rounded_plan(net, capacity=cap)
        r = dnnmem.estimate(net, capacity=cap, policy="lp-rounded")
        assert r.traffic == optimal.plan_traffic(s, kept)
        assert r.traffic >= optimal.traffic_lower_bound(net, capacity=cap).value
        assert int(r.steps["resident_bytes"].max()) <= cap


def test_lp_rounded_refuses_intervals_that_do_not_fit() -> None:
    net = chain([3, 1])
    s = net.schedule
    prepared = dnnmem.Policy.parse("lp-rounded").prepare(s, 2, net)
    every = np.ones(len(optimal._instance(s).tensor), dtype=np.uint8)
    with pytest.raises(ValueError, match="more than the capacity"):
        dnnmem._core.estimate(s, 1, 1.0, 1.0, prepared.with_kept(every.tolist()))
    with pytest.raises(ValueError, match="needs the kept intervals"):
        dnnmem._core.estimate(s, 1, 1.0, 1.0, prepared)


def test_lp_rounded_in_a_sweep_equals_estimate() -> None:
    net = dnnmem.network("mobilenet_v1", batch=1)
    caps = [2**20, 4 * 2**20]
    df = dnnmem.sweep(
        net, capacity=caps, bandwidth=[616e9, 900e9], policy="lp-rounded", progress=False
    )
    for _, row in df.iterrows():
        r = dnnmem.estimate(
            net, capacity=row["capacity"], bandwidth=row["bandwidth"], policy="lp-rounded"
        )
        assert (row["traffic_in"], row["traffic_out"], row["time"]) == (
            r.traffic_in,
            r.traffic_out,
            r.time,
        )


# -- valid on random networks ----------------------------------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(networks())
def test_bounds_hold_for_every_covered_manager(doc: dict) -> None:
    net = dnnmem.load_network(doc, batch=2, bytes_per_element=2)
    if net.num_steps == 0:
        return
    peak = net.schedule.peak_alive_bytes()
    for cap in (0, peak // 5, peak // 2, peak):
        traffic = optimal.traffic_lower_bound(net, capacity=cap).value
        hw = dnnmem.Hardware(capacity=cap, bandwidth=1e9, throughput=1e9)
        time = optimal.time_lower_bound(net, hw).value
        for policy in COVERED:
            r = dnnmem.estimate(net, hw, policy=policy)
            assert r.traffic >= traffic, (policy, cap)
            assert r.time >= time * (1 - 1e-12), (policy, cap)


# -- the trace form against the FOO authors' code --------------------------------------------


def test_trace_bound_equals_foo_with_byte_costs() -> None:
    with open(DATA / "foo_byte_misses.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if r["network"] != "ptb_lstm"]  # (1 s a point)
    assert len(rows) == 20
    traces = {}
    for r in rows:
        key = (r["network"], int(r["batch"]))
        if key not in traces:
            traces[key] = optimal.export_trace(dnnmem.network(key[0], batch=key[1]))
            assert len(traces[key]) == int(r["requests"])
        ours = optimal.trace_bound(traces[key], int(r["capacity"]))
        assert ours == pytest.approx(int(r["foo_byte_misses"]), rel=1e-9, abs=1e-3), r


# -- sweeps and the missing extra ------------------------------------------------------------


def test_sweep_with_bounds() -> None:
    df = dnnmem.sweep(
        "resnet18",
        batch=2,
        capacity=["1MiB", "8MiB"],
        policy=["lookahead", "lru"],
        progress=False,
        bounds=True,
    )
    traffic = df["traffic_in"] + df["traffic_out"]
    assert (traffic >= df["traffic_lower_bound"]).all()
    assert (df["time"] >= df["time_lower_bound"]).all()
    assert np.allclose(df["traffic_gap"], traffic / df["traffic_lower_bound"] - 1)
    assert df.attrs["units"]["traffic_lower_bound"] == "bytes"
    assert df.attrs["units"]["time_gap"] == "fraction"
    r = dnnmem.estimate("resnet18", batch=2, capacity="1MiB", policy="lru")
    g = optimal.gap(r)
    assert math.isclose(g["traffic_gap"], df["traffic_gap"].iloc[2])


def test_missing_highspy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "highspy", None)
    with pytest.raises(ImportError, match=r"\.\[optimal\]"):
        optimal.traffic_lower_bound(chain([1]), capacity=0)
    with pytest.raises(ImportError, match=r"\.\[optimal\]"):
        dnnmem.sweep("resnet18", capacity=0, progress=False, bounds=True)
