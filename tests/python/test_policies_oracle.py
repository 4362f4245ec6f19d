"""The C++ ``no-lookahead`` and ``lru`` policies against the pure-Python oracle (oracle.py,
readings N1–N4 and L1–L6 of its module docstring), exactly: traffic in and out to the byte, the
time, capacity stall and drain to a relative 1e-12, the plan counts, and per step the bytes in
and out and the start and end times.

The reference values (test_reference_estimate.py) have none for these two ablations, so the
oracle is the reference: on the
two reference networks at the reference capacities, and on random small networks (a hypothesis
test) that mix convolutions, residual adds, concats, shared weights and a tied embedding, whose
partial row accesses exercise N3 and L5.
"""

from __future__ import annotations

import math
import os

import oracle
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dnnmem

MiB = 2**20
BANDWIDTH, THROUGHPUT = 616 * 10**9, 1345 * 10**10
POLICIES = ("no-lookahead", "lru")
NETWORKS = {"resnet50": 32, "transformer": 128}
CAPACITIES = (0, 24 * MiB, 128 * MiB, 500 * MiB, 2**50)


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= 1e-12 * max(abs(scale), 1e-300)


def check_against_oracle(
    net: dnnmem.Network,
    policy: str,
    capacity: int,
    bandwidth: int = BANDWIDTH,
    throughput: int = THROUGHPUT,
) -> None:
    o = oracle.estimate(net, capacity, bandwidth, throughput, policy)
    r = dnnmem.estimate(
        net, policy=policy, capacity=capacity, bandwidth=bandwidth, throughput=throughput
    )
    compare_with_oracle(r, o, f"{net.name} N={net.batch} {policy} capacity={capacity}")


def compare_with_oracle(r: dnnmem.Result, o: dict, where: str) -> None:
    """A Result against an oracle run: bytes (the link's too), counts and per-step bytes
    exactly, times to a relative 1e-12 of the iteration."""
    assert (r.traffic_in, r.traffic_out) == (o["traffic_in"], o["traffic_out"]), where
    assert (r.link_in, r.link_out) == (o["link_in"], o["link_out"]), where
    assert r.counts == {k: o[k] for k in ("kept", "prefetched", "born", "offloads")}, where
    time = float(o["time"])
    assert _close(r.time, time, time), where
    assert _close(r.capacity_stall_time, float(o["capacity_stall"]), time), where
    assert _close(r.drain_time, float(o["drain"]), time), where
    steps = r.steps
    for mine, theirs in (
        ("bytes_in", "bytes_in"),
        ("bytes_out", "bytes_out"),
        ("link_in", "wire_in"),
        ("link_out", "wire_out"),
        ("bytes_streamed_in", "streamed_in"),
        ("bytes_streamed_out", "streamed_out"),
    ):
        assert list(steps[mine]) == [d[theirs] for d in o["steps"]], (where, mine)
    for key in ("start", "end"):
        mine, ref = list(steps[key]), [float(d[key]) for d in o["steps"]]
        bad = [i for i, (a, b) in enumerate(zip(mine, ref)) if not _close(a, b, time)]
        assert not bad, f"{where}: step {key} differs at steps {bad[:5]}"


@pytest.fixture(scope="module")
def reference_nets():
    return {name: dnnmem.network(name, batch=b) for name, b in NETWORKS.items()}


@pytest.mark.parametrize("capacity", CAPACITIES, ids=["0", "24MiB", "128MiB", "500MiB", "huge"])
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", list(NETWORKS))
def test_reference_networks(reference_nets, name, policy, capacity):
    check_against_oracle(reference_nets[name], policy, capacity)


def test_public_api_matches_oracle_with_unit_strings(reference_nets):
    net = reference_nets["resnet50"]
    o = oracle.estimate(net, 128 * MiB, BANDWIDTH, THROUGHPUT, "lru")
    r = dnnmem.estimate(
        net, policy="lru", capacity=128 * MiB, bandwidth="616GB/s", throughput="13.45TFLOPS"
    )
    assert (r.traffic_in, r.traffic_out) == (o["traffic_in"], o["traffic_out"])
    assert math.isclose(r.time, float(o["time"]), rel_tol=1e-12)


