"""Policies as compositions (docs/policies.md): the string form, the registries, bad
compositions, the new schedulers against oracle_schedulers.py, every cache manager with the new
parts against the pure-Python oracle exactly, and SPEC §8-style properties of each new part."""

from __future__ import annotations

import math

import numpy as np
import oracle
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_schedulers import default_steps, expected_steps
from test_policies_oracle import compare_with_oracle, random_network

import dnnmem
from dnnmem import cdma
from dnnmem.policy import POINT_DATA

MiB = 2**20
# lp-rounded takes its kept intervals from an LP (dnnmem.optimal), which the oracle does not
# model: tests/python/test_optimal.py checks it against the model's traffic and brute force.
CACHES = [c for c in dnnmem.parts("cache") if c not in POINT_DATA]
SCHEDULERS = ["default", "inference", "split-backward", "split-backward(first=dw)"]
RATIO = {"activation": 2, "weight": 3, "gradient": 1.5, "weight_grad": 1.25, "state": 4}


# -- the string form and the registries ---------------------------------------------------------


def test_part_names_are_unique_across_registries() -> None:
    every = dnnmem._core.parts()
    assert len({p["name"] for p in every}) == len(every)
    assert {p["kind"] for p in every} == {"scheduler", "cache", "link", "compute"}
    assert all(p["description"] for p in every)


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("lookahead", "lookahead"),
        ("lru", "lru"),
        ("split-backward", "split-backward + lookahead"),
        ("lru + split-backward(first=dw)", "split-backward(first=dw) + lru"),
        ("ratio(cap=200GB/s, activation=2) + belady", "belady + ratio(activation=2, cap=200GB/s)"),
        ("inference+none+raw+peak", "inference + none + peak"),
        ("ratio(cap=48e9)", "lookahead + ratio(cap=48GB/s)"),
        ("ratio( all = 2.5 )", "lookahead + ratio(all=2.5)"),
    ],
)
def test_string_form_is_canonical_and_round_trips(text: str, canonical: str) -> None:
    p = dnnmem.Policy.parse(text)
    assert str(p) == canonical
    assert dnnmem.Policy.parse(str(p)) == p
    assert hash(dnnmem.Policy.parse(canonical)) == hash(p)


def test_policy_object_and_columns() -> None:
    p = dnnmem.Policy(
        "lru",
        scheduler="split-backward(first=dw)",
        link=("ratio", {"activation": 2, "cap": "12.8GB/s"}),
    )
    assert str(p) == "split-backward(first=dw) + lru + ratio(activation=2, cap=12.8GB/s)"
    assert p.link.option_dict == {"activation": 2.0, "cap": 12.8e9}
    assert p.columns() == {
        "scheduler": "split-backward",
        "fusion": "none",
        "scheduler_first": "dw",
        "cache": "lru",
        "link": "ratio",
        "link_activation": 2.0,
        "link_cap": 12.8e9,
        "compute": "peak",
    }
    assert str(p.with_compute("peak")) == str(p) + " + peak"
    assert p.with_compute("") == p
    assert str(p.replace(cache="none", link="raw")) == "split-backward(first=dw) + none"


