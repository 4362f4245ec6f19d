"""sweeps/scorecard.py: every seed's headline claims, read from the saved tables (never a seed
run), scored by sweeps/_claims.py's rule, and shown on docs/seeds/index.md as the script writes
it."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("pandas")

REPO = Path(__file__).resolve().parents[2]


def _scorecard() -> ModuleType:
    if "scorecard" in sys.modules:
        return sys.modules["scorecard"]
    spec = importlib.util.spec_from_file_location("scorecard", REPO / "sweeps" / "scorecard.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["scorecard"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_claim_tolerance_and_direction_by_hand() -> None:
    """±15 % for ratios, ±25 % for reductions, and the direction against the neutral value."""
    sc = _scorecard()
    claim = sc._claims.Claim
    assert claim("cdma", "r", "§", 2.6, 2.6 * 0.86, "ratio").within  # −14 %
    assert not claim("cdma", "r", "§", 2.6, 2.6 * 0.84, "ratio").within  # −16 %
    assert claim("cdma", "p", "§", -29.3, -22.0, "reduction").within  # −24.9 %
    assert not claim("cdma", "p", "§", -29.3, -21.9, "reduction").within  # −25.3 %
    wrong = claim("cdma", "p", "§", -13.2, 0.5, "reduction")
    assert not wrong.direction_right and not wrong.within
    # A ratio below 1 against one above: the relative error alone (−13 %) would pass.
    down = claim("cdma", "r", "§", 1.1, 0.96, "ratio")
    assert abs(down.relative_error) < 0.15 and not down.direction_right and not down.within
    assert math.isnan(claim("cdma", "z", "§", 0.0, 1.0, "reduction").relative_error)


def test_frame_lists_every_claims_file_and_names_the_rest() -> None:
    sc = _scorecard()
    df = sc.frame()
    have = {s for s in sc.SEEDS if (REPO / "sweeps" / s / "claims.py").exists()}
    assert set(df["seed"]) == have and set(df.attrs["missing"]) == set(sc.SEEDS) - have
    assert {"cdma", "interleaved"} <= have
    assert list(df.columns) == sc.COLUMNS and df["claim"].is_unique
    assert df.attrs["score"] == pytest.approx(df["within"].mean())
    assert (df["within"] <= df["direction_right"]).all()


def test_values_come_from_the_saved_tables(monkeypatch) -> None:
    """A claim's dnnmem value moves with its table (never retyped): the cDMA ZVC average is the
    mean over the networks of the Titan Xp ZVC rows' map_ratio with the masks left out (reading
    M, masks.csv); doubling the table doubles it."""
    sc = _scorecard()
    real = sc._pages.load_tables("cdma")
    m = real["masks"]
    zvc = m[(m["mask"] == "off") & (m["gpu"] == "titan-xp") & (m["bar"] == "ZV")]
    got = {c.claim: c for c in sc.gather(["cdma"])[0]}
    avg = got["ZVC compression ratio, average over the networks"]
    assert avg.dnnmem == pytest.approx(zvc["map_ratio"].mean(), rel=1e-12)
    assert "M" in avg.hypotheses
    doubled = dict(real, masks=m.assign(map_ratio=2 * m["map_ratio"]))
    monkeypatch.setattr(sc._pages, "load_tables", lambda seed: doubled)
    again = {c.claim: c for c in sc.gather(["cdma"])[0]}
    assert again[avg.claim].dnnmem == pytest.approx(2 * avg.dnnmem, rel=1e-12)


def test_json_rows(capsys) -> None:
    sc = _scorecard()
    sc.main(["--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows and {"claim", "paper", "dnnmem", "tolerance", "within"} <= set(rows[0])
    assert len(rows) == len(sc.frame())


def test_index_page_is_what_the_scorecard_writes() -> None:
    sc = _scorecard()
    text = (REPO / "docs" / "seeds" / "index.md").read_text(encoding="utf-8")
    block = sc._pages.read_blocks(text)[sc.BLOCK]
    want = sc.markdown(sc.frame())
    assert block == (want if want.endswith("\n") else want + "\n"), (
        "docs/seeds/index.md's scorecard differs: run python sweeps/scorecard.py --markdown"
    )


def test_issue_28_headline_numbers_in_their_bands() -> None:
    """The pages' headline numbers of issue 28 (the saved tables; the seeds' spot checks tie
    those to the engine): cDMA's map average under per-network sparsity, the interleaved
    paper's oracle read as §3.3 words it, and the ideal rung at the `keep` reading, each NPU
    over the paper's nine models."""
    sc = _scorecard()
    df = sc.frame(["cdma", "interleaved"]).set_index("claim")["dnnmem"]
    bands = {
        # Reading M (the paper's ratios without ZVC's masks): 2.37× and 9.73× with them.
        "ZVC compression ratio, average over the networks": (2.50, 2.65),
        "ZVC compression ratio, largest per layer": (13.5, 14.5),
        "small NPU, dY oracle: speedup": (1.30, 1.48),
        "small NPU, Interleaving: time change": (-1.5, -0.1),
        "large NPU, dY oracle: speedup": (1.08, 1.20),
        "small NPU, + Rearrangement (ideal): time change": (-29.0, -23.5),
        "large NPU, + Rearrangement (ideal): time change": (-16.5, -12.5),
        "large NPU, + Rearrangement (Alg. 1): time change": (-12.0, -8.5),
        # Figs. 14-17 at the `keep` reading (sweeps/interleaved/sensitivities_paper.py).
        "large NPU at 0.5× bandwidth: time change": (-15.0, -11.5),
        "quad-core large NPU: time change": (-17.5, -14.0),
        "large NPU at batch 32: time change": (-19.5, -15.5),
        # The GPU at §6.6's baseline kernel [5], nothing kept between tiles (the `kernel` level).
        "GPU (RTX 3090), Interleaving: backward time change": (-5.0, -1.5),
        "GPU (RTX 3090), + Rearrangement (Alg. 1): backward time change": (-17.0, -12.5),
        "GPU (RTX 3090), + Partitioning: backward time change": (-17.0, -12.5),
    }
    for claim, (lo, hi) in bands.items():
        assert lo <= df[claim] <= hi, (claim, df[claim])