def test_no_lookahead_moves_only_the_writes(reference_nets):
    """N1: traffic and plan counts are lookahead's; only the timing of the writes changes."""
    for net in reference_nets.values():
        for capacity in CAPACITIES:
            a = dnnmem.estimate(
                net,
                policy="lookahead",
                capacity=capacity,
                bandwidth=BANDWIDTH,
                throughput=THROUGHPUT,
            )
            b = dnnmem.estimate(
                net,
                policy="no-lookahead",
                capacity=capacity,
                bandwidth=BANDWIDTH,
                throughput=THROUGHPUT,
            )
            assert (a.traffic_in, a.traffic_out, a.counts) == (
                b.traffic_in,
                b.traffic_out,
                b.counts,
            )


def test_lru_at_capacity_zero_is_none(reference_nets):
    net = reference_nets["transformer"]
    a = dnnmem.estimate(net, policy="none", capacity=0, bandwidth=BANDWIDTH, throughput=THROUGHPUT)
    b = dnnmem.estimate(net, policy="lru", capacity=0, bandwidth=BANDWIDTH, throughput=THROUGHPUT)
    assert (a.traffic_in, a.traffic_out, a.time) == (b.traffic_in, b.traffic_out, b.time)


# ---------------------------------------------------------------------------------------------
# Random small networks
# ---------------------------------------------------------------------------------------------


@st.composite
def random_network(draw) -> dict:
    """A small random DAG: an image branch (conv / norm / activations, residual adds, concats,
    multiplies, a pair of convolutions sharing one weight) ending in one or more outputs, and
    optionally a token branch with a tied embedding (partial row reads and writes of W and dW)."""
    layers: list[dict] = []
    shapes: dict[str, tuple[int, int, int]] = {}  # image-branch node -> (H, W, C)
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    c0 = draw(st.integers(1, 4))
    layers.append({"name": "x", "kind": "input", "shape": [h, w, c0]})
    shapes["x"] = (h, w, c0)
    for i in range(draw(st.integers(1, 9))):
        name = f"l{i}"
        nodes = list(shapes)
        kind = draw(
            st.sampled_from(
                [
                    "conv2d",
                    "conv2d",
                    "relu",
                    "batchnorm",
                    "sigmoid",
                    "add",
                    "concat",
                    "multiply",
                    "dropout",
                    "shared_conv",
                ]
            )
        )
        src = draw(st.sampled_from(nodes))
        sh = shapes[src]
        if kind in ("add", "multiply", "concat"):
            others = [
                m
                for m in nodes
                if m != src and shapes[m][:2] == sh[:2] and (kind == "concat" or shapes[m] == sh)
            ]
            if not others:
                kind = "relu"
            else:
                other = draw(st.sampled_from(others))
                layer = {"name": name, "kind": kind, "inputs": [src, other]}
                if kind == "concat":
                    layer["axis"] = -1
                    sh = (sh[0], sh[1], sh[2] + shapes[other][2])
                layers.append(layer)
                shapes[name] = sh
                continue
        if kind == "conv2d":
            filters = draw(st.sampled_from([1, 2, 4, 8]))
            layers.append(
                {
                    "name": name,
                    "kind": "conv2d",
                    "inputs": [src],
                    "filters": filters,
                    "kernel_size": draw(st.sampled_from([1, 3])),
                    "padding": "same",
                    "use_bias": draw(st.booleans()),
                }
            )
            shapes[name] = (sh[0], sh[1], filters)
        elif kind == "shared_conv":
            wname = f"shared{sh[2]}"
            layers.append(
                {
                    "name": name,
                    "kind": "conv2d",
                    "inputs": [src],
                    "filters": sh[2],
                    "kernel_size": 1,
                    "padding": "same",
                    "weights": wname,
                }
            )
            shapes[name] = sh
        elif kind == "dropout":
            layers.append({"name": name, "kind": "dropout", "inputs": [src], "rate": 0.1})
            shapes[name] = sh
        else:
            layers.append({"name": name, "kind": kind, "inputs": [src]})
            shapes[name] = sh
    if draw(st.booleans()):
        last = list(shapes)[-1]
        layers.append({"name": "gap", "kind": "global_avgpool", "inputs": [last]})
        layers.append(
            {"name": "fc", "kind": "dense", "inputs": ["gap"], "units": draw(st.integers(1, 6))}
        )
    if draw(st.booleans()):
        vocab, dim, seq = draw(st.integers(2, 40)), draw(st.integers(1, 8)), draw(st.integers(1, 6))
        layers.append({"name": "ids", "kind": "input", "shape": [seq], "dtype": "int32"})
        y = "emb0"
        layers.append(
            {
                "name": y,
                "kind": "embedding",
                "inputs": ["ids"],
                "input_dim": vocab,
                "output_dim": dim,
                "weights": "emb",
            }
        )
        if draw(st.booleans()):
            layers.append(
                {
                    "name": "emb1",
                    "kind": "embedding",
                    "inputs": ["ids"],
                    "input_dim": vocab,
                    "output_dim": dim,
                    "weights": "emb",
                }
            )
            layers.append({"name": "esum", "kind": "add", "inputs": [y, "emb1"]})
            y = "esum"
        if draw(st.booleans()):
            layers.append({"name": "eh", "kind": "dense", "inputs": [y], "units": dim})
            layers.append({"name": "ea", "kind": "relu", "inputs": ["eh"]})
            y = "ea"
        layers.append(
            {
                "name": "logits",
                "kind": "dense",
                "inputs": [y],
                "units": vocab,
                "use_bias": False,
                "weights": "emb" if draw(st.booleans()) else "proj",
            }
        )
    return {"name": "random", "layers": layers}


