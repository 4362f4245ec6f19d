"""Lower bounds and the lp-rounded plan (docs/model/optimal.md, dnnmem.optimal).

Hand-computed instances; the integer programs against a brute-force enumeration of every plan
(tests/python/oracle_optimal.py); the bounds (Lagrangian and LP) against every cache manager
that keeps within the capacity on random networks, and the Lagrangian against the LP;
lp-rounded against the model's traffic of its own kept set; and the trace form against the FOO
authors' code (tests/data/foo/). The tests that solve with HiGHS are skipped without the
``optimal`` extra; the Lagrangian bounds need none.
"""

from __future__ import annotations

import csv
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import dnnmem
from dnnmem import optimal

sys.path.insert(0, str(Path(__file__).parent))
import oracle_optimal as oo  # noqa: E402
from test_random_networks import networks  # noqa: E402

HAVE_HIGHSPY = importlib.util.find_spec("highspy") is not None
needs_highspy = pytest.mark.skipif(
    not HAVE_HIGHSPY, reason="the 'optimal' extra (highspy) is not installed"
)
#: The methods that run here: the Lagrangian always, the LP with the extra.
METHODS = ["lagrangian", "lp"] if HAVE_HIGHSPY else ["lagrangian"]

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


@needs_highspy
def test_three_objects_where_belady_is_optimal() -> None:
    """Unit sizes, capacity 1: B over requests 0–2, A over 1–4, C over 3–5. Keeping B and C
    misses A's 1 byte; no plan does better (A overlaps both); the LP is integral."""
    req = [("B", 1), ("A", 1), ("B", 1), ("C", 1), ("A", 1), ("C", 1)]
    pd = pytest.importorskip("pandas")
    assert _earliest_end_first(req, 1) == 1
    assert optimal.trace_bound(pd.DataFrame(_trace(req)), 1) == pytest.approx(1.0, abs=1e-9)


@needs_highspy
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
    peak = net.schedule.peak_alive_bytes()
    at_peak = dnnmem.estimate(net, capacity=peak)
    for method in METHODS:
        assert optimal.traffic_lower_bound(net, capacity=0, method=method).value == 53
        assert none.traffic == 53
        assert optimal.traffic_lower_bound(net, capacity=peak, method=method).value == 28
        assert at_peak.traffic == 28


def test_a_tensor_larger_than_the_capacity_is_never_kept() -> None:
    """chain([3, 1]) at capacity 2: only Y:x (2 bytes), Y:d1 and dY:d1 (1 byte each) fit.
    Keeping Y:d1 from step 1 to 2 and dY:d1 from 2 to 3 saves a load and a store of 1 byte
    each: 53 - 4 = 49 bytes, the optimum (keeping Y:x instead saves only its 2-byte load). A
    relaxation that let 2/3 of a 3-byte tensor stay would go below 49."""
    net = chain([3, 1])
    inst = optimal._instance(net.schedule)
    for method in METHODS:
        b = optimal.traffic_lower_bound(net, capacity=2, method=method)
        assert b.value == 49 and b.method == method
        assert not b.kept[inst.size > 2].any(), method
    assert dnnmem.estimate(net, capacity=2, policy="belady").traffic == 49


def test_method_is_checked() -> None:
    with pytest.raises(ValueError, match="method: expected one of lagrangian, lp"):
        optimal.traffic_lower_bound(chain([1]), capacity=0, method="simplex")
    with pytest.raises(ValueError, match="exact=True"):
        optimal.traffic_lower_bound(chain([1]), capacity=0, method="lagrangian", exact=True)
    with pytest.raises(ValueError, match="bounds: expected"):
        dnnmem.sweep("resnet18", capacity=0, progress=False, bounds="fast")


# -- the integer programs against brute force ------------------------------------------------