@pytest.mark.parametrize(
    "text, message",
    [
        ("lru + none", r"^policy: two cache managers in 'lru \+ none': 'lru' and 'none'$"),
        (
            "lifo",
            r"^policy: unknown part 'lifo'; did you mean fifo\? \(schedulers: default, inference, "
            r"split-backward, mbs; "
            r"cache managers: lookahead, belady",
        ),
        (
            "ratio(foo=1)",
            r"^link 'ratio': unknown option 'foo' \(valid: all, activation, weight, "
            r"state, gradient, weight_grad, cap, efficiency\)$",
        ),
        (
            "ratio(cap=fast)",
            r"^link 'ratio': option 'cap' must be a number in bytes/s or a value "
            r"with a unit, got 'fast'",
        ),
        (
            "split-backward(first=dy)",
            r"^scheduler 'split-backward': option 'first' must be one of "
            r"dx, dw, got 'dy'$",
        ),
        ("lru(x=1)", r"^cache manager 'lru': unknown option 'x' \(valid: hardware, line\)$"),
        ("none(x=1)", r"^cache manager 'none': unknown option 'x' \(valid: none\)$"),
        # A mistyped name or option gets the close matches; a known name with options written
        # after ':' or '=' gets the parentheses (were only the whole list of names).
        (
            "lookahed",
            r"^policy: unknown part 'lookahed'; did you mean lookahead or no-lookahead\? \(",
        ),
        ("LRU + split-backward", r"^policy: unknown part 'LRU'; did you mean lru\? \(schedulers"),
        (
            "split-backward:ordr=alg1",
            r"^policy: unknown part 'split-backward:ordr=alg1'; options go in parentheses: "
            r"split-backward\(ordr=alg1\) \(schedulers",
        ),
        (
            "lru=2",
            r"^policy: unknown part 'lru=2'; options go in parentheses: lru\(key=value, \.\.\.\) \(",
        ),
        (
            "split-backward(ordr=alg1)",
            r"^scheduler 'split-backward': unknown option 'ordr'; did you mean order\? \(valid: first,",
        ),
        ("xyz", r"^policy: unknown part 'xyz' \(schedulers"),
        ("ratio(activation)", r"^policy: option 'activation' of 'ratio' has no '='$"),
        ("ratio(activation=2", r"^policy: unbalanced '\('"),
        ("lru + ", r"^policy: empty part"),
    ],
)
def test_bad_compositions_name_the_part_and_option(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dnnmem.Policy.parse(text)


@pytest.mark.parametrize(
    "policy, message",
    [
        # Ranges are the core's to check: the part's declaration in C++ is the one source.
        (
            "ratio(activation=0.001)",
            r"^link 'ratio': option 'activation' must be >= 0.5 and "
            r"<= 1048576, got 0.001$",
        ),
        ("ratio(cap=-1)", r"^link 'ratio': option 'cap' must be >= 0"),
        # A combination that makes no sense names both parts and why.
        (
            "inference + ratio(gradient=2)",
            r"^link 'ratio' with scheduler 'inference': option "
            r"'gradient' has no effect, the schedule has no gradient",
        ),
        ("inference + ratio(weight_grad=2)", r"scheduler 'inference'.*no weight_grad tensor"),
    ],
)
def test_bad_options_at_estimate_time(policy: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dnnmem.estimate("resnet18", batch=1, policy=policy)


def test_policies_table_lists_every_part_with_its_options() -> None:
    t = dnnmem.policies()
    assert list(t["kind"].unique()) == ["scheduler", "cache", "link", "compute"]
    row = t.set_index("name").loc["ratio"]
    assert "cap in bytes/s (default 0)" in row["options"]
    # A default with a unit as a policy writes it (was "buffer bytes (default 10485760)").
    assert "buffer in bytes (default 10MiB)" in t.set_index("name").loc["mbs", "options"]
    assert (
        t.set_index("name")
        .loc["split-backward", "options"]
        .startswith("first=dx|dw (default dx); order=none|seq|interleave|")
    )
    assert list(dnnmem.policies("link")["name"]) == ["raw", "ratio", "zvc", "rle", "zlib"]


# -- the thesis's policies are unchanged -------------------------------------------------------


@pytest.mark.parametrize("cache", CACHES)
def test_identity_ratio_link_is_the_raw_link_bit_for_bit(cache: str) -> None:
    net = dnnmem.network("resnet18", batch=2)
    for capacity in (0, 4 * MiB, 64 * MiB):
        a = dnnmem.estimate(net, capacity=capacity, policy=cache)
        b = dnnmem.estimate(net, capacity=capacity, policy=f"{cache} + ratio(all=1)")
        assert (a.time, a.traffic_in, a.traffic_out, a.counts) == (
            b.time,
            b.traffic_in,
            b.traffic_out,
            b.counts,
        )
        assert (b.link_in, b.link_out) == (b.traffic_in, b.traffic_out)


# -- schedulers against oracle_schedulers.py ---------------------------------------------------


def _check_schedule(net: dnnmem.Network, scheduler: str) -> None:
    first = "dw" if "first=dw" in scheduler else "dx"
    name = scheduler.split("(")[0]
    got = default_steps(net.with_scheduler(scheduler))
    want = expected_steps(net, name, first)
    assert len(got) == len(want), scheduler
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{net.name} {scheduler}: step {i} differs"
    t = net.with_scheduler(scheduler).tensors
    if name == "inference":
        outputs = {f"Y:{o}" for o in net.steps.loc[net.steps["phase"] == "loss", "layer"]}
        assert set(t.loc[t["must_end_offchip"], "name"]) == outputs
        assert not t["role"].isin(["gradient", "weight_grad"]).any()


@pytest.mark.parametrize(
    "network, batch",
    [("resnet50", 2), ("mobilenet_v2", 1), ("transformer", 1), ("gpt2", 1), ("gnmt", 1)],
)
@pytest.mark.parametrize("scheduler", SCHEDULERS[1:])
def test_zoo_schedules_match_the_oracle(network: str, batch: int, scheduler: str) -> None:
    _check_schedule(dnnmem.network(network, batch=batch), scheduler)


def test_split_backward_on_a_conv_chain_by_hand() -> None:
    """x -> conv a -> relu r -> dense d: a's backward needs no dX (x has no gradient), so it
    stays one step; d's backward splits into dX (reads dY:d, W:d, writes dY:r) and dW (reads
    dY:d, Y:flat, writes dW:d)."""
    doc = {
        "name": "chain",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4, 4, 1]},
            {
                "name": "a",
                "kind": "conv2d",
                "inputs": ["x"],
                "filters": 2,
                "kernel_size": 3,
                "padding": "same",
            },
            {"name": "r", "kind": "relu", "inputs": ["a"]},
            {"name": "flat", "kind": "flatten", "inputs": ["r"]},
            {"name": "d", "kind": "dense", "inputs": ["flat"], "units": 3},
        ],
    }
    net = dnnmem.load_network(doc, batch=2).with_scheduler("split-backward")
    s = net.steps
    assert list(s["name"]) == ["F:a", "F:r", "F:d", "loss:d", "B:d/dx", "B:d/dw", "B:r", "B:a"]
    acc = net.accesses
    by = {
        n: list(zip(g["tensor"], g["read"], g["write"]))
        for n, g in acc.assign(n=s["name"].to_numpy()[acc["step"]]).groupby("n")
    }
    assert by["B:d/dx"] == [("dY:d", True, False), ("W:d", True, False), ("dY:r", False, True)]
    assert by["B:d/dw"] == [("dY:d", True, False), ("Y:r", True, False), ("dW:d", False, True)]
    assert by["B:a"] == [("dY:a", True, False), ("Y:x", True, False), ("dW:a", False, True)]
    # FLOPs are the whole step's, split: dX 2·(32·3)·N, dW 2·(32·3)·N with N = 2.
    assert list(s.loc[s["part"] != "", "flops"]) == [384, 384]
    first_dw = dnnmem.load_network(doc, batch=2).with_scheduler("split-backward(first=dw)")
    assert list(first_dw.steps["name"])[4:6] == ["B:d/dw", "B:d/dx"]


