"""The pinning managers' report columns (docs/model/report.md, "Pinning"), the scratchpad
bandwidth option (docs/model/onsram.md, rule O1) and OnSRAM-Static's split-lifetime variant
(rule O10), by hand on test_onsram's 4-node skip graph."""

from __future__ import annotations

import pytest
from test_onsram import ACT, BW, FLOPS, SKIP, W, _blocks, _eager, _run

import dnnmem

# The skip graph's steps without management (test_onsram::test_four_nodes_by_hand): every step
# memory-bound, (in + out) bytes / BW: a 1104 + 1024, b 1024 + 1024, c 1104 + 1024, d 2048 + 1024.
BASE = (2128 + 2048 + 2128 + 3072) / BW
# infinite-spm: a loads Y:x + W:a (1104 B), b computes 256 FLOP, c loads W:c (80 B), d stores
# Y:d (1024 B).
INF = 1104 / BW + 256 / FLOPS + 80 / BW + 1024 / BW


def test_pin_totals_by_hand() -> None:
    none = _run("none", 0)
    assert (none.pinned, none.pinned_bytes, none.recompute_time) == (0, 0, 0.0)
    assert none.speedup == 1.0
    assert none.time == pytest.approx(BASE, rel=1e-12)
    inf = _run("infinite-spm", 0)
    # Y:x, Y:a, Y:b, Y:c pinned (the output Y:d must end off-chip).
    assert (inf.pinned, inf.pinned_bytes, inf.recompute_time) == (4, 4 * ACT, 0.0)
    assert inf.baseline.time == none.time
    assert inf.speedup == pytest.approx(BASE / INF, rel=1e-12)
    # onsram-static at two activations: Y:b and Y:c (test_onsram::test_four_nodes_by_hand).
    static = _run("onsram-static", 2 * ACT)
    assert (static.pinned, static.pinned_bytes) == (2, 2 * ACT)
    # one-step also pins Y:x (its only use is within one step).
    one = _run("one-step", 2 * ACT)
    assert (one.pinned, one.pinned_bytes) == (3, 3 * ACT)
    d = static.to_dict()
    assert (d["pinned"], d["pinned_bytes"], d["recompute_time"]) == (2, 2 * ACT, 0.0)
    assert "pinned" in repr(static) and "2 tensors" in repr(static)
    # Managers that do not pin report nothing.
    lru = _run("lru", 2 * ACT)
    assert (lru.pinned, lru.pinned_bytes) == (0, 0)
    assert (lru.pin_table()["pin_loc"] == "EXT").all()


def test_baseline_does_not_depend_on_the_order() -> None:
    """Rule O1: No SPM Mgmt streams every access in its own step, so its latency is the same in
    every node order (sweeps/onsram computes it once per network)."""
    net = dnnmem.load_network(_blocks(6, skip=(5, 3)), batch=1)
    kw = {"capacity": 0, "bandwidth": BW, "throughput": FLOPS}
    base = dnnmem.estimate(net, policy="inference + none", **kw).time
    for order in ("order=hybrid", "order=random, seed=1", "order=random, seed=2"):
        assert dnnmem.estimate(net, policy=f"inference({order}) + none", **kw).time == base


def test_pin_table_by_hand() -> None:
    t = _run("onsram-static", 2 * ACT).pin_table()
    assert list(t["tensor"]) == ["Y:x", "Y:a", "Y:b", "Y:c", "Y:d"]
    assert list(t["layer"]) == ["x", "a", "b", "c", "d"]
    assert list(t["pin_loc"]) == ["EXT", "EXT", "SPM", "SPM", "EXT"]
    assert list(t["pin_start"]) == [-1, -1, 1, 2, -1]
    assert list(t["pin_end"]) == [-1, -1, 2, 3, -1]
    assert list(t["pinned_steps"]) == [0, 0, 2, 2, 0]
    assert list(t["first_step"]) == [0, 0, 1, 2, 3]
    assert list(t["last_step"]) == [0, 3, 2, 3, 3]
    assert (t["bytes"] == ACT).all()


def test_recompute_time_is_the_reexecuted_steps() -> None:
    """test_onsram::test_eager_spec_mis_speculation...: F:sum re-executes F:r3 and F:c3."""
    doc = _blocks(6, skip=(5, 3))
    spec, none = _eager(doc, "onsram-eager-spec"), _eager(doc, "none")
    c = none.steps.set_index("name")["compute_time"]
    assert spec.recompute_time == pytest.approx(c["F:r3"] + c["F:c3"], rel=1e-12)
    assert spec.compute_time == pytest.approx(none.compute_time + spec.recompute_time, rel=1e-12)
    t = spec.pin_table()
    assert spec.pinned == t.loc[t["pin_loc"] != "EXT", "tensor"].nunique() > 0


