"""docs/thesis-figures.md, "What operator fusion would change": the page's table is
tests/data/thesis/fusion.csv (written by ``python sweeps/thesis/fusion.py``), and that is what
the engine computes (MobileNet v2 at N = 32 recomputed, about a second)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "thesis" / "fusion.csv"
CAPACITIES = (24, 128, 400)


def _script():  # type: ignore[no-untyped-def]
    folder = str(REPO / "sweeps" / "thesis")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import fusion

    return fusion


def _page_rows() -> dict[str, list[str]]:
    text = (REPO / "docs" / "thesis-figures.md").read_text(encoding="utf-8")
    section = text[text.index("## What operator fusion would change") :]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0].endswith(")") and cells[0] != "network (N)":
            rows[cells[0].split(" (")[0]] = cells[1:]
    return rows


def _shown(cell: str) -> list[str]:
    return [x.strip().rstrip("%").strip().replace(",", "") for x in cell.split("/")]


def _agrees(shown: str, value: float) -> bool:
    digits = len(shown.split(".")[1]) if "." in shown else 0
    return abs(value - float(shown)) <= 0.5 * 10.0**-digits + 1e-9


def test_page_table_is_the_data() -> None:
    df = pd.read_csv(DATA).set_index(["network", "capacity_mib", "fusion"])
    rows = _page_rows()
    assert sorted(rows) == sorted(_script().WORKLOADS)
    for net, cells in rows.items():
        steps = [int(df.loc[(net, 24, lv), "steps"]) for lv in ("none", "pointwise", "accelerator")]
        assert [int(x) for x in _shown(cells[0])] == steps, net
        for i, what in enumerate(["traffic_vs_none"] * 3 + ["time_vs_none"] * 3):
            mib = CAPACITIES[i % 3]
            shown = _shown(cells[1 + i])
            for s, lv in zip(shown, ("pointwise", "accelerator"), strict=True):
                assert _agrees(s, df.loc[(net, mib, lv), what]), (net, what, mib, lv, s)
        for s, lv in zip(_shown(cells[7]), ("none", "pointwise", "accelerator"), strict=True):
            assert _agrees(s, 100 * df.loc[(net, 24, lv), "type_ii_share"]), (net, lv, s)


def test_a_wrong_number_is_caught() -> None:
    assert _agrees("0.735", 0.7352) and not _agrees("0.736", 0.7352)


def test_the_data_is_what_the_engine_computes() -> None:
    got = _script().compute(networks=["mobilenet_v2"])
    want = pd.read_csv(DATA)
    want = want[want["network"] == "mobilenet_v2"].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("column", ["traffic", "time"])
def test_none_rows_are_their_own_base(column: str) -> None:
    df = pd.read_csv(DATA)
    assert (df.loc[df["fusion"] == "none", f"{column}_vs_none"] == 1.0).all()
