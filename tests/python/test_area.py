"""SRAM area model: capacity × 8 bits × bit-cell area / array efficiency, by hand.

Bit cells: 0.074 µm² at 16 nm, 0.021 µm² at 5 nm (thesis ch. 1, p. 1, after Chang et al.,
ISSCC 2020)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dnnmem
from dnnmem.area import BITCELL_UM2, DEFAULT_ARRAY_EFFICIENCY, sram_area, with_area

MIB = 2**20


def test_bitcells_and_default_efficiency_are_the_documented_values():
    assert BITCELL_UM2 == {
        "45nm": 0.346,
        "32nm": 0.171,
        "22nm": 0.092,
        "16nm": 0.074,
        "7nm": 0.027,
        "5nm": 0.021,
    }
    assert DEFAULT_ARRAY_EFFICIENCY == 0.7
    assert dnnmem.sram_area is sram_area


def test_24_mib_at_16nm_by_hand():
    # 24·2^20·8 = 201,326,592 bits × 0.074 µm² = 14,898,167.808 µm² = 14.898 mm²;
    # / 0.7 = 21.283 mm².
    assert sram_area(24 * MIB, "16nm") == pytest.approx(14.898167808 / 0.7, rel=1e-12)
    assert sram_area(24 * MIB, "16nm") == pytest.approx(21.28309687, rel=1e-9)
    assert sram_area("24MiB") == sram_area(24 * MIB)  # unit strings, 16 nm by default
    assert sram_area(24 * MIB, array_efficiency=1.0) == pytest.approx(14.898167808, rel=1e-12)


def test_5nm_and_a_custom_bitcell():
    # 128 MiB (the Radeon 6900 XT's infinity cache, thesis ch. 1) at 5 nm:
    # 2^30 bits × 0.021 µm² = 22,548,578.304 µm² = 22.549 mm²; / 0.7 = 32.212 mm².
    assert sram_area(128 * MIB, "5nm") == pytest.approx(22.548578304 / 0.7, rel=1e-12)
    assert sram_area(128 * MIB, "5nm", array_efficiency=0.5) == pytest.approx(45.097156608)
    # A custom cell overrides the node: 1 MiB of 0.1 µm² cells = 8,388,608 × 0.1 µm²
    # = 0.839 mm².
    assert sram_area(MIB, "unknown", bitcell_um2=0.1, array_efficiency=1) == pytest.approx(
        0.8388608
    )
    assert sram_area(0) == 0.0


def test_arrays_and_frames():
    caps = np.array([0, 8, 24]) * MIB
    out = sram_area(caps, "5nm")
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    np.testing.assert_allclose(out, caps * 8 * 0.021e-6 / 0.7)
    assert sram_area(["24MiB", 1024], "16nm")[1] == pytest.approx(8192 * 0.074e-6 / 0.7)
    df = pd.DataFrame({"capacity": caps, "time": [3.0, 2.0, 1.0]})
    out_df = with_area(df, "5nm")
    assert "area_mm2" not in df.columns  # not modified in place
    np.testing.assert_allclose(out_df["area_mm2"], caps * 8 * 0.021e-6 / 0.7)
    assert list(with_area(df, column="a").columns) == ["capacity", "time", "a"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: sram_area(MIB, "12nm"), ValueError, "node: unknown process node '12nm'"),
        (
            lambda: sram_area(MIB, array_efficiency=0),
            ValueError,
            r"array_efficiency: must be in \(0, 1\]",
        ),
        (lambda: sram_area(MIB, array_efficiency=1.5), ValueError, "array_efficiency"),
        (lambda: sram_area(-1), ValueError, "capacity_bytes: must be finite and >= 0"),
        (lambda: sram_area(float("nan")), ValueError, "capacity_bytes"),
        (lambda: sram_area("24 furlongs"), ValueError, "unknown unit"),
        (lambda: sram_area(True), ValueError, "capacity_bytes"),
        (
            lambda: sram_area(MIB, bitcell_um2=0),
            ValueError,
            "bitcell_um2: must be a finite number > 0",
        ),
        (
            lambda: with_area(pd.DataFrame({"time": [1.0]})),
            ValueError,
            r"missing column\(s\) \['capacity'\]",
        ),
        (lambda: with_area([1]), TypeError, "df: expected a pandas DataFrame"),
    ],
)
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()