# -- every cache manager with the new parts against the oracle ----------------------------------


def _oracle_link(policy: dnnmem.Policy, net: dnnmem.Network) -> dict | None:
    if policy.link.name == "raw":
        return None
    opts = policy.link.option_dict
    if policy.link.name == "zvc":
        sparsity, _ = cdma.tensor_sparsity(net, opts)
        return {
            "zvc": list(sparsity),
            "mask": opts.get("mask", "on") == "on",
            "throttle": opts.get("throttle", "both"),
            "cap": opts.get("cap", 0),
            "efficiency": opts.get("efficiency", 1.0),
        }
    ratios = {
        r: opts.get(r, opts.get("all", 1.0))
        for r in ("activation", "weight", "state", "gradient", "weight_grad")
    }
    return {"ratio": ratios, "cap": opts.get("cap", 0)}


def _oracle_compute(policy: dnnmem.Policy) -> dict | None:
    if policy.compute is None or policy.compute.name == "peak":
        return None
    opts = {
        k: (int(v) if k in ("rows", "cols", "arrays", "tile") else v)
        for k, v in policy.compute.option_dict.items()
    }
    return {"systolic": opts}


def check_composition(
    net: dnnmem.Network,
    policy: str,
    capacity: int,
    bandwidth: int,
    throughput: int,
    ops_per_mac: int = 2,
) -> None:
    p = dnnmem.Policy.parse(policy)
    scheduled = net.with_scheduler(p.scheduler)
    o = oracle.estimate(
        scheduled,
        capacity,
        bandwidth,
        throughput,
        p.cache.name,
        ops_per_mac,
        link=_oracle_link(p, scheduled),
        compute=_oracle_compute(p),
    )
    r = dnnmem.estimate(
        net,
        policy=p,
        capacity=capacity,
        bandwidth=bandwidth,
        throughput=throughput,
        ops_per_mac=ops_per_mac,
    )
    compare_with_oracle(r, o, f"{net.name} N={net.batch} {policy} capacity={capacity}")


