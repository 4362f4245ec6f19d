"""The ``thesis`` reading (dnnmem.thesis_reading) against the thesis's three calibration
observations, and the defaults it must leave alone.

The thesis's Chapter 5 (Tsai, master's thesis, National Taiwan University, 2021) reports:
ResNet-50's time falls by 48.1 % from 24 to 500 MiB, GNMT's off-chip traffic by 96.6 % from
24 to 500 MiB, the Transformer's by 67 % from 24 to 128 MiB (RTX 2080 Ti, Table 5.1's
batches). Under the reading the first two are within 3 points; the third is a documented gap
(docs/thesis-figures.md, "Fidelity to the thesis"), asserted as the value we measure and as
a strict xfail against the thesis's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import dnnmem

THESIS = Path(__file__).resolve().parents[2] / "sweeps" / "thesis"
MIB = 2**20
RTX = {"bandwidth": 616e9, "throughput": 13.45e12}


def drop(reading: dnnmem.ThesisReading, workload: str, quantity: str, lo: int, hi: int) -> float:
    """1 − quantity(hi MiB) / quantity(lo MiB) under ``reading`` on the RTX 2080 Ti."""
    net = reading.network(workload)
    vals = [
        getattr(
            dnnmem.estimate(
                net, policy=reading.policy, capacity=c * MIB, ops_per_mac=reading.ops_per_mac, **RTX
            ),
            quantity,
        )
        for c in (lo, hi)
    ]
    return 1 - vals[1] / vals[0]


@pytest.fixture(scope="module")
def thesis() -> dnnmem.ThesisReading:
    return dnnmem.thesis_reading()


# -- the three observations under the thesis reading ----------------------------------------
def test_resnet50_time_drop_24_to_500(thesis):
    assert drop(thesis, "resnet50", "time", 24, 500) == pytest.approx(0.481, abs=0.03)


def test_gnmt_traffic_drop_24_to_500(thesis):
    assert drop(thesis, "gnmt", "traffic", 24, 500) == pytest.approx(0.966, abs=0.03)


def test_transformer_traffic_drop_24_to_128_is_the_documented_gap(thesis):
    # No reading the thesis's text supports reaches 67 %; the page documents 51.0 %.
    assert drop(thesis, "transformer", "traffic", 24, 128) == pytest.approx(0.510, abs=0.005)


@pytest.mark.xfail(
    strict=True,
    reason="documented gap: docs/thesis-figures.md, Fidelity (at 24 MiB dnnmem already moves "
    "97 % of the no-cache traffic, so 67 % needs the 128-MiB traffic of 500 MiB and more; the "
    "streaming rule through the cache lowers the drop to 33 %)",
)
def test_transformer_traffic_drop_24_to_128_matches_the_thesis(thesis):
    assert drop(thesis, "transformer", "traffic", 24, 128) == pytest.approx(0.67, abs=0.03)


# -- the streaming rule (lookahead's option, off by default) ---------------------------------
def test_streaming_option_default_is_free_and_bit_identical():
    net = dnnmem.network("mobilenet_v2", batch=2)
    for cap in (0.5 * MIB, 8 * MIB):
        a = dnnmem.estimate(net, capacity=cap, policy="lookahead")
        b = dnnmem.estimate(net, capacity=cap, policy="lookahead(streaming=free)")
        assert (a.time, a.traffic_in, a.traffic_out) == (b.time, b.traffic_in, b.traffic_out)
    with pytest.raises(ValueError, match="streaming"):
        dnnmem.estimate(net, capacity=MIB, policy="lookahead(streaming=rows)")


@pytest.mark.parametrize("policy", ["lookahead", "belady", "no-lookahead", "prefetch-next"])
def test_streaming_through_cache_invariants(policy):
    """A step's working set takes its share of the cache: resident data never exceeds the
    capacity, traffic lies between the free rule's and no cache's on this network, and with
    everything on chip the rule changes nothing (SPEC §8 property 1)."""
    net = dnnmem.network("mobilenet_v2", batch=2)
    none = dnnmem.estimate(net, capacity=MIB, policy="none").traffic
    for cap in (0.5 * MIB, 8 * MIB, 4096 * MIB):
        free = dnnmem.estimate(net, capacity=cap, policy=policy)
        th = dnnmem.estimate(net, capacity=cap, policy=f"{policy}(streaming=through-cache)")
        assert th.steps.resident_bytes.max() <= cap
        assert free.traffic <= th.traffic <= none
        assert th.time >= max(th.flops / th.hardware.throughput, th.traffic / th.hardware.bandwidth)
    assert th.traffic == free.traffic


def test_streaming_through_cache_moves_the_transformer_away_from_the_thesis(thesis):
    """The streaming rule of Listing 1 (every accessed tensor in the cache) is the suspected
    cause the page measures: it lowers the Transformer's drop (33.3 %), it does not raise it."""
    net = thesis.network("transformer")
    t = [
        dnnmem.estimate(
            net,
            policy="lookahead(streaming=through-cache)",
            capacity=c * MIB,
            ops_per_mac=1,
            **RTX,
        ).traffic
        for c in (24, 128)
    ]
    assert 1 - t[1] / t[0] == pytest.approx(0.333, abs=0.005)


