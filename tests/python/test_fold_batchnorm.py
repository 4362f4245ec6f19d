"""Network.fold_batchnorm (docs/model/network.md, "Folding batch norms"): hand-computed on a
small graph, and the zoo's ResNet-50 against what the page's rules predict from the unfolded
network's own layer table."""

from __future__ import annotations

import oracle
import pytest
from oracle import fold_batchnorm_expectation
from test_policies_oracle import compare_with_oracle

import dnnmem

DOC = {
    "name": "fold",
    "layers": [
        {"name": "x", "kind": "input", "shape": [4, 4, 3]},
        # folds: c1 has no bias (3·3·3·8 = 216 weights, 8 more after folding)
        {"name": "c1", "kind": "conv2d", "inputs": ["x"], "filters": 8, "kernel_size": 3,
         "padding": "same", "use_bias": False},
        {"name": "b1", "kind": "batchnorm", "inputs": ["c1"]},
        {"name": "r1", "kind": "relu", "inputs": ["b1"]},
        # stays: c2's output is read by b2 and by the add
        {"name": "c2", "kind": "conv2d", "inputs": ["r1"], "filters": 8, "kernel_size": 1},
        {"name": "b2", "kind": "batchnorm", "inputs": ["c2"]},
        {"name": "a", "kind": "add", "inputs": ["b2", "c2"]},
        # stays: a batch norm after an add
        {"name": "b3", "kind": "batchnorm", "inputs": ["a"]},
    ],
}  # fmt: skip


def test_by_hand() -> None:
    net = dnnmem.load_network(DOC, batch=2, bytes_per_element=2)
    folded = net.fold_batchnorm()
    layers = folded.to_dict()["layers"]
    assert [layer["name"] for layer in layers] == ["x", "c1", "r1", "c2", "b2", "a", "b3"]
    by = {layer["name"]: layer for layer in layers}
    assert by["r1"]["inputs"] == ["c1"] and by["c1"]["use_bias"] is True
    assert by["a"]["inputs"] == ["b2", "c2"]
    # b1: γ, β (16) and moving mean, variance (16) go; c1 gains 8 biases
    assert net.params - folded.params == 32 - 8
    # b1's forward: 5 FLOPs per output element, 2 × 4 × 4 × 8 elements
    assert net.flops.forward - folded.flops.forward == 5 * 2 * 4 * 4 * 8
    # in inference, b1's output and its W and S tensors are gone (in training its dY and dW too)
    before, after = (n.with_scheduler("inference").tensors for n in (net, folded))
    assert set(before["name"]) - set(after["name"]) == {"Y:b1", "W:b1", "S:b1"}
    assert len(after) == len(before) - 3
    assert folded.batch == 2 and folded.bytes_per_element == 2 and folded.name == "fold"
    # nothing left to fold: the same object back
    assert folded.fold_batchnorm() is folded


def test_inference_estimate_by_hand() -> None:
    """With every tensor on chip (∞ SPM) and b1 folded, the inference moves no activation
    between c1 and r1: the folded estimate's traffic is the unfolded one's less b1's weights."""
    net = dnnmem.load_network(DOC, batch=1, bytes_per_element=2)
    hw = dnnmem.hardware("onsram")
    full = dnnmem.estimate(net, hw, policy="inference + infinite-spm")
    folded = dnnmem.estimate(net.fold_batchnorm(), hw, policy="inference + infinite-spm")
    # b1's W and S: 4 × 8 elements × 2 B read once; c1's bias: 8 × 2 B more
    assert full.traffic - folded.traffic == 4 * 8 * 2 - 8 * 2


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_v1"])
def test_zoo_against_the_rules(name: str) -> None:
    net = dnnmem.network(name, batch=1, bytes_per_element=2)
    folded = net.fold_batchnorm()
    expect = fold_batchnorm_expectation(net)
    assert expect["folded"] > 0
    assert len(folded.layers) == len(net.layers) - expect["folded"]
    assert folded.params == net.params - expect["params_removed"]
    assert folded.flops.forward == net.flops.forward - expect["forward_flops_removed"]
    kinds = folded.layers["kind"].value_counts()
    assert kinds.get("batchnorm", 0) == expect["batchnorm_left"]


@pytest.mark.parametrize("cache", ["none", "one-step", "onsram-static", "infinite-spm"])
def test_folded_inference_matches_the_oracle(cache: str) -> None:
    """The folded graph is an ordinary network: the OnSRAM managers on it agree with
    tests/python/oracle.py (a 600-byte SPM, memory-bound at 10^6 FLOP/s)."""
    net = dnnmem.load_network(DOC, batch=1).fold_batchnorm()
    policy = dnnmem.Policy.parse(f"inference + {cache}")
    o = oracle.estimate(net.with_scheduler(policy.scheduler), 600, 10**6, 10**6, cache)
    r = dnnmem.estimate(net, policy=policy, capacity=600, bandwidth=10**6, throughput=10**6)
    compare_with_oracle(r, o, str(policy))
