"""dnnmem's ``pointwise`` fusion against PyTorch Inductor (docs/model/fusion.md, "Checked
against Inductor"), from the compiler's facts in tests/data/inductor (written by
scripts/inductor_groups.py; no torch needed)."""

from __future__ import annotations

import pytest
from inductor_compare import DATA, NETWORKS, compare, load

# (facts that agree, facts compared) per network, and every disagreement (layer, fact), each
# explained on the page.
AGREEMENT = {
    "resnet18": (178, 180),
    "resnet50": (472, 474),
    "mobilenet_v2": (430, 431),
    "bert_layer": (34, 49),
}
CNN = {("bn1", "gradient"), ("relu", "saved")}
BERT_SELF = "layer.attention.self"
DIFFERENCES = {
    "resnet18": CNN,
    "resnet50": CNN,
    "mobilenet_v2": {("adaptive_avg_pool2d", "gradient")},
    "bert_layer": {
        (f"{BERT_SELF}.query", "saved"),
        (f"{BERT_SELF}.key", "saved"),
        (f"{BERT_SELF}.query", "gradient"),
        (f"{BERT_SELF}.key", "gradient"),
        (f"{BERT_SELF}.value", "gradient"),
        (f"{BERT_SELF}.matmul", "gradient"),
        (f"{BERT_SELF}.dropout", "gradient"),
        (f"{BERT_SELF}.matmul", "saved"),
        (f"{BERT_SELF}.softmax", "saved"),
        ("layer.attention.output.dense", "saved"),
        ("layer.attention.output", "written"),
        ("layer.attention.output", "saved"),
        ("layer.output", "written"),
        ("layer.output", "saved"),
        ("layer.output.LayerNorm", "saved"),
    },
}


@pytest.mark.parametrize("name", NETWORKS)
def test_agreement_with_inductor(name: str) -> None:
    rows = compare(name)
    same = sum(r["inductor"] == r["dnnmem"] for r in rows)
    assert (same, len(rows)) == AGREEMENT[name]
    assert {(r["layer"], r["fact"]) for r in rows if r["inductor"] != r["dnnmem"]} == (
        DIFFERENCES[name]
    )


@pytest.mark.parametrize("name", NETWORKS)
def test_provenance(name: str) -> None:
    facts = load(name)
    assert facts["torch"].startswith("2.")
    assert facts["command"] == (
        f"python scripts/inductor_groups.py {name} -o tests/data/inductor/{name}.json"
    )
    assert facts["forward"]["nodes"] and facts["backward"]["nodes"]
    assert (DATA / f"{name}.json").stat().st_size < 1_000_000


def test_the_comparison_can_fail() -> None:
    """A ReLU written by dnnmem but not by Inductor would show: flip one fact and compare."""
    rows = compare("resnet18")
    conv = next(r for r in rows if r["layer"] == "conv1" and r["fact"] == "written")
    assert conv["inductor"] and conv["dnnmem"]  # a library call's output: both write it
    relu = next(r for r in rows if r["layer"] == "layer1.0.relu" and r["fact"] == "saved")
    assert relu["inductor"] and relu["dnnmem"]  # the next convolution's input: both save it
    bn = next(r for r in rows if r["layer"] == "layer1.0.bn1" and r["fact"] == "written")
    assert not bn["inductor"] and not bn["dnnmem"]  # fused into the ReLU's loop: never written
