"""sweeps/interleaved/: every figure script's compute + plot in --small mode (docs/seeds/
interleaved.md has the full numbers)."""

from __future__ import annotations

import sys
from typing import Any

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
    "knn_partition",
    "gpu_whatif",
    "sensitivities_paper",
    "offchip_reduction",
    "fig15_bytes",
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
        # The joint (order, partition) search never moves more bytes than the best order alone.
        assert (
            avg.loc[(npu, "+ Partitioning (joint)"), "gemm_bytes_change_pct"]
            <= avg.loc[(npu, "+ Rearrangement (ideal)"), "gemm_bytes_change_pct"] + 1e-9
        )


def test_dy_share_and_oracle(results: dict) -> None:
    share = results["fig5_dy_share"]
    assert ((share["dy_share_of_reads"] > 0) & (share["dy_share_of_reads"] < 1)).all()
    assert (share["dy_share_of_traffic"] <= share["dy_share_of_reads"]).all()
    oracle = results["fig6_dy_oracle"]
    assert (oracle["speedup"] >= 1 - 1e-12).all()  # free dY reads never slow a step down


def test_sensitivities_have_the_papers_points(results: dict) -> None:
    cores = results["fig14_cores"].set_index(["network", "cores"])
    assert cores.loc[("average", 1), "paper_pct"] == -14.5  # a change: negative = faster
    bw = results["fig15_bandwidth"].set_index(["network", "bandwidth_scale"])
    assert bw.loc[("average", 0.5), "paper_pct"] == -19.3
    # The technique never loses much to the baseline on the small networks (within 1 %).
    for name in ("fig14_cores", "fig15_bandwidth", "fig16_batch"):
        assert (results[name]["change_pct"] < 1).all()


def test_partition_rule_against_best(results: dict) -> None:
    df = results["partition_rule"]
    assert ((df["agree"] >= 0) & (df["agree"] <= 1)).all()
    assert (df["bytes_rule"] >= df["bytes_best"]).all()  # best is the least, layer by layer


def test_beyond_scratchpad_has_both_caches(results: dict) -> None:
    df = results["beyond_scratchpad"]
    assert set(df["cache"]) == {"none", "lookahead"} and set(df["npu"]) == {"small", "large"}
    none = df[df["cache"] == "none"]
    assert (none["change_pct"] == none["vs_none_seq_pct"]).all()


def test_ladder_with_the_simpler_baseline_tiler() -> None:
    # Every rung under output-stationary nests with LRU replacement; the GEMM-only columns too.
    df = import_script("interleaved", "fig12_ladder").compute(small=True, tiler="simple")
    assert set(df["tiler"]) == {"simple"}
    base = df[df["rung"] == "Baseline"]
    assert (base[["change_pct", "gemm_change_pct", "gemm_bytes_change_pct"]] == 0).all().all()


def test_ladder_with_the_baseline_alone_handicapped(results: dict) -> None:
    # `handicap`: the sequential baseline with fixed output-stationary nests, every fused rung
    # with the best nests: the fused rungs' times are the default tiler's, the baseline's the
    # fixed tiler's.
    script = import_script("interleaved", "fig12_ladder")
    df = script.compute(small=True, tiler="handicap")
    best = results["fig12_ladder"]
    key = ["npu", "network", "rung"]
    rows = df[df["network"] != "average"].set_index(key)["time"]
    ref = best[best["network"] != "average"].set_index(key)["time"]
    fused = [k for k in rows.index if k[2] != "Baseline"]
    assert list(rows.loc[fused]) == list(ref.loc[fused])
    for (npu, net, rung), time in rows.items():
        if rung == "Baseline":
            assert time == script.C.run(net, npu, order="seq", nest="fixed")["time"]


def test_knn_partition_against_best(results: dict) -> None:
    df = results["knn_partition"]
    assert ((df["agree_knn"] >= 0) & (df["agree_knn"] <= 1)).all()
    nets = df[~df["network"].isin(["held-out", "80/20 layers"])]
    assert (nets["oracle_check"] == 1).all()  # the Python labels are the C++ pass's best
    assert (nets["compose_check_pct"].abs() < 1e-9).all()  # composing best's choices: best
    assert (nets["bytes_knn"] >= nets["bytes_best"]).all()


def test_gpu_whatif_levels(results: dict) -> None:
    df = results["gpu_whatif"]
    nets = df[df["network"] != "average"].set_index(["capacity", "rung"])
    assert set(df["capacity"]) == {"L2", "L2+L1", "SM", "kernel"}
    # L2 + L1 (16.25 MiB) holds BERT-tiny's operands at batch 4: every order reads dY once; on
    # the 6 MiB L2 dY is re-read a little (1.04x) but the steps stay compute-bound: no change.
    assert (nets.loc["L2+L1", "dy_reads"] == 1).all()
    assert (nets.loc["L2", "dy_reads"] < 1.1).all()
    assert (nets.loc["L2", "gemm_change_pct"].abs() < 1e-9).all()
    # One SM's 128 KiB does not: the orders move different bytes there.
    assert (nets.loc["SM", "dy_reads"] > 1).all()
    assert float(nets.loc[("SM", "Interleaving"), "gemm_change_pct"]) > 10  # half shares: +35 %
    # [5]'s kernel keeps nothing between tile operations: the baseline reads dY once per
    # operation of each product (BERT-tiny at tile 128: 5.3 times), a fused order with dY in both
    # halves of every operation (ideal) about half that; nothing is slower than the baseline.
    kernel = nets.loc["kernel"]
    assert float(kernel.loc["Baseline", "dy_reads"]) > 4
    assert float(kernel.loc["+ Rearrangement (ideal)", "dy_reads"]) < 0.55 * float(
        kernel.loc["Baseline", "dy_reads"]
    )
    assert (kernel["gemm_change_pct"] <= 1e-9).all()


