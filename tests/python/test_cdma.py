"""vDNN and cDMA (docs/model/cdma.md): hand-computed timelines on a 3-layer chain (V1–V6,
C2, C5–C7), the cDMA paper's exact architecture numbers (V-ARCH), the sparsity rule and tables
(S1–S7), measured RLE / zlib ratios (C3), invariants, and the oracle of tests/python/oracle.py
on the new parts."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import oracle
import pandas as pd
import pytest
from small_networks import CHAIN
from test_policies_oracle import compare_with_oracle

import dnnmem
from dnnmem import _core, cdma

# Bandwidth 10 B/s, throughput 100 FLOP/s: the chain's steps compute for
# F:fc1 0.48, F:r 0.06, F:fc2 0.24, loss 0.12, B:fc2 0.48, B:r 0.06, B:fc1 0.48 s.
POINT = {"capacity": 10**6, "bandwidth": 10, "throughput": 100}


@pytest.fixture(scope="module")
def chain() -> dnnmem.Network:
    return dnnmem.load_network(CHAIN, batch=2)


def ends(net: dnnmem.Network, policy: str) -> list[float]:
    return list(dnnmem.estimate(net, policy=policy, **POINT).steps["end"])


def test_vdnn_chain_plan(chain: dnnmem.Network) -> None:
    """V2–V4: Y:x (32 B, read by fc1, next used by B:fc1) and Y:r (24 B, read by fc2, next
    used by B:fc2) go out during their last forward use and come back one step ahead; Y:fc1
    (dead after F:r) and Y:fc2 (next used by the loss, the step after) stay; weights move not."""
    r = dnnmem.estimate(chain, policy="vdnn-all", **POINT)
    s = r.steps
    assert list(s["bytes_out"]) == [32, 0, 24, 0, 0, 0, 0]
    assert list(s["bytes_in"]) == [0, 0, 0, 24, 0, 32, 0]  # issued at loss and B:r
    assert r.counts == {"kept": 0, "prefetched": 2, "born": 0, "offloads": 2}
    # V5: resident = alive tensors (W all iteration) less the offloaded ones while away.
    # W = W:fc1 + W:fc2 = 92. Step 0: Y:x Y:fc1 + W = 148; 1: Y:fc1 Y:r + W = 140 (Y:x
    # away); 2: Y:r Y:fc2 + W = 132; 3 (Y:r back, its prefetch issued): Y:r Y:fc2 dY:fc2 + W =
    # 148; 4: Y:r dY:fc2 dY:r dW:fc2 + W = 188; 5 (Y:x back): Y:x Y:r dY:r dY:fc1 + W = 196;
    # 6: Y:x dY:fc1 dW:fc1 + W = 208.
    assert list(s["resident_bytes"]) == [148, 140, 132, 148, 188, 196, 208]
    # vdnn-conv offloads conv inputs only: none here, so it is the oracle.
    assert ends(chain, "vdnn-conv") == ends(chain, "oracle")


def test_vdnn_chain_timeline(chain: dnnmem.Network) -> None:
    """Times by hand: a step with an offload takes max(compute, offload); a step waits for its
    prefetch; one link serves them in deadline order."""
    raw = [3.2, 3.26, 5.66, 5.78, 8.06, 8.12, 11.26]
    # zvc: Y:x dense (input): 8 elements, 32 B + one 4-byte mask = 36 B, 3.6 s; Y:r after a
    # dense layer, sparsity fc = 0.9: round(6 · 0.1) = 1 non-zero, 4 + 4 = 8 B, 0.8 s.
    zvc = [3.6, 3.66, 4.46, 4.58, 5.26, 5.32, 8.86]
    # cap 20 B/s: Y:r takes max(0.8, 24 / 20 = 1.2) = 1.2 s (binding); Y:x max(3.6, 1.6).
    capped = [3.6, 3.66, 4.86, 4.98, 6.06, 6.12, 9.66]
    for policy, want in (
        ("vdnn-all", raw),
        ("vdnn-all + zvc", zvc),
        ("vdnn-all + zvc(cap=20)", capped),
        ("vdnn-all + zvc(cap=1000)", zvc),  # cap not binding
    ):
        assert ends(chain, policy) == pytest.approx(want, rel=1e-12), policy
    # C6's other reading: the cap limits offloads only; Y:r's prefetch takes 0.8 s again.
    assert ends(chain, "vdnn-all + zvc(cap=20, throttle=offload)") == pytest.approx(
        [3.6, 3.66, 4.86, 4.98, 5.66, 5.72, 9.26], rel=1e-12
    )
    # C7: efficiency 0.8: Y:x takes 36 / (0.8 · 10) = 4.5 s.
    assert ends(chain, "vdnn-all + zvc(efficiency=0.8)")[0] == pytest.approx(4.5, rel=1e-12)
    r = dnnmem.estimate(chain, policy="vdnn-all + zvc", **POINT)
    assert (r.traffic_out, r.link_out, r.traffic_in, r.link_in) == (56, 44, 56, 44)


def test_oracle_is_compute_time(chain: dnnmem.Network) -> None:
    """V6: no transfers; the time is the compute time."""
    r = dnnmem.estimate(chain, policy="oracle", **POINT)
    assert r.traffic == 0
    assert r.time == pytest.approx(1.92, rel=1e-12) == r.compute_time


def test_residency_unchanged_by_compression() -> None:
    """Compression lives on the link: vdnn-*'s residency and transfers' logical bytes are the
    same with and without it; the wire never carries more than the bytes plus ZVC's masks."""
    net = dnnmem.network("alexnet", batch=4)
    hw = dnnmem.Hardware(capacity="12GB", bandwidth="16GB/s", throughput="6TFLOPS")
    for cache in ("vdnn-all", "vdnn-conv"):
        a = dnnmem.estimate(net, hw, cache)
        for link in ("zvc", "zvc(uniform=0)", "zvc(mask=off)", "zlib"):
            b = dnnmem.estimate(net, hw, f"{cache} + {link}")
            assert list(a.steps["resident_bytes"]) == list(b.steps["resident_bytes"])
            assert (a.traffic_in, a.traffic_out) == (b.traffic_in, b.traffic_out)
            assert b.link_in + b.link_out <= math.ceil(a.traffic * (1 + 1 / 32)) + 64


