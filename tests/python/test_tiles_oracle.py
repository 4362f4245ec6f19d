"""The tile walk of docs/model/interleaved.md (tests/python/oracle_tiles.py) against traffic
computed by hand, and against the invariants of that page. The C++ tile model will be checked
against the same walk when it lands (issue: interleaved gradient order)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_tiles import ORDERS, tile_walk


@pytest.mark.parametrize("order", ORDERS)
def test_a_share_that_holds_every_operand_moves_each_once(order: str) -> None:
    # M = K = N = 4, tiles 2 x 2 of 1-byte elements: 2 x 2 x 2 tiles of 4 bytes each, five
    # tensors of 4 tiles = 80 bytes. With 80 bytes every tile stays once loaded: each input is
    # read once (16 bytes), each output written once, no partial sum moves, dY read once.
    w = tile_walk(4, 4, 4, tile=2, order=order, c_eff=80, elem=1)
    assert w.read == {"dY": 16, "W": 16, "X": 16, "dX": 0, "dW": 0}
    assert w.written == {"dY": 0, "W": 0, "X": 0, "dX": 16, "dW": 16}
    assert sum(w.psum_read.values()) == sum(w.psum_written.values()) == 0
    assert w.dy_passes == 1.0


def test_dx_major_on_a_share_of_one_fused_operation_by_hand() -> None:
    # M = 2, K = 1, N = 2, tile 1, 1-byte elements: dY 2 x 2, W 1 x 2, X 2 x 1, dX 2 x 1,
    # dW 1 x 2 tiles. A fused operation touches 5 distinct tiles; the share holds exactly 5.
    # Nest ijk visits (i, j) = (0,0), (0,1), (1,0), (1,1). Walked by hand (rules 1-5):
    #  op (0,0): dY00, W00, X00 read; dX00, dW00 first contributions (no read).
    #  op (0,1): dY01 read (evicts dY00, never used again); W01 read (evicts dW00, used later
    #            than W00 in op (1,0): partial-sum write); dX00 completes; dW01 first
    #            (evicts W00, clean).
    #  op (1,0): dY10 read (evicts dX00: never used again, the later tensor among the
    #            never-used tiles, final write); W00 read again (evicts X00); dX10 first
    #            (evicts dY01); X10 read (evicts dW01, which op (1,1) uses after W01:
    #            partial-sum write); dW00 partial sum read back (evicts W01).
    #  op (1,1): dY11 read (evicts dW00, complete: final write); W01 read again (evicts W00);
    #            dW01 partial sum read back (evicts dY10). End: dX10 and dW01 written final.
    w = tile_walk(2, 1, 2, tile=1, order="dx-major", c_eff=5, elem=1, nest_x="ijk")
    assert w.read == {"dY": 4, "W": 4, "X": 2, "dX": 0, "dW": 0}
    assert w.written == {"dY": 0, "W": 0, "X": 0, "dX": 2, "dW": 2}
    assert w.psum_written == {"dY": 0, "W": 0, "X": 0, "dX": 0, "dW": 2}
    assert w.psum_read == {"dY": 0, "W": 0, "X": 0, "dX": 0, "dW": 2}
    assert w.dy_passes == 1.0  # fused: each dY tile is read once


def test_seq_fetches_dy_twice_when_its_tiles_do_not_survive() -> None:
    # Same shapes, a share of one sequential operation (3 tiles): the dX pass reads the four dY
    # tiles, the dW pass (nest jik) reads them again; nothing of the first pass's last operation
    # (dY11, W01, dX10) is touched by the second pass's first (X00, dY00, dW00).
    w = tile_walk(2, 1, 2, tile=1, order="seq", c_eff=3, elem=1)
    assert w.read["dY"] == 8
    assert w.dy_passes == 2.0
    fused = tile_walk(2, 1, 2, tile=1, order="dx-major", c_eff=5, elem=1)
    assert fused.read["dY"] == 4


def test_a_share_smaller_than_one_operation_keeps_nothing() -> None:
    # One fused operation needs 5 bytes; with 4 nothing is kept, not even within an operation:
    # every touch of a read tile reads it (the fused operation touches dY twice: 2 x 4 = 8;
    # W and X once: 4 each), and every contribution before an output tile's last spills its
    # partial sum, every later one reads it back (dX: 2 tiles x 1 spill and 1 reload).
    w = tile_walk(2, 1, 2, tile=1, order="dx-major", c_eff=4, elem=1)
    assert w.read == {"dY": 8, "W": 4, "X": 4, "dX": 0, "dW": 0}
    assert w.psum_written["dX"] == w.psum_read["dX"] == 2
    assert w.written["dX"] == 2 and w.written["dW"] == 2


shapes = st.tuples(
    st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(1, 3), st.integers(0, 60)
)


@settings(max_examples=60, deadline=None)
@given(shapes, st.sampled_from(ORDERS))
def test_traffic_between_compulsory_and_no_reuse(shape: tuple[int, ...], order: str) -> None:
    # Page, invariant 2: never below each operand once and each output once; never above reading
    # every read tile at every touch and spilling/reloading every partial sum.
    m, k, n, tile, c_eff = shape
    w = tile_walk(m, k, n, tile=tile, order=order, c_eff=c_eff, elem=1)
    assert w.read["dY"] >= m * n and w.read["W"] >= k * n and w.read["X"] >= m * k
    assert w.written["dX"] == m * k and w.written["dW"] == k * n  # each output once, final
    nt = [-(-d // tile) for d in (m, n, k)]
    ops = nt[0] * nt[1] * nt[2]
    per_tile = tile * tile
    assert w.read["dY"] <= 2 * ops * per_tile
    assert w.psum_read["dX"] <= w.psum_written["dX"]
    assert w.psum_read["dW"] <= w.psum_written["dW"]
    # the partial-sum reloads of an output tile: at most its contributions - 1
    assert w.psum_read["dX"] <= m * k * (nt[1] - 1)
    assert w.psum_read["dW"] <= k * n * (nt[0] - 1)


@settings(max_examples=40, deadline=None)
@given(shapes)
def test_fused_orders_read_dy_once(shape: tuple[int, ...]) -> None:
    # dx-major and dw-major touch the same dY tile in the dX-op and the dW-op of one fused
    # operation, and a nest visits each (i, j) for every k: with a share that holds one fused
    # operation, dY is read at most n_k times and exactly once when n_k = 1.
    m, k, n, tile, extra = shape
    for order in ("dx-major", "dw-major"):
        w = tile_walk(m, k, n, tile=tile, order=order, c_eff=5 * tile * tile + extra, elem=1)
        nk = -(-k // tile)
        assert w.read["dY"] <= nk * m * n
        if nk == 1:
            assert w.read["dY"] == m * n


# ---- the C++ tile walk (dnnmem._core.tile_walk) against the reference ---------------------------

nests_x = st.sampled_from(("ijk", "ikj", "kij"))
nests_w = st.sampled_from(("jik", "jki", "kji"))


@settings(max_examples=80, deadline=None)
@given(
    shapes,
    st.sampled_from(ORDERS),
    nests_x,
    nests_w,
    st.sampled_from((1, 2)),
    st.sampled_from((1, 2, 4)),
)
def test_core_walk_equals_the_reference(
    shape: tuple[int, ...], order: str, nest_x: str, nest_w: str, elem: int, psum: int
) -> None:
    from dnnmem import _core

    m, k, n, tile, c_eff = shape
    c_eff *= elem  # shares of whole tiles and between them, at both element sizes
    ref = tile_walk(m, k, n, tile, order, c_eff, elem=elem, psum=psum, nest_x=nest_x, nest_w=nest_w)
    core = _core.tile_walk(m, k, n, order, tile, c_eff, elem, psum, nest_x, nest_w)
    assert core["read"] == ref.read
    assert core["written"] == ref.written
    assert core["psum_read"] == ref.psum_read
    assert core["psum_written"] == ref.psum_written


def test_core_walk_pins_the_hand_computed_case() -> None:
    from dnnmem import _core

    w = _core.tile_walk(2, 1, 2, "dx-major", tile=1, c_eff=5, elem_bytes=1, psum_bytes=1)
    assert w["read"] == {"dY": 4, "W": 4, "X": 2, "dX": 0, "dW": 0}
    assert w["psum_written"]["dW"] == w["psum_read"]["dW"] == 2
    assert w["operations"] == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"order": "sideways"}, "order: unknown order 'sideways'"),
        ({"m": 0}, "GEMM dimensions must be >= 1"),
        ({"tile": 0}, "tile must be >= 1"),
        ({"nest_x": "jik"}, "nest_x: 'jik' must be row-major"),
        ({"nest_w": "ijj"}, "nest_w: 'ijj' is not a loop nest"),
        ({"m": 1 << 20, "n": 1 << 20, "tile": 1}, "more than 2^22 tile operations"),
    ],
)
def test_core_walk_rejects_bad_input(kwargs: dict[str, object], message: str) -> None:
    from dnnmem import _core

    args: dict[str, object] = {"m": 4, "k": 4, "n": 4, "order": "seq", "tile": 2, "c_eff": 64}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message.replace("^", r"\^").replace("(", r"\(")):
        _core.tile_walk(**args)  # type: ignore[arg-type]
