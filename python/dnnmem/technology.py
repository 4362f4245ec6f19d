"""Technology figures: energy per byte, per operation and per second, area and price, by node.

Every figure comes from ``data/energy.json`` (its source, year and basis beside it; the
tables are described in docs/model/energy.md and docs/model/cost.md). The functions take and
return SI-friendly units named in each: pJ per byte or per operation, mm², W, USD; capacities
and bandwidths in bytes and bytes/s; a node as ``"7nm"`` or a number of nm.

The energy and the area of a design point follow from these (:mod:`dnnmem.energy` and
:mod:`dnnmem.cost`): what they need from a :class:`dnnmem.Hardware` is its off-chip memory
technology (``memory_type``), its process node (``node``), its clock and its precision.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import Any

from .units import parse_bytes

__all__ = [
    "DEFAULT_MEMORY",
    "DEFAULT_NODE",
    "DEFAULT_CLOCK",
    "compute_pj",
    "dram_pj_per_byte",
    "mac_area_mm2",
    "memory_technologies",
    "memory_unit",
    "memory_units",
    "usd_per_gb",
    "node_nm",
    "node_scale",
    "phy_area_mm2",
    "sram_leakage_w",
    "sram_pj_per_byte",
    "table",
    "wafer_usd",
]

#: The default design point's memory technology (the thesis's RTX 2080 Ti: GDDR6), used when a
#: :class:`dnnmem.Hardware` names none.
DEFAULT_MEMORY = "gddr6"
#: The default design point's process node (the RTX 2080 Ti's TSMC 12 nm).
DEFAULT_NODE = "12nm"
#: The default design point's clock in Hz (the RTX 2080 Ti's 1.545 GHz boost).
DEFAULT_CLOCK = 1.545e9


@functools.lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    """The parsed ``data/energy.json`` (read once)."""
    text = resources.files("dnnmem").joinpath("data/energy.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def node_nm(node: str | float) -> float:
    """``"7nm"`` (or ``"7 nm"``, ``7``) as nm; a ValueError names a node that is not one."""
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        value = float(node)
    else:
        text = str(node).strip().lower().replace(" ", "")
        text = text[:-2] if text.endswith("nm") else text
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"node: expected a process node such as '7nm', got {node!r}") from None
    if not (math.isfinite(value) and 1 <= value <= 250):
        raise ValueError(f"node: {node!r} is outside 1-250 nm")
    return value


def _log_interp(points: dict[str, float], nm: float, below: float) -> float:
    """Log-log interpolation in ``points`` (nm -> factor); below the smallest node the factor
    goes as nm ** ``below``; above the largest, the largest node's factor."""
    xs = sorted((float(k), v) for k, v in points.items())
    if nm <= xs[0][0]:
        return xs[0][1] * (nm / xs[0][0]) ** below
    if nm >= xs[-1][0]:
        return xs[-1][1]
    for (x0, y0), (x1, y1) in zip(xs, xs[1:]):
        if x0 <= nm <= x1:
            t = math.log(nm / x0) / math.log(x1 / x0)
            return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    raise AssertionError("unreachable")


@functools.lru_cache(maxsize=256)
def node_scale(node: str | float) -> tuple[float, float]:
    """(energy factor, area factor) of ``node`` relative to 45 nm (``nodes`` table)."""
    nm = node_nm(node)
    nodes = table()["nodes"]
    return _log_interp(nodes["energy_at_0.8V"], nm, 0.5), _log_interp(nodes["area"], nm, 1.0)


def _precision(precision: str | None) -> dict[str, str]:
    precisions = table()["compute"]["precisions"]
    key = "fp32" if precision is None else precision
    if key not in precisions:
        raise ValueError(
            f"precision: no energy figures for {precision!r} ({', '.join(precisions)})"
        )
    entry: dict[str, str] = precisions[key]
    return entry


def compute_pj(precision: str | None, node: str | float) -> tuple[float, float]:
    """(pJ per MAC, pJ per vector op) at ``precision`` (None: fp32) and ``node``."""
    units = table()["compute"]["units"]
    p = _precision(precision)
    e = node_scale(node)[0]
    mac = units["mult"][p["mult"]][0] + units["add"][p["accumulate"]][0]
    return mac * e, units["add"][p["vector"]][0] * e