def _random_policy() -> st.SearchStrategy[str]:
    link = st.sampled_from(
        [
            "",
            " + ratio(activation=2, weight=3, gradient=1.5, weight_grad=1.25)",
            " + ratio(all=2.5, cap=40000000)",
            " + ratio(activation=0.5)",
            " + zvc",
            " + zvc(uniform=0.7, cap=40000000, efficiency=0.8)",
            " + zvc(cap=40000000, throttle=offload)",
        ]
    )
    compute = st.sampled_from(
        [
            "",
            "",
            " + systolic(rows=4, cols=4)",
            " + systolic(rows=3, cols=5, dataflow=os, arrays=2, vector=0.25)",
            " + systolic(rows=2, cols=8, dataflow=is, vector=0.5)",
            " + systolic(rows=4, cols=4, waves=double-buffered, tile=3)",
            " + systolic(rows=3, cols=5, dataflow=is, waves=pipelined, tile=2, arrays=2)",
            " + systolic(rows=2, cols=3, waves=double-buffered, arrays=3)",
        ]
    )
    return st.builds(
        lambda s, c, lk, cm: f"{s} + {c}{lk}{cm}",
        st.sampled_from(SCHEDULERS),
        st.sampled_from(CACHES),
        link,
        compute,
    )


@st.composite
def _network_with_matmul(draw) -> dict:
    """random_network, sometimes with an attention-like matmul of two dense projections (a
    split-backward matmul: both operands need a gradient)."""
    doc = draw(random_network())
    if draw(st.booleans()):
        seq, dim = draw(st.integers(1, 5)), draw(st.integers(1, 6))
        doc["layers"] += [
            {"name": "tok", "kind": "input", "shape": [seq, dim]},
            {"name": "q", "kind": "dense", "inputs": ["tok"], "units": dim},
            {"name": "k", "kind": "dense", "inputs": ["tok"], "units": dim},
            {"name": "qk", "kind": "matmul", "inputs": ["q", "k"], "transpose_b": True},
        ]
    return doc


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc=_network_with_matmul(),
    batch=st.integers(1, 3),
    policy=_random_policy(),
    cap_choice=st.sampled_from(["zero", "peak", "half", "huge", "largest"]),
    bandwidth=st.sampled_from([10**6, 616 * 10**9]),
    throughput=st.sampled_from([10**8, 1345 * 10**10]),
    ops_per_mac=st.sampled_from([1, 2]),
)
def test_random_networks_every_composition(
    doc, batch, policy, cap_choice, bandwidth, throughput, ops_per_mac
) -> None:
    net = dnnmem.load_network(doc, batch=batch)
    scheduled = net.with_scheduler(dnnmem.Policy.parse(policy).scheduler)
    if scheduled.num_steps == 0:
        return
    _check_schedule(net, str(dnnmem.Policy.parse(policy).scheduler))
    peak = scheduled.peak_alive_bytes
    capacity = {
        "zero": 0,
        "peak": peak,
        "half": peak // 2,
        "huge": 2**50,
        "largest": int(scheduled.tensors["bytes"].max()),
    }[cap_choice]
    try:
        check_composition(net, policy, capacity, bandwidth, throughput, ops_per_mac)
    except ValueError as e:  # a ratio for a role this schedule lacks, or a cache manager that
        # needs a backward pass (vdnn-*) on an inference schedule: refused, by design
        assert "inference" in policy
        assert "has no effect" in str(e) or "needs a training schedule" in str(e)