def test_sensitivities_at_the_paper_reading(results: dict) -> None:
    """sensitivities_paper.py runs Figs. 14-16 and the GPU's SM level inside its reading (`keep`:
    the `paper` reading with §4.3's intermediate results kept on chip; its compute is each figure
    script's, the reading restored after it): BERT-tiny's rows are those of the default scripts'
    functions rerun under ``using("keep")``, and differ from the default reading's."""
    df = results["sensitivities_paper"]
    shared = sys.modules["_igo"]
    assert shared.READING == "dnnmem"  # restored
    assert set(df["figure"]) == {"Fig. 14", "Fig. 15", "Fig. 16", "Fig. 17"}
    assert set(df[df["figure"] == "Fig. 17"]["rung"]) == {
        "Baseline", "Interleaving", "+ Rearrangement (Alg. 1)", "+ Rearrangement (ideal)",
        "+ Partitioning"}  # fmt: skip
    row = df[(df["figure"] == "Fig. 14") & (df["x"] == 1) & (df["network"] == "bert_tiny")]
    assert import_script("interleaved", "sensitivities_paper").READING == "keep"
    with shared.using("keep"):
        again = shared.change("bert_tiny", shared.large_npu(1), 8)["change_pct"]
    assert float(row["change_pct"].iloc[0]) == pytest.approx(again, rel=1e-12)
    default = results["fig14_cores"].set_index(["cores", "network"])["change_pct"]
    assert float(row["change_pct"].iloc[0]) != pytest.approx(default[(1, "bert_tiny")], abs=0.1)


#: The columns that identify a row of each script's table.
KEYS = {
    "fig12_ladder": ["npu", "network", "rung"],
    "fig5_dy_share": ["npu", "network"],
    "fig6_dy_oracle": ["npu", "network"],
    "fig14_cores": ["cores", "network"],
    "fig15_bandwidth": ["bandwidth_scale", "network"],
    "fig16_batch": ["batch", "network"],
    "partition_rule": ["npu", "network"],
    "beyond_scratchpad": ["npu", "cache", "capacity_mib", "network"],
    "knn_partition": ["npu", "network"],
    "gpu_whatif": ["capacity", "network", "rung"],
    "sensitivities_paper": ["figure", "x", "rung", "network"],
    "offchip_reduction": ["figure", "x", "network"],
    "fig15_bytes": ["bandwidth_scale", "network"],
}


def test_the_page_shows_what_the_engine_computes(results: dict) -> None:
    """docs/seeds/interleaved.md's numbers come from tests/data/seeds/interleaved/ (the full
    runs take minutes): the small mode runs BERT-tiny with the full mode's settings, and its
    rows are the same there. The KNN's per-model rows depend on a classifier trained on other
    shapes in the small mode: only the columns that do not (best, rule, bytes) are compared."""
    from sweep_scripts import assert_matches_cache

    knn_fixed = ["layers", "agree_rule", "oracle_check", "bytes_best", "bytes_rule", "best_pct",
                 "rule_pct"]  # fmt: skip
    for name, df in results.items():
        columns = knn_fixed if name == "knn_partition" else None
        assert assert_matches_cache("interleaved", name, df, KEYS[name], columns=columns) > 0
    ladder = import_script("interleaved", "fig12_ladder")
    for tiler in ("simple", "handicap"):
        df = ladder.compute(small=True, tiler=tiler)
        assert assert_matches_cache(
            "interleaved", f"fig12_ladder_{tiler}", df, KEYS["fig12_ladder"]
        )


def test_hypotheses_table_is_what_the_engine_computes(monkeypatch) -> None:
    """Issue 28's readings (sweeps/interleaved/hypotheses.py, minutes in full): the first, the
    `paper`, the scorecard's (`keep`) and `reduce` (§5's off-chip sum: its rungs without a
    partition copied from `keep`'s, + Partitioning walked) on BERT-tiny, both NPUs, every rung,
    equal the page's saved rows."""
    from sweep_scripts import assert_matches_cache

    script = import_script("interleaved", "hypotheses")
    shared = sys.modules["_igo"]
    readings = {k: shared.READINGS[k] for k in ("dnnmem", "paper", "keep", "reduce")}
    monkeypatch.setattr(shared, "READINGS", readings)
    df = script.compute(small=True)
    assert set(df["reading"]) == set(readings) and set(df["network"]) == {"bert_tiny"}
    keys = ["reading", "rung", "npu", "network"]
    assert assert_matches_cache("interleaved", "hypotheses", df, keys) == len(df) == 48