def test_sweep_columns_equal_estimate() -> None:
    net = dnnmem.load_network(SKIP, batch=1)
    df = dnnmem.sweep(
        net,
        capacity=[0, 2 * ACT],
        bandwidth=BW,
        throughput=FLOPS,
        policy=["inference + none", "inference + onsram-static", "inference + infinite-spm"],
        speedup=True,
        progress=False,
        threads=1,
    )
    for row in df.itertuples():
        r = dnnmem.estimate(
            net, policy=str(row.policy), capacity=row.capacity, bandwidth=BW, throughput=FLOPS
        )
        assert (row.pinned, row.pinned_bytes, row.recompute_time) == (
            r.pinned,
            r.pinned_bytes,
            r.recompute_time,
        )
        assert row.speedup == r.speedup and row.baseline_time == r.baseline.time
    inf = df[df["cache"] == "infinite-spm"]
    assert list(inf["speedup"]) == pytest.approx([BASE / INF] * 2, rel=1e-12)


def test_spm_bandwidth_floor_by_hand() -> None:
    """Rule O1 with spm_bandwidth: a step lasts at least (bytes read + written) / it."""
    spm = 4 * BW  # 4 GB/s
    net = dnnmem.load_network(SKIP, batch=1)
    kw = {"capacity": 0, "bandwidth": BW, "throughput": FLOPS}
    inf = dnnmem.estimate(net, policy=f"inference + infinite-spm + peak(spm_bandwidth={spm})", **kw)
    # Operand bytes per step: a reads Y:x, W:a, writes Y:a; b: Y:a, Y:b; c: Y:b, W:c, Y:c;
    # d: Y:a, Y:c, Y:d.
    floor = [(2 * ACT + W) / spm, 2 * ACT / spm, (2 * ACT + W) / spm, 3 * ACT / spm]
    # DRAM bytes under infinite-spm (above): 1104, 0, 80, 1024.
    want = [max(f, d / BW) for f, d in zip(floor, [1104, 0, 80, 1024], strict=True)]
    assert list(inf.steps["time"]) == pytest.approx(want, rel=1e-12)
    assert list(inf.steps["compute_time"]) == pytest.approx(floor, rel=1e-12)
    # Off (the default) and a scratchpad fast enough change nothing.
    off = dnnmem.estimate(net, policy="inference + infinite-spm", **kw)
    fast = dnnmem.estimate(net, policy="inference + infinite-spm + peak(spm_bandwidth=1e18)", **kw)
    assert off.time == pytest.approx(INF, rel=1e-12)
    assert fast.time == off.time


def test_split_phase() -> None:
    """Rule O10. Inference has one segment per tensor: split = O7. In training (steps F:a F:b F:c
    F:d loss:d B:d B:c B:b B:a) at three activations, O7 pins Y:a, Y:c, Y:d, dY:d, dY:b whole and
    leaves Y:b (live 1..7) in DRAM; the second pass pins Y:b's forward segment (F:b writes, F:c
    reads; stored at F:c for later) and its backward one (B:c loads it, B:b hits)."""
    for cap in (ACT, 2 * ACT, 3 * ACT):
        a, b = _run("onsram-static", cap), _run("onsram-static(split=phase)", cap)
        assert (a.time, a.traffic_in, a.traffic_out) == (b.time, b.traffic_in, b.traffic_out)
    net = dnnmem.load_network(SKIP, batch=1)

    def run(policy: str, cap: int) -> dnnmem.Result:
        return dnnmem.estimate(net, policy=policy, capacity=cap, bandwidth=BW, throughput=FLOPS)

    whole, split = run("onsram-static", 3 * ACT), run("onsram-static(split=phase)", 3 * ACT)
    t = split.pin_table().set_index("tensor")
    assert list(t.loc["Y:b", "pin_loc"]) == ["SPM+EXT", "SPM+EXT"]
    assert list(t.loc["Y:b", "pin_start"]) == [1, 6] and list(t.loc["Y:b", "pin_end"]) == [2, 7]
    assert whole.pin_table().set_index("tensor").loc["Y:b", "pin_loc"] == "EXT"
    assert (split.pinned, whole.pinned) == (6, 5)  # Y:b counted once
    assert split.traffic_in == whole.traffic_in - 2 * ACT  # F:c's and B:b's loads of Y:b
    assert split.traffic_out == whole.traffic_out  # Y:b's store moves from F:b to F:c
    w, p = whole.steps.set_index("name"), split.steps.set_index("name")
    assert w.loc["F:b", "bytes_out"] - p.loc["F:b", "bytes_out"] == ACT
    assert p.loc["F:c", "bytes_out"] - w.loc["F:c", "bytes_out"] == ACT
    assert p.loc["B:c", "bytes_in"] == w.loc["B:c", "bytes_in"]  # B:c still loads Y:b
    assert w.loc["B:b", "bytes_in"] - p.loc["B:b", "bytes_in"] == ACT
    assert split.time < whole.time
    # Everything fits: pass 1 pins every candidate whole, as infinite-spm.
    big = run("onsram-static(split=phase)", 10 * ACT)
    assert big.time == run("infinite-spm", 0).time