@pytest.mark.parametrize(
    "policy",
    [
        "split-backward + lookahead + ratio(activation=2, gradient=1.5)",
        "split-backward(first=dw) + lru",
        "inference + lookahead + ratio(activation=3, weight=1.25, cap=50GB/s)",
        "inference + no-lookahead",
        "lookahead + ratio(all=2, cap=200GB/s)",
        "prefetch-next + ratio(activation=2)",
        "split-backward + lookahead + systolic(rows=45, cols=45)",
        "inference + belady + systolic(rows=32, cols=64, dataflow=os, vector=0.125)",
        "mbs(variant=mbs2, buffer=10MiB) + mbs-strict"
        " + systolic(rows=128, cols=128, waves=double-buffered, tile=256)",
        "lookahead + systolic(rows=64, cols=32, waves=pipelined, tile=100)",
    ],
)
@pytest.mark.parametrize("capacity", [0, 24 * MiB, 128 * MiB])
def test_resnet50_compositions_match_the_oracle(policy: str, capacity: int) -> None:
    check_composition(
        dnnmem.network("resnet50", batch=4), policy, capacity, 616 * 10**9, 1345 * 10**10
    )


# -- SPEC §8-style properties of each new part ---------------------------------------------------


# Whatever the capacity, one-step keeps only what the next step reads, and OnSRAM-Eager only
# what its history predicts (docs/model/onsram.md, O5, E4); vDNN and the oracle do not look at the
# capacity (docs/model/cdma.md, V5).
NOT_ALL = (
    "none",
    "one-step",
    "onsram-eager-wb",
    "onsram-eager-spec",
    "vdnn-all",
    "vdnn-conv",
    "oracle",
)


@pytest.mark.parametrize("cache", [c for c in CACHES if c not in NOT_ALL])
def test_inference_at_unlimited_capacity_moves_inputs_weights_states_once(cache: str) -> None:
    net = dnnmem.network("resnet50", batch=2)
    inf = net.with_scheduler("inference")
    t = inf.tensors
    r = dnnmem.estimate(net, capacity=2**50, policy=f"inference + {cache}")
    assert r.traffic_in == int(t.loc[t["starts_offchip"], "bytes"].sum())
    assert r.traffic_out == int(t.loc[t["must_end_offchip"], "bytes"].sum()) == 2 * 1000 * 4
    assert r.traffic_in == 2 * 224 * 224 * 3 * 4 + 4 * net.params  # input + weights + states