def test_the_default_reading_misses_the_first_two():
    """The calibration set discriminates: the defaults are > 3 points off on each."""
    d = dnnmem.default_reading()
    assert drop(d, "resnet50", "time", 24, 500) == pytest.approx(0.288, abs=0.005)
    assert drop(d, "gnmt", "traffic", 24, 500) == pytest.approx(0.818, abs=0.005)


# -- what the reading is ----------------------------------------------------------------------
def test_reading_choices(thesis):
    assert (thesis.ops_per_mac, thesis.bytes_per_element, thesis.policy) == (1, 4, "lookahead")
    assert {w: (n, b) for w, (n, b, _) in thesis.workloads.items()} == {
        "resnet50": ("resnet50", 32),
        "mobilenet_v2": ("mobilenet_v2", 32),
        "gnmt": ("gnmt_thesis", 32),
        "transformer": ("transformer_thesis", 128),
    }
    hw = thesis.hardware(capacity="128MiB")
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (128 * MIB, 616e9, 13.45e12)
    assert thesis.network("gnmt").batch == 32
    assert thesis.network("gnmt", batch=4).batch == 4
    with pytest.raises(ValueError, match="workload: 'vgg16'"):
        thesis.network("vgg16")


def test_gnmt_thesis_is_the_4_plus_4_layer_model():
    # LSTM parameters 4·(in + 1024)·1024 + 4·1024 per layer: encoder 1f, 1b, 3, 4 and
    # decoder 1 read 1024-wide inputs (8,392,704 each), encoder 2 and decoder 2–4 2048-wide
    # ones (12,587,008 each); + 2 embeddings and the projection (32,000 × 1024 each) +
    # attention query and key matrices (1024 × 1024 each).
    lstm = 5 * 8_392_704 + 4 * 12_587_008
    expected = lstm + 3 * 32_000 * 1024 + 2 * 1024 * 1024
    net = dnnmem.network("gnmt_thesis", batch=1)
    assert net.name == "gnmt_thesis"
    assert net.params == expected == 192_712_704
    lstm_layers = {str(w).split("/W_")[0] for w in net.layers["weight"] if "/W_i" in str(w)}
    assert lstm_layers == {"enc1f", "enc1b", "enc2", "enc3", "enc4", "dec1", "dec2", "dec3", "dec4"}


def test_transformer_thesis_is_the_big_model():
    net = dnnmem.network("transformer_thesis", batch=1)
    assert net.name == "transformer_thesis"
    assert net.params == dnnmem.network("transformer", batch=1).params == 209_125_376


def test_defaults_unchanged():
    """The networks of the original papers stay as they are (docstring counts)."""
    assert dnnmem.network("gnmt", batch=1).params == 276_631_552
    assert dnnmem.network("transformer", batch=1).params == 209_125_376
    assert (
        dnnmem.estimate("resnet50", capacity="24MiB").flops
        == dnnmem.estimate("resnet50", capacity="24MiB", ops_per_mac=2).flops
    )


