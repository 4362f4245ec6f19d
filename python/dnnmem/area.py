"""A first-order SRAM area model: silicon area of an on-chip buffer of a given capacity.

    area [mm²] = capacity [bytes] × 8 bits × bit-cell area [µm²] / array efficiency × 1e-6

Bit-cell areas (high-density 6T cells) come from the thesis, Chapter 1 (p. 1): "an SRAM bit cell
area reduces from 0.074 µm² (in 16nm circa 2014) to 0.021 µm² (in 5 nm circa 2020)", citing
J. Chang et al., "A 5nm 135Mb SRAM in EUV and high-mobility-channel FinFET technology ...",
ISSCC 2020, pp. 238–240, doi:10.1109/ISSCC19947.2020.9062967. Four more nodes come from the
foundries' own papers: 45 nm 0.346 µm² (K. Mistry et al., Intel, IEDM 2007), 32 nm 0.171 µm²
(S. Natarajan et al., Intel, IEDM 2008), 22 nm 0.092 µm² (E. Karl et al., Intel, ISSCC 2012) and
7 nm 0.027 µm² (S.-Y. Wu et al., TSMC, IEDM 2016). Other nodes: pass ``bitcell_um2=`` with a value
whose source you know, or use :func:`sram_area_at_node`, which interpolates between these.

The array efficiency (bit cells / whole macro: sense amplifiers, decoders, redundancy, wiring)
defaults to 0.7. That is an ASSUMPTION of this model, not a figure from the thesis or its
sources: a round value for large high-density macros; pass your own when you have one. The model
ignores tags (a cache, not a scratchpad, needs them), ECC bits, banking for bandwidth and the
routing between banks, so it is a lower bound on a real cache's area.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Union

from ._lazy import LazyModule
from .units import parse_bytes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "BITCELL_UM2",
    "DEFAULT_ARRAY_EFFICIENCY",
    "sram_area",
    "sram_area_at_node",
    "with_area",
]

#: High-density SRAM bit-cell area in µm² by process node (16 and 5 nm: thesis ch. 1, p. 1,
#: after [3]; the others: the module docstring's sources).
BITCELL_UM2: dict[str, float] = {
    "45nm": 0.346,
    "32nm": 0.171,
    "22nm": 0.092,
    "16nm": 0.074,
    "7nm": 0.027,
    "5nm": 0.021,
}

#: Fraction of an SRAM macro's area that is bit cells. An assumption (see the module docstring).
DEFAULT_ARRAY_EFFICIENCY: float = 0.7

Capacity = Union[int, float, str, "np.ndarray", "pd.Series", list]


def _cell(node: str, bitcell_um2: float | None) -> float:
    if bitcell_um2 is not None:
        if (
            isinstance(bitcell_um2, bool)
            or not isinstance(bitcell_um2, (int, float))
            or not math.isfinite(bitcell_um2)
            or bitcell_um2 <= 0
        ):
            raise ValueError(f"bitcell_um2: must be a finite number > 0, got {bitcell_um2!r}")
        return float(bitcell_um2)
    key = str(node).lower().replace(" ", "")
    if key not in BITCELL_UM2:
        raise ValueError(
            f"node: unknown process node {node!r} (built in: "
            f"{', '.join(BITCELL_UM2)}; pass bitcell_um2= for another)"
        )
    return BITCELL_UM2[key]


def _bytes(capacity: Capacity) -> np.ndarray | float:
    if isinstance(capacity, str):
        return float(parse_bytes(capacity))
    if isinstance(capacity, (list, tuple)):
        capacity = np.array(
            [parse_bytes(c) if isinstance(c, str) else c for c in capacity], dtype=float
        )
    if isinstance(capacity, bool):
        raise ValueError(f"capacity_bytes: expected a number of bytes, got {capacity!r}")
    v = np.asarray(capacity, dtype=float)
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"capacity_bytes: must be finite and >= 0, got {capacity!r}")
    return float(v) if v.ndim == 0 else v


def sram_area(
    capacity_bytes: Capacity,
    node: str = "16nm",
    *,
    array_efficiency: float = DEFAULT_ARRAY_EFFICIENCY,
    bitcell_um2: float | None = None,
) -> float | np.ndarray:
    """Silicon area in mm² of an SRAM holding ``capacity_bytes``.

    Parameters
    ----------
    capacity_bytes : int, float, str, array-like or Series
        Bytes (``24 * 2**20``), a unit string (``"24MiB"``), or an array of them.
    node : str
        ``"16nm"`` (0.074 µm² per bit) or ``"5nm"`` (0.021 µm²), thesis ch. 1 p. 1.
    array_efficiency : float
        Bit-cell area / macro area, in (0, 1]; default 0.7 (an assumption, see the module doc).
    bitcell_um2 : float, optional
        A bit-cell area in µm² to use instead of ``node``'s.

    Returns
    -------
    float or ndarray
        mm², same shape as the input (a Series gives an ndarray).

    Raises
    ------
    ValueError
        Unknown node, a capacity < 0 / NaN / unreadable, an efficiency outside (0, 1], or a bad
        ``bitcell_um2``.

    Examples
    --------
    >>> round(sram_area("24MiB", "16nm"), 3)  # 24·2^20·8 bits × 0.074 µm² / 0.7
    21.283
    """
    cell = _cell(node, bitcell_um2)
    if (
        isinstance(array_efficiency, bool)
        or not isinstance(array_efficiency, (int, float))
        or not 0 < array_efficiency <= 1
    ):
        raise ValueError(f"array_efficiency: must be in (0, 1], got {array_efficiency!r}")
    return _bytes(capacity_bytes) * 8 * cell / array_efficiency * 1e-6


def with_area(
    df: pd.DataFrame,
    node: str = "16nm",
    *,
    array_efficiency: float = DEFAULT_ARRAY_EFFICIENCY,
    bitcell_um2: float | None = None,
    column: str = "area_mm2",
) -> pd.DataFrame:
    """A copy of a sweep DataFrame with a column of on-chip SRAM area (mm²) from ``capacity``.

    A sweep already carries ``area_mm2``, the modelled die (SRAM, MAC arrays and memory
    interfaces at the hardware's node, docs/model/cost.md); this function's is the SRAM alone at
    ``node``, and replaces that column unless you name another one
    (``with_area(df, column="sram_mm2")``).

    Parameters
    ----------
    df : DataFrame
        Needs a ``capacity`` column (bytes).
    node, array_efficiency, bitcell_um2
        As in :func:`sram_area`.
    column : str
        Name of the new column (default ``"area_mm2"``).

    Returns
    -------
    DataFrame
        ``df``'s rows and columns plus ``column``; ``df`` itself is not changed. A sweep's
        ``attrs["units"]`` gains ``column: "mm²"``.

    Raises
    ------
    ValueError
        ``capacity`` missing, or bad arguments as in :func:`sram_area`.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df: expected a pandas DataFrame, got {type(df).__name__}")
    if "capacity" not in df.columns:
        raise ValueError(
            f"with_area: missing column(s) ['capacity'] (bytes); the DataFrame has "
            f"{list(df.columns)}"
        )
    out = df.copy()
    out[column] = sram_area(
        df["capacity"].to_numpy(dtype=float),
        node,
        array_efficiency=array_efficiency,
        bitcell_um2=bitcell_um2,
    )
    if isinstance(out.attrs.get("units"), dict):  # a sweep's: the new column's unit too
        out.attrs["units"] = {**out.attrs["units"], column: "mm²"}
    return out


def sram_area_at_node(capacity_bytes: Capacity, node: str) -> float | np.ndarray:
    """:func:`sram_area` at any node from 5 to 45 nm: the bit cell interpolated log-log between
    the nodes of :data:`BITCELL_UM2` (``"12nm"``: between 16 and 7 nm), beyond them the
    nearest one's; the default array efficiency. The energy and cost model's SRAM area."""
    return sram_area(capacity_bytes, bitcell_um2=_bitcell_at(node))


@functools.lru_cache(maxsize=64)
def _bitcell_at(node: str) -> float:
    from .technology import node_nm

    nm = node_nm(node)
    cells = sorted((node_nm(k), v) for k, v in BITCELL_UM2.items())
    if nm <= cells[0][0]:
        return cells[0][1]
    if nm >= cells[-1][0]:
        return cells[-1][1]
    (x0, y0), (x1, y1) = next((a, b) for a, b in zip(cells, cells[1:]) if a[0] <= nm <= b[0])
    t = math.log(nm / x0) / math.log(x1 / x0)
    return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
