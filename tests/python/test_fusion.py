"""The fusion stage (docs/model/fusion.md): the core against the oracle written from the page
(tests/python/oracle_fusion.py) on random and built-in networks, the page's invariants, the
worked chain, and the plumbing (Policy, sweep axis, YAML, CLI, result columns)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_fusion import fused_steps, groups
from test_policies_oracle import random_network

import dnnmem
from dnnmem.cli import main
from dnnmem.policy import Policy

LEVELS = ("none", "pointwise", "accelerator")

CHAIN = {
    "name": "chain",
    "layers": [
        {"name": "x", "kind": "input", "shape": [4, 4, 2]},
        {
            "name": "conv",
            "kind": "conv2d",
            "inputs": ["x"],
            "filters": 2,
            "kernel_size": [1, 1],
            "use_bias": False,
        },
        {"name": "bn", "kind": "batchnorm", "inputs": ["conv"]},
        {"name": "relu", "kind": "relu", "inputs": ["bn"]},
        {"name": "add", "kind": "add", "inputs": ["relu", "x"]},
        {"name": "out", "kind": "relu", "inputs": ["add"]},
    ],
}


def core_steps(net: dnnmem.Network) -> list[tuple[str, tuple[str, ...], str, list[Any]]]:
    """The fused steps the core built, as the oracle writes them."""
    steps = net.steps
    acc = net.accesses
    names = net._core.layer_table()["name"]
    ft = net.schedule.fusion_table()
    members: dict[int, list[str]] = {}
    for step, layer in zip(ft["step"].tolist(), ft["layer"].tolist()):
        members.setdefault(step, []).append(str(names[layer]))
    by_step: dict[int, list[Any]] = {}
    cols = (acc[c].tolist() for c in ("step", "tensor", "read", "write", "partial", "bytes"))
    for step, tensor, read, write, partial, size in zip(*cols):
        by_step.setdefault(int(step), []).append(
            (str(tensor), bool(read), bool(write), bool(partial), int(size))
        )
    return [
        (phase, tuple(members[i]), part, by_step.get(i, []))
        for i, phase, part in zip(steps["step"], steps["phase"], steps["part"])
    ]


def streamed(net: dnnmem.Network) -> int:
    """Bytes moved with every access streamed (the cache manager ``none``)."""
    a = net.accesses
    return int((a["bytes"] * a["read"]).sum() + (a["bytes"] * a["write"]).sum())


def check_against_oracle(net: dnnmem.Network, scheduler: str, level: str) -> None:
    base = net.with_scheduler(scheduler)
    fused = base.with_fusion(level)
    want = fused_steps(base, level)
    got = core_steps(fused)
    assert len(got) == len(want), f"{net.name} {scheduler} {level}: step counts"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{net.name} {scheduler} {level}: step {i} differs"


# -- the worked chain (docs/model/fusion.md) -------------------------------------------------------


@pytest.mark.parametrize(
    "level, steps, moved",
    [("none", 11, (1984, 1184)), ("pointwise", 5, (1092, 548)), ("accelerator", 4, (960, 416))],
)
def test_worked_chain(level: str, steps: int, moved: tuple[int, int]) -> None:
    net = dnnmem.load_network(CHAIN).with_fusion(level)
    assert net.num_steps == steps
    r = dnnmem.estimate(net, dnnmem.Hardware(capacity=0), policy=f"none + fusion={level}")
    assert (r.traffic_in, r.traffic_out) == moved
    assert net.schedule.total_ops() == 992
    assert r.composition.fusion == level


def test_worked_chain_groups_table() -> None:
    df = dnnmem.load_network(CHAIN).fusion_groups("accelerator")
    fwd = df[df["phase"] == "fwd"]
    assert fwd["layers"].tolist() == [("conv",), ("bn", "relu", "add", "out")]
    assert fwd["kinds"].tolist()[1] == ("batchnorm", "relu", "add", "relu")
    # conv saves its output (the batch norm's input, read by the backward step); the group's
    # Y:out is read by the loss only (the backward step recomputes it): nothing saved.
    assert fwd["saved_bytes"].tolist() == [128, 0]
    assert fwd["intermediate_bytes"].tolist() == [0, 384]
    assert fwd["bytes_written"].tolist() == [128, 128]
    bwd = df[df["phase"] == "bwd"]
    assert bwd["layers"].tolist() == [("conv", "bn", "relu", "add", "out")]
    assert bwd["intermediate_bytes"].tolist() == [384]
    assert df.attrs["units"]["saved_bytes"] == "bytes"
    assert int(df["flops"].sum()) == 992 - 96  # all but the loss step
    none = dnnmem.load_network(CHAIN).fusion_groups("none")
    assert (none["layer_count"] == 1).all() and (none["intermediate_bytes"] == 0).all()
    # Saved for the backward pass, unfused: Y:conv (the batch norm's input), Y:relu and Y:out
    # (each ReLU's backward reads its output); Y:bn and Y:add are read by no backward step.
    fwd = none[none["phase"] == "fwd"]
    assert fwd["saved_bytes"].tolist() == [128, 0, 128, 0, 128]
    # pointwise: Y:conv, and the last ReLU's 1-bit mask (32 elements, 4 bytes): Y:relu is
    # recomputed from Y:conv, Y:out would need x, which the backward step does not read.
    pw = dnnmem.load_network(CHAIN).fusion_groups("pointwise")
    fwd = pw[pw["phase"] == "fwd"]
    assert fwd["saved_bytes"].tolist() == [128, 4] and fwd["mask_bytes"].tolist() == [0, 4]
    assert fwd["bytes_written"].tolist() == [128, 128 + 4]
    assert fwd["intermediate_bytes"].tolist() == [0, 384]


# -- the core against the oracle --------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(random_network(), st.sampled_from(LEVELS[1:]), st.sampled_from(["default", "inference"]))
def test_random_networks_match_the_oracle(doc: dict, level: str, scheduler: str) -> None:
    net = dnnmem.load_network(doc, batch=2)
    check_against_oracle(net, scheduler, level)


@settings(max_examples=25, deadline=None)
@given(random_network(), st.sampled_from(LEVELS[1:]))
def test_random_networks_split_backward_match_the_oracle(doc: dict, level: str) -> None:
    check_against_oracle(dnnmem.load_network(doc, batch=2), "split-backward(first=dw)", level)


@pytest.mark.parametrize(
    "name", ["resnet50", "mobilenet_v2", "bert_base", "efficientnet_b0", "inception_v3"]
)
@pytest.mark.parametrize("level", LEVELS[1:])
def test_zoo_matches_the_oracle(name: str, level: str) -> None:
    check_against_oracle(dnnmem.network(name, batch=2), "default", level)


def test_transformer_split_backward_matches_the_oracle() -> None:
    check_against_oracle(dnnmem.network("transformer", batch=1), "split-backward", "accelerator")


# -- invariants -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["resnet50", "mobilenet_v2", "transformer", "bert_base", "vgg16", "gpt2"]
)  # GNMT (26 409 steps at N=2, its LSTM gates fused) takes 7 s here: sweeps/thesis/fusion.py
def test_invariants_on_the_zoo(name: str) -> None:
    net = dnnmem.network(name, batch=2)
    base_moved = streamed(net)
    layers_with_steps = set(net.steps.loc[net.steps["phase"] == "fwd", "layer"])
    for level in LEVELS:
        fused = net.with_fusion(level)
        # FLOPs are the same at every level; the per-layer counts too.
        assert fused.schedule.total_ops() == net.schedule.total_ops()
        assert fused.flops == net.flops
        # With every access streamed, fusion never moves more.
        assert streamed(fused) <= base_moved
        # Every layer with a forward step is in exactly one forward step.
        g = fused.fusion_groups()
        members = [m for layers in g.loc[g["phase"] == "fwd", "layers"] for m in layers]
        assert sorted(members) == sorted(layers_with_steps)
    assert streamed(net.with_fusion("accelerator")) <= streamed(net.with_fusion("pointwise"))


@settings(max_examples=20, deadline=None)
@given(random_network(), st.sampled_from(LEVELS[1:]))
def test_random_networks_invariants(doc: dict, level: str) -> None:
    net = dnnmem.load_network(doc, batch=3)
    fused = net.with_fusion(level)
    assert fused.schedule.total_ops() == net.schedule.total_ops()
    assert streamed(fused) <= streamed(net)
    hw = dnnmem.Hardware(capacity="1MiB")
    # With the cache manager none, the estimate's traffic is the streamed bytes: never more fused.
    unfused = dnnmem.estimate(net, hw, policy="none")
    r = dnnmem.estimate(fused, hw, policy=f"none + fusion={level}")
    assert r.traffic == streamed(fused) and unfused.traffic == streamed(net)
    assert r.traffic <= unfused.traffic and r.flops == unfused.flops
    assert dnnmem.estimate(fused, hw, policy=f"lookahead + fusion={level}").time > 0


def test_none_is_the_unfused_schedule() -> None:
    net = dnnmem.network("resnet50", batch=2)
    for sched in ("default", "inference", "split-backward", "mbs(buffer=64MiB)"):
        a = net.with_scheduler(sched)
        b = a.with_fusion("none")
        assert b is a  # one spelling, one schedule
        pd_a = a.accesses
        assert pd_a.equals(net.with_scheduler(sched).accesses)
    assert str(Policy.parse("default(fusion=none) + lru")) == "lru"


def test_accelerator_backward_groups_differ_only_by_the_statistics_cut() -> None:
    net = dnnmem.network("resnet50", batch=1)
    order = net.steps.loc[net.steps["phase"] == "fwd", "layer"].tolist()
    fwd = groups(net, order, "accelerator", True)
    bwd = groups(net, order, "accelerator", False)
    assert ["conv2_block1_3_conv"] in fwd and ["conv2_block1_3_conv", "conv2_block1_3_bn"] in bwd
    pw = groups(net, order, "pointwise", True)
    assert pw == groups(net, order, "pointwise", False)


def test_mbs_serializes_the_fused_steps() -> None:
    net = dnnmem.network("resnet50", batch=4)
    s = net.with_scheduler("mbs(variant=mbs2, buffer=16MiB, fusion=pointwise)")
    unfused = net.with_scheduler("mbs(variant=mbs2, buffer=16MiB)")
    assert s.schedule.fusion == "pointwise"
    assert s.schedule.total_ops() == unfused.schedule.total_ops()
    assert s.num_steps < unfused.num_steps
    # Nothing kept between steps: the fused steps move less.
    policy = "mbs(variant=mbs2, buffer=16MiB) + mbs-strict(reuse=none)"
    fused = dnnmem.estimate(s, policy=policy + " + fusion=pointwise")
    assert fused.traffic < dnnmem.estimate(unfused, policy=policy).traffic


def test_relu_mask_is_one_concept() -> None:
    """mbs-strict(relu_mask=on) moves the fusion stage's mask size, and never encodes a fused
    schedule's own mask again."""
    net = dnnmem.load_network(
        {
            "name": "m",
            "layers": [
                {"name": "x", "kind": "input", "shape": [64]},
                {"name": "fc1", "kind": "dense", "inputs": ["x"], "units": 64, "use_bias": False},
                {"name": "r", "kind": "relu", "inputs": ["fc1"]},
                {"name": "fc2", "kind": "dense", "inputs": ["r"], "units": 8, "use_bias": False},
            ],
        },
        batch=2,
    )
    hw = dnnmem.Hardware(capacity=0)
    acc = net.with_fusion("accelerator")
    masks = acc.tensors[acc.tensors["name"].str.startswith("M:")]
    assert masks["bytes"].tolist() == [2 * 64 // 8]
    plain = dnnmem.estimate(acc, hw, policy="mbs-strict(reuse=none) + fusion=accelerator")
    encoded = dnnmem.estimate(
        acc, hw, policy="mbs-strict(reuse=none, relu_mask=on) + fusion=accelerator"
    )
    assert encoded.traffic == plain.traffic  # the fused step already reads the mask
    unfused_mask = dnnmem.estimate(net, hw, policy="mbs-strict(reuse=none, relu_mask=on)")
    unfused = dnnmem.estimate(net, hw, policy="mbs-strict(reuse=none)")
    # B:r loads 16 mask bytes instead of Y:r (512); F:r stores the mask beside Y:r.
    assert unfused.traffic - unfused_mask.traffic == 512 - 16 - 16


# -- plumbing --------------------------------------------------------------------------------------


def test_policy_string_form() -> None:
    p = Policy.parse("split-backward(first=dw) + lru + fusion=pointwise")
    assert p.fusion == "pointwise"
    assert str(p) == "split-backward(first=dw) + lru + fusion=pointwise"
    assert p == Policy.parse("split-backward(first=dw, fusion=pointwise) + lru")
    assert p == Policy("lru", scheduler="split-backward(first=dw)", fusion="pointwise")
    assert p.columns()["fusion"] == "pointwise" and "scheduler_fusion" not in p.columns()
    assert p.replace(fusion="none") == Policy("lru", scheduler="split-backward(first=dw)")
    assert p.replace(scheduler="default").fusion == "pointwise"
    with pytest.raises(ValueError, match="fusion: must be one of none, pointwise, accelerator"):
        Policy.parse("lru + fusion=fused")
    with pytest.raises(ValueError, match="fusion given twice"):
        Policy.parse("default(fusion=pointwise) + lru + fusion=pointwise")
    assert "fusion" in dnnmem.parts("scheduler")["mbs"]["options"][-1]["name"]


def test_sweep_fusion_axis_and_column() -> None:
    df = dnnmem.sweep(
        "resnet18",
        batch=2,
        capacity=["8MiB", "64MiB"],
        policy=["lru", "none"],
        fusion=["none", "accelerator"],
        progress=False,
    )
    assert len(df) == 2 * 2 * 2
    assert list(df.columns[:6]) == ["network", "batch", "policy", "scheduler", "fusion", "cache"]
    assert set(df["fusion"]) == {"none", "accelerator"}
    assert set(df["policy"]) == {
        "lru",
        "none",
        "lru + fusion=accelerator",
        "none + fusion=accelerator",
    }
    row = df[(df["policy"] == "none + fusion=accelerator") & (df["capacity"] == 8 * 2**20)].iloc[0]
    r = dnnmem.estimate(
        dnnmem.network("resnet18", batch=2), capacity="8MiB", policy="none + fusion=accelerator"
    )
    assert row["traffic_in"] == r.traffic_in and row["time"] == r.time
    flops = df.groupby("fusion", observed=True)["flops"].unique()
    assert len(set(np.concatenate(flops.to_numpy()))) == 1
    with pytest.raises(ValueError, match="fusion: must be one of"):
        dnnmem.sweep("resnet18", fusion="fused", progress=False)


def test_yaml_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "network: resnet18\nbatch: 2\ncapacity: 8MiB\npolicy: lru\nfusion: [none, pointwise]\n"
    )
    out = tmp_path / "s.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--no-progress"]) == 0
    df = pd.read_csv(out)
    assert df["fusion"].tolist() == ["none", "pointwise"]
    # The command line's --fusion overrides the file's key.
    assert (
        main(["sweep", str(spec), "-o", str(out), "--no-progress", "--fusion", "accelerator"]) == 0
    )
    assert pd.read_csv(out)["fusion"].tolist() == ["accelerator"]
    capsys.readouterr()
    argv = ["estimate", "--network", "resnet18", "--batch", "2", "--policy", "lru"]
    assert main([*argv, "--fusion", "accelerator"]) == 0
    printed = capsys.readouterr().out
    assert "policy=lru + fusion=accelerator" in printed
    r = dnnmem.estimate("resnet18", batch=2, policy="lru + fusion=accelerator")
    assert printed.strip() == repr(r).strip()


def test_mbs_footprint_of_fused_steps() -> None:
    """mbs sizes sub-batches on the fused steps (docs/model/fusion.md, "Mini-batch
    serialization"): a step's footprint is what it reads and the outputs a later forward step
    reads; what it writes only for the backward pass takes no buffer. The chain per sample:
    unfused, the add reads Y:relu and x and writes Y:add (3 × 128 bytes); at pointwise the fused
    step reads Y:conv and x and writes Y:out (its mask M:out is for the backward pass only);
    at accelerator (group norm under mbs: no statistics cut) one step reads x and writes Y:out
    (Y:conv is saved for the backward pass only)."""
    net = dnnmem.load_network(CHAIN, batch=4)
    footprint = {
        level: int(
            net.with_scheduler(
                f"mbs(variant=fs, buffer=1MiB, fusion={level})"
            ).schedule.group_table()["footprint"][0]
        )
        for level in LEVELS
    }
    assert footprint == {"none": 384, "pointwise": 384, "accelerator": 256}