# -- the builder options the sensitivity table uses ------------------------------------------
def test_transformer_options():
    d, v = 1024, 32000
    base = dnnmem.network("transformer", batch=1).params
    no_proj = dnnmem.network("transformer", batch=1, vocab_projection=False)
    assert "out_proj" not in set(no_proj.layers["name"])
    assert no_proj.params == base  # tied: the projection has no weights of its own
    untied = dnnmem.network("transformer", batch=1, tie_embeddings=False)
    assert untied.params == base + 2 * v * d  # src, tgt and projection tables
    no_drop = dnnmem.network("transformer", batch=1, dropout=False)
    assert not (no_drop.layers["kind"] == "dropout").any()
    assert no_drop.params == base
    with pytest.raises(ValueError, match="dropout: must be True or False"):
        dnnmem.zoo.network_document("transformer", dropout=0)
    folded = dnnmem.network("transformer", batch=1, relu_layer=False)
    assert not (folded.layers["kind"] == "relu").any()
    assert folded.params == base


def test_gnmt_vocab_projection_option():
    net = dnnmem.network("gnmt", batch=1, seq_len=4, layers=2, vocab_projection=False)
    full = dnnmem.network("gnmt", batch=1, seq_len=4, layers=2)
    assert "softmax_proj" not in set(net.layers["name"])
    assert full.params - net.params == 1024 * 32000
    with pytest.raises(ValueError, match="vocab_projection"):
        dnnmem.zoo.network_document("gnmt", vocab_projection="no")


# -- the sweep script -------------------------------------------------------------------------
def test_fidelity_script_tables(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    sys.path.insert(0, str(THESIS))
    try:
        import _common
        import fidelity
    finally:
        sys.path.remove(str(THESIS))
    monkeypatch.setattr(_common, "RESULTS_DIR", tmp_path)
    m = fidelity.measure(fidelity.thesis_variant())
    assert m["resnet50 time drop 24→500 MiB"] == pytest.approx(0.481, abs=0.03)
    assert m["gnmt traffic drop 24→500 MiB"] == pytest.approx(0.966, abs=0.03)
    # One change at a time: ops_per_mac moves the time drop, not the traffic drops.
    one = fidelity.measure(fidelity.VARIANTS["ops_per_mac=1 (an operation is a MAC)"])
    base = fidelity.measure(fidelity.VARIANTS["default (ops_per_mac=2, FP32, paper networks)"])
    assert one["gnmt traffic drop 24→500 MiB"] == base["gnmt traffic drop 24→500 MiB"]
    assert one["resnet50 time drop 24→500 MiB"] > base["resnet50 time drop 24→500 MiB"] + 0.1
    obs = fidelity.observations_table(
        pd.DataFrame([{"reading": "default", **base}, {"reading": "thesis reading", **m}])
    )
    assert list(obs["thesis"]) == ["48.1 %", "96.6 %", "67.0 %"]
    assert list(obs["difference (reading)"])[:2] == ["-2.1 pt", "-0.2 pt"]


def test_figures_under_the_thesis_reading(tmp_path, monkeypatch):
    """``--reading thesis``: the workloads keep their Table 5.1 names, the numbers are the
    reading's (GNMT's 24 → 500 MiB traffic drop is the observation's), the cache and the
    figure are the reading's own, and the default reading is back afterwards."""
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    sys.path.insert(0, str(THESIS))
    try:
        import _common
        import fig5_2_traffic
    finally:
        sys.path.remove(str(THESIS))
    monkeypatch.setattr(_common, "RESULTS_DIR", tmp_path / "results")
    monkeypatch.setattr(_common, "FIGURES_DIR", tmp_path / "figures")
    try:
        path = _common.main(
            fig5_2_traffic.NAME,
            fig5_2_traffic.compute,
            fig5_2_traffic.plot,
            ["--small", "--reading", "thesis"],
        )
        assert path.name == "thesis-fig5_2-traffic_thesis.png" and path.exists()
        df = fig5_2_traffic.compute(small=True)
        g = df[df.network == "gnmt"].set_index("capacity")
        tr = g.traffic_in + g.traffic_out
        assert 1 - tr[500 * MIB] / tr[24 * MIB] == pytest.approx(0.966, abs=0.03)
        key_thesis = _common._key("x", {})
    finally:
        _common.set_reading("default")
    assert _common._key("x", {}) != key_thesis
    assert _common.load("gnmt", 1).name == "gnmt"
    with pytest.raises(ValueError, match="reading: 'paper'"):
        _common.set_reading("paper")
