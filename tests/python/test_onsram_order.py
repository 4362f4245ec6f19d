"""The breadth-first node order (docs/model/onsram.md, rules O9 and O12): against the
pure-Python oracle written from the docs, and 1-Step on a fork by hand in both orders."""

from __future__ import annotations

import oracle
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_schedulers import list_order
from test_policies_oracle import compare_with_oracle, random_network

import dnnmem

# x -> a, b (1x1 convs, both read x); ra = relu(a), rb = relu(b); d = ra + rb.
FORK = {
    "name": "fork",
    "layers": [
        {"name": "x", "kind": "input", "shape": [8, 8, 4]},
        {"name": "a", "kind": "conv2d", "inputs": ["x"], "filters": 4, "kernel_size": 1},
        {"name": "b", "kind": "conv2d", "inputs": ["x"], "filters": 4, "kernel_size": 1},
        {"name": "ra", "kind": "relu", "inputs": ["a"]},
        {"name": "rb", "kind": "relu", "inputs": ["b"]},
        {"name": "d", "kind": "add", "inputs": ["ra", "rb"]},
    ],
}
ACT = 8 * 8 * 4 * 4  # bytes of every activation: 1024
W = (4 * 4 + 4) * 4  # a 1x1 conv's weight and bias: 80
BW = 10**9  # bytes/s
FLOPS = 10**12  # FLOP/s
# As docs/model/network.md counts them: a 1x1 conv 4 -> 4 on 64 pixels 2048, relu 256, add 512.
FLOP = {"a": 2048, "b": 2048, "ra": 256, "rb": 256, "d": 512}


@pytest.mark.parametrize("name", ["googlenet", "squeezenet", "mha_block", "resnet50"])
@pytest.mark.parametrize("order", ["bfs", "hybrid"])
def test_list_orders_match_the_oracle(name: str, order: str) -> None:
    """Rule O9 on the paper's branching networks (batch norms folded, as the page runs them)."""
    net = dnnmem.network(name, batch=1).fold_batchnorm()
    steps = list(net.with_scheduler(f"inference(order={order})").steps["layer"])
    assert steps == list_order(net, order)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=random_network(), order=st.sampled_from(["bfs", "hybrid"]))
def test_list_orders_match_the_oracle_on_random_graphs(doc: dict, order: str) -> None:
    net = dnnmem.load_network(doc, batch=1)
    steps = list(net.with_scheduler(f"inference(order={order})").steps["layer"])
    assert steps == list_order(net, order)


def _one_step(order: str) -> dnnmem.Result:
    net = dnnmem.load_network(FORK, batch=1)
    return dnnmem.estimate(
        net,
        policy=f"inference(order={order}) + one-step",
        capacity=4 * ACT,
        bandwidth=BW,
        throughput=FLOPS,
    )


def _check(r: dnnmem.Result, layers: list[str], bytes_in: list[int], bytes_out: list[int]) -> None:
    """Every step's bytes and its time max(compute, bytes / bandwidth) (rule O1)."""
    s = r.steps
    assert list(s["layer"]) == layers
    assert list(s["bytes_in"]) == bytes_in
    assert list(s["bytes_out"]) == bytes_out
    want = [
        max(FLOP[n] / FLOPS, (i + o) / BW)
        for n, i, o in zip(layers, bytes_in, bytes_out, strict=True)
    ]
    assert list(s["end"] - s["start"]) == pytest.approx(want, rel=1e-12)
    assert r.time == pytest.approx(sum(want), rel=1e-12)


def test_one_step_on_a_fork_by_hand() -> None:
    """Rule O5 in the two orders. Depth-first (thesis = hybrid here) runs a ra b rb d: Y:a (steps
    0-1), Y:b (2-3) and Y:rb (3-4) are read by the next step and kept; Y:x (read at 0 and 2)
    and Y:ra (1 and 4) are not. Breadth-first runs a b ra rb d: only Y:x (0-1, an input: loaded
    once, found on chip by b) and Y:rb (3-4) are; each convolution's output waits a step for
    its ReLU and goes to DRAM and back, as under No SPM Mgmt."""
    thesis = _one_step("thesis")
    _check(
        thesis,
        ["a", "ra", "b", "rb", "d"],
        [ACT + W, 0, ACT + W, 0, ACT],
        [0, ACT, 0, 0, ACT],
    )
    bfs = _one_step("bfs")
    _check(
        bfs,
        ["a", "b", "ra", "rb", "d"],
        [ACT + W, W, ACT, ACT, ACT],
        [ACT, ACT, ACT, 0, ACT],
    )
    assert thesis.counts["born"] == 3 and bfs.counts["born"] == 2
    assert _one_step("hybrid").time == thesis.time < bfs.time
    # No SPM Mgmt and infinite SPM do not depend on the order (rule O1).
    net = dnnmem.load_network(FORK, batch=1)
    for cache in ("none", "infinite-spm"):
        t = {
            o: dnnmem.estimate(
                net, policy=f"inference(order={o}) + {cache}", capacity=0, bandwidth=BW,
                throughput=FLOPS,
            ).time
            for o in ("thesis", "bfs")
        }  # fmt: skip
        assert t["thesis"] == t["bfs"], cache
    # The managers' plan in breadth-first order, against the oracle (every byte, every time).
    scheduled = net.with_scheduler("inference(order=bfs)")
    for cache in ("one-step", "lru", "fifo", "onsram-static"):
        r = dnnmem.estimate(
            net,
            policy=f"inference(order=bfs) + {cache}",
            capacity=2 * ACT,
            bandwidth=BW,
            throughput=FLOPS,
        )
        o = oracle.estimate(scheduled, 2 * ACT, BW, FLOPS, cache)
        compare_with_oracle(r, o, cache)


def test_mobilenet_reads_each_tensor_once() -> None:
    """The page's write-around bound (docs/seeds/onsram.md, "OnSRAM-Static over the best of
    LRU, FIFO"): no tensor of MobileNetV1's inference graph is read by two steps, so a cache that
    does not allocate on writes would hit nothing there."""
    net = dnnmem.network("mobilenet_v1", batch=1, bytes_per_element=2).fold_batchnorm()
    acc = net.with_scheduler("inference(order=bfs)").accesses
    assert acc[acc["read"]].groupby("tensor")["step"].nunique().max() == 1