# -- V-ARCH: the cDMA paper's exact numbers -------------------------------------------------


def test_varch_zvc_bounds() -> None:
    """ZVC 32x at full sparsity, 0.970x at none, 2.32x at 60 % (2.5x without masks)."""
    n = 32 * 1000 * 4  # 32000 FP32 elements
    assert n / _core.zvc_bytes(n, 4, 1.0) == 32.0
    assert round(n / _core.zvc_bytes(n, 4, 0.0), 3) == 0.970
    assert round(n / _core.zvc_bytes(n, 4, 0.6), 2) == 2.32
    assert n / _core.zvc_bytes(n, 4, 0.6, mask=False) == 2.5
    # FP32, 3.1 % metadata: 32 values + a 4-byte mask
    assert _core.zvc_bytes(128, 4, 0.0) == 132
    # the 13.8x maximum per-layer ratio is ZVC at 95.88 % sparsity
    assert round(n / _core.zvc_bytes(n, 4, 0.95885), 1) == 13.8


def test_varch_bandwidths() -> None:
    """16 GB/s x 13.8 = 220.8 GB/s; 200 GB/s x 350 ns = 70 KB; the bandwidth-aware cap of
    3.0 x 16 = 48 GB/s makes a transfer of ratio > 3 take bytes / 48 GB/s (effective 3.0x), an
    inflation of CR x B / cap over the wire time."""
    assert cdma.dram_rate(13.8, 16e9) == pytest.approx(220.8e9)
    assert cdma.buffer_bytes(200e9) == pytest.approx(70e3)
    doc = {
        "name": "one",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4096]},
            {"name": "fc", "kind": "dense", "inputs": ["x"], "units": 4096},
            {"name": "r", "kind": "relu", "inputs": ["fc"]},
            {"name": "fc2", "kind": "dense", "inputs": ["r"], "units": 4096},
        ],
    }
    net = dnnmem.load_network(doc, batch=32)
    hw = dnnmem.Hardware(capacity="1GB", bandwidth="16GB/s", throughput="1PFLOPS")
    y = int(net.tensors.set_index("name").at["Y:r", "bytes"])

    def offload_time(policy: str) -> float:
        s = dnnmem.estimate(net, hw, policy).steps
        return float(s.loc[s["name"] == "F:fc2", "time"].iloc[0])

    # uniform 0.9: ratio 7.6 > 3 -> the cap binds; 0.5: ratio 1.88 < 3 -> the wire does
    assert offload_time("vdnn-all + zvc(uniform=0.9, cap=48GB/s)") == pytest.approx(
        y / 48e9, rel=1e-6
    )
    wire = _core.zvc_bytes(y, 4, 0.5)
    assert offload_time("vdnn-all + zvc(uniform=0.5, cap=48GB/s)") == pytest.approx(
        wire / 16e9, rel=1e-6
    )
    cr = y / _core.zvc_bytes(y, 4, 0.9)
    assert offload_time("vdnn-all + zvc(uniform=0.9, cap=48GB/s)") / offload_time(
        "vdnn-all + zvc(uniform=0.9)"
    ) == pytest.approx(cr * 16 / 48, rel=1e-6)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cdma.dram_rate(-13.8, 16e9), "ratio: must be a finite number > 0, got -13.8"),
        (lambda: cdma.dram_rate(0, 16e9), "ratio: must be a finite number > 0, got 0"),
        (
            lambda: cdma.dram_rate(13.8, -16e9),
            "bandwidth: must be a finite number >= 0, got -16000000000.0",
        ),
        (
            lambda: cdma.dram_rate(13.8, math.inf),
            "bandwidth: must be a finite number >= 0, got inf",
        ),
        (
            lambda: cdma.dram_rate(13.8, 16e9, -0.8),
            "efficiency: must be a finite number > 0 and <= 1, got -0.8",
        ),
        (
            lambda: cdma.dram_rate(13.8, 16e9, 1.5),
            "efficiency: must be a finite number > 0 and <= 1, got 1.5",
        ),
        (
            lambda: cdma.buffer_bytes(-200e9),
            "cap: must be a finite number >= 0, got -200000000000.0",
        ),
        (
            lambda: cdma.buffer_bytes(200e9, -350e-9),
            "latency: must be a finite number >= 0, got -3.5e-07",
        ),
        (lambda: cdma.buffer_bytes(math.nan), "cap: must be a finite number >= 0, got nan"),
    ],
)
def test_varch_formulas_refuse_a_negative_argument_naming_it(
    call: Callable[[], float], message: str
) -> None:
    """A negative rate, ratio or latency gave a negative read rate or buffer size."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
    with pytest.raises(TypeError, match="latency: expected a number, got str"):
        cdma.buffer_bytes(200e9, "350ns")  # type: ignore[arg-type]


def test_vcr_alexnet_band() -> None:
    """AlexNet calibrated to the paper's size-weighted 49.4 % gives ZVC about 1.86x over its
    sparse tensors (the identity 1 / ((1 - s) + 1/32))."""
    net = dnnmem.network("alexnet", batch=2)
    s, source = cdma.tensor_sparsity(net, {"target": 0.494})
    t = net.tensors
    sparse = (s > 0).to_numpy() if isinstance(s, pd.Series) else s > 0
    size = t["bytes"].to_numpy()[sparse]
    assert source == "rule"
    assert float((s[sparse] * size).sum() / size.sum()) == pytest.approx(0.494, abs=1e-9)
    wire = sum(_core.zvc_bytes(int(b), 4, float(x)) for b, x in zip(size, s[sparse]))
    assert size.sum() / wire == pytest.approx(1 / (0.506 + 1 / 32), rel=2e-3)
    assert round(size.sum() / wire, 2) == 1.86


# -- sparsity ------------------------------------------------------------------------------


def test_sparsity_rule_anchors() -> None:
    """S1: only ReLU-family outputs (and what passes them on) are sparse; S2: first conv 0.5,
    deeper convs sparser, FC 0.9; S4: pooling denser; S5: dropout passes through."""
    net = dnnmem.network("alexnet", batch=1)
    per, source = cdma.layer_sparsity(net)
    assert source == "rule"
    assert per["features_1"] == 0.5  # first conv's ReLU
    assert per["features_2"] == pytest.approx(0.4)  # its max pool
    assert per["features_11"] == 0.75  # deepest conv's ReLU
    assert 0.5 < per["features_4"] < per["features_7"] < 0.75
    assert per["classifier_2"] == 0.9 and per["classifier_3"] == 0.9  # FC ReLU, dropout
    assert "features_0" not in per and "image" not in per  # pre-activation, input: dense
    s, _ = cdma.tensor_sparsity(net)
    roles = net.tensors["role"].to_numpy()
    assert (s[roles != "activation"] == 0).all()
    u, _ = cdma.layer_sparsity(net, {"uniform": 0.7})
    assert u["features_1"] == 0.7 and u["features_2"] == pytest.approx(0.6)


def test_sparsity_table_overrides_and_errors() -> None:
    net = dnnmem.network("alexnet", batch=1)
    per, source = cdma.layer_sparsity(
        net, sparsity=pd.DataFrame({"layer": ["features_1"], "sparsity": [0.2]})
    )
    assert per["features_1"] == 0.2 and source == "table+rule"
    bad = [
        ({"layer": ["features_1", "conv9"], "sparsity": [0.5, 0.5]}, r"row 1 \(layer 'conv9'\)"),
        ({"layer": ["features_1"], "sparsity": [1.5]}, r"row 0 .*in \[0, 1\], got 1.5"),
        ({"layer": ["features_4"], "sparsity": [float("nan")]}, r"row 0 .*got nan"),
        ({"layer": ["features_1", "features_1"], "sparsity": [0.1, 0.2]}, r"row 1 .*twice"),
    ]
    for table, message in bad:
        with pytest.raises(ValueError, match=message):
            dnnmem.estimate(net, policy="vdnn-all + zvc", sparsity=pd.DataFrame(table))
    with pytest.raises(ValueError, match="missing column"):
        cdma.layer_sparsity(net, sparsity=pd.DataFrame({"name": ["x"]}))
    with pytest.raises(ValueError, match="target 0.99: out of reach"):
        cdma.layer_sparsity(net, {"target": 0.99})
    with pytest.raises(ValueError, match="does not use it"):
        dnnmem.estimate(net, policy="vdnn-all", sparsity={"features_1": 0.5})
    r = dnnmem.estimate(net, policy="vdnn-all + zvc", sparsity={"features_1": 0.9})
    assert r.sparsity_source == "table+rule"


def test_measured_ratios() -> None:
    """C3: real compressors on generated tensors: ratios grow with sparsity, dense data barely
    compresses, RLE depends on the layout, zlib beats RLE."""
    assert cdma.rle_bytes(np.zeros(128, np.uint32)) == 1
    assert cdma.rle_bytes(np.arange(1, 11, dtype=np.uint32)) == 41
    for algo in ("rle", "zlib"):
        dense = cdma.measured_ratio(algo, 0.0)
        assert 0.95 < dense < 1.1
        ratios = [cdma.measured_ratio(algo, s) for s in (0.3, 0.6, 0.9)]
        assert ratios == sorted(ratios) and ratios[-1] > 3
    assert cdma.measured_ratio("zlib", 0.6) > cdma.measured_ratio("rle", 0.6)
    layouts = {lay: cdma.measured_ratio("rle", 0.6, lay) for lay in ("nchw", "nhwc", "chwn")}
    assert max(layouts.values()) / min(layouts.values()) > 1.1


def test_compare_report() -> None:
    hw = cdma.gpu("titan-xp")
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (12e9, 16e9, 12.15e12)
    df = cdma.compare("alexnet", hw, ["vdnn-all", "vdnn-all + zvc"], batch=8)
    assert list(df["policy"]) == ["vdnn-all", "vdnn-all + zvc"]
    assert df["gain"].iloc[0] == 0 and df["gain"].iloc[1] > 0
    assert (df["performance"] <= 1).all()
    assert df["ratio"].iloc[1] > 1 and df["max_ratio"].iloc[1] >= df["ratio"].iloc[1]


def test_compare_oracle_and_baseline_run_as_the_policies() -> None:
    """With a compute model or a fusion level on the policies, ``oracle`` and ``baseline`` take
    the same one: the oracle's time is that policy's compute time, the baseline's gain 0 (the
    default ``"oracle"`` would time the steps at peak FLOPs and compare unlike with unlike)."""
    hw = cdma.gpu("titan-xp")
    roof = " + peak(spm_bandwidth=548GB/s)"  # the Titan Xp's memory: ReLUs and pools bound by it
    df = cdma.compare("nin", hw, ["vdnn-all" + roof], batch=2, oracle="oracle" + roof)
    plain = dnnmem.estimate("nin", hw, "oracle", batch=2).time
    roofed = dnnmem.estimate("nin", hw, "oracle" + roof, batch=2).time
    assert roofed > plain and df["oracle_time"].iloc[0] == roofed
    assert df["performance"].iloc[0] == roofed / df["time"].iloc[0]
    fused = "vdnn-all + fusion=accelerator"
    df = cdma.compare("nin", hw, [fused, fused + " + zvc"], batch=2, baseline=fused,
                      oracle="oracle + fusion=accelerator")  # fmt: skip
    assert df["gain"].iloc[0] == 0 and df["gain"].iloc[1] > 0
    assert (df["performance"] <= 1).all()


# -- the oracle ------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["vdnn-all", "vdnn-conv", "oracle"])
@pytest.mark.parametrize("name,batch", [("alexnet", 2), ("googlenet", 1), ("chain", 2)])
def test_against_oracle(policy: str, name: str, batch: int) -> None:
    net = (
        dnnmem.load_network(CHAIN, batch=2)
        if name == "chain"
        else dnnmem.network(name, batch=batch)
    )
    bw, thr = 16 * 10**9, 6 * 10**12
    cap = 2**40
    o = oracle.estimate(net, cap, bw, thr, policy)
    r = dnnmem.estimate(net, policy=policy, capacity=cap, bandwidth=bw, throughput=thr)
    compare_with_oracle(r, o, f"{name} {policy}")
    assert list(r.steps["resident_bytes"]) == [d["onchip"] for d in o["steps"]]
    if policy == "oracle":
        return
    s, _ = cdma.tensor_sparsity(net, {})
    for opts, link in (
        ({}, {}),
        ({"cap": 48 * 10**9}, {"cap": 48 * 10**9}),
        ({"mask": "off", "efficiency": 0.8}, {"mask": False, "efficiency": 0.8}),
        (
            {"cap": 20 * 10**9, "throttle": "offload"},
            {"cap": 20 * 10**9, "throttle": "offload"},
        ),
    ):
        text = ", ".join(f"{k}={v}" for k, v in opts.items())
        p = f"{policy} + zvc({text})" if text else f"{policy} + zvc"
        o = oracle.estimate(net, cap, bw, thr, policy, link={"zvc": list(s), **link})
        r = dnnmem.estimate(net, policy=p, capacity=cap, bandwidth=bw, throughput=thr)
        compare_with_oracle(r, o, f"{name} {p}")


# -- the figure scripts (sweeps/cdma/, --small) -------------------------------------------


def test_figure_scripts_small(monkeypatch) -> None:
    """Two of the scripts end to end in their CI mode (the rest share their code paths; the
    RLE / zlib ones measure ratios and take longer): vDNN's performance falls as compute gets
    faster at a fixed link (the paper's Fig. 3b trend), ZVC's gain grows with sparsity."""
    import importlib
    import sys
    from pathlib import Path

    pytest.importorskip("matplotlib")
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "sweeps" / "cdma"))
    gen = importlib.import_module("fig3b_generations")
    df = gen.compute(small=True)
    for _, d in df.groupby("network"):
        perf = d.set_index("gpu").loc[list(gen.GENERATIONS), "performance"].to_numpy()
        assert (np.diff(perf) < 0).all()
    sp = importlib.import_module("gain_vs_sparsity")
    df = sp.compute(small=True)
    for _, d in df.groupby("network"):
        assert (np.diff(d["gain"].to_numpy()) > 0).all()
        assert d["gain"].iloc[0] < 0  # sparsity 0: the masks cost
    import matplotlib

    matplotlib.use("Agg")
    sp.plot(df)
    sys.modules.pop("_cdma", None)


def test_lookahead_with_zvc_moves_fewer_bytes() -> None:
    """Beyond the paper: compression on the thesis's policy shrinks the link bytes of its
    activation offloads and prefetches; gradients and weights cross as they are (C1)."""
    net = dnnmem.network("nin", batch=8)
    hw = cdma.gpu("titan-xp", capacity="64MB")
    a = dnnmem.estimate(net, hw, "lookahead")
    b = dnnmem.estimate(net, hw, "lookahead + zvc(target=0.62)")
    assert b.link_in + b.link_out < a.link_in + a.link_out
    acts = b.steps[["bytes_in_activation", "bytes_out_activation"]].to_numpy().sum()
    others = b.traffic - acts
    assert b.link_in + b.link_out >= others  # the non-activation bytes are all still there
    assert b.time <= a.time


def test_result_says_when_sparsity_is_the_default() -> None:
    net = dnnmem.network("alexnet", batch=1)
    assert "type/depth rule (default" in repr(dnnmem.estimate(net, policy="vdnn-all + zvc"))
    assert "sparsity" not in repr(dnnmem.estimate(net, policy="vdnn-all"))
    r = dnnmem.estimate(net, policy="vdnn-all + zvc", sparsity={"features_1": 0.3})
    assert "the table given, the rule elsewhere" in repr(r)


def test_map_ratio_leaves_the_network_input_out(chain: dnnmem.Network) -> None:
    """Rule R: ``map_ratio`` is the ratio over the layers' activation maps. Under vdnn-all + zvc
    the chain moves Y:x (the input: 32 B, 36 B on the wire) and Y:r (24 B, 8 B), each out and
    back: ``ratio`` = 112 / 88, ``map_ratio`` = 48 / 16 = 3. The plan's transfers (the core's
    transfer_table) are those four, in issue order."""
    hw = dnnmem.Hardware(**POINT)
    row = cdma.compare(chain, hw, ["vdnn-all + zvc"]).iloc[0]
    assert (row["traffic"], row["link"]) == (112, 88)
    assert row["ratio"] == pytest.approx(112 / 88, rel=1e-12)
    assert row["map_ratio"] == pytest.approx(3.0, rel=1e-12)
    raw = cdma.compare(chain, hw, ["vdnn-all"]).iloc[0]
    assert raw["ratio"] == raw["map_ratio"] == 1.0
    r = dnnmem.estimate(chain, policy="vdnn-all + zvc", **POINT)
    x = r._core.transfer_table()
    names = [chain.tensors["name"].iloc[i] for i in x["tensor"]]
    assert names == ["Y:x", "Y:r", "Y:r", "Y:x"]
    # V2: each offload a streamed store (kind 1) due at the end of its step; V3: each prefetch
    # (kind 2) issued one step ahead of its use.
    assert list(x["kind"]) == [1, 1, 2, 2]
    assert list(x["bytes"]) == [32, 24, 24, 32]
    assert list(x["issue_step"]) == [0, 2, 3, 5] and list(x["deadline"]) == [0, 2, 4, 6]


# -- reading M: the paper's ratios leave ZVC's masks out (sweeps/cdma/masks.py) ------------


def test_reading_m_ratio_arithmetic() -> None:
    """The page's arithmetic for reading M, by hand (FP32, 32 000 elements): without the masks
    60 % zeros give 2.5× (§V-A), 62 % 1 / 0.38 = 2.63× (the abstract's 2.6×), 93 % 1 / 0.07 =
    14.3×, and 13.8× is 1 − 1/13.8 = 92.75 % zeros; with them 93 % gives 1 / (0.07 + 1/32) =
    9.88× and 13.8× needs 1 − (1/13.8 − 1/32) = 95.88 %."""
    n = 4 * 32_000
    assert n / _core.zvc_bytes(n, 4, 0.60, mask=False) == 2.5
    assert n / _core.zvc_bytes(n, 4, 0.62, mask=False) == pytest.approx(1 / 0.38, rel=1e-12)
    assert n / _core.zvc_bytes(n, 4, 0.93, mask=False) == pytest.approx(1 / 0.07, rel=1e-12)
    assert n / _core.zvc_bytes(n, 4, 0.93) == pytest.approx(1 / (0.07 + 1 / 32), rel=1e-12)
    assert 1 - 1 / 13.8 == pytest.approx(0.92754, abs=1e-5)
    assert 1 - (1 / 13.8 - 1 / 32) == pytest.approx(0.95879, abs=1e-5)


def test_map_ratio_without_masks(chain: dnnmem.Network) -> None:
    """``mask=off`` on the chain of test_map_ratio_leaves_the_network_input_out: Y:x (32 B,
    dense) crosses as 32 B, Y:r (24 B, one non-zero element) as 4 B, each out and back:
    ``ratio`` = 112 / 72, ``map_ratio`` = 48 / 8 = 6 (3 with the masks)."""
    hw = dnnmem.Hardware(**POINT)
    row = cdma.compare(chain, hw, ["vdnn-all + zvc(mask=off)"]).iloc[0]
    assert (row["traffic"], row["link"]) == (112, 72)
    assert row["map_ratio"] == pytest.approx(6.0, rel=1e-12)
    assert row["max_ratio"] == pytest.approx(6.0, rel=1e-12)


def test_masks_script_policies_and_quantities() -> None:
    """masks.py: ``off`` adds ``mask=off`` to the two ZVC bars only; the claims by hand on two
    networks (Titan Xp ZVC map ratios 2 and 4, zlib 2.5 and 4; times as below)."""
    from sweep_scripts import import_script

    script = import_script("cdma", "masks")
    off = script.policies("off")
    assert off["ZV"] == "vdnn-all + zvc(mask=off, cap=200GB/s)"
    assert off["BW"] == "vdnn-all + zvc(mask=off, cap=48GB/s)"
    assert off["vDNN"] == "vdnn-all" and off["ZL"] == "vdnn-all + zlib(cap=200GB/s)"
    assert script.policies("on")["ZV"] == "vdnn-all + zvc(cap=200GB/s)"
    with pytest.raises(ValueError, match="mask"):
        script.policies("none")
    rows = []
    #            bar     time  perf  gain  map  max
    per_net = {
        "a": [("vDNN", 2.0, 0.50, 0.0, 1.0, 1.0), ("RL", 1.6, 0.625, 0.25, 1.5, 3.0),
              ("ZV", 1.25, 0.80, 0.60, 2.0, 8.0), ("ZL", 1.0, 1.00, 1.00, 2.5, 9.0),
              ("BW", 1.25, 0.80, 0.60, 2.0, 8.0)],
        "googlenet": [("vDNN", 4.0, 0.25, 0.0, 1.0, 1.0), ("RL", 2.0, 0.50, 1.0, 3.0, 5.0),
                      ("ZV", 2.0, 0.50, 1.0, 4.0, 16.0), ("ZL", 2.0, 0.50, 1.0, 4.0, 10.0),
                      ("BW", 2.5, 0.40, 0.60, 4.0, 16.0)],
    }  # fmt: skip
    for gpu in script.GPUS:
        for net, bars in per_net.items():
            for bar, time, perf, gain, mr, mx in bars:
                rows.append({"mask": "off", "gpu": gpu, "network": net, "bar": bar, "time": time,
                             "performance": perf, "gain": gain, "map_ratio": mr,
                             "max_ratio": mx})  # fmt: skip
    q = script.quantities(pd.DataFrame(rows), "off")
    assert q["ratio_average"] == 3.0 and q["ratio_largest"] == 16.0
    # zlib's traffic below ZVC's: 1 − 2/2.5 = 20 % and 0 %.
    assert q["zlib_less_average"] == pytest.approx(10.0) and q["zlib_less_googlenet"] == 0.0
    assert q["gain_average"] == pytest.approx(80.0) and q["gain_largest"] == 100.0
    assert q["second_gain_average"] == pytest.approx(80.0)
    # BW against the best of RL, ZV, ZL: 0.8 / 1.0 and 0.4 / 0.5, both 80 %: 20 % given up.
    assert q["bw_gives_up"] == pytest.approx(20.0)
    # zlib's speed-up: 1.25 / 1.0 − 1 = 25 % and 0 %.
    assert q["zlib_speedup_average"] == pytest.approx(12.5)
    assert q["zlib_speedup_largest"] == pytest.approx(25.0)


# -- C3a: max-pool outputs generated as max pools (values=pooled, sweeps/cdma/pooled.py) ---


def test_pooled_tensor_is_the_max_pool_of_a_relu_map() -> None:
    """C3a by an independent route: the pooled class's tensor equals numpy's sliding-window
    max of the generator's smoothed field with the ReLU (threshold) applied *before* the pool,
    and its zeros are the sparsity asked for."""
    from numpy.lib.stride_tricks import sliding_window_view

    from dnnmem import compression as cp

    for k, st in ((3, 1), (3, 2), (2, 2)):
        y = cp._generate(0.6, "nchw", cp.pooled_shape(k, st))
        f = cp._box_field(np.random.default_rng(0), 31 * st + k + 5)
        pooled = sliding_window_view(f, (k, k), axis=(2, 3))[:, :, ::st, ::st].max(axis=(4, 5))
        pooled = pooled[:, :, :32, :32].astype(np.float32)
        t = np.quantile(pooled, 0.6)
        assert t > 0  # a ReLU at threshold t > 0 is monotone: max(relu(x)) = relu(max(x))
        relu_first = np.where(f.astype(np.float32) <= np.float32(t), np.float32(0), f)
        want = sliding_window_view(relu_first.astype(np.float32), (k, k), axis=(2, 3))
        want = want[:, :, ::st, ::st].max(axis=(4, 5))[:, :, :32, :32]
        np.testing.assert_array_equal(y, want)
        assert (y == 0).mean() == pytest.approx(0.6, abs=1e-3)


def test_pooled_repeats_values_and_zlib_sees_them() -> None:
    """Overlapping windows repeat values side by side (a 3 × 3 window at stride 1: most
    non-zero elements equal their right neighbour; none in the plain map): zlib compresses the
    pooled tensor more than the plain one at the same sparsity; a 2 × 2 pool at stride 2 does
    not overlap and repeats nothing."""
    from dnnmem import compression as cp

    def repeats(y: np.ndarray) -> float:
        nz = y[..., :-1] != 0
        return float((y[..., :-1] == y[..., 1:])[nz].mean())

    assert repeats(cp._generate(0.5, "nchw", "maxpool3s1")) > 0.4
    assert repeats(cp._generate(0.5, "nchw", "maxpool2s2")) == 0.0
    assert repeats(cp._generate(0.5, "nchw", "map")) == 0.0
    plain = cp.measured_ratio("zlib", 0.5)
    assert cp.measured_ratio("zlib", 0.5, shape="maxpool3s1") > 1.5 * plain
    with pytest.raises(ValueError, match="stride <= kernel"):
        cp.pooled_shape(2, 3)
    with pytest.raises(ValueError, match="shape"):
        cp.measured_ratio("zlib", 0.5, shape="avgpool3s1")


def test_pooled_option_touches_only_max_pools() -> None:
    """``values=pooled``: GoogLeNet's max pools get their classes (the stem's 3 × 3 at stride 2,
    the inception branches' 3 × 3 at stride 1, by hand from the zoo), VGG-16's 2 × 2 at stride 2;
    on AlexNet every other tensor keeps its C3 ratio, and the default (``random``) is C3 for
    every tensor."""
    from dnnmem import compression as cp

    def link(text: str):  # the link Part of a policy string
        return dnnmem.Policy.parse(f"vdnn-all + {text}").link

    net = dnnmem.network("googlenet", batch=1)
    layers = net.layers.set_index("name")
    assert cp._maxpool_class(net, layers, "pool1_3x3_s2") == "maxpool3s2"
    assert cp._maxpool_class(net, layers, "inception_3a_pool") == "maxpool3s1"
    vgg = dnnmem.network("vgg16", batch=1)
    pool = vgg.layers["name"][vgg.layers["kind"] == "maxpool"].iloc[0]
    assert cp._maxpool_class(vgg, vgg.layers.set_index("name"), pool) == "maxpool2s2"
    net = dnnmem.network("alexnet", batch=1)  # three 3 × 3 max pools at stride 2
    layers = net.layers.set_index("name")
    _, plain, _ = cp.link_tables(link("zlib(target=0.6)"), net)
    _, default, _ = cp.link_tables(link("zlib(target=0.6, values=random)"), net)
    _, pooled, _ = cp.link_tables(link("zlib(target=0.6, values=pooled)"), net)
    assert plain == default
    kinds = [layers.at[x, "kind"] for x in net.tensors["layer"]]
    roles = list(net.tensors["role"])
    for p, q, kind, role in zip(plain, pooled, kinds, roles):
        if kind == "maxpool" and role == "activation":
            assert q > p
        else:
            assert q == p


# -- the saved tables of masks.py (reading M) and pooled.py (C3a) --------------------------


# masks.csv and pooled.csv: the page's reading, the other one, the bars the other one changes,
# and the column it must raise (on every changed bar, or on one bar named by its key).
READING_TABLES = {
    "masks": ("mask", "on", "off", ["ZV", "BW"], "max_ratio", None),
    "pooled": ("values", "random", "pooled", ["RL", "ZL"], "map_ratio",
               ("titan-xp", "googlenet", "ZL")),
}  # fmt: skip


@pytest.mark.parametrize("name", list(READING_TABLES))
def test_reading_table_page_rows_are_the_pages_fig13(name: str) -> None:
    """masks.csv's ``on`` and pooled.csv's ``random`` rows are the page's Fig. 13 (the same
    policies, GPUs and compute); their other reading's rows keep the time of every bar it does
    not touch (``off``: all but the ZVC bars; ``pooled``: vDNN and the ZVC bars, which do not
    look at non-zero values) and raise the ratio of those it does (``off``: the largest ratio of
    every ZVC bar; ``pooled``: zlib's map ratio on GoogLeNet)."""
    from sweep_scripts import pages

    column, page, other, changed, grows, where = READING_TABLES[name]
    t = pages().load_tables("cdma")
    m, f13 = t[name], t["fig13_performance"]
    keys = ["gpu", "network", "bar"]
    base = m[m[column] == page].set_index(keys).sort_index()
    fig = f13.set_index(keys).sort_index()
    for col in ("time", "performance", "gain", "map_ratio", "max_ratio"):
        np.testing.assert_allclose(base[col], fig.loc[base.index, col], rtol=1e-12)
    alt = m[m[column] == other].set_index(keys).sort_index()
    same = ~alt.index.get_level_values("bar").isin(changed)
    np.testing.assert_allclose(alt.loc[same, "time"], base.loc[same, "time"], rtol=1e-12)
    if where is None:
        assert (alt.loc[~same, grows] > base.loc[~same, grows]).all()
    else:
        assert alt.loc[where, grows] > base.loc[where, grows]


def test_zlib_speedup_readings_by_hand() -> None:
    """fig13_performance.zlib_readings, the readings of §VII-B's "average 0.7% speedup over
    ZVC", by hand on two networks: Titan Xp ZVC / zlib times 1.1 / 1.0 (AlexNet, +10 %) and
    2 / 2 (GoogLeNet, 0 %), Maxwell 3 / 2 (+50 %) and 1 / 1; Titan Xp performances 0.5 / 0.55
    and 0.25 / 0.25."""
    from sweep_scripts import import_script

    script = import_script("cdma", "fig13_performance")
    bars = {  # (gpu, network): (ZVC time, zlib time, ZVC performance, zlib performance)
        ("titan-xp", "alexnet"): (1.1, 1.0, 0.5, 0.55),
        ("titan-xp", "googlenet"): (2.0, 2.0, 0.25, 0.25),
        ("titan-x-maxwell", "alexnet"): (3.0, 2.0, 0.2, 0.3),
        ("titan-x-maxwell", "googlenet"): (1.0, 1.0, 0.9, 0.9),
    }
    rows = [
        {"gpu": g, "network": n, "bar": bar, "time": v[i], "performance": v[i + 2]}
        for (g, n), v in bars.items()
        for i, bar in enumerate(("ZV", "ZL"))
    ]
    r = script.zlib_readings(pd.DataFrame(rows))
    assert r["xp"][0] == pytest.approx(0.05) and r["xp"][1:] == (pytest.approx(0.1), "AlexNet")
    assert r["maxwell"][0] == pytest.approx(0.25) and r["maxwell"][1] == pytest.approx(0.5)
    assert r["both"][0] == pytest.approx(0.15)
    assert r["both"][1:] == (pytest.approx(0.5), "AlexNet, Maxwell Titan X")
    assert r["xp-total"][0] == pytest.approx(3.1 / 3 - 1)
    assert r["xp-mean-performance"][0] == pytest.approx(0.4 / 0.375 - 1)
    assert r["xp-geomean"][0] == pytest.approx(1.1**0.5 - 1)
    assert r["xp-points"][:2] == (pytest.approx(0.025), pytest.approx(0.05))
    assert set(r) == set(script.ZLIB_READINGS)
