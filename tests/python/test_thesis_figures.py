"""sweeps/thesis/: every figure script's compute + plot in --small mode, and report.py.

The scripts live outside the package (they are the thesis's experiments, not API); they are
imported from their folder, with their results/ and figures/ directories pointed at a
temporary one. Only what SPEC guarantees is asserted (§8 P3 per point, the traffic a cache
cannot remove), plus hand-counted values and cross-checks between the scripts; traffic is
*not* asserted monotone in capacity (SPEC §5 rule 2). The notebook
notebooks/thesis_figures.ipynb runs in tests/python/test_notebooks.py, with the others.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import dnnmem

pd = pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

THESIS = Path(__file__).resolve().parents[2] / "sweeps" / "thesis"
MIB = 2**20


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    """The scripts as modules, writing under a temporary directory; small-mode data computed
    once for the module."""
    sys.path.insert(0, str(THESIS))
    try:
        import _common
        import fig5_1_roofline
        import fig5_2_traffic
        import fig5_3_time
        import fig5_4_bandwidth
        import fig5_5_breakdown
        import fig5_6_batch
        import report
        import sensitivity
    finally:
        sys.path.remove(str(THESIS))
    tmp = tmp_path_factory.mktemp("thesis")
    saved = (_common.RESULTS_DIR, _common.FIGURES_DIR, report.IMAGES, report.DOC)
    _common.RESULTS_DIR, _common.FIGURES_DIR = tmp / "results", tmp / "figures"
    report.IMAGES, report.DOC = tmp / "docs" / "images", tmp / "docs" / "thesis-figures.md"
    ns = type("Mods", (), {})()
    for m in (
        _common,
        fig5_1_roofline,
        fig5_2_traffic,
        fig5_3_time,
        fig5_4_bandwidth,
        fig5_5_breakdown,
        fig5_6_batch,
        report,
        sensitivity,
    ):
        setattr(ns, m.__name__, m)
    ns.figures = [
        fig5_1_roofline,
        fig5_2_traffic,
        fig5_3_time,
        fig5_4_bandwidth,
        fig5_5_breakdown,
        fig5_6_batch,
    ]
    ns.tmp = tmp
    ns.data = {m.__name__: m.compute(small=True) for m in ns.figures}
    yield ns
    _common.RESULTS_DIR, _common.FIGURES_DIR, report.IMAGES, report.DOC = saved


def networks():
    return ["resnet50", "mobilenet_v2", "gnmt", "transformer"]  # thesis Table 5.1


def test_small_grid_and_networks(mods):
    C = mods._common
    assert C.workloads() == networks()
    assert C.capacities(True) == [c * MIB for c in (24, 128, 296, 400, 442, 500, 1000)]
    full = C.capacities(False)
    assert len(full) == 489 and full[0] == 24 * MIB and full[-1] == 1000 * MIB
    for name in ("fig5_2_traffic", "fig5_3_time", "fig5_4_bandwidth"):
        df = mods.data[name]
        assert sorted(set(df["network"])) == sorted(networks())
        assert sorted(set(df["capacity"])) == C.capacities(True)
        for n, b in df.groupby("network")["batch"].unique().items():
            assert list(b) == [C.WORKLOADS[n]]  # thesis Table 5.1


def test_roofline_points(mods):
    df = mods.data["fig5_1_roofline"]
    bw, thr = 616e9, 13.45e12  # RTX 2080 Ti, thesis Table 5.2
    np.testing.assert_allclose(df["attainable"], np.minimum(df["rf"] * bw, thr), rtol=0)
    assert (df["memory_bound"] == (df["rf"] < thr / bw)).all()
    r = df[df.network == "resnet50"]
    # 53 convolutions + 1 dense, forward and backward (conv1's B computes dW): 108 type-I
    # points; 120 type-II layers forward + 104 backward (the 16 adds' B steps have no FLOPs).
    assert (r["class"] == "I").sum() == 108
    assert (r["class"] == "II").sum() == 224


def _check_p3(df):
    """SPEC §8 P3: max(FLOPs/throughput, traffic/bandwidth) ≤ time ≤ their sum."""
    traffic = df["traffic_in"] + df["traffic_out"]
    compute = df["flops"] / df["throughput"]
    memory = traffic / df["bandwidth"]
    eps = 1e-9 * df["time"]
    assert (np.maximum(compute, memory) <= df["time"] + eps).all()
    assert (df["time"] <= compute + memory + eps).all()
    assert (df["avg_bandwidth"] <= df["bandwidth"] * (1 + 1e-9)).all()


@pytest.mark.parametrize(
    "name", ["fig5_2_traffic", "fig5_3_time", "fig5_4_bandwidth", "fig5_6_batch"]
)
def test_sweeps_satisfy_p3(mods, name):
    df = mods.data[name]
    for col in (
        "network",
        "batch",
        "policy",
        "capacity",
        "bandwidth",
        "throughput",
        "time",
        "traffic_in",
        "traffic_out",
        "avg_bandwidth",
        "samples_per_s",
        "flops",
    ):
        assert col in df.columns, col
    assert (df["policy"] == "lookahead").all()
    _check_p3(df)
    np.testing.assert_allclose(df["samples_per_s"], df["batch"] / df["time"], rtol=1e-12)


def test_hardware_follows_the_captions(mods):
    d = mods.data
    assert set(d["fig5_2_traffic"]["throughput"]) == {13.45e12}
    assert set(d["fig5_2_traffic"]["bandwidth"]) == {616e9}
    assert set(d["fig5_3_time"]["throughput"]) == {13.45e12, 23.04e12}
    assert set(d["fig5_3_time"]["bandwidth"]) == {616e9}
    assert set(d["fig5_4_bandwidth"]["bandwidth"]) == {616e9, 1555e9}
    assert set(d["fig5_4_bandwidth"]["throughput"]) == {13.45e12}
    assert set(d["fig5_6_batch"]["capacity"]) == {24 * MIB, 400 * MIB}
    # Every (network, batch, capacity) once: 4 networks × 3 small batches × 2 capacities.
    b = d["fig5_6_batch"]
    assert len(b) == 24 and not b.duplicated(["network", "batch", "capacity"]).any()
    assert set(b["batch"]) == set(mods.fig5_6_batch.SMALL_BATCHES)


def test_traffic_no_cache_removes(mods):
    """Every weight and the input batch are loaded at least once and every dW written out
    once (SPEC §5 rules 4, 6, 7): for the CNNs (no partial embedding writes) traffic out ≥
    4 bytes × trainable parameters and traffic in ≥ input + weights + batchnorm state."""
    df = mods.data["fig5_2_traffic"]
    for n in ("resnet50", "mobilenet_v2"):
        net = mods._common.load(n, 32)
        t = net.tensors
        must_in = t.loc[t.starts_offchip, "bytes"].sum()
        g = df[df.network == n]
        assert (g["traffic_out"] >= 4 * net.trainable_params).all()
        assert (g["traffic_in"] >= must_in).all()
    # ResNet-50 at N = 32: 25,583,592 trainable parameters (keras.applications).
    assert mods._common.load("resnet50", 32).trainable_params == 25_583_592


def test_speedup_table(mods):
    df = mods.data["fig5_3_time"]
    sp = mods.fig5_3_time.speedup(df)
    assert mods.fig5_3_time.BOUND == pytest.approx(23.04 / 13.45)
    r = sp[(sp.network == "resnet50") & (sp.capacity == 24 * MIB)]["speedup"].iloc[0]
    t = df[(df.network == "resnet50") & (df.capacity == 24 * MIB)].set_index("throughput")
    assert r == pytest.approx(t.loc[13.45e12, "time"] / t.loc[23.04e12, "time"], rel=1e-12)


def test_breakdown_sums_to_time(mods):
    bd = mods.data["fig5_5_breakdown"]
    tm = mods.data["fig5_3_time"]
    tm = tm[tm.throughput == 13.45e12]
    assert set(bd["class"]) <= {"I", "II", "loss", "drain"}
    for (n, cap), g in bd.groupby(["network", "capacity"]):
        total = tm[(tm.network == n) & (tm.capacity == cap)]["time"].iloc[0]
        assert g["time"].sum() == pytest.approx(total, rel=1e-9)
    share = mods.fig5_5_breakdown.class_share(bd)
    np.testing.assert_allclose(
        share[["I", "II", "loss"] + (["drain"] if "drain" in share else [])].sum(axis=1), 1.0
    )


def test_run_sweep_matches_estimate(mods):
    """run_sweep (dnnmem.sweep on the cached networks) gives estimate()'s numbers, also with
    the sensitivity knobs (ops_per_mac = 1, 2-byte elements)."""
    C = mods._common
    caps = [24 * MIB, 256 * MIB]
    for opm, bpe in ((2, 4), (1, 2)):
        got = C.run_sweep(
            "resnet50",
            batch=[4, 8],
            capacity=caps,
            bandwidth=[616e9],
            throughput=[13.45e12],
            ops_per_mac=opm,
            bytes_per_element=bpe,
        )
        assert list(got["network"]) == ["resnet50"] * 4
        assert sorted(got["batch"]) == [4, 4, 8, 8]
        net = dnnmem.network("resnet50", batch=8, bytes_per_element=bpe)
        for cap in caps:
            r = dnnmem.estimate(
                net, capacity=cap, bandwidth=616e9, throughput=13.45e12, ops_per_mac=opm
            )
            row = got[(got.capacity == cap) & (got.batch == 8)].iloc[0]
            assert row["time"] == r.time and row["flops"] == r.flops
            assert row["traffic_in"] == r.traffic_in and row["traffic_out"] == r.traffic_out


def test_cache_is_keyed_by_parameters(mods):
    C = mods._common
    calls = []

    def fn():
        calls.append(1)
        return pd.DataFrame({"x": [1, 2]})

    a = C.cached("probe", {"p": 1}, fn)
    b = C.cached("probe", {"p": 1}, fn)
    C.cached("probe", {"p": 2}, fn)
    assert len(calls) == 2 and a.equals(b)


def test_knee():
    sys.path.insert(0, str(THESIS))
    try:
        import report
    finally:
        sys.path.remove(str(THESIS))
    cap = np.array([0, 50, 100, 150]) * MIB
    # 0→50: −20 % (too steep); 50→100: −0.625 %; 100→150: −0.126 %: the knee is 50 MiB.
    assert report.knee(cap, np.array([100, 80, 79.5, 79.4])) == 50 * MIB
    # Still falling 10 % per 50 MiB at the end: no knee.
    assert np.isnan(report.knee(cap, np.array([100, 90, 81, 72.9])))
    # 100 → 60: 90 % of the drop leaves 64. [100, 65, 63, 60]: at or below 64 from 100 MiB on.
    # [100, 63, 64.5, 60]: 63 at 50 MiB, but 64.5 at 100 MiB is above again: from 150 MiB.
    assert report.most_of_drop(cap, np.array([100, 65, 63, 60])) == 100 * MIB
    assert report.most_of_drop(cap, np.array([100, 63, 64.5, 60])) == 150 * MIB


def test_plots(mods):
    from plot_checks import legend_problems

    for m in mods.figures:
        fig = m.plot(mods.data[m.__name__])
        assert len(
            [a for a in fig.axes if a.get_visible() and a.get_label() != "<colorbar>"]
        ) >= len(networks())
        assert legend_problems(fig) == [], m.NAME  # no legend over data, none cut off
        path = mods._common.save_figure(fig, m.NAME)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_blocks(mods):
    mods.sensitivity.compute(small=True)
    doc = mods.tmp / "page.md"
    doc.write_text(
        "# Title\n\nProse before.\n\n<!-- generated: tables begin -->\nold\n"
        "<!-- generated: tables end -->\n\nProse after.\n"
    )
    mods.report.main(["--small", "--out", str(doc)])
    text = doc.read_text()
    assert "Prose before." in text and "Prose after." in text and "\nold\n" not in text
    for block in ("setup", "figures", "tables", "comparison", "sensitivity"):
        assert text.count(f"<!-- generated: {block} begin -->") == 1
        assert text.count(f"<!-- generated: {block} end -->") == 1
    assert "| resnet50 | 24 MiB |" in text  # throughput-per-batch rows
    assert "Fig. 5.3 caption: speedup ≤ 23.04/13.45 = 1.713" in text
    mods.report.main(["--small", "--out", str(doc)])
    assert doc.read_text() == text  # idempotent: a second run changes nothing


def test_small_mode_leaves_the_repository_as_it_was(mods, monkeypatch):
    """``run_all.py --small`` rewrote the tracked docs/thesis-figures.md with its 7-capacity
    tables (and dropped the figures): a quick mode writes only under the ignored results/ and
    figures/ (pointed at a temporary folder here), whatever the page path the report holds."""
    import shutil
    import subprocess

    repo = THESIS.parents[1]
    if shutil.which("git") is None or not (repo / ".git").exists():
        pytest.skip("not a git checkout")

    def status() -> str:
        return subprocess.run(
            ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout

    before = status()
    # The page and images the report writes by default, not the fixture's temporary ones.
    monkeypatch.setattr(mods.report, "DOC", repo / "docs" / "thesis-figures.md")
    monkeypatch.setattr(mods.report, "IMAGES", repo / "docs" / "images" / "thesis")
    sys.path.insert(0, str(THESIS))
    try:
        import run_all
    finally:
        sys.path.remove(str(THESIS))
    # The figures are drawn (into the temporary figures/) by test_small_grid_and_networks.
    monkeypatch.setattr(run_all, "FIGURES", [])
    run_all.main(["--small"])
    assert status() == before
    assert (mods._common.RESULTS_DIR / "thesis-figures.md").exists()  # where it went instead
    with pytest.raises(SystemExit):
        mods.report.main(["--small", "--out", str(repo / "docs" / "x.md")])


def test_missing_workload_is_named(mods, monkeypatch):
    monkeypatch.setattr(dnnmem, "networks", lambda: ["resnet50", "transformer"])
    with pytest.raises(ValueError, match=r"\['mobilenet_v2', 'gnmt'\] not among"):
        mods._common.workloads()