def test_split_backward_at_capacity_zero_reads_every_split_dy_twice() -> None:
    net = dnnmem.network("resnet50", batch=2)
    whole = dnnmem.estimate(net, capacity=0, policy="none")
    split = dnnmem.estimate(net, capacity=0, policy="split-backward + none")
    steps = net.with_scheduler("split-backward").steps
    acc = net.with_scheduler("split-backward").accesses
    dw_steps = steps.loc[steps["part"] == "dw", "step"]
    extra = int(acc.loc[acc["step"].isin(dw_steps) & (acc["role"] == "gradient"), "bytes"].sum())
    assert extra > 0 and len(dw_steps) == 53  # the 53 conv / dense layers with dX and dW
    assert split.traffic_in == whole.traffic_in + extra
    assert split.traffic_out == whole.traffic_out
    g_whole = whole.steps["bytes_in_gradient"].sum()
    g_split = split.steps["bytes_in_gradient"].sum()
    assert g_split == g_whole + extra
    # Same FLOPs, one more step per split layer.
    assert split.flops == whole.flops and len(split.steps) == len(whole.steps) + 53


@pytest.mark.parametrize("scheduler", ["default", "inference", "split-backward"])
def test_ratio_link_at_capacity_zero_is_streamed_bytes_over_ratio(scheduler: str) -> None:
    net = dnnmem.network("transformer", batch=1).with_scheduler(scheduler)
    ratios = dict(RATIO)
    if scheduler == "inference":
        del ratios["gradient"], ratios["weight_grad"]
    opts = ", ".join(f"{k}={v}" for k, v in ratios.items())
    r = dnnmem.estimate(net, capacity=0, policy=f"{scheduler} + none + ratio({opts})")
    acc = net.accesses
    ratio = acc["role"].map(lambda role: ratios.get(role, 1)).to_numpy()
    wire = np.array([math.ceil(b / q) for b, q in zip(acc["bytes"], ratio)])
    assert r.link_in == int(wire[acc["read"].to_numpy()].sum())
    assert r.link_out == int(wire[acc["write"].to_numpy()].sum())
    assert r.traffic_in == int(acc.loc[acc["read"], "bytes"].sum())


def test_compression_with_ratios_above_one_never_adds_link_bytes() -> None:
    net = dnnmem.network("mobilenet_v2", batch=4)
    for cap in (0, 2 * MiB, 16 * MiB):
        raw = dnnmem.estimate(net, capacity=cap)
        comp = dnnmem.estimate(net, capacity=cap, policy="lookahead + ratio(activation=2.7)")
        assert comp.link_in <= comp.traffic_in and comp.link_out <= comp.traffic_out
        assert comp.link_in < raw.link_in
        # The cache decisions (kept intervals) do not depend on the link: same footprints.
        assert comp.counts["kept"] == raw.counts["kept"]


def test_compressor_cap_slows_transfers_and_vanishes_when_fast() -> None:
    net = dnnmem.network("resnet18", batch=8)
    base = dnnmem.estimate(net, capacity=0, policy="none + ratio(all=4)")
    slow = dnnmem.estimate(net, capacity=0, policy="none + ratio(all=4, cap=100GB/s)")
    fast = dnnmem.estimate(net, capacity=0, policy="none + ratio(all=4, cap=5TB/s)")
    # At capacity 0 every byte streams. Ratio 4 on 616 GB/s carries 2.464 TB/s of uncompressed
    # data: a 100 GB/s compressor is the limit, a 5 TB/s one never is.
    assert slow.time > base.time
    assert fast.time == base.time
    assert slow.link_in == base.link_in  # the cap costs time, not bytes


# -- the systolic compute model, by hand --------------------------------------------------------


def _dense(inputs: int, units: int) -> dict:
    return {
        "name": "fc",
        "layers": [
            {"name": "x", "kind": "input", "shape": [inputs]},
            {"name": "d", "kind": "dense", "inputs": ["x"], "units": units, "use_bias": False},
            {"name": "r", "kind": "relu", "inputs": ["d"]},
        ],
    }


