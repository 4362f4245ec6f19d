"""Cross-check of the systolic compute model (``cpp/src/compute/systolic.cpp``) and the layer ->
GEMM mapping (``cpp/src/gemm.cpp``) against SCALE-Sim v2 (PyPI ``scalesim``, 2.x;
https://github.com/scalesim-project/scale-sim-v2), the simulator whose compute-cycle model ours
reproduces (docs/model/compute-systolic.md).

Each shape is a real layer: a dnnmem network is built, ``layer_gemm`` gives its GEMM, and the
same layer is given to SCALE-Sim in its own topology format (a convolution row for conv layers,
batch 1 and valid padding as SCALE-Sim assumes; an M, N, K row for dense, matmul and the
backward GEMMs). SCALE-Sim's reports are recorded (tests/data/scalesim/record.py runs it; the
test does not). SCALE-Sim runs in its CALC bandwidth mode (no memory stalls), so its total is
the compute cycles. Checked, for every shape, array and dataflow:

- SCALE-Sim's operand matrices have our GEMM's shape: ifmap m x k, filter k x n (the im2col
  mapping agrees);
- our cycles = count * (SCALE-Sim's total + 1): SCALE-Sim reports the index of the last cycle
  (its trace starts at cycle 0), we report the number of cycles; ``count`` because SCALE-Sim has
  no grouped or batched GEMM, so one group / head is simulated and the products run one after
  another (our model's definition of ``count``);
- our utilisation = SCALE-Sim's overall utilisation rescaled by total / (total + 1) (the same
  MACs over the same array, with the cycle count differing by the one above).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from dnnmem import _core

# SCALE-Sim's reports for every case below, recorded by tests/data/scalesim/record.py (tool,
# version and command in the file): SCALE-Sim is not run at test time.
RECORDED = pathlib.Path(__file__).resolve().parents[1] / "data" / "scalesim" / "compute_v2.json"


def _net(*layers: dict) -> _core.Network:
    return _core.parse_network(json.dumps({"name": "t", "layers": list(layers)}), "test.json")


def _conv(h: int, w: int, c: int, filters: int, kernel: int, stride: int = 1) -> _core.Network:
    return _net(
        {"name": "x", "kind": "input", "shape": [h, w, c]},
        {
            "name": "l",
            "kind": "conv2d",
            "inputs": ["x"],
            "filters": filters,
            "kernel_size": kernel,
            "strides": stride,
        },
    )


def _gemm_row(m: int, n: int, k: int) -> list:
    # SCALE-Sim's GEMM topology (topology_utils.load_arrays_gemm): an m x k ifmap, a 1 x k filter
    # with one channel, n filters, stride 1 -> ofmap m x 1 x n, window k.
    return [m, k, 1, k, 1, n, 1, 1]


# name -> (network, layer index, pass, batch, SCALE-Sim topology row of ONE of the `count`
# products: ifmap h, w, filter h, w, channels, filters, stride h, w).
SHAPES = {
    # 16x16x16 -> 32 filters 3x3 valid: 14x14 outputs. m = 196, k = 144, n = 32.
    "conv 3x3": (_conv(16, 16, 16, 32, 3), 1, "forward", 1, [16, 16, 3, 3, 16, 32, 1, 1]),
    # Pointwise: m = 196, k = 32, n = 64.
    "conv 1x1": (_conv(14, 14, 32, 64, 1), 1, "forward", 1, [14, 14, 1, 1, 32, 64, 1, 1]),
    # A stem: 37x37x3, 7x7 stride 2 -> 16x16: m = 256, k = 147, n = 16.
    "conv 7x7/2": (_conv(37, 37, 3, 16, 7, 2), 1, "forward", 1, [37, 37, 7, 7, 3, 16, 2, 2]),
    # The 3x3 conv's backward GEMMs: dX (column form) m = 196, k = 32, n = 144; dW m = 144,
    # k = 196, n = 32.
    "conv 3x3 dX": (_conv(16, 16, 16, 32, 3), 1, "backward_data", 1, _gemm_row(196, 144, 32)),
    "conv 3x3 dW": (_conv(16, 16, 16, 32, 3), 1, "backward_weight", 1, _gemm_row(144, 32, 196)),
    # Depthwise 3x3 on 10x10x8: 8 products (one per channel) of m = 64, k = 9, n = 1.
    "depthwise 3x3": (
        _net(
            {"name": "x", "kind": "input", "shape": [10, 10, 8]},
            {"name": "l", "kind": "depthwise_conv2d", "inputs": ["x"], "kernel_size": 3},
        ),
        1,
        "forward",
        1,
        [10, 10, 3, 3, 1, 1, 1, 1],
    ),
    # A classifier: batch 8, 256 -> 100: m = 8, k = 256, n = 100.
    "dense": (
        _net(
            {"name": "x", "kind": "input", "shape": [256]},
            {"name": "l", "kind": "dense", "inputs": ["x"], "units": 100},
        ),
        1,
        "forward",
        8,
        _gemm_row(8, 100, 256),
    ),
    # Attention scores, 32 tokens, 4 heads of 16: 4 products of m = 32, k = 16, n = 32.
    "attention QK^T": (
        _net(
            {"name": "q", "kind": "input", "shape": [32, 64]},
            {"name": "k", "kind": "input", "shape": [32, 64]},
            {"name": "l", "kind": "matmul", "inputs": ["q", "k"], "heads": 4, "transpose_b": True},
        ),
        2,
        "forward",
        1,
        _gemm_row(32, 32, 16),
    ),
}

ARRAYS = [(16, 16), (8, 16)]  # rows x cols; the second is not square, so S_R and S_C can't swap


DATAFLOWS = ["ws", "os", "is"]


# A GEMM cut by ``tile`` (below): m, n, k = 30, 21, 20 on an 8 x 8 array, several row and column
# folds; the streamed dimension (m for ws, n for is) in tiles of two thirds of it and a shorter
# last one.
TILE_GEMM, TILE_ARRAY = (30, 21, 20), (8, 8)


def _tile_rows(dataflow: str) -> tuple[int, list[list]]:
    """(tile, SCALE-Sim GEMM rows of each tile) of TILE_GEMM for ``dataflow``."""
    m, n, k = TILE_GEMM
    streamed = m if dataflow == "ws" else n
    tile = 2 * streamed // 3
    parts = [tile] * (streamed // tile) + ([streamed % tile] if streamed % tile else [])
    return tile, [_gemm_row(t, n, k) if dataflow == "ws" else _gemm_row(m, t, k) for t in parts]


def _tile_cases() -> list[tuple[list, int, int, str]]:
    return [(row, *TILE_ARRAY, df) for df in ("ws", "is") for row in _tile_rows(df)[1]]


def case_key(row: list, rows: int, cols: int, dataflow: str) -> str:
    """The recorded file's key of one SCALE-Sim run."""
    return f"{rows}x{cols} {dataflow} {' '.join(map(str, row))}"