def test_interleaved_claims_average_each_npus_own_models() -> None:
    """Table 4 and §6.1: the small NPU runs BERT-tiny and T5-small, the large BERT-large and
    T5-large, nine models each; a ladder claim is the mean of exactly those rows of the saved
    hypotheses table (by hand: the small NPU's Alg. 1 rung over its nine networks), and
    ``which="all"`` gives the eleven-model mean of the page's tables; the small NPU's YOLO is
    YOLOv2-tiny (Table 4), whose rows only the full hypotheses table has."""
    sc = _scorecard()
    igo_claims = sc.claims_module("interleaved")
    assert igo_claims is not None
    small, large = igo_claims.PAPER_MODELS["small"], igo_claims.PAPER_MODELS["large"]
    assert len(small) == len(large) == 9
    assert {"bert_tiny", "t5_small", "yolov2_tiny"} <= set(small)
    assert not {"bert_large", "t5_large", "yolov3"} & set(small)
    assert {"bert_large", "t5_large"} <= set(large) and not {"bert_tiny", "t5_small"} & set(large)
    tables = sc._pages.load_tables("interleaved")
    h = tables["hypotheses"]
    rung = h[(h["reading"] == "keep") & (h["npu"] == "small")
             & (h["rung"] == "+ Rearrangement (Alg. 1)")].set_index("network")["change_pct"]  # fmt: skip
    name = "small NPU, + Rearrangement (Alg. 1): time change"
    paper = {c.claim: c.dnnmem for c in igo_claims.claims(tables)}
    every = {c.claim: c.dnnmem for c in igo_claims.claims(tables, which="all")}
    assert paper[name] == pytest.approx(sum(rung[n] for n in small) / 9, rel=1e-12)
    eleven = rung.drop("yolov2_tiny")
    assert every[name] == pytest.approx(eleven.mean(), rel=1e-12) and len(eleven) == 11


def test_interleaved_misses_table_lists_every_claim_outside_its_band() -> None:
    """The page's "The claims that still miss" table: one row per claim of the paper that is not
    within (no more, no fewer), each with the band's near edge (paper × (1 − tolerance)) and its
    value at `reduce`, where the multi-core rows take offchip_reduction.csv's means of the large
    NPU's nine models (by hand: the dual-core row is the mean of that table's 2-core rows)."""
    sc = _scorecard()
    igo_claims = sc.claims_module("interleaved")
    assert igo_claims is not None
    tables = sc._pages.load_tables("interleaved")
    text = igo_claims.misses_markdown(tables)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "paper |" not in line]
    misses = [c for c in igo_claims.claims(tables) if not c.within]
    assert [r.split(" | ")[0][2:] for r in rows] == [c.claim for c in misses]
    assert f"{len(misses)} of 26 claims outside their band" in text
    dual = next(r for r in rows if r.startswith("| dual-core")).split(" | ")
    assert dual[2] == "≤ −16.80 %"  # −22.4 × (1 − 0.25)
    red = tables["offchip_reduction"]
    two = red[(red["figure"] == "Fig. 14") & (red["x"] == 2.0)].set_index("network")["change_pct"]
    mean = sum(two[n] for n in igo_claims.PAPER_MODELS["large"]) / 9
    assert dual[4].rstrip(" |") == f"{mean:.1f}".replace("-", "−")