@st.composite
def design_point(draw):
    doc = draw(random_network())
    net = dnnmem.load_network(doc, batch=draw(st.integers(1, 4)))
    peak = net.peak_alive_bytes
    largest = int(net.tensors["bytes"].max())
    capacity = draw(
        st.one_of(
            st.integers(0, 2 * peak + 1),
            st.integers(0, 2 * largest + 1),
            st.sampled_from([0, peak, peak + 1, largest, 2**50]),
        )
    )
    bandwidth = draw(st.sampled_from([10**6, 10**8, 616 * 10**9, 3 * 10**12]))
    throughput = draw(st.sampled_from([10**8, 10**10, 1345 * 10**10]))
    return net, capacity, bandwidth, throughput


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(point=design_point(), policy=st.sampled_from(POLICIES))
def test_random_networks(point, policy):
    net, capacity, bandwidth, throughput = point
    check_against_oracle(net, policy, capacity, bandwidth, throughput)


# ---------------------------------------------------------------------------------------------
# The thesis planners' option streaming=through-cache (oracle readings T1–T3)
# ---------------------------------------------------------------------------------------------
THROUGH_EXAMPLES = int(os.environ.get("DNNMEM_HYPOTHESIS_EXAMPLES", "20"))


def check_through_cache(net, policy, capacity, bandwidth=BANDWIDTH, throughput=THROUGHPUT):
    o = oracle.estimate(
        net, capacity, bandwidth, throughput, policy, cache_options={"streaming": "through-cache"}
    )
    r = dnnmem.estimate(
        net,
        policy=f"{policy}(streaming=through-cache)",
        capacity=capacity,
        bandwidth=bandwidth,
        throughput=throughput,
    )
    compare_with_oracle(r, o, f"{net.name} N={net.batch} {policy} through-cache {capacity}")


@settings(
    max_examples=THROUGH_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    point=design_point(),
    policy=st.sampled_from(["lookahead", "belady", "prefetch-next", "no-lookahead"]),
)
def test_through_cache_random_networks(point, policy):
    net, capacity, bandwidth, throughput = point
    check_through_cache(net, policy, capacity, bandwidth, throughput)