def mac_area_mm2(precision: str | None, node: str | float) -> float:
    """Area (mm²) of one MAC unit (multiplier and accumulator) at ``precision`` and ``node``."""
    units = table()["compute"]["units"]
    p = _precision(precision)
    um2 = units["mult"][p["mult"]][1] + units["add"][p["accumulate"]][1]
    return um2 * node_scale(node)[1] * 1e-6


@functools.lru_cache(maxsize=1)
def _sram_points() -> list[tuple[float, float, float, float]]:
    """(bytes, pJ/B read-write mean, mm², mW leakage) at the table's node, by capacity."""
    pts = table()["sram"]["points"]
    out = [
        (
            float(parse_bytes(p["capacity"])),
            (p["read_pj_per_byte"] + p["write_pj_per_byte"]) / 2,
            p["area_mm2"],
            p["leakage_mw"],
        )
        for p in pts
    ]
    return sorted(out)


def _sram_curve(capacity: float, column: int) -> float:
    """A column of the SRAM table at ``capacity`` bytes: log-log between points, the end
    slopes beyond them."""
    pts = _sram_points()
    c = max(float(capacity), 1.0)
    xs = [p[0] for p in pts]
    ys = [p[column] for p in pts]
    i = (
        0
        if c <= xs[0]
        else len(xs) - 2
        if c >= xs[-1]
        else max(j for j in range(len(xs) - 1) if xs[j] <= c)
    )
    t = math.log(c / xs[i]) / math.log(xs[i + 1] / xs[i])
    return math.exp(math.log(ys[i]) + t * (math.log(ys[i + 1]) - math.log(ys[i])))


@functools.lru_cache(maxsize=1)
def _bank() -> float:
    return float(parse_bytes(table()["sram"]["bank"]))


def sram_pj_per_byte(capacity: Any, node: str | float, area_mm2: Any) -> Any:
    """pJ per byte read or written (their mean) of an on-chip SRAM of ``capacity`` bytes at
    ``node`` whose area is ``area_mm2``: one bank's access (at most ``sram.bank``, CACTI's
    table scaled from its node) and the wire to the bank (half the side of the area).

    ``capacity`` and ``area_mm2`` may be NumPy arrays of one shape (a sweep's rows): the result
    is then element-wise, bit for bit the scalar's (:func:`_per_distinct`)."""
    sram = table()["sram"]
    e_ref = node_scale(sram["node"])[0]
    if not _is_scalar(capacity):
        import numpy as np

        c = np.asarray(capacity, dtype=float)
        bank_a = np.minimum(np.maximum(c, 1.0), _bank())
        access_a = _per_distinct(lambda b: _sram_curve(b, 1), bank_a) * node_scale(node)[0] / e_ref
        area = np.asarray(area_mm2, dtype=float)
        return access_a + sram["wire_pj_per_bit_mm"] * 8 * np.sqrt(np.maximum(area, 0.0)) / 2
    bank = min(max(float(capacity), 1.0), _bank())
    access = _sram_curve(bank, 1) * node_scale(node)[0] / e_ref
    wire = sram["wire_pj_per_bit_mm"] * 8 * math.sqrt(max(area_mm2, 0.0)) / 2
    return access + wire


def sram_leakage_w(capacity: Any, node: str | float) -> Any:
    """Leakage power (W) of ``capacity`` bytes of SRAM at ``node``: CACTI's leakage per bank
    (``sram.bank``) times the banks, scaled from the table's node by the energy factor.

    ``capacity`` may be a NumPy array (a sweep's rows): the result is then element-wise, bit for
    bit the scalar's (:func:`_per_distinct`)."""
    sram = table()["sram"]
    bank = _bank()
    if not _is_scalar(capacity):
        import numpy as np

        c = np.asarray(capacity, dtype=float)
        per_bank_a = _per_distinct(lambda x: _sram_curve(x, 3), np.minimum(c, bank)) * 1e-3
        banks_a = np.where(c > bank, np.maximum(c / bank, 1.0), 1.0)
        watts = per_bank_a * banks_a * node_scale(node)[0] / node_scale(sram["node"])[0]
        return np.where(c <= 0, 0.0, watts)
    if capacity <= 0:
        return 0.0
    per_bank = _sram_curve(min(float(capacity), bank), 3) * 1e-3
    banks = max(float(capacity) / bank, 1.0) if capacity > bank else 1.0
    return per_bank * banks * node_scale(node)[0] / node_scale(sram["node"])[0]


