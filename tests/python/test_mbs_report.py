"""Report columns (docs/model/report.md, "Energy and the serialized schedule"): traffic by role,
groups, sub-batch sizes, global-buffer bytes, MACs and energy, by hand on the 3-layer chain of
test_mbs, in estimate() and sweep() alike; the energy constants' calibration."""

from __future__ import annotations

import math

import pytest
from test_mbs import CHAIN, RESIDUAL, _net

import dnnmem
from dnnmem.energy import WAVECORE, EnergyModel, calibrate_mac, sub_batch_string
from dnnmem.estimate import ROLES

MBS1 = "mbs(variant=mbs1, buffer=12) + mbs-strict"


def test_sub_batch_string() -> None:
    assert sub_batch_string([[0, 1, 2, 3, 4], [0, 2, 4]]) == "1x4 2x2"
    assert sub_batch_string([[0, 11, 22, 32], [0, 32]]) == "11x2+10x1 32x1"
    assert sub_batch_string([]) == ""


def test_chain_columns_by_hand() -> None:
    # The schedule of test_mbs.test_chain_greedy_groups_and_every_access (1 B/element, batch 4;
    # per sample x 4, Y:fc1 3, Y:r 3, Y:fc2 2; W:fc1 15, W:fc2 8), traffic 221 in / 120 out.
    r = dnnmem.estimate(_net(CHAIN), policy=MBS1)
    # in: activation x 16 + Y:fc1 12 + Y:fc2 8 + Y:r 12 + Y:x 16; weight W:fc1 4 * 15 + W:fc2
    # 2 * 8 (fwd) + 2 * 8 (bwd); gradient dY:fc1 12; weight_grad dW:fc2 8 + dW:fc1 3 * 15.
    assert r.traffic_in_by_role == {
        "activation": 64,
        "weight": 92,
        "state": 0,
        "gradient": 12,
        "weight_grad": 53,
    }
    # out: activation Y:fc1, Y:r, Y:fc2 written through; gradient dY:fc1; dW:fc2 2 * 8, dW:fc1 4 * 15.
    assert r.traffic_out_by_role == {
        "activation": 32,
        "weight": 0,
        "state": 0,
        "gradient": 12,
        "weight_grad": 76,
    }
    assert r.groups == 2 and r.sub_batches == "1x4 2x2"
    # Bytes read + written per step: F:fc1 4 x (4 + 15 + 3); F:r 2 x (6 + 6); F:fc2 2 x (6 + 8 +
    # 4); loss 2 x (4 + 4); B:fc2 (4 + 6 + 8 + 6 + 8) + (4 + 6 + 8 + 6 + 16); B:r 2 x (6 + 6 + 6);
    # B:fc1 (3 + 4 + 15) + 3 x (3 + 4 + 30).
    assert r.gb_bytes == 88 + 24 + 36 + 16 + 72 + 36 + 133 == 405
    # MACs: fc1 4 x 12 forward and dW (its input has no gradient); fc2 4 x 6 forward, dX, dW.
    assert r.macs == 48 + 48 + 24 * 3 == 168
    assert r.energy == 1.0 * 341 + 405 / 8 + 0.1085 * 168
    assert r.energy_dram_share == 341 / r.energy
    d = r.to_dict()
    assert d["traffic_in_weight"] == 92 and d["sub_batches"] == "1x4 2x2" and d["groups"] == 2
    assert sum(d[f"traffic_out_{x}"] for x in ROLES) == r.traffic_out == 120
    # Unserialized: no groups.
    base = dnnmem.estimate(_net(CHAIN), policy="default + none")
    assert (base.groups, base.sub_batches) == (0, "")