@needs_highspy
@pytest.mark.parametrize("units", [[3, 1], [2, 3, 1], [4, 2]])
def test_integer_programs_equal_brute_force(units: list[int]) -> None:
    net = chain(units)
    p = oo.tiny(net)
    for cap in (0, 3, 6, 10, net.schedule.peak_alive_bytes()):
        traffic, time = oo.optimum(p, cap)
        exact = optimal.traffic_lower_bound(net, capacity=cap, exact=True)
        assert exact.exact and exact.value == traffic, cap
        lp = optimal.traffic_lower_bound(net, capacity=cap, method="lp")
        lag = optimal.traffic_lower_bound(net, capacity=cap)
        assert lag.lp_value <= lp.lp_value * (1 + 1e-7) and lp.value <= traffic
        assert lag.value <= traffic
        t = optimal.time_lower_bound(net, capacity=cap, bandwidth=1, throughput=1, exact=True)
        assert t.exact and t.lp_value == pytest.approx(time, rel=1e-9), cap
        tlp = optimal.time_lower_bound(net, capacity=cap, bandwidth=1, throughput=1, method="lp")
        tlag = optimal.time_lower_bound(net, capacity=cap, bandwidth=1, throughput=1)
        assert tlag.lp_value <= tlp.lp_value * (1 + 1e-7) and tlp.value <= time * (1 + 1e-12)
        assert tlag.value <= time * (1 + 1e-12)
        r = dnnmem.estimate(net, capacity=cap, bandwidth=1, throughput=1, policy="lp-rounded")
        assert r.traffic >= traffic and r.time >= t.value


def test_exact_is_refused_for_large_schedules() -> None:
    with pytest.raises(ValueError, match="MAX_EXACT_USES"):
        optimal.traffic_lower_bound("resnet50", batch=1, exact=True)


# -- lp-rounded ------------------------------------------------------------------------------


@needs_highspy
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