def _is_scalar(value: Any) -> bool:
    """A number (NumPy's scalars and 0-d arrays too), not an array of rows."""
    return not (getattr(value, "ndim", 0) > 0 or isinstance(value, (list, tuple)))


def _per_distinct(f: Any, values: Any) -> Any:
    """``f`` (scalar Python arithmetic) at each element of the float array ``values``, called
    once per distinct value. The array paths of :func:`sram_pj_per_byte` and
    :func:`sram_leakage_w` take only the table's curve (``math.log``/``math.exp``, whose
    results NumPy's vectorised versions need not match to the bit) through here, and do the rest
    with NumPy's element-wise ``+ - * /``, ``sqrt``, ``minimum``/``maximum`` in the scalar
    code's order: each of those is the correctly rounded IEEE operation, so every element equals
    the scalar function's result bit for bit (``tests/python/test_energy.py``)."""
    import numpy as np

    keys, inverse = np.unique(values.ravel(), return_inverse=True)
    return np.array([float(f(k)) for k in keys])[inverse.ravel()].reshape(values.shape)


def memory_technologies() -> list[str]:
    """The off-chip memory and host-link technologies with energy figures."""
    return [*table()["dram"]["technologies"], *table()["host_links"]["technologies"]]


def _memory(tech: str) -> tuple[str, dict[str, Any]]:
    key = str(tech).lower().replace(" ", "").replace("_", "-")
    for group in ("dram", "host_links"):
        entries = table()[group]["technologies"]
        if key in entries:
            return group, entries[key]
    import difflib

    close = difflib.get_close_matches(key, memory_technologies(), n=2, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise ValueError(
        f"memory_type: no energy figures for {tech!r}{hint} "
        f"(known: {', '.join(memory_technologies())})"
    )


def dram_pj_per_byte(tech: str) -> tuple[float, str]:
    """(pJ per byte, ``"dram"`` or ``"host_link"``) of moving a byte over ``tech``."""
    group, entry = _memory(tech)
    return entry["pj_per_bit"] * 8, "dram" if group == "dram" else "host_link"


def memory_units(tech: str, bandwidth: float) -> tuple[int, float]:
    """(interface units, capacity in GB) needed for ``bandwidth`` bytes/s of ``tech``: HBM
    stacks or DRAM channels, at least one; (0, 0) for a host link."""
    group, entry = _memory(tech)
    if group != "dram":
        return 0, 0.0
    n = max(1, math.ceil(float(bandwidth) / (entry["unit_gbps"] * 1e9) - 1e-9))
    return n, n * float(entry["unit_gb"])


def memory_unit(tech: str) -> tuple[float, float, float]:
    """(GB/s, GB, PHY mm²) of one interface unit of ``tech``; zeros for a host link."""
    group, entry = _memory(tech)
    if group != "dram":
        return 0.0, 0.0, 0.0
    phy = float(table()["dram"]["phy_mm2"][entry["unit"]])
    return float(entry["unit_gbps"]), float(entry["unit_gb"]), phy


def usd_per_gb(tech: str) -> float:
    """Price (USD per GB, rough) of ``tech`` memory; 0 for a host link."""
    group, _ = _memory(tech)
    return float(table()["dram"]["usd_per_gb"][_memory_key(tech)]) if group == "dram" else 0.0


def phy_area_mm2(tech: str, bandwidth: float) -> float:
    """Area (mm²) of the memory interface (PHYs) that ``bandwidth`` bytes/s of ``tech`` needs."""
    group, entry = _memory(tech)
    if group != "dram":
        return 0.0
    n, _ = memory_units(tech, bandwidth)
    return n * float(table()["dram"]["phy_mm2"][entry["unit"]])


def dram_usd(tech: str, gb: float) -> float:
    """Price (USD, rough) of ``gb`` GB of ``tech`` memory; 0 for a host link."""
    group, _ = _memory(tech)
    if group != "dram":
        return 0.0
    key = _memory_key(tech)
    return float(table()["dram"]["usd_per_gb"][key]) * gb


def _memory_key(tech: str) -> str:
    return str(tech).lower().replace(" ", "").replace("_", "-")


def wafer_usd(node: str | float) -> float:
    """Price (USD) of a 300 mm wafer at ``node`` (log-log between the tabulated nodes)."""
    return _log_interp(table()["die"]["usd_per_wafer"], node_nm(node), 0.0)