def test_systolic_gemm_that_fills_the_array() -> None:
    """A 4x4 weight-stationary array, dense 4 -> 4 at batch 4: forward GEMM m = 4 (batch),
    k = 4, n = 4 -- one fold, 2·4 + 4 + 4 - 2 = 14 cycles; throughput 2·4·4 FLOP/cycle at 1 GHz =
    32 GFLOP/s, so 14 ns. Its utilisation: 64 MACs / (16 · 14) = 2/7. The relu (16 FLOPs) runs
    on the vector unit at half the peak: 16 / 16e9 s = 1 ns."""
    net = dnnmem.load_network(_dense(4, 4), batch=4)
    r = dnnmem.estimate(
        net,
        policy="inference + none + systolic(rows=4, cols=4, vector=0.5)",
        throughput=32e9,
        bandwidth=1e15,
    )
    compute = dict(zip(r.steps["name"], r.steps["compute_time"]))
    assert compute["F:d"] == pytest.approx(14e-9, rel=1e-12)
    assert compute["F:r"] == pytest.approx(1e-9, rel=1e-12)
    # Peak would be 2·64 FLOPs / 32e9 = 4 ns: the array reaches 4 / 14 = 2/7 of it.
    peak = dnnmem.estimate(net, policy="inference + none", throughput=32e9, bandwidth=1e15)
    assert dict(zip(peak.steps["name"], peak.steps["compute_time"]))["F:d"] == pytest.approx(4e-9)


def test_systolic_gemm_that_does_not_fill_the_array() -> None:
    """The same array, dense 5 -> 6 at batch 3: m = 3, k = 5, n = 6. Weight stationary: S_R = k
    = 5 -> 2 row folds, S_C = n = 6 -> 2 column folds, 4 folds of 2·4 + 4 + 3 - 2 = 13 cycles =
    52 cycles. Output stationary: S_R = m = 3 (1 fold), S_C = n = 6 (2 folds), T = k = 5: 2 folds
    of 4 + 4 + 5 - 2 = 11 = 22 cycles. Two arrays share the ws folds: ceil(4/2) · 13 = 26 cycles
    at a peak of 2·4·4·2 FLOP/cycle."""
    net = dnnmem.load_network(_dense(5, 6), batch=3)
    for options, cycles, per_cycle in (("", 52, 32), ("dataflow=os", 22, 32), ("arrays=2", 26, 64)):
        sep = ", " if options else ""
        r = dnnmem.estimate(
            net,
            policy=f"inference + none + systolic(rows=4, cols=4{sep}{options})",
            throughput=per_cycle * 1e9,
            bandwidth=1e15,
        )
        got = dict(zip(r.steps["name"], r.steps["compute_time"]))["F:d"]
        assert got == pytest.approx(cycles * 1e-9, rel=1e-12), options


def test_systolic_waves_by_hand() -> None:
    """Dense 12 -> 4 at batch 10 on a 4x4 weight-stationary array: m = 10, k = 12, n = 4, three
    blocks of W (k / 4). Folds (SCALE-Sim): 3 x (2·4 + 4 + 10 - 2) = 60 cycles. Pipelined: each
    wave waits 4 cycles for its block, no drain between: 3 x (4 + 10) + 4 + 4 - 2 = 48.
    Double-buffered: the first load 4, waves of 10, fill and drain 6: 40. Double-buffered in
    tiles of 3 rows: waves of 3, 3, 3, 1 per block, each waiting max(t, 4) but the last:
    4 + 11 · 4 + 1 + 6 = 55. At 32 FLOP per cycle and 32 GFLOP/s a cycle is 1 ns."""
    net = dnnmem.load_network(_dense(12, 4), batch=10)
    for options, cycles in (
        ("", 60),
        (", waves=pipelined", 48),
        (", waves=double-buffered", 40),
        (", waves=double-buffered, tile=3", 55),
    ):
        r = dnnmem.estimate(
            net,
            policy=f"inference + none + systolic(rows=4, cols=4{options})",
            throughput=32e9,
            bandwidth=1e15,
        )
        got = dict(zip(r.steps["name"], r.steps["compute_time"]))["F:d"]
        assert got == pytest.approx(cycles * 1e-9, rel=1e-12), options
    with pytest.raises(ValueError, match="output stationary preloads nothing"):
        dnnmem.estimate(
            net, policy="inference + none + systolic(rows=4, cols=4, dataflow=os, "
            "waves=pipelined)", throughput=32e9, bandwidth=1e15,
        )  # fmt: skip


