"""The tile walk with nothing kept between tile operations (docs/model/interleaved.md, "Reading
(no reuse)", ``replace = none``: the GPU baseline kernel of the paper's §6.6): hand-computed
walks, the C++ walk against the Python reference (tests/python/oracle_tiles.py), and the option
through the pipeline."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_tiles import ORDERS, tile_walk

import dnnmem
import dnnmem.interleaved as igo
from dnnmem import _core

EXAMPLES = int(os.environ.get("DNNMEM_HYPOTHESIS_EXAMPLES", "40"))
FIELDS = ("read", "written", "psum_read", "psum_written")
NONE = {"dY": 0, "W": 0, "X": 0, "dX": 0, "dW": 0}


def _walk(m: int, k: int, n: int, order: str, c_eff: int = 0, **kw: object) -> dict:
    """The C++ walk at tile 1, 1-byte elements, fixed output-stationary nests, no reuse."""
    kw = {"nest_x": "ikj", "nest_w": "kji", **kw}
    return _core.tile_walk(m, k, n, order, 1, c_eff, 1, 1, replace="none", **kw)


def _total(w: dict) -> int:
    return sum(sum(w[f].values()) for f in FIELDS)


def test_seq_reads_each_tile_once_per_operation_by_hand() -> None:
    # M = K = N = 2, tile 1: 8 dX-ops, each reading dY(i, j) and W(k, j), and 8 dW-ops, each
    # reading X(i, k) and dY(i, j): dY 8 + 8, W 8, X 8 bytes; the outputs written once (4 + 4),
    # never spilled: 40 B whatever the share (a share of everything would move 20 B).
    for c_eff in (0, 3, 1000):
        w = _walk(2, 2, 2, "seq", c_eff)
        assert w["read"] == {**NONE, "dY": 16, "W": 8, "X": 8}
        assert w["written"] == {**NONE, "dX": 4, "dW": 4}
        assert w["psum_read"] == w["psum_written"] == NONE
        assert w["dy_read_by_dw"] == 8
    assert _total(_core.tile_walk(2, 2, 2, "seq", 1, 1000, 1, 1)) == 20


def test_a_fused_operation_loads_its_shared_dy_tile_once_by_hand() -> None:
    # dx-major, the same shape: each of the 8 fused operations (i, j, k) reads dY(i, j) once for
    # both products, W(k, j) and X(i, k): 8 + 8 + 8 read, 4 + 4 written, 32 B (seq: 40 B).
    w = _walk(2, 2, 2, "dx-major")
    assert w["read"] == {**NONE, "dY": 8, "W": 8, "X": 8}
    assert w["written"] == {**NONE, "dX": 4, "dW": 4}
    assert w["dy_read_by_dw"] == 0
    assert _total(w) == 32


def test_interleave_saves_only_where_its_streams_meet_by_hand() -> None:
    # interleave, M = N = 2, K = 1, tile 1. The dX stream (ikj) reads dY (0,0) (0,1) (1,0) (1,1),
    # the dW stream (kji) dY (0,0) (1,0) (0,1) (1,1): the two meet at operations 1 and 4 only, so
    # dY is read 4 + 2 times; W(0, j) 4 times, X(i, 0) 4 times; dX 2 and dW 2 written: 18 B
    # against seq's 20 B (dY 8).
    w = _walk(2, 1, 2, "interleave")
    assert w["read"] == {**NONE, "dY": 6, "W": 4, "X": 4}
    assert w["dy_read_by_dw"] == 2
    assert (_total(w), _total(_walk(2, 1, 2, "seq"))) == (18, 20)


def test_lock_step_parts_share_a_tile_one_after_another_do_not_by_hand() -> None:
    # seq split along M into two parts (i = 0, 1), M = 2, K = N = 1, tile 1. In lock step the
    # two parts' dX-ops are one operation reading dY(0, 0), dY(1, 0) and W(0, 0) once; their
    # dW-ops read X(0, 0), X(1, 0), dY(0, 0), dY(1, 0), both accumulating dW(0, 0), written once.
    # One part after the other, W(0, 0) is read by each part's dX-op.
    lock = _walk(2, 1, 1, "seq", partition="m", parts=2, lockstep=True)
    one = _walk(2, 1, 1, "seq", partition="m", parts=2)
    assert lock["read"] == {**NONE, "dY": 4, "W": 1, "X": 2}
    assert one["read"] == {**NONE, "dY": 4, "W": 2, "X": 2}
    for w in (lock, one):
        assert w["written"] == {**NONE, "dX": 2, "dW": 1}


def test_no_reuse_is_refused_by_the_closed_form_and_checked_by_name() -> None:
    with pytest.raises(ValueError, match="no no-reuse mode"):
        _core.tile_estimate(2, 2, 2, "seq", 1, 5, replace="none")
    with pytest.raises(ValueError, match=r"valid: belady, lru, none"):
        _core.tile_walk(2, 2, 2, "seq", 1, 5, replace="never")


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.integers(1, 3)),
    st.integers(0, 60),
    st.sampled_from(ORDERS),
    st.tuples(st.sampled_from(("ijk", "ikj", "kij")), st.sampled_from(("jik", "jki", "kji"))),
    st.sampled_from((None, "m", "n", "k")),
    st.booleans(),
)
def test_no_reuse_walk_equals_the_reference(
    shape: tuple[int, int, int, int],
    c_eff: int,
    order: str,
    nest: tuple[str, str],
    partition: str | None,
    lockstep: bool,
) -> None:
    m, k, n, tile = shape
    lockstep = lockstep and partition is not None
    options = {"nest_x": nest[0], "nest_w": nest[1], "parts": 2, "lockstep": lockstep}
    ref = tile_walk(m, k, n, tile, order, c_eff, elem=2, psum=4, partition=partition,
                    replace="none", **options)  # fmt: skip
    core = _core.tile_walk(m, k, n, order, tile, c_eff, 2, 4, partition=partition or "none",
                           replace="none", **options)  # fmt: skip
    for f in FIELDS:
        assert core[f] == getattr(ref, f)
    # Every output written once, nothing spilled; every input read at least once; the share
    # plays no part.
    assert (core["written"]["dX"], core["written"]["dW"]) == (2 * m * k, 2 * k * n)
    assert core["psum_read"] == core["psum_written"] == NONE
    again = _core.tile_walk(m, k, n, order, tile, c_eff + 1000, 2, 4, partition=partition or "none",
                            replace="none", **options)  # fmt: skip
    assert again == core
    compulsory = {"dY": 2 * m * n, "W": 2 * k * n, "X": 2 * m * k}
    assert all(core["read"][t] >= b for t, b in compulsory.items())


def test_no_reuse_through_the_pipeline_by_hand() -> None:
    # x -> h (dense, K = 2 units, no dX) -> d (dense, N = 2 units), batch M = 2, 1-byte elements,
    # tile 1, the `none` manager: d's backward is the seq walk of the first hand case here, the
    # same bytes at any capacity: dY 16 (8 to each step), W 8, X 8 read, dX 4 and dW 4 written.
    doc = {
        "name": "chain",
        "layers": [
            {"name": "x", "kind": "input", "shape": [1]},
            {"name": "h", "kind": "dense", "inputs": ["x"], "units": 2, "use_bias": False},
            {"name": "d", "kind": "dense", "inputs": ["h"], "units": 2, "use_bias": False},
        ],
    }
    net = dnnmem.load_network(doc, batch=2, bytes_per_element=1)
    policy = igo.policy("seq", tile=1, nest="fixed", replace="none")
    assert "replace=none" in policy
    for capacity in (8, 1 << 20):
        r = dnnmem.estimate(net, capacity=capacity, bandwidth=1e9, throughput=1e12, policy=policy)
        t = igo.layer_table(r)
        row = dict(t[t["layer"] == "d"].iloc[0])
        assert (row["read_dY"], row["read_W"], row["read_X"]) == (16, 8, 8)
        assert (row["written_dX"], row["written_dW"], row["spill"]) == (4, 4, 0)
        assert row["dy_reads"] == 4.0