def scalesim_cases() -> list[tuple[list, int, int, str]]:
    """Every (topology row, rows, cols, dataflow) this file compares with (record.py runs them)."""
    return [
        (SHAPES[shape][4], rows, cols, dataflow)
        for shape in SHAPES
        for dataflow in DATAFLOWS
        for rows, cols in ARRAYS
    ] + _tile_cases()


def _scalesim(row: list, rows: int, cols: int, dataflow: str) -> tuple[int, float, tuple]:
    """(total cycles, overall utilisation in %, (ifmap, filter) operand shapes) of one layer,
    as SCALE-Sim reported them (tests/data/scalesim/compute_v2.json)."""
    cases = json.loads(RECORDED.read_text())["cases"]
    key = case_key(row, rows, cols, dataflow)
    assert key in cases, (
        f"no SCALE-Sim report for {key!r}: list it in scalesim_cases() and run "
        "tests/data/scalesim/record.py"
    )
    case = cases[key]
    assert case["stall_cycles"] == 0
    shapes = (tuple(case["ifmap_shape"]), tuple(case["filter_shape"]))
    return case["total_cycles"], case["overall_util_percent"], shapes


def test_every_case_is_recorded_and_nothing_else() -> None:
    recorded = json.loads(RECORDED.read_text())
    assert recorded["version"] == "scalesim 2.0.2"
    want = {case_key(*c) for c in scalesim_cases()}
    assert set(recorded["cases"]) == want


@pytest.mark.parametrize("rows,cols", ARRAYS)
@pytest.mark.parametrize("dataflow", DATAFLOWS)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_compute_cycles_match_scalesim(shape: str, dataflow: str, rows: int, cols: int) -> None:
    net, layer, pass_, batch, row = SHAPES[shape]
    m, n, k, count = _core.layer_gemm(net, layer, pass_, batch)
    total, overall_util, (ifmap, filt) = _scalesim(row, rows, cols, dataflow)
    assert (ifmap, filt) == ((m, k), (k, n))
    cycles, util = _core.systolic_cycles(m, n, k, count, rows, cols, dataflow)
    assert cycles == count * (total + 1)
    assert util == pytest.approx(overall_util / 100 * total / (total + 1), rel=1e-12)
    # Partial folds and fill / drain leave MAC-slots idle in every one of these shapes.
    assert 0 < util < 1


@pytest.mark.parametrize("dataflow", ["ws", "is"])
def test_tiles_of_the_streamed_dimension_match_scalesim(dataflow: str) -> None:
    """``tile`` under ``waves=folds`` is SCALE-Sim run on each tile as a GEMM of its own (the
    tiles' reports recorded beside the others), each tile's folds drained. SCALE-Sim (v2; v3's
    compute is the same, with the same per-fold gaps) has no pipelined or double-buffered waves,
    so those options have no counterpart here: a single wave equals a SCALE-Sim fold
    (tests/cpp/systolic_test.cpp) and the ordering double-buffered < pipelined < folds is
    checked."""
    m, n, k = TILE_GEMM
    rows, cols = TILE_ARRAY
    tile, parts = _tile_rows(dataflow)
    assert len(parts) == 2 and parts[0] != parts[1]
    want = sum(_scalesim(row, rows, cols, dataflow)[0] + 1 for row in parts)
    got, _ = _core.systolic_cycles(m, n, k, 1, rows, cols, dataflow, "folds", tile)
    assert got == want
    pipelined, _ = _core.systolic_cycles(m, n, k, 1, rows, cols, dataflow, "pipelined", tile)
    double, _ = _core.systolic_cycles(m, n, k, 1, rows, cols, dataflow, "double-buffered", tile)
    assert double < pipelined < got
