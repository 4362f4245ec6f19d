"""Stages 1–2 in Python (SPEC §2–3): load a network, its per-layer table, its schedule, its
tensors and accesses, FLOPs and parameters, serialisation, display and the CLI.

The main example is a small CNN written out by hand, every number below derived in the comments
from SPEC §2's per-kind table (1 MAC = 2 FLOPs; FP32; batch N = 2):

    image  input      [8, 8, 3]                      192 elements/sample
    conv   conv2d     3x3, 4 filters, same, bias     [8, 8, 4] = 256 elements; W = 3·3·3·4 + 4 = 112
    bn     batchnorm                                 [8, 8, 4];  W = γ,β = 8; S = mean,var = 8
    relu   relu                                      [8, 8, 4]
    pool   maxpool    2x2                            [4, 4, 4] = 64 elements
    flat   flatten    (folded: no step, no tensor)   [64]
    fc     dense      10 units, bias                 [10];       W = 64·10 + 10 = 650
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

import dnnmem
from dnnmem import Network, load_network
from dnnmem.cli import main as cli_main

N = 2  # batch of the main example
B = 4  # bytes per element (FP32)

SMALL = {
    "name": "small",
    "layers": [
        {"name": "image", "kind": "input", "shape": [8, 8, 3]},
        {
            "name": "conv",
            "kind": "conv2d",
            "inputs": ["image"],
            "filters": 4,
            "kernel_size": 3,
            "padding": "same",
        },
        {"name": "bn", "kind": "batchnorm", "inputs": ["conv"]},
        {"name": "relu", "kind": "relu", "inputs": ["bn"]},
        {"name": "pool", "kind": "maxpool", "inputs": ["relu"], "pool_size": 2},
        {"name": "flat", "kind": "flatten", "inputs": ["pool"]},
        {"name": "fc", "kind": "dense", "inputs": ["flat"], "units": 10},
    ],
}

# Bytes of each activation at N = 2, FP32.
Y_IMAGE = N * 8 * 8 * 3 * B  # 1536
Y_CONV = N * 8 * 8 * 4 * B  # 2048 (bn, relu alike)
Y_POOL = N * 4 * 4 * 4 * B  # 512
Y_FC = N * 10 * B  # 80
W_CONV = (3 * 3 * 3 * 4 + 4) * B  # 112 params → 448 bytes
W_BN = 2 * 4 * B  # γ, β → 32 bytes
S_BN = 2 * 4 * B  # moving mean, variance → 32 bytes
W_FC = (64 * 10 + 10) * B  # 650 params → 2600 bytes

# FLOPs at N = 2.
CONV_MACS = N * (8 * 8 * 4) * (3 * 3 * 3)  # 2 · 256 outputs · 27 MACs each = 13,824
CONV_F = 2 * CONV_MACS  # 27,648; dW = fwd; no dX (the input has no gradient)
BN_F = 5 * N * 256  # 2,560;  dX 7 / element = 3,584;  dW 2 / element = 1,024
BN_DX, BN_DW = 7 * N * 256, 2 * N * 256
RELU_F = 1 * N * 256  # 512;  dX 1 / element = 512
POOL_F = (2 * 2) * N * 64  # k² per output = 512;  dX the same
FC_MACS = N * 10 * 64  # 1,280
FC_F = 2 * FC_MACS  # 2,560;  dX = dW = fwd
LOSS_F = 3 * N * 10  # 60 (3 per logit)


@pytest.fixture(scope="module")
def net() -> Network:
    return load_network(SMALL, batch=N)


def _documented_columns(prop) -> list[str]:
    doc = prop.__doc__
    return re.findall(r"``(\w+)``", doc[doc.index("Columns:") if "Columns:" in doc else 0 :])


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------
def test_load_from_dict(net):
    assert isinstance(net, Network)
    assert net.name == "small"
    assert net.source == "<dict>"
    assert net.batch == N
    assert net.bytes_per_element == 4
    assert net.num_steps == 11


def test_load_from_path_str_and_pathlike(tmp_path, net):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL), encoding="utf-8")
    for src in (path, str(path)):
        n = load_network(src, batch=N)
        assert n.source == str(path)
        assert n.name == "small"
        assert n == net
        pd.testing.assert_frame_equal(n.layers, net.layers)
        pd.testing.assert_frame_equal(n.steps, net.steps)


def test_name_defaults_to_file_name(tmp_path):
    doc = {k: v for k, v in SMALL.items() if k != "name"}
    path = tmp_path / "unnamed.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert load_network(path).name == "unnamed.json"
    assert load_network(doc).name == "<dict>"


def test_load_does_not_modify_the_dict():
    doc = copy.deepcopy(SMALL)
    load_network(doc, batch=3).steps  # noqa: B018
    assert doc == SMALL


def test_load_rejects_other_sources():
    with pytest.raises(TypeError, match="expected a path or a dict, got list"):
        load_network(SMALL["layers"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got int"):
        load_network(3)  # type: ignore[arg-type]


def test_defaults_are_batch_1_fp32():
    n = load_network(SMALL)
    assert (n.batch, n.bytes_per_element) == (1, 4)
    assert n.layers.set_index("name").loc["conv", "output_bytes"] == 8 * 8 * 4 * 4


# --------------------------------------------------------------------------------------------
# .layers
# --------------------------------------------------------------------------------------------
def test_layer_columns_include_the_documented_ones_in_order(net):
    documented = _documented_columns(Network.layers)
    assert documented[:3] == ["name", "kind", "class"]
    assert len(documented) == 20
    assert list(net.layers.columns) == documented


def test_layer_columns_are_exactly_the_documented_ones(net):
    documented = _documented_columns(Network.layers)
    assert "trainable" in documented
    assert documented.index("trainable") == documented.index("state_bytes") + 1
    assert list(net.layers.columns) == documented


@pytest.mark.parametrize("prop", ["steps", "tensors", "accesses"])
def test_other_tables_have_exactly_the_documented_columns(net, prop):
    documented = _documented_columns(getattr(Network, prop))
    assert len(documented) >= 7
    assert list(getattr(net, prop).columns) == documented


def test_layers_identity_columns(net):
    df = net.layers
    assert df["name"].tolist() == ["image", "conv", "bn", "relu", "pool", "flat", "fc"]
    assert df["kind"].tolist() == [
        "input",
        "conv2d",
        "batchnorm",
        "relu",
        "maxpool",
        "flatten",
        "dense",
    ]
    assert df["class"].tolist() == ["", "I", "II", "II", "II", "", "I"]
    assert df["inputs"].tolist() == [
        (),
        ("image",),
        ("conv",),
        ("bn",),
        ("relu",),
        ("pool",),
        ("flat",),
    ]
    assert df["output_shape"].tolist() == [
        (8, 8, 3),
        (8, 8, 4),
        (8, 8, 4),
        (8, 8, 4),
        (4, 4, 4),
        (64,),
        (10,),
    ]
    assert df["folded"].tolist() == [False, False, False, False, False, True, False]
    assert df["weight"].tolist() == ["", "conv", "bn", "", "", "", "fc"]


def test_layers_bytes_and_params(net):
    df = net.layers.set_index("name")
    # flat is folded: it creates no tensor, so 0 bytes
    assert df["output_bytes"].to_dict() == {
        "image": Y_IMAGE,
        "conv": Y_CONV,
        "bn": Y_CONV,
        "relu": Y_CONV,
        "pool": Y_POOL,
        "flat": 0,
        "fc": Y_FC,
    }
    assert (Y_IMAGE, Y_CONV, Y_POOL, Y_FC) == (1536, 2048, 512, 80)
    assert df["weight_bytes"].to_dict() == {
        "image": 0,
        "conv": W_CONV,
        "bn": W_BN,
        "relu": 0,
        "pool": 0,
        "flat": 0,
        "fc": W_FC,
    }
    assert (W_CONV, W_BN, W_FC) == (448, 32, 2600)
    assert df["state_bytes"].to_dict() == {
        "image": 0,
        "conv": 0,
        "bn": S_BN,
        "relu": 0,
        "pool": 0,
        "flat": 0,
        "fc": 0,
    }
    # params: conv 3·3·3·4 + 4 = 112; bn γ,β,mean,var = 4·4 = 16; fc 64·10 + 10 = 650
    assert df["params"].to_dict() == {
        "image": 0,
        "conv": 112,
        "bn": 16,
        "relu": 0,
        "pool": 0,
        "flat": 0,
        "fc": 650,
    }
    assert df["trainable"].to_dict() == {
        "image": False,
        "conv": True,
        "bn": True,
        "relu": False,
        "pool": False,
        "flat": False,
        "fc": True,
    }
    for col in (
        "output_bytes",
        "weight_bytes",
        "state_bytes",
        "params",
        "fwd_flops",
        "bwd_dx_flops",
        "bwd_dw_flops",
        "fwd_macs",
        "fwd_step",
        "bwd_step",
    ):
        assert pd.api.types.is_integer_dtype(df[col]), col


def test_layers_flops(net):
    df = net.layers.set_index("name")
    assert (CONV_F, BN_F, RELU_F, POOL_F, FC_F) == (27_648, 2_560, 512, 512, 2_560)
    assert df["fwd_macs"].to_dict() == {
        "image": 0,
        "conv": CONV_MACS,
        "bn": 0,
        "relu": 0,
        "pool": 0,
        "flat": 0,
        "fc": FC_MACS,
    }
    assert df["fwd_flops"].to_dict() == {
        "image": 0,
        "conv": CONV_F,
        "bn": BN_F,
        "relu": RELU_F,
        "pool": POOL_F,
        "flat": 0,
        "fc": FC_F,
    }
    # conv reads the input batch, which has no gradient: B(conv) computes dW but no dX
    assert df["bwd_dx_flops"].to_dict() == {
        "image": 0,
        "conv": 0,
        "bn": BN_DX,
        "relu": RELU_F,
        "pool": POOL_F,
        "flat": 0,
        "fc": FC_F,
    }
    assert df["bwd_dw_flops"].to_dict() == {
        "image": 0,
        "conv": CONV_F,
        "bn": BN_DW,
        "relu": 0,
        "pool": 0,
        "flat": 0,
        "fc": FC_F,
    }
    assert (BN_DX, BN_DW) == (3_584, 1_024)


def test_layers_steps_and_reuse_frequency(net):
    df = net.layers.set_index("name")
    assert df["fwd_step"].to_dict() == {
        "image": -1,
        "conv": 0,
        "bn": 1,
        "relu": 2,
        "pool": 3,
        "flat": -1,
        "fc": 4,
    }
    # step 5 is loss:fc; backward runs in reverse forward order
    assert df["bwd_step"].to_dict() == {
        "image": -1,
        "conv": 10,
        "bn": 9,
        "relu": 8,
        "pool": 7,
        "flat": -1,
        "fc": 6,
    }
    # rf = step FLOPs / bytes the step accesses (reads + writes):
    rf_fwd = {
        "conv": CONV_F / (Y_IMAGE + W_CONV + Y_CONV),  # 27648 / 4032
        "bn": BN_F / (Y_CONV + W_BN + S_BN + Y_CONV),  # 2560 / 4160
        "relu": RELU_F / (Y_CONV + Y_CONV),  # 512 / 4096
        "pool": POOL_F / (Y_CONV + Y_POOL),  # 512 / 2560
        "fc": FC_F / (Y_POOL + W_FC + Y_FC),  # 2560 / 3192
    }
    rf_bwd = {
        # B(fc): reads dY, X (for dW), W (for dX); writes dX, dW
        "fc": (2 * FC_F) / (Y_FC + Y_POOL + W_FC + Y_POOL + W_FC),  # 5120 / 6304
        # B(pool) reads dY and X, writes dX
        "pool": POOL_F / (Y_POOL + Y_CONV + Y_CONV),  # 512 / 4608
        # B(relu) reads dY and Y, writes dX
        "relu": RELU_F / (3 * Y_CONV),  # 512 / 6144
        # B(bn) reads dY, X, W; writes dX, dW
        "bn": (BN_DX + BN_DW) / (Y_CONV + Y_CONV + W_BN + Y_CONV + W_BN),  # 4608 / 6208
        # B(conv) reads dY and X (the image), writes dW only
        "conv": CONV_F / (Y_CONV + Y_IMAGE + W_CONV),  # 27648 / 4032
    }
    for name, rf in rf_fwd.items():
        assert df.loc[name, "rf_fwd"] == pytest.approx(rf, rel=1e-12), name
    for name, rf in rf_bwd.items():
        assert df.loc[name, "rf_bwd"] == pytest.approx(rf, rel=1e-12), name
    assert df.loc["conv", "rf_fwd"] == pytest.approx(48 / 7)
    assert df.loc["relu", "rf_fwd"] == 0.125
    assert df.loc["pool", "rf_fwd"] == 0.2
    for name in ("image", "flat"):
        assert math.isnan(df.loc[name, "rf_fwd"]) and math.isnan(df.loc[name, "rf_bwd"])


def test_params_column_sums_to_params(net):
    assert net.params == 112 + 16 + 650 == 778
    assert net.trainable_params == 112 + 8 + 650 == 770  # bn's moving stats are not trainable
    assert net.layers["params"].sum() == net.params


# --------------------------------------------------------------------------------------------
# Batch and element size
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch", [1, 3, 64])
def test_batch_scales_activations_not_weights(net, batch):
    other = load_network(SMALL, batch=batch)
    a, b = net.layers.set_index("name"), other.layers.set_index("name")
    assert (b["output_bytes"] * N == a["output_bytes"] * batch).all()
    assert (b["fwd_flops"] * N == a["fwd_flops"] * batch).all()
    assert (b["bwd_dx_flops"] * N == a["bwd_dx_flops"] * batch).all()
    assert (b["bwd_dw_flops"] * N == a["bwd_dw_flops"] * batch).all()
    assert b.loc["conv", "output_bytes"] == batch * 256 * 4
    pd.testing.assert_series_equal(a["weight_bytes"], b["weight_bytes"])
    pd.testing.assert_series_equal(a["state_bytes"], b["state_bytes"])
    pd.testing.assert_series_equal(a["params"], b["params"])
    assert other.params == net.params
    assert other.flops.total * N == net.flops.total * batch
    t = other.tensors.set_index("name")
    assert t.loc["W:fc", "bytes"] == W_FC and t.loc["dW:conv", "bytes"] == W_CONV
    assert t.loc["Y:pool", "bytes"] == batch * 64 * 4


def test_bytes_per_element_scales_all_bytes_not_flops(net):
    half = load_network(SMALL, batch=N, bytes_per_element=2)
    a, b = net.layers, half.layers
    for col in ("output_bytes", "weight_bytes", "state_bytes"):
        assert (b[col] * 2 == a[col]).all(), col
    for col in ("fwd_flops", "bwd_dx_flops", "bwd_dw_flops", "params"):
        pd.testing.assert_series_equal(a[col], b[col])
    np.testing.assert_allclose(b["rf_fwd"], 2 * a["rf_fwd"])
    assert (half.steps["bytes_read"] * 2 == net.steps["bytes_read"]).all()
    assert half.flops == net.flops


def test_with_batch(net):
    big = net.with_batch(8)
    assert big.batch == 8 and net.batch == N
    assert big.bytes_per_element == net.bytes_per_element
    assert big._core is net._core  # the parsed graph is shared
    assert big == load_network(SMALL, batch=8)
    assert big != net
    assert big.layers.set_index("name").loc["relu", "output_bytes"] == 8 * 256 * 4
    assert big.flops.forward == 4 * net.flops.forward
    with pytest.raises(ValueError, match="batch"):
        net.with_batch(0)


def test_int_inputs_keep_their_width():
    """Token ids (int32) are 4 bytes whatever the element size; an embedding reads only the
    rows it gathers (a partial access) and its table can be tied to an output projection."""
    doc = {
        "layers": [
            {"name": "ids", "kind": "input", "shape": [5], "dtype": "int32"},
            {
                "name": "emb",
                "kind": "embedding",
                "inputs": ["ids"],
                "input_dim": 100,
                "output_dim": 8,
            },
            {
                "name": "out",
                "kind": "dense",
                "inputs": ["emb"],
                "units": 100,
                "use_bias": False,
                "weights": "emb",
            },
        ]
    }
    n = load_network(doc, batch=3, bytes_per_element=2)
    df = n.layers.set_index("name")
    assert df.loc["ids", "output_bytes"] == 3 * 5 * 4  # int32: 60
    assert df.loc["emb", "output_bytes"] == 3 * 5 * 8 * 2  # 240
    assert df.loc["out", "output_bytes"] == 3 * 5 * 100 * 2  # 3000
    assert df["weight"].tolist() == ["", "emb", "emb"]
    assert df["weight_bytes"].tolist() == [0, 1600, 1600]
    assert df["params"].tolist() == [0, 800, 0]  # the shared table counts once
    assert n.params == n.trainable_params == 800
    # embedding: 2 FLOPs per gathered element forward, 1 per element for dW, no dX
    assert df.loc["emb", "fwd_flops"] == 2 * 3 * 5 * 8
    assert (df.loc["emb", "bwd_dx_flops"], df.loc["emb", "bwd_dw_flops"]) == (0, 3 * 5 * 8)
    acc = n.accesses
    f_emb = acc[acc["step"] == 0]
    assert f_emb["tensor"].tolist() == ["Y:ids", "W:emb", "Y:emb"]
    assert f_emb["partial"].tolist() == [False, True, False]
    assert f_emb["bytes"].tolist() == [60, 3 * 5 * 8 * 2, 240]  # N·T rows of 8, not the table
    # B(emb) accumulates its rows into the dW that B(out) created: a partial read-modify-write
    b_emb = acc[acc["step"] == 4]
    assert b_emb["tensor"].tolist() == ["dY:emb", "Y:ids", "dW:emb"]
    assert b_emb[["read", "write", "partial"]].values.tolist()[-1] == [True, True, True]


# --------------------------------------------------------------------------------------------
# .steps, .tensors, .accesses
# --------------------------------------------------------------------------------------------
def test_steps(net):
    s = net.steps
    assert s["step"].tolist() == list(range(11))
    assert s["name"].tolist() == [
        "F:conv",
        "F:bn",
        "F:relu",
        "F:pool",
        "F:fc",
        "loss:fc",
        "B:fc",
        "B:pool",
        "B:relu",
        "B:bn",
        "B:conv",
    ]
    assert s["phase"].tolist() == ["fwd"] * 5 + ["loss"] + ["bwd"] * 5
    assert s["layer"].tolist() == [
        "conv",
        "bn",
        "relu",
        "pool",
        "fc",
        "fc",
        "fc",
        "pool",
        "relu",
        "bn",
        "conv",
    ]
    assert s["kind"].tolist() == [
        "conv2d",
        "batchnorm",
        "relu",
        "maxpool",
        "dense",
        "loss",
        "dense",
        "maxpool",
        "relu",
        "batchnorm",
        "conv2d",
    ]
    assert s["class"].tolist() == ["I", "II", "II", "II", "I", "", "I", "II", "II", "II", "I"]
    assert s["flops"].tolist() == [
        CONV_F,
        BN_F,
        RELU_F,
        POOL_F,
        FC_F,
        LOSS_F,
        2 * FC_F,
        POOL_F,
        RELU_F,
        BN_DX + BN_DW,
        CONV_F,
    ]
    assert s["macs"].tolist() == [CONV_MACS, 0, 0, 0, FC_MACS, 0, 2 * FC_MACS, 0, 0, 0, CONV_MACS]
    assert s["bytes_read"].tolist() == [
        Y_IMAGE + W_CONV,  # F:conv 1984
        Y_CONV + W_BN + S_BN,  # F:bn 2112
        Y_CONV,
        Y_CONV,  # F:relu, F:pool
        Y_POOL + W_FC,  # F:fc 3112
        Y_FC,  # loss reads the logits
        Y_FC + Y_POOL + W_FC,  # B:fc: dY, X, W = 3192
        Y_POOL + Y_CONV,  # B:pool: dY, X
        2 * Y_CONV,  # B:relu: dY, Y
        2 * Y_CONV + W_BN,  # B:bn: dY, X, W
        Y_CONV + Y_IMAGE,  # B:conv: dY, X (no W: no dX)
    ]
    assert s["bytes_written"].tolist() == [
        Y_CONV,
        Y_CONV,
        Y_CONV,
        Y_POOL,
        Y_FC,
        Y_FC,  # loss writes dY of the logits
        Y_POOL + W_FC,  # B:fc: dX, dW
        Y_CONV,
        Y_CONV,
        Y_CONV + W_BN,  # B:bn: dX, dW
        W_CONV,  # B:conv: dW only
    ]
    assert s["accesses"].tolist() == [3, 4, 2, 2, 3, 2, 5, 3, 3, 5, 3]
    assert s.loc[5, "rf"] == LOSS_F / (2 * Y_FC) == 0.375
    np.testing.assert_allclose(s["rf"], s["flops"] / (s["bytes_read"] + s["bytes_written"]))


def test_tensors(net):
    t = net.tensors
    # SPEC §3 order: by first use, then role (activation, W, S, gradient, dW), then position
    assert t["name"].tolist() == [
        "Y:image",
        "Y:conv",
        "W:conv",
        "Y:bn",
        "W:bn",
        "S:bn",
        "Y:relu",
        "Y:pool",
        "Y:fc",
        "W:fc",
        "dY:fc",
        "dY:pool",
        "dW:fc",
        "dY:relu",
        "dY:bn",
        "dY:conv",
        "dW:bn",
        "dW:conv",
    ]
    assert t["role"].tolist() == [
        "activation",
        "activation",
        "weight",
        "activation",
        "weight",
        "state",
        "activation",
        "activation",
        "activation",
        "weight",
        "gradient",
        "gradient",
        "weight_grad",
        "gradient",
        "gradient",
        "gradient",
        "weight_grad",
        "weight_grad",
    ]
    assert t["layer"].tolist() == [
        "image",
        "conv",
        "conv",
        "bn",
        "bn",
        "bn",
        "relu",
        "pool",
        "fc",
        "fc",
        "fc",
        "pool",
        "fc",
        "relu",
        "bn",
        "conv",
        "bn",
        "conv",
    ]
    assert t["bytes"].tolist() == [
        Y_IMAGE,
        Y_CONV,
        W_CONV,
        Y_CONV,
        W_BN,
        S_BN,
        Y_CONV,
        Y_POOL,
        Y_FC,
        W_FC,
        Y_FC,
        Y_POOL,
        W_FC,
        Y_CONV,
        Y_CONV,
        Y_CONV,
        W_BN,
        W_CONV,
    ]
    assert t["first_use"].tolist() == [0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9, 10]
    assert t["last_use"].tolist() == [10, 9, 0, 2, 9, 1, 8, 6, 5, 6, 6, 7, 6, 8, 9, 10, 9, 10]
    assert (t["first_full_use"] == t["first_use"]).all()  # no partial accesses here
    assert t["num_uses"].tolist() == [2, 3, 1, 2, 2, 1, 4, 3, 2, 2, 2, 2, 1, 2, 2, 2, 1, 1]
    starts = {"Y:image", "W:conv", "W:bn", "S:bn", "W:fc"}
    assert set(t.loc[t["starts_offchip"], "name"]) == starts
    assert set(t.loc[t["must_end_offchip"], "name"]) == {"dW:fc", "dW:bn", "dW:conv"}
    assert t["num_uses"].sum() == len(net.accesses) == 35
    # reuse intervals: Σ (uses - 1) = 35 - 18
    assert net.schedule.num_intervals() == 17


def test_peak_alive_bytes(net):
    # Step 6 (B:fc): Y:image, Y:conv, W:bn, Y:relu, Y:pool, W:fc, dY:fc, dY:pool, dW:fc alive.
    assert (
        net.peak_alive_bytes
        == (Y_IMAGE + Y_CONV + W_BN + Y_CONV + Y_POOL + W_FC + Y_FC + Y_POOL + W_FC)
        == 11_968
    )


def test_accesses(net):
    a = net.accesses
    rows = list(zip(a["step"], a["tensor"], a["read"], a["write"]))
    R, W = (True, False), (False, True)
    expected = [
        (0, "Y:image", *R),
        (0, "W:conv", *R),
        (0, "Y:conv", *W),
        (1, "Y:conv", *R),
        (1, "W:bn", *R),
        (1, "S:bn", *R),
        (1, "Y:bn", *W),
        (2, "Y:bn", *R),
        (2, "Y:relu", *W),
        (3, "Y:relu", *R),
        (3, "Y:pool", *W),
        (4, "Y:pool", *R),
        (4, "W:fc", *R),
        (4, "Y:fc", *W),
        (5, "Y:fc", *R),
        (5, "dY:fc", *W),
        (6, "dY:fc", *R),
        (6, "Y:pool", *R),
        (6, "W:fc", *R),
        (6, "dY:pool", *W),
        (6, "dW:fc", *W),
        (7, "dY:pool", *R),
        (7, "Y:relu", *R),
        (7, "dY:relu", *W),
        (8, "dY:relu", *R),
        (8, "Y:relu", *R),
        (8, "dY:bn", *W),
        (9, "dY:bn", *R),
        (9, "Y:conv", *R),
        (9, "W:bn", *R),
        (9, "dY:conv", *W),
        (9, "dW:bn", *W),
        (10, "dY:conv", *R),
        (10, "Y:image", *R),
        (10, "dW:conv", *W),
    ]
    assert [(int(s), t, bool(r), bool(w)) for s, t, r, w in rows] == expected
    assert not a["partial"].any()
    sizes = net.tensors.set_index("name")["bytes"]
    assert (a["bytes"].to_numpy() == sizes[a["tensor"]].to_numpy()).all()
    roles = net.tensors.set_index("name")["role"]
    assert (a["role"].to_numpy() == roles[a["tensor"]].to_numpy()).all()
    # per-step sums are the steps table's columns
    by_step = a.assign(r=a["bytes"] * a["read"], w=a["bytes"] * a["write"]).groupby("step")
    assert by_step["r"].sum().tolist() == net.steps["bytes_read"].tolist()
    assert by_step["w"].sum().tolist() == net.steps["bytes_written"].tolist()


def test_residual_add_aliases_gradients():
    """B(add) is a step with no FLOPs and no accesses; its dY is its inputs' dY, and a later
    contribution (B(c2) writing dX for r) read-modify-writes it (SPEC §2 table, §3)."""
    doc = {
        "layers": [
            {"name": "x", "kind": "input", "shape": [4, 4, 2]},
            {
                "name": "c1",
                "kind": "conv2d",
                "inputs": ["x"],
                "filters": 2,
                "kernel_size": 1,
                "use_bias": False,
            },
            {"name": "r", "kind": "relu", "inputs": ["c1"]},
            {
                "name": "c2",
                "kind": "conv2d",
                "inputs": ["r"],
                "filters": 2,
                "kernel_size": 1,
                "use_bias": False,
            },
            {"name": "a", "kind": "add", "inputs": ["r", "c2"]},
            {"name": "g", "kind": "global_avgpool", "inputs": ["a"]},
        ]
    }
    n = load_network(doc)
    s = n.steps
    assert s["name"].tolist() == [
        "F:c1",
        "F:r",
        "F:c2",
        "F:a",
        "F:g",
        "loss:g",
        "B:g",
        "B:a",
        "B:c2",
        "B:r",
        "B:c1",
    ]
    # add: 1 FLOP per output per input = 32 · 2; global avgpool: 1 per input element = 32
    assert s["flops"].tolist() == [128, 32, 128, 64, 32, 6, 2, 0, 256, 32, 128]
    assert s.loc[7, ["accesses", "bytes_read", "bytes_written"]].tolist() == [0, 0, 0]
    assert math.isnan(s.loc[7, "rf"])
    t = n.tensors
    assert t.loc[t["role"] == "gradient", "name"].tolist() == ["dY:g", "dY:a", "dY:c1"]
    a = n.accesses
    b_c2 = a[a["step"] == 8]
    assert b_c2["tensor"].tolist() == ["dY:a", "Y:r", "W:c2", "dW:c2"]
    assert b_c2["read"].tolist() == [True, True, True, False]
    assert b_c2["write"].tolist() == [True, False, False, True]  # dY:a: read-modify-write


# --------------------------------------------------------------------------------------------
# .flops, params
# --------------------------------------------------------------------------------------------
def test_flops(net):
    f = net.flops
    assert isinstance(f, dnnmem.Flops)
    assert f.forward == CONV_F + BN_F + RELU_F + POOL_F + FC_F == 33_792
    assert f.loss == LOSS_F == 60
    assert f.backward_dx == 0 + BN_DX + RELU_F + POOL_F + FC_F == 7_168
    assert f.backward_dw == CONV_F + BN_DW + FC_F == 31_232
    assert f.backward == 7_168 + 31_232
    assert f.total == 33_792 + 60 + 38_400 == 72_252
    assert f.total == net.steps["flops"].sum()
    assert f.total == net.schedule.total_ops()
    assert repr(f) == (
        "Flops(forward=33.79 kFLOP, loss=60 FLOP, backward_dx=7.168 kFLOP, "
        "backward_dw=31.23 kFLOP, total=72.25 kFLOP)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.forward = 0  # type: ignore[misc]


def test_frozen_weights_have_no_dw():
    doc = copy.deepcopy(SMALL)
    doc["layers"][1]["trainable"] = False  # freeze conv: only bn and fc train
    n = load_network(doc, batch=N)
    assert n.params == 778
    assert n.trainable_params == 8 + 650
    df = n.layers.set_index("name")
    assert df.loc["conv", "bwd_dw_flops"] == 0
    assert df.loc["conv", "bwd_step"] == -1  # Y:conv has no gradient: no B(conv)
    assert df.loc["bn", "bwd_dx_flops"] == 0  # nothing upstream needs dX
    assert n.flops.backward_dw == BN_DW + FC_F
    assert "dW:conv" not in set(n.tensors["name"])


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------
def _assert_same(a: Network, b: Network) -> None:
    assert a == b
    assert a.to_dict() == b.to_dict()
    pd.testing.assert_frame_equal(a.layers, b.layers)
    pd.testing.assert_frame_equal(a.steps, b.steps)
    pd.testing.assert_frame_equal(a.tensors, b.tensors)
    pd.testing.assert_frame_equal(a.accesses, b.accesses)
    assert a.flops == b.flops


def test_to_dict_and_to_json(net):
    d = net.to_dict()
    assert d["name"] == "small"
    assert [layer["name"] for layer in d["layers"]] == [layer["name"] for layer in SMALL["layers"]]
    assert d == json.loads(json.dumps(SMALL))  # same document, keys in any order
    assert json.loads(net.to_json()) == d
    assert json.loads(net.to_json(indent=2)) == d
    assert "\n" in net.to_json(indent=2) and "\n" not in net.to_json()


def test_round_trip_via_dict(net):
    _assert_same(net, load_network(net.to_dict(), batch=N))
    _assert_same(net, load_network(json.loads(net.to_json()), batch=N))


def test_round_trip_via_save(net, tmp_path):
    path = tmp_path / "saved.json"
    net.save(path)
    again = load_network(path, batch=N)
    assert again.source == str(path)
    assert again.name == "small"
    _assert_same(net, again)
    # and saving again gives the same bytes
    path2 = tmp_path / "saved2.json"
    again.save(str(path2))
    assert path2.read_bytes() == path.read_bytes()


def test_round_trip_keeps_meta_and_aliases():
    doc = {
        "name": "m",
        "layers": [
            {"name": "x", "kind": "InputLayer", "shape": [3, 3, 1], "meta": {"from": "keras"}},
            {
                "name": "c",
                "kind": "Conv2D",
                "inputs": "x",
                "filters": 1,
                "kernel_size": [1, 1],
                "activation": None,
            },
        ],
    }
    n = load_network(doc)
    assert n.layers["kind"].tolist() == ["input", "conv2d"]
    assert n.to_dict()["layers"][0]["meta"] == {"from": "keras"}
    _assert_same(n, load_network(n.to_dict()))


def test_equality():
    a = load_network(SMALL, batch=N)
    assert a == load_network(copy.deepcopy(SMALL), batch=N)
    assert a != load_network(SMALL, batch=N + 1)
    assert a != load_network(SMALL, batch=N, bytes_per_element=2)
    other = copy.deepcopy(SMALL)
    other["layers"][-1]["units"] = 11
    assert a != load_network(other, batch=N)
    assert a != "small"
    with pytest.raises(TypeError):
        hash(a)


# --------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------
def test_repr(net):
    r = repr(net)
    assert r == "<dnnmem.Network 'small': 7 layers, 778 params, batch 2, 33.79 kFLOP forward>"


def test_summary(net):
    s = net.summary()
    lines = s.splitlines()
    assert lines[0] == "small: 7 layers (5 with a step), batch 2, 4 B/element"
    assert "778 (770 trainable)" in lines[1]
    assert "forward 33.79 kFLOP" in lines[2] and "iteration 72.25 kFLOP" in lines[2]
    assert "11 steps, 18 tensors, 17 reuse intervals" in lines[3]
    assert "W:fc 2.539 KiB" in lines[4]  # 2600 B, the largest tensor
    assert "peak alive 11.69 KiB" in lines[4]  # 11,968 B
    assert lines[5].strip() == "layer kinds  conv2d 1, batchnorm 1, relu 1, maxpool 1, dense 1"


# --------------------------------------------------------------------------------------------
# Networks with nothing to schedule
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "layers",
    [
        [{"name": "x", "kind": "input", "shape": [2, 2, 1]}],
        [
            {"name": "x", "kind": "input", "shape": [2, 2, 1]},
            {"name": "f", "kind": "flatten", "inputs": ["x"]},
        ],
    ],
    ids=["input-only", "input-flatten"],
)
def test_network_without_steps(layers):
    n = load_network({"layers": layers}, batch=3)
    assert n.num_steps == 0
    assert len(n.steps) == len(n.tensors) == len(n.accesses) == 0
    df = n.layers
    assert list(df.columns) == _documented_columns(Network.layers)
    assert df["name"].tolist() == [layer["name"] for layer in layers]
    assert df["fwd_step"].tolist() == [-1] * len(layers)
    assert df["bwd_step"].tolist() == [-1] * len(layers)
    # no step, so no reuse frequency: NaN, as for any layer without a step
    assert df["rf_fwd"].isna().all() and df["rf_bwd"].isna().all()
    assert df["output_bytes"].tolist() == [3 * 4 * 4] + [0] * (len(layers) - 1)  # f is folded
    for col in ("fwd_flops", "bwd_dx_flops", "bwd_dw_flops", "fwd_macs", "params"):
        assert df[col].tolist() == [0] * len(layers), col
    assert n.flops == dnnmem.Flops(forward=0, loss=0, backward_dx=0, backward_dw=0)
    assert n.params == n.trainable_params == 0
    assert n.peak_alive_bytes == 0
    assert repr(n) == (
        f"<dnnmem.Network '<dict>': {len(layers)} layers, 0 params, batch 3, 0 FLOP forward>"
    )


def test_summary_of_a_network_without_steps():
    n = load_network({"layers": [{"name": "x", "kind": "input", "shape": [2, 2, 1]}]})
    lines = n.summary().splitlines()
    assert lines[0] == "<dict>: 1 layers (0 with a step), batch 1, 4 B/element"
    assert "0 steps, 0 tensors, 0 reuse intervals" in lines[3]
    assert lines[4] == "  largest      none (no step); peak alive 0 B"


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------
@pytest.fixture
def small_path(tmp_path):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL), encoding="utf-8")
    return path


def test_cli_summary(small_path, capsys):
    assert cli_main(["summary", str(small_path), "--batch", "2"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == load_network(SMALL, batch=2).summary() + "\n"


def test_cli_summary_default_batch_is_1(small_path, capsys):
    # The same default as load_network() and dnnmem.network() (docs/sweeps.md, "Defaults").
    assert cli_main(["summary", str(small_path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == "small: 7 layers (5 with a step), batch 1, 4 B/element"
    assert f"forward {dnnmem.units.format_count(16 * 33_792 // 32, 'FLOP')}" in out


def test_cli_summary_steps(small_path, capsys):
    assert (
        cli_main(
            ["summary", str(small_path), "--batch", "2", "--steps", "3", "--bytes-per-element", "2"]
        )
        == 0
    )
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    summary = load_network(SMALL, batch=2, bytes_per_element=2).summary().splitlines()
    assert lines[: len(summary)] == summary
    assert "2 B/element" in lines[0]
    table = lines[len(summary) :]
    header = next(i for i, line in enumerate(table) if line.split()[:2] == ["step", "name"])
    rows = [line.split() for line in table[header + 1 :]]
    assert [r[1] for r in rows] == ["F:conv", "F:bn", "F:relu"]  # the first 3 steps, no more
    assert [r[0] for r in rows] == ["0", "1", "2"]
    # F:conv: 27,648 FLOPs, reads image + W (1984 B at FP32 → 992 B at FP16), writes 1024 B
    assert {str(CONV_F), str((Y_IMAGE + W_CONV) // 2), str(Y_CONV // 2)} <= set(rows[0])


@pytest.mark.parametrize("content", [b"{not json", b'{"layers": 3}', b""])
def test_cli_bad_file(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert cli_main(["summary", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"dnnmem: error: {path}: ")
    assert err.endswith("\n") and err.count("\n") == 1


def test_cli_bad_layer_names_layer_and_field(tmp_path, capsys):
    doc = copy.deepcopy(SMALL)
    doc["layers"][1]["filters"] = -8
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli_main(["summary", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == (
        f"dnnmem: error: {path}: layer 'conv', field 'filters': "
        "must be a positive integer, got -8\n"
    )


def test_cli_missing_file_and_bad_batch(tmp_path, small_path, capsys):
    missing = tmp_path / "nope.json"
    assert cli_main(["summary", str(missing)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith(f"dnnmem: error: {missing}: cannot read the file")
    assert err.count("\n") == 1
    assert cli_main(["summary", str(small_path), "--batch", "0"]) == 2
    _, err = capsys.readouterr()
    assert err == "dnnmem: error: batch: must be an integer from 1 to 16777216, got 0\n"


def test_every_table_column_has_its_unit_in_attrs(net):
    """The Network tables name their units in attrs["units"], as a sweep's DataFrame and
    Result.steps do (they had none; the units were only in the docstrings)."""
    units = {p: getattr(net, p).attrs["units"] for p in ("layers", "steps", "tensors", "accesses")}
    for prop, u in units.items():
        assert list(u) == list(getattr(net, prop).columns), prop
    assert {c: v for c, v in units["layers"].items() if v} == {
        "output_shape": "elements",
        "output_bytes": "bytes",
        "weight_bytes": "bytes",
        "state_bytes": "bytes",
        "params": "count",
        "fwd_flops": "FLOP",
        "bwd_dx_flops": "FLOP",
        "bwd_dw_flops": "FLOP",
        "fwd_macs": "MAC",
        "rf_fwd": "FLOP/byte",
        "rf_bwd": "FLOP/byte",
    }
    assert {c: v for c, v in units["steps"].items() if v} == {
        "flops": "FLOP",
        "macs": "MAC",
        "bytes_read": "bytes",
        "bytes_written": "bytes",
        "accesses": "count",
        "rf": "FLOP/byte",
    }
    assert {c: v for c, v in units["tensors"].items() if v} == {
        "bytes": "bytes",
        "num_uses": "count",
    }
    assert {c: v for c, v in units["accesses"].items() if v} == {"bytes": "bytes"}
    assert units["layers"]["name"] == units["steps"]["step"] == units["tensors"]["first_use"] == ""