def test_npu_presets_bring_their_systolic_array() -> None:
    hw = dnnmem.hardware("igo-edge-npu")
    assert hw.compute == "systolic(rows=45, cols=45)"
    r = dnnmem.estimate("resnet18", hardware=hw, batch=2)
    assert r.composition.compute is not None and r.composition.compute.name == "systolic"
    assert r.policy == "lookahead + systolic(rows=45, cols=45)"
    # An explicit compute model wins over the hardware's.
    assert (
        dnnmem.estimate("resnet18", hardware=hw, batch=2, policy="lookahead + peak").policy
        == "lookahead + peak"
    )
    assert dnnmem.hardware("a100").compute == ""


def test_yaml_sweep_and_cli_take_compositions(tmp_path, capsys) -> None:
    from dnnmem import cli

    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "network: resnet18\nbatch: 2\ncapacity: [0, 8MiB]\n"
        "policy: [lookahead, 'split-backward(first=dw) + lru + ratio(activation=2)']\n"
    )
    out = tmp_path / "out.csv"
    assert cli.main(["sweep", str(spec), "-o", str(out)]) == 0
    import pandas as pd

    df = pd.read_csv(out)
    assert sorted(set(df["policy"])) == [
        "lookahead",
        "split-backward(first=dw) + lru + ratio(activation=2)",
    ]
    api = dnnmem.sweep(
        "resnet18",
        batch=2,
        capacity=[0, "8MiB"],
        policy=["lookahead", "lru + ratio(activation=2) + split-backward(first=dw)"],
        progress=False,
    )
    assert list(api["time"]) == list(df["time"])
    assert list(api["link_in"]) == list(df["link_in"])
    capsys.readouterr()
    assert (
        cli.main(
            [
                "estimate",
                "--network",
                "resnet18",
                "--batch",
                "2",
                "--policy",
                "inference + belady + systolic(rows=64, cols=64)",
            ]
        )
        == 0
    )
    assert "inference + belady + systolic(rows=64, cols=64)" in capsys.readouterr().out
    assert cli.main(["estimate", "--network", "resnet18", "--policy", "lru + none"]) == 2
    assert "two cache managers" in capsys.readouterr().err


def test_executor_chunks_carry_the_composition() -> None:
    """With an executor, each chunk rebuilds the schedule of its scheduler and prepares its
    policies in the worker: rows equal the in-process sweep exactly."""
    from concurrent.futures import ThreadPoolExecutor

    policies = [
        "lookahead",
        "split-backward(first=dw) + lru + ratio(all=2)",
        "inference + belady + systolic(rows=16, cols=16)",
    ]
    kwargs = dict(batch=2, capacity=[0, "4MiB", "32MiB"], policy=policies, progress=False)
    local = dnnmem.sweep("resnet18", **kwargs)
    with ThreadPoolExecutor(2) as ex:
        remote = dnnmem.sweep("resnet18", executor=ex, chunk_size=2, **kwargs)
    for col in ("policy", "time", "traffic_in", "link_in", "flops"):
        assert list(local[col]) == list(remote[col]), col
    assert set(local["scheduler"]) == {"default", "split-backward", "inference"}