@pytest.mark.parametrize("doc", [CHAIN, RESIDUAL], ids=["chain", "residual"])
def test_extra_weight_bytes_are_the_page_formula(doc: dict) -> None:
    # mbs-strict never keeps W, dW or a state: the serialized schedule's weight and dW traffic
    # exceeds the unserialized one's by sum (n - 1)(r + 2) W (docs/model/mbs.md, "Slices").
    net = _net(doc)
    s = net.with_scheduler("mbs(variant=mbs2, buffer=12)")
    r = dnnmem.estimate(s, policy="mbs(variant=mbs2, buffer=12) + mbs-strict")
    d = dnnmem.estimate(net, policy="default + mbs-strict")
    g = s.schedule.group_table()
    n_of = {}
    for first, last, b in zip(g["first"], g["last"], g["bounds"]):
        for pos in range(first, last + 1):
            n_of[pos] = len(b) - 1
    layers = net.layers
    fwd = layers[layers["fwd_step"] >= 0].sort_values("fwd_step").reset_index(drop=True)
    extra = 0
    for pos, row in fwd.iterrows():
        w = int(row["weight_bytes"])
        if w:
            reads = 2 if row["bwd_dx_flops"] > 0 else 1
            extra += (n_of[pos] - 1) * (reads + 2) * w
    got = sum(
        r.traffic_in_by_role[x] + r.traffic_out_by_role[x] for x in ("weight", "weight_grad")
    ) - sum(d.traffic_in_by_role[x] + d.traffic_out_by_role[x] for x in ("weight", "weight_grad"))
    assert extra > 0 and got == extra


def test_sweep_rows_have_the_columns_of_estimate() -> None:
    net = _net(RESIDUAL)
    pols = [MBS1, "mbs(variant=mbs2, buffer=12) + lookahead", "default + lru"]
    df = dnnmem.sweep(net, capacity=[12, 40], policy=pols, progress=False)
    for row in df.itertuples(index=False):
        want = dnnmem.estimate(net, policy=row.policy, capacity=row.capacity).to_dict()
        got = row._asdict()
        for k, v in want.items():
            assert got[k] == v, (k, row.policy)
    assert set(df["groups"]) == {0, 1, 3}  # default; mbs1 one group; mbs2 three (test_mbs)
    # Another energy model: the energy column follows it in both.
    m = EnergyModel(dram=2.0, global_buffer=0.5, mac=0.0)
    df = dnnmem.sweep(net, capacity=12, policy=MBS1, energy=m, progress=False)
    r = dnnmem.estimate(net, policy=MBS1, capacity=12, energy=m)
    assert df["energy"].iloc[0] == r.energy == 2.0 * r.traffic + 0.5 * r.gb_bytes


def test_energy_model_errors() -> None:
    with pytest.raises(ValueError, match="energy.mac"):
        EnergyModel(mac=-1)
    with pytest.raises(ValueError, match="energy.dram"):
        EnergyModel(dram=0)
    with pytest.raises(TypeError, match="energy"):
        dnnmem.estimate(_net(CHAIN), energy=1.0)  # type: ignore[arg-type]


def test_mac_energy_is_the_calibration() -> None:
    # ResNet-50, one WaveCore core's Baseline (default + none streams every access): DRAM bytes
    # = global-buffer bytes = every byte the steps read and write.
    net = dnnmem.network("resnet50", batch=32, bytes_per_element=2)
    from dnnmem.energy import schedule_columns

    c = schedule_columns(net)
    assert round(c["gb_bytes"] / 1e9, 2) == 11.35 and round(c["macs"] / 1e9, 1) == 366.6
    mac = calibrate_mac(c["gb_bytes"], c["gb_bytes"], c["macs"], 0.216)
    assert WAVECORE.mac == round(mac, 4)
    assert math.isclose(
        WAVECORE.dram * c["gb_bytes"] / WAVECORE.total(c["gb_bytes"], c["gb_bytes"], c["macs"]),
        0.216,
        rel_tol=1e-3,
    )


# -- the encodings of mbs-strict (docs/model/mbs.md, "Normalization and what backward re-reads")

BN_CHAIN = {
    "name": "bn_chain",
    "layers": [
        {"name": "x", "kind": "input", "shape": [4]},
        {"name": "fc1", "kind": "dense", "inputs": ["x"], "units": 3},
        {"name": "bn", "kind": "batch_norm", "inputs": ["fc1"]},
        {"name": "r", "kind": "relu", "inputs": ["bn"]},
        {"name": "fc2", "kind": "dense", "inputs": ["r"], "units": 2},
    ],
}


def _steps(policy: str, capacity: int) -> dict[str, tuple[int, int]]:
    net = dnnmem.load_network(BN_CHAIN, batch=4, bytes_per_element=2)
    r = dnnmem.estimate(net, policy=policy, capacity=capacity)
    return {
        n: (i, o) for n, i, o in zip(r.steps["name"], r.steps["bytes_in"], r.steps["bytes_out"])
    }


def test_reuse_none_is_the_baseline() -> None:
    # Nothing kept: every access moves, as with `none` (batch 4, 2 B/element).
    for cap in (0, 1000):
        assert _steps("default + mbs-strict(reuse=none)", cap) == _steps("default + none", cap)


