"""sweeps/onsram/: every script's compute + plot in --small mode, and the invariants its numbers
must keep (docs/seeds/onsram.md)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

SWEEPS = Path(__file__).resolve().parents[2] / "sweeps" / "onsram"


@pytest.fixture(scope="module")
def scripts():
    sys.path.insert(0, str(SWEEPS))
    try:
        yield {n: importlib.import_module(n) for n in ("table1", "fig2", "spm_size", "training")}
    finally:
        sys.path.remove(str(SWEEPS))


def test_table1_and_fig2(scripts) -> None:
    import matplotlib

    matplotlib.use("Agg")
    t1 = scripts["table1"].compute(small=True)
    assert set(t1["bytes_per_element"]) == {2}
    assert (t1["inf"] >= t1["one_step"] - 1e-12).all() and (t1["one_step"] >= 1 - 1e-12).all()
    assert len(scripts["table1"].plot(t1).axes) == 1
    spm = scripts["table1"].spm_effect(small=True)  # rule O1's scratchpad floor, off and on
    t2 = t1.set_index("network")
    for _, row in spm[spm["network"] != "GeoMean"].iterrows():
        assert row["inf"] == t2.loc[row["network"], "inf"]  # off: Table I's numbers, unchanged
        assert row["inf_spm"] <= row["inf"] and row["one_step_spm"] >= 1 - 1e-12
    f2 = scripts["fig2"].compute(small=True)
    for col in ("static", "static_thesis_order", "one_step", "eager_wb_max", "eager_spec_max"):
        assert (f2[col] <= f2["inf"] * (1 + 1e-12)).all(), col
    assert (f2["static"] >= f2["one_step"] * (1 - 1e-12)).all()
    rel = scripts["fig2"].relations(f2)
    assert list(rel.columns) == ["quantity", "paper", "dnnmem"]
    scripts["fig2"].plot(f2)


def test_spm_size_and_training(scripts) -> None:
    sizes = scripts["spm_size"].compute(small=True)
    assert (sizes["static"] <= sizes["inf"] * (1 + 1e-12)).all()
    assert (sizes["static"] >= 1 - 1e-12).all()
    scripts["spm_size"].plot(sizes)
    tr = scripts["training"].compute(small=True)
    assert set(tr["policy"]) >= {"lookahead", "onsram-static", "infinite-spm"}
    scripts["training"].plot(tr)