@needs_highspy
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


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(networks())
def test_bounds_hold_for_every_covered_manager(doc: dict) -> None:
    net = dnnmem.load_network(doc, batch=2, bytes_per_element=2)
    if net.num_steps == 0:
        return
    peak = net.schedule.peak_alive_bytes()
    for cap in (0, peak // 5, peak // 2, peak):
        hw = dnnmem.Hardware(capacity=cap, bandwidth=1e9, throughput=1e9)
        lag = optimal.traffic_lower_bound(net, capacity=cap)
        tlag = optimal.time_lower_bound(net, hw)
        traffic, time = lag.value, tlag.value
        if HAVE_HIGHSPY:  # the Lagrangian bound is never above the LP's (the LP's dual)
            lp = optimal.traffic_lower_bound(net, capacity=cap, method="lp")
            tlp = optimal.time_lower_bound(net, hw, method="lp")
            assert lag.lp_value <= lp.lp_value * (1 + 1e-7), cap
            assert tlag.lp_value <= max(tlp.lp_value, tlp.compute_time) * (1 + 1e-7), cap
            traffic, time = max(traffic, lp.value), max(time, tlp.value)
        for policy in COVERED if HAVE_HIGHSPY else [p for p in COVERED if p != "lp-rounded"]:
            r = dnnmem.estimate(net, hw, policy=policy)
            assert r.traffic >= traffic, (policy, cap)
            assert r.time >= time * (1 - 1e-12), (policy, cap)


# -- the trace form against the FOO authors' code --------------------------------------------


@needs_highspy
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
        optimal.traffic_lower_bound(chain([1]), capacity=0, method="lp")
    with pytest.raises(ImportError, match=r"\.\[optimal\]"):
        dnnmem.sweep("resnet18", capacity=0, progress=False, bounds="lp")
    # The Lagrangian bounds need no extra.
    assert optimal.traffic_lower_bound(chain([1]), capacity=0).value > 0
    df = dnnmem.sweep("resnet18", capacity=0, progress=False, bounds=True)
    assert (df["traffic_gap"] == 0).all()


# -- the figure of docs/optimality.md --------------------------------------------------------


@needs_highspy
def test_gaps_script_and_its_plot() -> None:
    """sweeps/optimal/gaps.py --small: the LP bounds below every policy, the Lagrangian ones
    below them (to the LP's rounding), and one colour per policy in both panels, whatever
    series the traffic panel merges (lookahead, belady and prefetch-next keep the same
    intervals, so their traffic is one line)."""
    pytest.importorskip("matplotlib")
    from sweep_scripts import import_script

    gaps = import_script("optimal", "gaps")
    df = gaps.compute(small=True)
    assert (df["traffic_in"] + df["traffic_out"] >= df["traffic_lower_bound"]).all()
    assert (df["time"] >= df["time_lower_bound"]).all()
    for kind, near in (("traffic", 0.99), ("time", 0.95)):  # (the time one is the looser)
        lp, lag = df[f"{kind}_lower_bound"], df[f"{kind}_lower_bound_lagrangian"]
        assert (lag <= lp * (1 + 1e-6)).all() and (lag >= near * lp).all(), kind
    colours: dict[str, set] = {}
    fig = gaps.plot(df)  # the traffic and the time panel (style.figure: no pyplot to close)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        for line in ax.get_lines():
            label = str(line.get_label())
            if label.startswith("_"):  # the zero line
                continue
            colours.setdefault(label.split(" / ")[0], set()).add(line.get_color())
    assert "lookahead" in colours and "lru" in colours
    assert all(len(c) == 1 for c in colours.values()), colours
    assert colours["lookahead"] == {dnnmem.plots.style.SERIES_COLORS["lookahead"]}
    with pytest.raises(ValueError, match="kind must be"):
        dnnmem.plots.gap_vs_capacity(df, kind="energy")


def test_seed_setups_script() -> None:
    """sweeps/optimal/seeds.py --small (OnSRAM's setup: inference, 2 MiB, two networks): every
    cache manager at or above the Lagrangian bounds of its own schedule, `none` the worst in
    traffic, and the page's table has a row per network with every manager."""
    from sweep_scripts import import_script

    seeds = import_script("optimal", "seeds")
    df = seeds.compute(small=True)
    assert set(df["policy"]) == set(seeds.ONSRAM_POLICIES) and len(df) == 2 * 9
    assert (df["traffic"] >= df["traffic_lower_bound"]).all()
    assert (df["time"] >= df["time_lower_bound"] * (1 - 1e-12)).all()
    assert (df["traffic_gap"] >= 0).all() and (df["time_gap"] >= -1e-12).all()
    for _, g in df.groupby("network"):
        assert g.set_index("policy")["traffic"].idxmax() == "none"
    rows = [line for line in seeds.table(df).splitlines() if line.startswith("| resnet50")]
    assert len(rows) == 1 and rows[0].count("|") == len(seeds.ONSRAM_POLICIES) + 3


@needs_highspy
def test_exact_script() -> None:
    """sweeps/optimal/exact.py --small (mha_block at 10 and 60 % of its peak): the integer
    program proved, the LP and Lagrangian bounds at or below it, both managers at or above;
    lookahead above the optimum at both (1.9 % and 1.7 %: not optimal with sizes)."""
    from sweep_scripts import import_script

    exact = import_script("optimal", "exact")
    df = exact.compute(small=True)
    assert len(df) == 2 and df["proved"].all()
    # (the Lagrangian within the LP solver's tolerance of the LP, 4 bytes in 10⁷ here)
    assert (df["lagrangian"] <= df["lp"] * (1 + 1e-6)).all()
    assert (df["lagrangian"] <= df["optimum"]).all() and (df["lp"] <= df["optimum"]).all()
    assert (df["lookahead"] >= df["optimum"]).all() and (df["lp-rounded"] >= df["optimum"]).all()
    assert (df["lookahead"] > df["optimum"]).all()
    assert exact.table(df).count("| mha_block (49) |") == 2


@needs_highspy
def test_no_solver_banner_on_stdout() -> None:
    """HiGHS prints a banner to the process's stdout when its first solver is made; dnnmem
    silences it, so that `dnnmem estimate --json` with lp-rounded prints JSON only."""
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "dnnmem", "estimate", "--network", "mha_block", "--batch", "1"]
        + ["--capacity", "1MiB", "--policy", "lp-rounded", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "HiGHS" not in out
    assert json.loads(out)["network"] == "mha_block"