def test_two_pass_norm_by_hand() -> None:
    # Whole batch: Y:fc1, Y:bn, dY:bn, dY:fc1 are 4 x 3 x 2 = 24 B; W:bn and S:bn 12 B.
    base = _steps("default + mbs-strict(reuse=none)", 0)
    two = _steps("default + mbs-strict(reuse=none, norm_passes=2)", 0)
    assert base["F:bn"] == (24 + 12 + 12, 24) and two["F:bn"] == (2 * 24 + 12 + 12, 24)
    # B:bn loads dY:bn and its input Y:fc1 twice each, W:bn once.
    assert base["B:bn"] == (24 + 24 + 12, 24 + 12) and two["B:bn"] == (2 * 48 + 12, 24 + 12)
    assert {k: v for k, v in two.items() if k not in ("F:bn", "B:bn")} == {
        k: v for k, v in base.items() if k not in ("F:bn", "B:bn")
    }
    # When the step's data fit (F:bn 48 B, B:bn 96 B of activations and gradients), one pass.
    assert _steps("default + mbs-strict(reuse=none, norm_passes=2)", 96) == _steps(
        "default + mbs-strict(reuse=none)", 96
    )


def test_dy_passes_by_hand() -> None:
    # Each dense layer's backward step reads its output gradient once per GEMM (dX, dW) when
    # its data do not fit: dY:fc2 is 4 x 2 x 2 = 16 B, dY:fc1 24 B. B:fc2's activation and
    # gradient bytes are 16 + 24 (Y:r) + 24 (dY:r) = 64, B:fc1's 24 + 32 (Y:x) = 56.
    base = _steps("default + mbs-strict(reuse=none)", 0)
    two = _steps("default + mbs-strict(reuse=none, dy_passes=2)", 0)
    assert two["B:fc2"] == (base["B:fc2"][0] + 16, base["B:fc2"][1])
    assert two["B:fc1"] == (base["B:fc1"][0] + 24, base["B:fc1"][1])
    assert {k: v for k, v in two.items() if k not in ("B:fc1", "B:fc2")} == {
        k: v for k, v in base.items() if k not in ("B:fc1", "B:fc2")
    }
    # At 60 B only B:fc2's data exceed the capacity; at 64 B neither reads twice.
    at60 = _steps("default + mbs-strict(reuse=none, dy_passes=2)", 60)
    assert at60["B:fc2"][0] == base["B:fc2"][0] + 16 and at60["B:fc1"] == base["B:fc1"]
    assert _steps("default + mbs-strict(reuse=none, dy_passes=2)", 64) == _steps(
        "default + mbs-strict(reuse=none)", 64
    )
    # Batch norm's backward step (a gradient read, not a GEMM) never reads twice.
    assert two["B:bn"] == base["B:bn"]


def test_relu_mask_by_hand() -> None:
    # Y:r has 12 elements: a mask of 12 bits = 2 bytes, stored by F:r beside Y:r (which B:fc2
    # still loads) and loaded by B:r instead of Y:r.
    base = _steps("default + mbs-strict(reuse=none)", 0)
    mask = _steps("default + mbs-strict(reuse=none, relu_mask=on)", 0)
    assert base["F:r"] == (24, 24) and mask["F:r"] == (24, 24 + 2)
    assert base["B:r"] == (24 + 24, 24) and mask["B:r"] == (24 + 2, 24)
    assert {k: v for k, v in mask.items() if k not in ("F:r", "B:r")} == {
        k: v for k, v in base.items() if k not in ("F:r", "B:r")
    }
    # Kept on chip (MBS inside a segment), the mask is never needed: nothing changes.
    assert _steps("default + mbs-strict(reuse=group, relu_mask=on)", 1000) == _steps(
        "default + mbs-strict(reuse=group)", 1000
    )


def test_resume_from_a_file_without_the_new_columns(tmp_path) -> None:
    pytest.importorskip("pyarrow")
    out = tmp_path / "old.parquet"
    net = _net(CHAIN)
    df = dnnmem.sweep(net, capacity=12, policy="default + none", progress=False, out=out)
    import pandas as pd

    pd.read_parquet(out).drop(columns=["energy"]).to_parquet(out)
    with pytest.raises(ValueError, match="older dnnmem"):
        dnnmem.sweep(net, capacity=12, policy="default + none", progress=False, out=out)
    assert len(df) == 1
