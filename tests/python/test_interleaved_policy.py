"""The tile model inside the pipeline (docs/model/interleaved.md): split-backward(order=...) and
the plan pass that puts the tile walk's bytes into the step's streamed transfers; the per-layer
report (dnnmem.interleaved)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import dnnmem
import dnnmem.interleaved as igo


def _chain(k: int, n: int, first: int = 1) -> dict:
    # x -> h (dense, `first` units, no dX: its input is the network's) -> d (dense, n units):
    # d's backward is the paper's GEMM X(M = batch, K = k) . W(K, N = n), with a dX and a dW.
    return {
        "name": "chain",
        "layers": [
            {"name": "x", "kind": "input", "shape": [first]},
            {"name": "h", "kind": "dense", "inputs": ["x"], "units": k, "use_bias": False},
            {"name": "d", "kind": "dense", "inputs": ["h"], "units": n, "use_bias": False},
        ],
    }


def _run(doc: dict, policy: str, capacity: float, batch: int = 2) -> dnnmem.Result:
    net = dnnmem.load_network(doc, batch=batch, bytes_per_element=1)
    return dnnmem.estimate(net, capacity=capacity, bandwidth=1e9, throughput=1e12, policy=policy)


def _row(r: dnnmem.Result, layer: str) -> dict:
    t = igo.layer_table(r)
    return dict(t[t["layer"] == layer].iloc[0])


def test_hand_computed_dx_major_on_a_share_of_one_fused_operation() -> None:
    # d: M = 2, K = 1, N = 2, tile 1, 1-byte elements; capacity 10 with `none` (nothing resident)
    # gives C_eff = 5, one fused operation: the walk of tests/python/test_tiles_oracle.py
    # (test_dx_major_on_a_share_of_one_fused_operation_by_hand): dY 4, W 4, X 2 read; dX and dW
    # written once (2 each); dW's partial sums spilled 2 and read back 2.
    r = _run(_chain(1, 2), "split-backward(order=dx-major, tile=1) + none", 10)
    row = _row(r, "d")
    assert (row["M"], row["K"], row["N"], row["c_eff"]) == (2, 1, 2, 5)
    assert (row["read_dY"], row["read_W"], row["read_X"]) == (4, 4, 2)
    assert (row["written_dX"], row["written_dW"], row["spill_dW"], row["spill_dX"]) == (2, 2, 4, 0)
    assert row["dy_reads"] == 1.0
    steps = r.steps.set_index("name")
    assert steps.loc["B:d", "bytes_in"] == 4 + 4 + 2 + 2  # + dW's partial sums read back
    assert steps.loc["B:d", "bytes_out"] == 2 + 2 + 2


def test_seq_reads_dy_twice_when_its_tiles_do_not_survive() -> None:
    # C_eff = 3, one sequential operation: each half reads the four dY tiles (hand case of
    # test_seq_fetches_dy_twice...), each half's step its own.
    r = _run(_chain(1, 2), "split-backward(order=seq, tile=1) + none", 6)
    assert _row(r, "d")["dy_reads"] == 2.0
    steps = r.steps.set_index("name")
    assert steps.loc["B:d/dx", "bytes_in_gradient"] == 4
    assert steps.loc["B:d/dw", "bytes_in_gradient"] == 4
    oracle = _run(_chain(1, 2), "split-backward(order=dy-oracle, tile=1) + none", 6)
    assert _row(oracle, "d")["dy_reads"] == 1.0


@pytest.mark.parametrize("order", igo.ORDERS)
def test_a_scratchpad_that_holds_every_operand_reads_dy_once(order: str) -> None:
    # Every order, at a capacity far above the network: dY read once per layer, and the
    # iteration moves what the thesis's schedule moves under `none` (each operand streamed once).
    doc = _chain(3, 5, first=2)
    r = _run(doc, f"split-backward(order={order}, tile=2) + none", 1 << 30, batch=3)
    t = igo.layer_table(r)
    assert list(t["layer"]) == ["d"] and (t["dy_reads"] == 1.0).all() and (t["spill"] == 0).all()
    thesis = _run(doc, "none", 1 << 30, batch=3)
    assert (r.traffic_in, r.traffic_out) == (thesis.traffic_in, thesis.traffic_out)


def test_the_simpler_baseline_tiler_walks_output_stationary_nests_under_lru() -> None:
    # nest=fixed takes ikj / kji whatever the shape; at a scratchpad that holds everything LRU and
    # Bélády agree (every operand once); at a tight one nothing falls below the compulsory bytes.
    doc = _chain(3, 5, first=2)
    for order in ("seq", "dx-major"):
        simple = f"split-backward(order={order}, tile=2, nest=fixed, replace=lru) + none"
        row = _row(_run(doc, simple, 1 << 30, batch=3), "d")
        assert (row["nest_x"], row["nest_w"], row["dy_reads"], row["spill"]) == ("ikj", "kji", 1, 0)
        tight = _row(_run(doc, simple, 40, batch=3), "d")
        assert tight["dy_reads"] >= 1.0 and tight["bytes"] >= row["bytes"]
    assert "nest=fixed, replace=lru" in igo.policy("seq", tile=2, nest="fixed", replace="lru")


def test_off_by_default_and_order_none_is_the_split_scheduler() -> None:
    doc = _chain(3, 5, first=2)
    a = _run(doc, "split-backward + lookahead", 64)
    b = _run(doc, "split-backward(order=none, tile=7) + lookahead", 64)
    assert (a.time, a.traffic_in, a.traffic_out) == (b.time, b.traffic_in, b.traffic_out)
    assert igo.layer_table(a).empty and igo.totals(a)["gemm_bytes"] == 0.0


@pytest.mark.parametrize(
    ("order", "expected", "reason"),
    [("alg1", "dx-major", "K not largest"), ("alg1-size", "dw-major", "|dX| <= |dW|")],
)
def test_algorithm_1_on_the_papers_disagreeing_case(order: str, expected: str, reason: str) -> None:
    # M = 512, K = 1024, N = 8192 (the case where Algorithm 1's line 4 and its prose disagree):
    # as printed, K is not the largest -> dX-major; by the prose |dX| = M·K < |dW| = K·N -> dW-major.
    r = _run(
        _chain(1024, 8192), f"split-backward(order={order}, method=closed) + none", 1 << 20, 512
    )
    row = _row(r, "d")
    assert (row["M"], row["K"], row["N"]) == (512, 1024, 8192)
    assert (row["order"], row["reason"]) == (expected, reason)
    # Nearly square (max / min < 4): interleave, either rule.
    sq = _run(
        _chain(300, 400), f"split-backward(order={order}, method=closed) + none", 1 << 20, 200
    )
    assert (_row(sq, "d")["order"], _row(sq, "d")["reason"]) == ("interleave", "max/min(M,N,K) < 4")


def test_best_is_the_least_of_the_fused_orders() -> None:
    doc = _chain(64, 96, first=8)
    by = {
        o: _row(_run(doc, f"split-backward(order={o}, tile=8) + none", 4096, 16), "d")["bytes"]
        for o in ("interleave", "dx-major", "dw-major", "best")
    }
    assert by["best"] == min(by["interleave"], by["dx-major"], by["dw-major"])


def test_a_bad_shape_names_the_layer() -> None:
    # tile = 1 on d's 256 x 128 x 256 GEMM: 2^23 tile operations, past the walk's limit.
    with pytest.raises(ValueError, match="tile model, layer 'd': .*more than 2\\^22"):
        _run(_chain(128, 256), "split-backward(order=interleave, tile=1) + none", 1 << 20, 256)
    with pytest.raises(ValueError, match="order"):
        igo.policy("sideways")


def test_policy_takes_the_arrays_rows_as_tile() -> None:
    npu = dnnmem.hardware("igo-edge-npu")
    assert igo.policy("best", npu) == "split-backward(order=best, tile=45) + none"
    assert igo.policy("seq", dnnmem.hardware("igo-server-npu"), cache="lookahead") == (
        "split-backward(order=seq, tile=128) + lookahead"
    )
    assert igo.policy("best", "igo-edge-npu") == "split-backward(order=best, tile=45) + none"
    # A preset without a published capacity: only its compute model is read (was an error
    # asking for the capacity).
    assert igo.policy("seq", "b200") == "split-backward(order=seq, tile=128) + none"


@pytest.mark.parametrize("options", ["partition=best, parts=2", "partition=rule, cores=2"])
def test_partitioning_is_reported_and_free_when_everything_fits(options: str) -> None:
    doc = _chain(24, 16, first=8)
    policy = f"split-backward(order=alg1, tile=8, {options}) + none"
    small = _row(_run(doc, policy, 2048, 32), "d")
    assert small["partition"] in ("m", "n", "k") and small["parts"] == 2
    big = _run(doc, policy, 1 << 30, 32)
    thesis = _run(doc, "none", 1 << 30, 32)
    assert (big.traffic_in, big.traffic_out) == (thesis.traffic_in, thesis.traffic_out)


def test_compute_is_the_same_for_every_order_and_partition() -> None:
    # Page, invariant 4: the orders move bytes, not MACs.
    doc = _chain(24, 16, first=8)
    times = {
        o: _run(doc, f"split-backward(order={o}, tile=8, partition=m, parts=2) + none", 2048, 32)
        for o in igo.ORDERS
    }
    base = times["seq"]
    for r in times.values():
        assert r.flops == base.flops
        assert r.compute_time == pytest.approx(base.compute_time, rel=1e-9)


def test_joint_search_is_the_least_pair_and_matches_the_oracle() -> None:
    # partition=joint: the least-traffic (order, partition) of the three fused orders x
    # (whole, M, N, K in two parts); never more bytes than best-order-then-best-partition nor
    # than the best order alone; the Python reference's joint search picks the same pair.
    from oracle_tiles import joint_search

    doc = _chain(64, 96, first=8)
    cap, batch = 4096, 16

    def row(options: str) -> dict:
        return _row(_run(doc, f"split-backward(tile=8, {options}) + none", cap, batch), "d")

    joint = row("order=best, partition=joint, parts=2")
    pairs = {
        (o, p): row(f"order={o}, partition={p or 'none'}, parts=2")
        for o in ("interleave", "dx-major", "dw-major")
        for p in (None, "m", "n", "k")
    }
    assert joint["bytes"] == min(r["bytes"] for r in pairs.values())
    assert joint["reason"] == "least traffic (order x partition)"
    assert joint["bytes"] <= row("order=best, partition=best, parts=2")["bytes"]
    assert joint["bytes"] <= row("order=best")["bytes"]
    nests = {o: (pairs[(o, None)]["nest_x"], pairs[(o, None)]["nest_w"]) for o in
             ("interleave", "dx-major", "dw-major")}  # fmt: skip
    order, part, total = joint_search(16, 64, 96, 8, joint["c_eff"], nests, 2, elem=1)
    assert (joint["order"], joint["partition"] or None, joint["bytes"]) == (order, part, total)
    # parts=1 on one core leaves the layer whole: the best order alone.
    whole = row("order=best, partition=joint")
    assert (whole["partition"], whole["bytes"]) == ("", row("order=best")["bytes"])


def test_p3_under_the_tile_model() -> None:
    """docs/model/invariants.md, P3 under the tile model (issue 26): a cache can move more than
    `none` at the same capacity, as what it keeps shrinks the tiles' share (ResNet-18, N = 16,
    2 MiB, order=best: lru 4,147,055,496 bytes, none 3,267,450,080); it never moves more than
    `none` at capacity 0 under the same scheduler (every tiled operand with no reuse). The page
    states the case with the numbers dnnmem gives (before: it said P3 held everywhere)."""
    page = (Path(__file__).resolve().parents[2] / "docs/model/invariants.md").read_text("utf-8")
    p3 = page[page.index("## P3") : page.index("## P4")]
    stated = re.search(r"`\+ lru` moves ([\d,]+) bytes, `\+ none` ([\d,]+)", p3)
    assert stated, "invariants.md P3 does not state the tile-model case"
    assert "traffic ≤ the traffic of `none` at capacity 0 under the same\nscheduler" in p3
    lru_bytes, none_bytes = (int(g.replace(",", "")) for g in stated.groups())
    net = dnnmem.network("resnet18", batch=16)

    def traffic(policy: str, capacity: int | str) -> int:
        r = dnnmem.estimate(net, capacity=capacity, policy=policy)
        return r.traffic_in + r.traffic_out

    best = "split-backward(order=best)"
    assert traffic(f"{best} + lru", "2MiB") == lru_bytes == 4_147_055_496
    assert traffic(f"{best} + none", "2MiB") == none_bytes == 3_267_450_080
    for scheduler in (best, "split-backward(order=dw-major, tile=16, method=closed)"):
        bound = traffic(f"{scheduler} + none", 0)
        for cache in ("lru", "lookahead", "onsram-static", "fifo"):
            for capacity in ("256KiB", "2MiB", "24MiB"):
                assert traffic(f"{scheduler} + {cache}", capacity) <= bound, (scheduler, cache)


def _convs(batch_channels: int = 1) -> dict:
    # x (4 x 4 x 1) -> c1 (3 x 3 conv, 1 filter, same) -> c2 (3 x 3 conv, 2 filters, same): c2's
    # backward is the GEMM M = batch * 16, K = 1 * 9 (im2col patch), N = 2, with a dX and a dW.
    return {
        "name": "convs",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4, 4, 1]},
            {"name": "c1", "kind": "conv2d", "inputs": ["x"], "filters": batch_channels,
             "kernel_size": 3, "padding": "same", "use_bias": False},
            {"name": "c2", "kind": "conv2d", "inputs": ["c1"], "filters": 2, "kernel_size": 3,
             "padding": "same", "use_bias": False},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("order", ["seq", "dx-major"])
def test_im2col_expanded_moves_the_gemm_matrices_by_hand(order: str) -> None:
    # c2 at batch 1, 1-byte elements, a scratchpad that holds everything: each operand moves
    # once. X = c1's output: 16 bytes raw, its im2col matrix M x K = 16 x 9 = 144 bytes; dX
    # likewise (written once). dY (16 x 2 = 32), W (9 x 2 = 18) and dW (18) are not expanded.
    # (tests/python/oracle_tiles.py's pass_bytes gives the same from the walk: the next test.)
    raw = _row(_run(_convs(), f"split-backward(order={order}, tile=4) + none", 1 << 30, 1), "c2")
    policy = f"split-backward(order={order}, tile=4, im2col=expanded) + none"
    r = _run(_convs(), policy, 1 << 30, 1)
    exp = _row(r, "c2")
    assert (exp["M"], exp["K"], exp["N"]) == (16, 9, 2)
    assert (raw["read_X"], raw["written_dX"]) == (16, 16)
    assert (exp["read_X"], exp["written_dX"]) == (144, 144)
    for col in ("read_dY", "read_W", "written_dW"):
        assert exp[col] == raw[col] == {"read_dY": 32, "read_W": 18, "written_dW": 18}[col]
    # The steps carry the expanded bytes: 128 more read (X) and 128 more written (dX).
    base = _run(_convs(), f"split-backward(order={order}, tile=4) + none", 1 << 30, 1)
    assert r.traffic_in - base.traffic_in == 128 and r.traffic_out - base.traffic_out == 128
    assert "im2col=expanded" in igo.policy(order, tile=4, im2col="expanded")


def test_im2col_expanded_equals_the_reference_walk_scaled() -> None:
    # A tight share (every operand re-read), batch 2, the walk of tests/python/oracle_tiles.py
    # scaled by the pass's rule (oracle_tiles.pass_bytes): raw and expanded, seq and best.
    from oracle_tiles import pass_bytes, tile_walk

    for order in ("seq", "dw-major"):
        for im2col in ("raw", "expanded"):
            policy = f"split-backward(order={order}, tile=4, im2col={im2col}) + none"
            r = _run(_convs(), policy, 160, batch=2)
            row = _row(r, "c2")
            m, k, n = row["M"], row["K"], row["N"]
            w = tile_walk(m, k, n, 4, order, int(row["c_eff"]), elem=1, psum=1,
                          nest_x=row["nest_x"], nest_w=row["nest_w"])  # fmt: skip
            # The tensors at batch 2, 1 byte each: c1's output and its gradient 2 x 16, dY
            # 2 x 16 x 2, W and dW 9 x 2.
            sizes = {"dY": 64, "W": 18, "X": 32, "dX": 32, "dW": 18}
            want = pass_bytes(w, sizes, m, k, n, count=1, elem_bytes=1, im2col=im2col)
            for t in ("dY", "W", "X"):
                assert row[f"read_{t}"] == want["read"][t], (order, im2col, t)
            for t in ("dX", "dW"):
                assert row[f"written_{t}"] == want["written"][t], (order, im2col, t)
                assert row[f"spill_{t}"] == want["psum_written"][t] + want["psum_read"][t]


def test_dy_once_reads_dy_once_and_walks_the_rest_as_the_oracle() -> None:
    # c2 of the im2col tests at batch 2, 1-byte elements, a 60-byte scratchpad (a 30-byte tile
    # share): under dy-oracle the dX-ops still read dY three times (192 bytes); dy-once caps
    # them at one read of dY (2 x 16 x 2 = 64 bytes, all on the dX step) and leaves every other
    # operand's bytes as dy-oracle's (W: 130).
    from oracle_tiles import pass_bytes, tile_walk

    def run(order: str) -> tuple:
        r = _run(_convs(), f"split-backward(order={order}, tile=4) + none", 60, batch=2)
        return r, _row(r, "c2")

    _, oracle = run("dy-oracle")
    r, once = run("dy-once")
    assert (oracle["read_dY"], once["read_dY"]) == (192, 64)
    assert oracle["read_W"] == once["read_W"] == 130
    for col in ("read_W", "read_X", "written_dX", "written_dW", "spill_dX", "spill_dW"):
        assert once[col] == oracle[col], col
    steps = r.steps.set_index("name")
    assert steps.loc["B:c2/dw", "bytes_in_gradient"] == 0
    assert steps.loc["B:c2/dx", "bytes_in_gradient"] == 64
    # The Python reference: the sequential walk without the dW-ops' dY touches, scaled and capped.
    m, k, n = once["M"], once["K"], once["N"]
    w = tile_walk(m, k, n, 4, "seq", int(once["c_eff"]), elem=1, psum=1, nest_x=once["nest_x"],
                  nest_w=once["nest_w"], skip_w=frozenset({"dY"}))  # fmt: skip
    sizes = {"dY": 64, "W": 18, "X": 32, "dX": 32, "dW": 18}
    for flag, row in ((False, oracle), (True, once)):
        want = pass_bytes(w, sizes, m, k, n, elem_bytes=1, dy_once=flag)
        assert [row[f"read_{t}"] for t in ("dY", "W", "X")] == [
            want["read"][t] for t in ("dY", "W", "X")
        ]


def test_a_batch_split_across_cores_sums_dw_off_chip_under_reduction_dram() -> None:
    # d: M = 2 (the batch), K = 1, N = 2, tile 1, 1-byte elements, a scratchpad that holds
    # everything. The multi-core baseline cuts M, one part per core: on chip the two cores' dW
    # contributions add into one copy (dW written once, 2 B); with reduction=dram each core's dW
    # (2 B) is written off chip as a partial sum and read back to be summed: + 4 B out of the
    # dW step, + 4 B into it. dX is reduced over N, which M's cut leaves whole: unchanged.
    base = "split-backward(order=seq, tile=1, partition=m, cores=2{}) + none"
    chip = _run(_chain(1, 2), base.format(""), 1 << 20)
    dram = _run(_chain(1, 2), base.format(", reduction=dram"), 1 << 20)
    a, b = _row(chip, "d"), _row(dram, "d")
    assert (a["written_dW"], a["spill_dW"], b["written_dW"], b["spill_dW"]) == (2, 0, 2, 8)
    assert (a["spill_dX"], b["spill_dX"]) == (0, 0)
    sa, sb = chip.steps.set_index("name"), dram.steps.set_index("name")
    assert sb.loc["B:d/dw", "bytes_out"] - sa.loc["B:d/dw", "bytes_out"] == 4
    assert sb.loc["B:d/dw", "bytes_in"] - sa.loc["B:d/dw", "bytes_in"] == 4
    assert dram.traffic - chip.traffic == 8
    # The default is the on-chip sum: the option off leaves the policy string as it was.
    assert "reduction" not in igo.policy("seq", partition="m", cores=2)
    assert "reduction=dram" in igo.policy("seq", partition="m", cores=2, reduction="dram")
