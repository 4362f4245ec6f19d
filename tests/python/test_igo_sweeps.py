"""sweeps/interleaved/: every figure script's compute + plot in --small mode (docs/seeds/
interleaved.md has the full numbers)."""

from __future__ import annotations

import pytest
from sweep_scripts import import_script, run_small

pytest.importorskip("matplotlib")

SCRIPTS = [
    "fig12_ladder",
    "fig5_dy_share",
    "fig6_dy_oracle",
    "fig14_cores",
    "fig15_bandwidth",
    "fig16_batch",
    "partition_rule",
    "beyond_scratchpad",
]


@pytest.fixture(scope="module")
def results() -> dict:
    return run_small("interleaved", SCRIPTS)


def test_ladder_has_every_rung_and_the_papers_averages(results: dict) -> None:
    df = results["fig12_ladder"]
    avg = df[df["network"] == "average"].set_index(["npu", "rung"])
    assert avg.loc[("small", "+ Partitioning"), "paper_pct"] == -29.3
    assert avg.loc[("large", "Baseline"), "change_pct"] == 0.0
    # The ideal order is never worse than Algorithm 1's pick, layer by layer, in traffic; in
    # time the average follows.
    for npu in ("small", "large"):
        assert (
            avg.loc[(npu, "+ Rearrangement (ideal)"), "change_pct"]
            <= avg.loc[(npu, "+ Rearrangement (Alg. 1)"), "change_pct"] + 1e-9
        )


def test_dy_share_and_oracle(results: dict) -> None:
    share = results["fig5_dy_share"]
    assert ((share["dy_share_of_reads"] > 0) & (share["dy_share_of_reads"] < 1)).all()
    assert (share["dy_share_of_traffic"] <= share["dy_share_of_reads"]).all()
    oracle = results["fig6_dy_oracle"]
    assert (oracle["speedup"] >= 1 - 1e-12).all()  # free dY reads never slow a step down


def test_sensitivities_have_the_papers_points(results: dict) -> None:
    cores = results["fig14_cores"].set_index(["network", "cores"])
    assert cores.loc[("average", 1), "paper_pct"] == 14.5
    bw = results["fig15_bandwidth"].set_index(["network", "bandwidth_scale"])
    assert bw.loc[("average", 0.5), "paper_pct"] == 19.3
    # The technique never loses much to the baseline on the small networks (within 1 %).
    for name in ("fig14_cores", "fig15_bandwidth", "fig16_batch"):
        assert (results[name]["reduction_pct"] > -1).all()


def test_partition_rule_against_best(results: dict) -> None:
    df = results["partition_rule"]
    assert ((df["agree"] >= 0) & (df["agree"] <= 1)).all()
    assert (df["bytes_rule"] >= df["bytes_best"]).all()  # best is the least, layer by layer


def test_beyond_scratchpad_has_both_caches(results: dict) -> None:
    df = results["beyond_scratchpad"]
    assert set(df["cache"]) == {"none", "lookahead"} and set(df["npu"]) == {"small", "large"}
    none = df[df["cache"] == "none"]
    assert (none["reduction_pct"] == none["vs_none_seq_pct"]).all()


def test_ladder_with_the_simpler_baseline_tiler() -> None:
    # Every rung under output-stationary nests with LRU replacement; the GEMM-only columns too.
    df = import_script("interleaved", "fig12_ladder").compute(small=True, tiler="simple")
    assert set(df["tiler"]) == {"simple"}
    base = df[df["rung"] == "Baseline"]
    assert (base[["change_pct", "gemm_change_pct", "gemm_bytes_change_pct"]] == 0).all().all()
