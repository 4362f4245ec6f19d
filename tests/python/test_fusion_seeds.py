"""The seed reproductions at the fusion their papers assume (``sweeps/fusion_seeds.py``): the
numbers the pages' "Fusion" sections show are those of ``tests/data/seeds/fusion/``, their
``none`` columns are the seed pages' own tables, and their fused columns are what the engine
computes now (OnSRAM Table I and MBS Fig. 10 on the small modes' networks, under a second each)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "seeds"
FAMILIES = ("onsram", "mbs", "interleaved")
# "1.85 → 1.48", "−0.66 % → −0.64 %", "6.8 % → 9.2 %": a number before and after fusion.
NUMBER = r"[−-]?\d+(?:\.\d+)?"
PAIR = re.compile(rf"({NUMBER})( ?%)? → ({NUMBER})( ?%)?")


def _data(family: str) -> pd.DataFrame:
    return pd.read_csv(DATA / "fusion" / f"{family}.csv")


def _section(family: str) -> str:
    text = (REPO / "docs" / "seeds" / f"{family}.md").read_text(encoding="utf-8")
    start = text.index("\n## Fusion\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else len(text)]


def _pairs(section: str) -> list[tuple[str, str, bool]]:
    return [(m[1], m[3], bool(m[2])) for m in PAIR.finditer(section)]


def _matches(shown: str, value: float, scale: float) -> bool:
    digits = len(shown.split(".")[1]) if "." in shown else 0
    return abs(value * scale - float(shown.replace("−", "-"))) <= 0.5 * 10.0**-digits + 1e-9


def _found(df: pd.DataFrame, before: str, after: str, percent: bool) -> bool:
    for scale in (1.0, 100.0) if percent else (1.0,):
        for none, fused in zip(df["none"], df["fused"]):
            if _matches(before, none, scale) and _matches(after, fused, scale):
                return True
    return False


@pytest.mark.parametrize("family", FAMILIES)
def test_page_numbers_are_the_data(family: str) -> None:
    """Every "before → after" on the page's Fusion section is a (none, fused) row of the data,
    rounded as shown."""
    df = _data(family)
    pairs = _pairs(_section(family))
    assert len(pairs) >= 10, f"docs/seeds/{family}.md: the Fusion section lost its numbers"
    missing = [f"{a} → {b}" for a, b, pct in pairs if not _found(df, a, b, pct)]
    assert not missing, f"docs/seeds/{family}.md, Fusion: not in tests/data/seeds/fusion: {missing}"


def test_a_wrong_number_is_caught() -> None:
    df = _data("onsram")
    assert _found(df, "1.83", "1.49", False)
    assert not _found(df, "1.83", "1.48", False)


def test_none_columns_are_the_seed_tables() -> None:
    """The runs at ``none`` are the seed pages' results: data that went stale when a seed table
    moved fails here."""
    fusion = _data("onsram")
    t1 = fusion[(fusion["figure"] == "Table I (2 B)")].set_index(["quantity", "key"])["none"]
    table1 = pd.read_csv(DATA / "onsram" / "table1.csv")
    table1 = table1[table1["bytes_per_element"] == 2]
    for _, r in table1.iterrows():
        if r["network"] == "GeoMean":
            continue
        assert t1[("inf", r["network"])] == pytest.approx(r["inf"], rel=1e-12)
        assert t1[("one_step", r["network"])] == pytest.approx(r["one_step"], rel=1e-12)
    fusion = _data("mbs")
    f10 = fusion[fusion["quantity"] == "traffic_ratio"].set_index("key")["none"]
    fig10 = pd.read_csv(DATA / "mbs" / "fig10_configs.csv")
    fig10 = fig10[fig10["encodings"] == "paper"]
    assert len(fig10) == len(f10)
    for _, r in fig10.iterrows():
        assert f10[f"{r['network']} / {r['config']}"] == pytest.approx(r["traffic_ratio"])


def _seed_module(family: str, name: str):  # type: ignore[no-untyped-def]
    folder = str(REPO / "sweeps" / family)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


@pytest.fixture
def fused(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """The family's shared module at its paper's fusion level, set back afterwards."""
    family, level = request.param
    shared = _seed_module(family, {"onsram": "_onsram", "mbs": "_mbs"}[family])
    shared.FUSION = level
    yield family
    shared.FUSION = "none"


@pytest.mark.parametrize("fused", [("onsram", "accelerator")], indirect=True)
def test_onsram_table1_fused_is_what_the_engine_computes(fused: str) -> None:
    df = _seed_module("onsram", "table1").compute(small=True)
    data = _data("onsram")
    data = data[data["figure"] == "Table I (2 B)"].set_index(["quantity", "key"])["fused"]
    rows = df[(df["bytes_per_element"] == 2) & (df["network"] != "GeoMean")]
    assert len(rows) >= 2
    for _, r in rows.iterrows():
        assert r["inf"] == pytest.approx(data[("inf", r["network"])], rel=1e-9)
        assert r["one_step"] == pytest.approx(data[("one_step", r["network"])], rel=1e-9)


@pytest.mark.parametrize("fused", [("mbs", "accelerator")], indirect=True)
def test_mbs_fig10_fused_is_what_the_engine_computes(fused: str) -> None:
    df = _seed_module("mbs", "fig10_configs").compute(small=True)
    data = _data("mbs")
    data = data[data["quantity"] == "traffic_ratio"].set_index("key")["fused"]
    rows = df[df["encodings"] == "paper"]
    assert len(rows) >= 5
    for _, r in rows.iterrows():
        assert r["traffic_ratio"] == pytest.approx(data[f"{r['network']} / {r['config']}"])