def test_gemm_accounting_by_hand() -> None:
    """Reading ``gemm`` (issue 28: the paper's SCALE-Sim simulator times the GEMMs) counts the
    GEMM layers' steps alone. x(4) -> h (dense 3) -> r (relu) -> d (dense 2), batch 2, 1-byte
    elements, 1 GB/s, every step bandwidth-bound (ns = bytes): F:h 8 + 12 + 6 = 26, F:r 12,
    F:d 6 + 6 + 4 = 16, the loss 8, B:d/dx 4 + 6 + 6 = 16, B:d/dw 6 + 6 = 12 (dY kept from the
    dX half), B:r 18, B:h 6 + 8 + 12 = 26: the iteration 134 ns, the GEMM steps 96 ns."""
    import dnnmem

    import_script("interleaved", "hypotheses")
    shared = sys.modules["_igo"]
    doc = {"name": "c", "layers": [
        {"name": "x", "kind": "input", "shape": [4]},
        {"name": "h", "kind": "dense", "inputs": ["x"], "units": 3, "use_bias": False},
        {"name": "r", "kind": "relu", "inputs": ["h"]},
        {"name": "d", "kind": "dense", "inputs": ["r"], "units": 2, "use_bias": False}]}  # fmt: skip
    net = dnnmem.load_network(doc, batch=2, bytes_per_element=1)
    r = dnnmem.estimate(net, capacity=1e6, bandwidth=1e9, throughput=1e12,
                        policy="split-backward(order=seq, tile=2) + none")  # fmt: skip
    assert r.time == pytest.approx(134e-9, rel=1e-9)
    with shared.using("gemm"):
        assert shared.accounted_time(r) == pytest.approx(96e-9, rel=1e-9)
    with shared.using("dnnmem"):
        assert shared.accounted_time(r) == r.time
    with pytest.raises(ValueError, match="not one of"):
        shared.using("nope")


def test_yolov2_tiny_rows_are_what_the_engine_computes() -> None:
    """The small NPU's YOLO of Table 4 (darknet's yolov2-tiny.cfg, hypotheses.py's full mode on
    the small NPU only): its baseline and Interleaving rows at the scorecard's `keep` reading
    equal the saved table's (the two runs take seconds: nine convolutions)."""
    import pandas as pd
    from sweep_scripts import assert_matches_cache, pages

    script = import_script("interleaved", "hypotheses")
    C = sys.modules["_igo"]
    assert C.NPU_ONLY == {"small": ["yolov2_tiny"], "large": []}
    rows = []
    with C.using("keep"):
        for rung in ("Baseline", "Interleaving"):
            r = C.run("yolov2_tiny", "small", **C.LADDER[rung])
            rows.append({"reading": "keep", "rung": rung, "npu": "small", "network": "yolov2_tiny",
                         "time": r["time"], "dy_share_of_reads": r["dy_share_of_reads"],
                         "dy_share_of_traffic": r["dy_share_of_traffic"]})  # fmt: skip
    df = pd.DataFrame(rows)
    df["change_pct"] = 100 * (df["time"] / df["time"].iloc[0] - 1)
    keys = ["reading", "rung", "npu", "network"]
    assert assert_matches_cache("interleaved", "hypotheses", df, keys) == 2
    # The eleven-model averages of the page leave it out (it runs on one NPU only).
    saved = pages().load_tables("interleaved")["hypotheses"]
    a = script.averages(saved).set_index(["reading", "npu"])
    keep = saved[(saved["reading"] == "keep") & (saved["npu"] == "small")
                 & (saved["rung"] == "Interleaving") & (saved["network"] != "yolov2_tiny")]  # fmt: skip
    assert a.at[("keep", "small"), "Interleaving"] == pytest.approx(keep["change_pct"].mean())


def test_offchip_reduction_flattens_the_core_curve() -> None:
    """The page's reading of §5's off-chip sum (docs/seeds/interleaved.md, "§5's batch split
    summed off chip"), on the saved full runs, the large NPU's nine models: at `keep` the gain
    grows by about 3 points from one to eight cores (the paper: 13.2); summing the parts off
    chip (`reduce`) charges the technique's partitions as well as the baseline's batch split, and
    the growth all but goes (−2.9 → −0.7 points)."""
    from sweep_scripts import pages

    claims = import_script("interleaved", "hypotheses")._claims()
    tables = pages().load_tables("interleaved")
    nine = list(claims.models("large"))

    def growth(df: Any) -> float:
        m = df[(df["figure"] == "Fig. 14") & df["network"].isin(nine)].groupby("x")["change_pct"]
        return float(m.mean()[8] - m.mean()[1])

    assert -4.0 < growth(tables["sensitivities_paper"]) < -2.0
    assert -1.5 < growth(tables["offchip_reduction"]) < 0.5
