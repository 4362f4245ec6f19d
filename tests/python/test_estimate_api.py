"""The Python face of :func:`dnnmem.estimate`: what it accepts (a Network, a built-in name, a JSON
path, a dict; Hardware from numbers and unit strings, ``Hardware.replace``, keyword overrides),
the :class:`dnnmem.Result` it returns (totals checked against a network computed by hand, the
step table, the breakdowns, repr) and the errors it raises.

The hand-computed network (TINY, batch N = 2, 4-byte floats, capacity 0: every access streamed,
SPEC §8 P2; bandwidth 8 B/s and throughput 2 FLOP/s so that every number is small):

    x: input [4]         Y:x   = 2·4·4 = 32 B
    fc1: dense 4 → 3     W:fc1 = (4·3 + 3)·4 = 60 B, Y:fc1 = 2·3·4 = 24 B, MACs = 2·4·3 = 24
    act: relu            Y:act = 24 B, 6 elements
    fc2: dense 3 → 2     W:fc2 = (3·2 + 2)·4 = 32 B, Y:fc2 = 2·2·4 = 16 B, MACs = 2·3·2 = 12

    step      reads (B)                        writes (B)             FLOPs           compute  memory  time
    F:fc1     Y:x 32 + W:fc1 60 = 92           Y:fc1 24               2·24 = 48       24       116/8 = 14.5   24
    F:act     Y:fc1 24                         Y:act 24               6               3        48/8 = 6       6
    F:fc2     Y:act 24 + W:fc2 32 = 56         Y:fc2 16               2·12 = 24       12       72/8 = 9       12
    loss:fc2  Y:fc2 16                         dY:fc2 16              3·4 = 12        6        32/8 = 4       6
    B:fc2     dY:fc2 16 + Y:act 24 + W:fc2 32  dY:act 24 + dW:fc2 32  24 dX + 24 dW     24       128/8 = 16     24
    B:act     dY:act 24 + Y:act 24 (relu: Y)   dY:fc1 24              6               3        72/8 = 9       9
    B:fc1     dY:fc1 24 + Y:x 32               dW:fc1 60              48 dW only      24       116/8 = 14.5   24
              (x has no gradient: no dX, so W:fc1 is not read)

    time = 24 + 6 + 12 + 6 + 24 + 9 + 24 = 105 s (each step max(compute, memory), SPEC §8 P2)
    traffic in  = 92 + 24 + 56 + 16 + 72 + 48 + 56 = 364 B
    traffic out = 24 + 24 + 16 + 16 + 56 + 24 + 60 = 220 B
    FLOPs = 48 + 6 + 24 + 12 + 48 + 6 + 48 = 192; compute time = 192 / 2 = 96 s, stall 9 s
    avg_bandwidth = 584 / 105 B/s; active_time = (584/105) / 8 = 73/105;
    utilization = 192 / (2·105) = 32/35; samples_per_s = 2 / 105
    by kind: dense 24 + 12 + 24 + 24 = 84, relu 6 + 9 = 15, loss 6; by class I 84, II 15, loss 6

With ops_per_mac = 1 the dense FLOPs halve (24, 12, 24, 24; relu and loss keep theirs): FLOPs
108, compute 12, 3, 6, 6, 12, 3, 12, time = 14.5 + 6 + 9 + 6 + 16 + 9 + 14.5 = 75 s.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction

import pytest

import dnnmem
from dnnmem import Hardware

MiB = 2**20

TINY = {
    "name": "tiny",
    "layers": [
        {"name": "x", "kind": "input", "shape": [4]},
        {"name": "fc1", "kind": "dense", "inputs": ["x"], "units": 3},
        {"name": "act", "kind": "relu", "inputs": ["fc1"]},
        {"name": "fc2", "kind": "dense", "inputs": ["act"], "units": 2},
    ],
}
TINY_HW = dict(capacity=0, bandwidth=8, throughput=2)

STEP_NAMES = ["F:fc1", "F:act", "F:fc2", "loss:fc2", "B:fc2", "B:act", "B:fc1"]
STEP_TIMES = [24, 6, 12, 6, 24, 9, 24]
STEP_COMPUTE = [24, 3, 12, 6, 24, 3, 24]
STEP_FLOPS = [48, 6, 24, 12, 48, 6, 48]
STEP_IN = [92, 24, 56, 16, 72, 48, 56]
STEP_OUT = [24, 24, 16, 16, 56, 24, 60]

STEP_COLUMNS = [
    "step",
    "name",
    "layer",
    "kind",
    "class",
    "phase",
    "part",
    "flops",
    "start",
    "end",
    "time",
    "compute_time",
    "stall",
    "capacity_stall",
    "bytes_in",
    "bytes_out",
    "link_in",
    "link_out",
    "bytes_streamed_in",
    "bytes_streamed_out",
    "link_streamed_in",
    "link_streamed_out",
    "resident_bytes",
] + [
    f"bytes_{d}_{role}"
    for role in ("activation", "weight", "state", "gradient", "weight_grad")
    for d in ("in", "out")
]


@pytest.fixture(scope="module")
def tiny():
    return dnnmem.load_network(TINY, batch=2)


@pytest.fixture(scope="module")
def resnet():
    return dnnmem.network("resnet50", batch=2)


def exactly(x: float, value) -> bool:  # type: ignore[no-untyped-def]
    return Fraction(x) == Fraction(value)


def same(a: dnnmem.Result, b: dnnmem.Result) -> None:
    assert (a.time, a.traffic_in, a.traffic_out, a.counts) == (
        b.time,
        b.traffic_in,
        b.traffic_out,
        b.counts,
    )
    assert a.steps.equals(b.steps)


# ---------------------------------------------------------------------------------------------
# The hand-computed network
# ---------------------------------------------------------------------------------------------


def test_tiny_network_by_hand(tiny):
    r = dnnmem.estimate(tiny, **TINY_HW)
    s = r.steps
    assert list(s["name"]) == STEP_NAMES
    assert list(s["flops"]) == STEP_FLOPS
    assert list(s["time"]) == STEP_TIMES
    assert list(s["compute_time"]) == STEP_COMPUTE
    assert list(s["stall"]) == [0, 3, 0, 0, 0, 6, 0]
    assert list(s["bytes_in"]) == STEP_IN
    assert list(s["bytes_out"]) == STEP_OUT
    assert list(s["end"]) == [24, 30, 42, 48, 72, 81, 105]
    assert list(s["start"]) == [0, 24, 30, 42, 48, 72, 81]
    assert (s["resident_bytes"] == 0).all() and (s["capacity_stall"] == 0).all()
    assert r.time == 105.0
    assert (r.traffic_in, r.traffic_out, r.traffic) == (364, 220, 584)
    assert r.flops == 192
    assert (r.compute_time, r.stall_time, r.capacity_stall_time, r.drain_time) == (96, 9, 0, 0)
    assert exactly(r.avg_bandwidth, 584 / 105)
    assert math.isclose(r.active_time, 73 / 105, rel_tol=1e-15)
    assert math.isclose(r.utilization, 32 / 35, rel_tol=1e-15)
    assert math.isclose(r.samples_per_s, 2 / 105, rel_tol=1e-15)
    assert r.by_kind().to_dict() == {"dense": 84, "relu": 15, "loss": 6}
    assert r.by_class().to_dict() == {"I": 84, "II": 15, "loss": 6}


def test_tiny_network_bytes_by_role(tiny):
    s = dnnmem.estimate(tiny, **TINY_HW).steps
    # F:fc1 reads Y:x (activation) 32 and W:fc1 60; B:fc2 writes dY:act 24 and dW:fc2 32.
    assert (s.loc[0, "bytes_in_activation"], s.loc[0, "bytes_in_weight"]) == (32, 60)
    assert (s.loc[4, "bytes_out_gradient"], s.loc[4, "bytes_out_weight_grad"]) == (24, 32)
    assert s["bytes_in_weight"].sum() == 60 + 32 + 32  # W:fc2 is read by F:fc2 and B:fc2
    assert s["bytes_out_weight_grad"].sum() == 32 + 60


def test_tiny_network_ops_per_mac_1(tiny):
    r = dnnmem.estimate(tiny, ops_per_mac=1, **TINY_HW)
    assert r.ops_per_mac == 1
    assert list(r.steps["flops"]) == [24, 6, 12, 12, 24, 6, 24]
    assert r.flops == 108
    assert list(r.steps["time"]) == [14.5, 6, 9, 6, 16, 9, 14.5]
    assert r.time == 75.0
    assert (r.traffic_in, r.traffic_out) == (364, 220)  # ops_per_mac changes no byte
    assert math.isclose(r.utilization, 108 / (2 * 75), rel_tol=1e-15)


def test_tiny_network_breakdowns_include_the_drain(tiny):
    # lru writes each dirty dW out as it dies (oracle.py L4): dW:fc2 (32 B) after B:fc2, while
    # B:fc1 computes; dW:fc1 (60 B) after B:fc1, the last step: 60 / 8 = 7.5 s of drain.
    r = dnnmem.estimate(tiny, policy="lru", capacity=MiB, bandwidth=8, throughput=2)
    assert r.drain_time == 7.5
    for breakdown in (r.by_kind(), r.by_class()):
        assert breakdown["drain"] == 7.5
        assert math.isclose(breakdown.sum(), r.time, rel_tol=1e-15)
        assert breakdown.name == "seconds"
    assert math.isclose(r.steps["time"].sum() + r.drain_time, r.time, rel_tol=1e-15)


# ---------------------------------------------------------------------------------------------
# What estimate accepts
# ---------------------------------------------------------------------------------------------


def test_network_dict_path_and_object_give_the_same_result(tiny, tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(TINY))
    reference = dnnmem.estimate(tiny, **TINY_HW)
    for source in (TINY, str(path), path):
        r = dnnmem.estimate(source, batch=2, **TINY_HW)
        assert r.network.batch == 2
        same(r, reference)
    # A file written by Network.save reads back to the same estimate.
    saved = tmp_path / "saved.json"
    tiny.save(saved)
    same(dnnmem.estimate(saved, batch=2, **TINY_HW), reference)


def test_batch_defaults_and_overrides(tiny):
    assert dnnmem.estimate(TINY, **TINY_HW).network.batch == 1
    assert dnnmem.estimate(tiny, **TINY_HW).network.batch == 2  # the network's own
    r = dnnmem.estimate(tiny, batch=5, **TINY_HW)
    assert r.network.batch == 5
    same(r, dnnmem.estimate(tiny.with_batch(5), **TINY_HW))
    assert tiny.batch == 2  # unchanged
    # Activation traffic scales with N, weights do not: 5·(364 + 220 − weights) + weights.
    weights_in, dw_out = 60 + 32 + 32, 32 + 60
    assert r.traffic_in == (364 - weights_in) * 5 // 2 + weights_in
    assert r.traffic_out == (220 - dw_out) * 5 // 2 + dw_out


def test_built_in_name_with_batch(resnet):
    r = dnnmem.estimate("resnet50", batch=2, capacity="24MiB")
    assert r.network.name == "resnet50" and r.network.batch == 2
    same(r, dnnmem.estimate(resnet, capacity="24MiB"))
    assert dnnmem.estimate("ResNet50", batch=2, capacity="24MiB").time == r.time
    assert dnnmem.estimate("resnet50", capacity="24MiB").network.batch == 1


def test_unknown_network_and_wrong_types():
    with pytest.raises(ValueError, match=r"network: 'nosuchnet'.*resnet50"):
        dnnmem.estimate("nosuchnet")
    with pytest.raises(TypeError, match="network"):
        dnnmem.estimate(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^hardware: unknown hardware '24MiB'.*capacity="):
        dnnmem.estimate(TINY, "24MiB")


def test_hardware_from_strings_and_numbers():
    a = Hardware(capacity="24MiB", bandwidth="616GB/s", throughput="13.45TFLOPS")
    b = Hardware(capacity=24 * MiB, bandwidth=616e9, throughput=13.45e12)
    c = Hardware(24 * MiB, 616 * 10**9, 1345 * 10**10)
    assert a == b == c
    assert (a.capacity, a.bandwidth, a.throughput) == (25_165_824, 616e9, 13.45e12)
    assert isinstance(a.capacity, int)
    assert Hardware(capacity="1.5MB").capacity == 1_500_000  # MB = 10^6 B
    assert Hardware(bandwidth="1TB/s").bandwidth == 1e12
    assert a.ridge_point == 13.45e12 / 616e9
    d = Hardware()  # dnnmem's one default design point, also the command line's
    assert (d.capacity, d.bandwidth, d.throughput, d.precision) == (24 * MiB, 616e9, 13.45e12, None)


def test_hardware_replace():
    hw = Hardware(capacity="24MiB", bandwidth="616GB/s", throughput="13.45TFLOPS", name="2080")
    small = hw.replace(capacity="1MiB")
    assert (small.capacity, small.bandwidth, small.throughput, small.name) == (
        MiB,
        hw.bandwidth,
        hw.throughput,
        "2080",
    )
    assert hw.capacity == 24 * MiB  # frozen: replace makes a copy
    assert hw.replace(bandwidth=1e12, throughput="1PFLOPS").throughput == 1e15
    with pytest.raises(TypeError, match="unknown field"):
        hw.replace(cache="1MiB")
    with pytest.raises(ValueError, match="capacity"):
        hw.replace(capacity=-1)
    with pytest.raises(dataclass_frozen_error()):
        hw.capacity = 0  # type: ignore[misc]


def dataclass_frozen_error() -> type[Exception]:
    import dataclasses

    return dataclasses.FrozenInstanceError


def test_hardware_by_preset_name(tiny):
    # A preset's name is dnnmem.hardware(name), in estimate() and sweep(), overrides included.
    hw = dnnmem.hardware("rtx2080ti")
    same(dnnmem.estimate(tiny, "rtx2080ti", capacity=0), dnnmem.estimate(tiny, hw, capacity=0))
    df = dnnmem.sweep(tiny, hardware="rtx2080ti", capacity=[0])
    assert df["time"].tolist() == [dnnmem.estimate(tiny, hw, capacity=0).time]
    with pytest.raises(ValueError, match="^hardware: unknown hardware 'no-such-gpu'"):
        dnnmem.estimate(tiny, "no-such-gpu")


def test_hardware_argument_and_keyword_overrides(tiny):
    hw = Hardware(capacity="24MiB", bandwidth=8, throughput=2)
    r = dnnmem.estimate(tiny, hw, capacity=0)
    assert r.hardware == hw.replace(capacity=0)
    assert r.hardware.bandwidth == 8 and r.hardware.throughput == 2
    same(r, dnnmem.estimate(tiny, **TINY_HW))
    same(dnnmem.estimate(tiny, Hardware(**TINY_HW)), r)
    # Keywords alone build a Hardware (defaults for the rest).
    r2 = dnnmem.estimate(tiny, capacity="24MiB")
    assert r2.hardware == Hardware(capacity="24MiB")
    # The same point from unit strings and from numbers.
    same(
        dnnmem.estimate(
            "resnet50", batch=2, capacity="24MiB", bandwidth="616GB/s", throughput="13.45TFLOPS"
        ),
        dnnmem.estimate(
            "resnet50", batch=2, capacity=24 * MiB, bandwidth=616e9, throughput=13.45e12
        ),
    )


def test_policies_and_default_policy(tiny):
    table = dnnmem.policies()
    assert list(table.columns) == ["kind", "name", "description", "options"]
    assert list(dict.fromkeys(table["kind"])) == ["scheduler", "cache", "link", "compute"]
    assert table["description"].str.len().min() > 0
    p = dnnmem.parts("cache")
    assert list(p)[:6] == ["lookahead", "belady", "prefetch-next", "no-lookahead", "lru", "none"]
    assert list(p)[6:] == [
        "lp-rounded",
        "mbs-strict",
        "fifo",
        "infinite-spm",
        "one-step",
        "onsram-static",
        "onsram-eager-wb",
        "onsram-eager-spec",
        "vdnn-all",
        "vdnn-conv",
        "oracle",
    ]
    assert list(table.loc[table["kind"] == "cache", "name"]) == list(p)
    r = dnnmem.estimate(tiny, capacity=MiB)
    assert r.policy == "lookahead"
    same(r, dnnmem.estimate(tiny, policy="lookahead", capacity=MiB))
    for policy in p:
        assert dnnmem.estimate(tiny, policy=policy, capacity=MiB).policy == policy


# ---------------------------------------------------------------------------------------------
# The Result
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["lookahead", "belady", "none"])
@pytest.mark.parametrize("capacity", [0, "4MiB", "64MiB"])
def test_result_totals_follow_their_definitions(resnet, policy, capacity):
    r = dnnmem.estimate(resnet, policy=policy, capacity=capacity)
    hw = r.hardware
    assert r.traffic == r.traffic_in + r.traffic_out
    assert r.avg_bandwidth == r.traffic / r.time  # Eq. 4.1
    assert r.active_time == r.avg_bandwidth / hw.bandwidth  # Eq. 4.2
    assert r.utilization == r.flops / (hw.throughput * r.time)  # Eq. 4.3
    assert r.samples_per_s == resnet.batch / r.time  # Eq. 5.2
    assert r.flops == resnet.flops.total
    assert 0 < r.active_time <= 1 + 1e-12 and 0 < r.utilization <= 1 + 1e-12
    assert math.isclose(r.compute_time, r.flops / hw.throughput, rel_tol=1e-12)
    assert math.isclose(
        r.stall_time, r.time - r.drain_time - r.compute_time, rel_tol=1e-9, abs_tol=1e-15
    )
    d = r.to_dict()
    assert d["time"] == r.time and d["traffic_in"] == r.traffic_in
    assert d["policy"] == policy and d["batch"] == 2 and d["network"] == "resnet50"
    assert d["capacity"] == hw.capacity
    for key in (
        "avg_bandwidth",
        "active_time",
        "utilization",
        "samples_per_s",
        "compute_time",
        "stall_time",
        "capacity_stall_time",
        "drain_time",
        "traffic_out",
        "bandwidth",
        "throughput",
    ):
        assert key in d
    assert set(r.counts) == {"kept", "prefetched", "born", "offloads"}


def test_steps_table(resnet):
    r = dnnmem.estimate(resnet, capacity="24MiB")
    s = r.steps
    assert list(s.columns) == STEP_COLUMNS
    assert len(s) == resnet.num_steps
    base = resnet.steps
    for col in ("step", "name", "layer", "kind", "phase", "flops"):
        assert (s[col] == base[col]).all(), col
    assert set(s["phase"]) == {"fwd", "loss", "bwd"}
    assert set(s["class"]) == {"I", "II", ""}
    # Times chain up: each step starts at or after the previous one's end, time = end − end.
    assert (s["start"].iloc[1:].to_numpy() >= s["end"].iloc[:-1].to_numpy()).all()
    assert s["time"].iloc[0] == s["end"].iloc[0]
    assert (
        abs(s["time"].iloc[1:].to_numpy() - s["end"].diff().iloc[1:].to_numpy()) <= 1e-12 * r.time
    ).all()
    assert (s["stall"] >= 0).all() and (s["capacity_stall"] >= 0).all()
    assert (s["end"] - s["start"] >= s["compute_time"] - 1e-12 * r.time).all()
    assert s is r.steps  # computed once


def test_breakdowns_sum_to_the_time():
    net = dnnmem.network("transformer", batch=4, seq_len=16)
    r = dnnmem.estimate(net, policy="lru", capacity="64MiB")
    assert r.drain_time > 0
    kinds, classes = r.by_kind(), r.by_class()
    for b in (kinds, classes):
        assert math.isclose(b.sum(), r.time, rel_tol=1e-12)
        assert b["drain"] == r.drain_time
        assert b["loss"] == r.steps.loc[r.steps["phase"] == "loss", "time"].sum()
    assert set(classes.index) == {"I", "II", "loss", "drain"}
    assert {"dense", "matmul", "softmax", "layernorm", "embedding", "loss", "drain"} <= set(
        kinds.index
    )
    assert "" not in kinds.index and "" not in classes.index
    # No drain, no "drain" entry.
    r0 = dnnmem.estimate(net, capacity=0)
    assert r0.drain_time == 0 and "drain" not in r0.by_kind().index
    assert math.isclose(r0.by_class().sum(), r0.time, rel_tol=1e-12)


def test_repr_and_html_carry_units(resnet):
    r = dnnmem.estimate(resnet, capacity="24MiB")
    text = repr(r)
    assert text.startswith(
        "<dnnmem.Result resnet50, batch=2, 4 B/element, policy=lookahead, "
        "Hardware(capacity=24 MiB, "
    )
    assert "capacity=24 MiB" in text and "616 GB/s" in text and "13.45 TFLOPS" in text
    assert re.search(r"time\s+[\d.]+ ms", text), text
    assert re.search(r"traffic in / out\s+[\d.]+ [MG]iB / [\d.]+ [MG]iB", text), text
    assert re.search(r"average bandwidth\s+[\d.]+ GB/s \([\d.]+% of peak\)", text), text
    assert re.search(r"throughput\s+[\d.]+ samples/s", text), text
    assert re.search(r"[\d.]+ GFLOP", text), text
    html = r._repr_html_()
    assert html.startswith("<div>") and "<table>" in html and "</table>" in html
    for unit in ("ms", "MiB", "GB/s", "samples/s", "GFLOP", "24 MiB"):
        assert unit in html, unit
    tiny = repr(dnnmem.estimate(TINY, batch=2, **TINY_HW))
    assert "105 s" in tiny and "364 B / 220 B" in tiny and "192 FLOP" in tiny


# ---------------------------------------------------------------------------------------------
# Errors: a ValueError that names the argument
# ---------------------------------------------------------------------------------------------

BAD = [
    ("capacity", -1),
    ("capacity", "-1MiB"),
    ("capacity", float("nan")),
    ("capacity", float("inf")),
    ("capacity", "lots"),
    ("bandwidth", 0),
    ("bandwidth", 0.0),
    ("bandwidth", "0GB/s"),
    ("bandwidth", float("nan")),
    ("bandwidth", -5),
    ("bandwidth", "-5GB/s"),
    ("bandwidth", float("inf")),
    ("bandwidth", "5MiB"),
    ("throughput", 0),
    ("throughput", float("nan")),
    ("throughput", -1),
    ("throughput", float("inf")),
    ("throughput", "1GB/s"),
]


@pytest.mark.parametrize("arg,value", BAD, ids=[f"{a}={v!r}" for a, v in BAD])
def test_bad_hardware_names_the_argument(tiny, arg, value):
    with pytest.raises(ValueError, match=rf"^{arg}: "):
        dnnmem.estimate(tiny, **{arg: value})
    with pytest.raises(ValueError, match=rf"^{arg}: "):
        Hardware(**{arg: value})
    with pytest.raises(ValueError, match=rf"^{arg}: "):
        Hardware().replace(**{arg: value})
    with pytest.raises(ValueError, match=rf"^{arg}: "):  # as an override of a given Hardware
        dnnmem.estimate(tiny, Hardware(), **{arg: value})


@pytest.mark.parametrize("policy", ["foo", "", "LOOKAHEAD", "Belady", None, 3])
def test_unknown_policy_lists_the_choices(tiny, policy):
    with pytest.raises(ValueError, match=r"^policy: ") as e:
        dnnmem.estimate(tiny, policy=policy)  # type: ignore[arg-type]
    for name in dnnmem.parts("cache"):
        assert name in str(e.value)


@pytest.mark.parametrize("ops_per_mac", [3, 0, -2, 4, True, None])
def test_bad_ops_per_mac(tiny, ops_per_mac):
    with pytest.raises(ValueError, match=r"^ops_per_mac: "):
        dnnmem.estimate(tiny, ops_per_mac=ops_per_mac)  # type: ignore[arg-type]


def test_bad_batch_names_the_argument(tiny):
    for batch in (-1, 1.5, True, 2**24 + 1):
        for network in (TINY, tiny, "resnet50"):
            with pytest.raises(ValueError, match=r"^batch: "):
                dnnmem.estimate(network, batch=batch)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^batch: "):
        dnnmem.estimate(tiny, batch=0)


@pytest.mark.parametrize("network", [TINY, "resnet50"], ids=["dict", "name"])
def test_batch_zero_is_refused_whatever_the_network_argument(network):
    with pytest.raises(ValueError, match=r"^batch: "):
        dnnmem.estimate(network, batch=0)


NO_STEP = {
    "name": "no_step",
    "layers": [
        {"name": "x", "kind": "input", "shape": [2]},
        {"name": "y", "kind": "identity", "inputs": ["x"]},
    ],
}


def test_network_without_any_step_is_refused_by_name():
    # input -> identity: the only output re-indexes an input, so there is no step at all.
    net = dnnmem.load_network(NO_STEP)
    assert net.num_steps == 0
    with pytest.raises(ValueError, match=r"^network: 'no_step' has no step to estimate"):
        dnnmem.estimate(net)
