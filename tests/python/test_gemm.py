"""The GEMM view of a layer (``cpp/include/dnnmem/gemm.hpp``) on every layer of the built-in
networks: ``m * n * k * count`` equals the layer's MACs of the pass times the batch, for every
pass and every input with a gradient, and exactly the MAC-doing kinds are GEMMs. Spot checks
pin the im2col mapping on named layers (hand arithmetic next to each)."""

from __future__ import annotations

import pytest

import dnnmem
from dnnmem import _core

GEMM_KINDS = {"conv2d", "depthwise_conv2d", "dense", "matmul"}
PASSES = {"forward": "fwd_macs", "backward_data": "bwd_dx_macs", "backward_weight": "bwd_dw_macs"}


def _layer(net: dnnmem.Network, name: str) -> int:
    names = list(net._core.layer_table()["name"])
    return names.index(name)


@pytest.mark.parametrize("name", dnnmem.networks())
def test_gemm_macs_equal_layer_macs(name: str) -> None:
    core = dnnmem.network(name)._core
    table = core.layer_table()
    mapped = 0
    for batch in (1, 3):
        for i in range(core.num_layers):
            kind = str(table["kind"][i])
            inputs = len(table["inputs"][i])
            for pass_, column in PASSES.items():
                macs = int(table[column][i]) * batch
                # backward_data: one product per input that may have a gradient (matmul has two).
                for j in range(max(1, inputs) if pass_ == "backward_data" else 1):
                    m, n, k, count = _core.layer_gemm(core, i, pass_, batch, j)
                    assert m * n * k * count == macs, (name, table["name"][i], pass_, j)
                    if macs == 0:
                        assert (m, n, k, count) == (0, 0, 0, 0)
                    else:
                        assert kind in GEMM_KINDS and min(m, n, k, count) >= 1
                        mapped += 1
    assert mapped > 0


def test_resnet50_conv1_im2col() -> None:
    # 224x224x3, 7x7 stride 2, 64 filters -> 112x112x64. Batch 32: rows 32*112*112 = 401408,
    # patch 7*7*3 = 147.
    net = dnnmem.network("resnet50")
    i = _layer(net, "conv1_conv")
    assert _core.layer_gemm(net._core, i, "forward", 32) == (401408, 64, 147, 1)
    assert _core.layer_gemm(net._core, i, "backward_data", 32) == (401408, 147, 64, 1)
    assert _core.layer_gemm(net._core, i, "backward_weight", 32) == (147, 64, 401408, 1)


def test_mobilenet_v2_depthwise_is_one_gemm_per_channel() -> None:
    # 112x112x32 depthwise 3x3, multiplier 1: 32 GEMMs of (batch*112*112) x 9 . 9 x 1.
    net = dnnmem.network("mobilenet_v2")
    i = _layer(net, "expanded_conv_depthwise")
    assert _core.layer_gemm(net._core, i, "forward", 2) == (2 * 112 * 112, 1, 9, 32)


def test_bert_attention_scores_per_head() -> None:
    # BERT-base: 128 tokens, 12 heads of width 64: scores = Q_h . K_h^T, 128x64 . 64x128, one
    # per head and sample.
    net = dnnmem.network("bert_base")
    i = _layer(net, "l1_att_qk")
    assert _core.layer_gemm(net._core, i, "forward", 4) == (128, 128, 64, 4 * 12)
    assert _core.layer_gemm(net._core, i, "backward_weight", 4) == (0, 0, 0, 0)


def test_layer_gemm_errors_name_the_argument() -> None:
    core = dnnmem.network("resnet18")._core
    with pytest.raises(ValueError, match="pass: unknown pass 'sideways'"):
        _core.layer_gemm(core, 2, "sideways", 1)
    with pytest.raises(ValueError, match="layer: index 100000 out of range"):
        _core.layer_gemm(core, 100000, "forward", 1)
    with pytest.raises(ValueError, match="batch: must be a positive integer"):
        _core.layer_gemm(core, 2, "forward", 0)
