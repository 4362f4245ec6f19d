"""Silicon area (mm²) and a rough price (USD) of a design point (docs/model/cost.md).

    area_sram_mm2    = SRAM of ``capacity`` at the node (:func:`dnnmem.area.sram_area_at_node`)
    area_compute_mm2 = throughput / (2 × clock) MAC units × one MAC's area at the precision and node
    area_phy_mm2     = the memory interfaces ``bandwidth`` needs (HBM stacks, DRAM channels) × PHY area
    area_mm2         = (the three) / (1 − uncore fraction)
    cost_die_usd     = wafer price / (dies per 300 mm wafer × Poisson yield at the defect density)
    cost_dram_usd    = the interfaces' DRAM capacity × USD per GB          (ROUGH)
    cost_usd         = cost_die_usd + cost_dram_usd                          (ROUGH)

Every figure is in ``data/energy.json`` with its source (:mod:`dnnmem.technology`); the
technology (memory, node, clock, precision) is the :class:`dnnmem.Hardware`'s. Registered as a
report model (:mod:`dnnmem.registry`): every result and sweep row carries these columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import technology as tech
from .area import sram_area_at_node

if TYPE_CHECKING:
    from .hardware import Hardware

__all__ = ["AREA_COLUMNS", "area_columns", "die_usd", "dies_per_wafer", "die_yield"]

#: The columns of :func:`area_columns`.
AREA_COLUMNS = (
    "area_mm2",
    "area_sram_mm2",
    "area_compute_mm2",
    "area_phy_mm2",
    "cost_usd",
    "cost_die_usd",
    "cost_dram_usd",
)


def dies_per_wafer(area_mm2: float, wafer_mm: float = 300.0) -> float:
    """Gross dies of ``area_mm2`` on a round wafer: π r² / A − π d / √(2A) (edge loss)."""
    if area_mm2 <= 0:
        return math.inf
    r = wafer_mm / 2
    return max(math.pi * r * r / area_mm2 - math.pi * wafer_mm / math.sqrt(2 * area_mm2), 0.0)


def die_yield(area_mm2: float, defects_per_cm2: float) -> float:
    """Poisson yield exp(−A · D0), A in cm²."""
    return math.exp(-area_mm2 / 100 * defects_per_cm2)


def die_usd(area_mm2: float, node: str | float) -> float:
    """Price (USD, rough) of one good die of ``area_mm2`` at ``node``."""
    die = tech.table()["die"]
    good = dies_per_wafer(area_mm2, die["wafer_mm"]) * die_yield(area_mm2, die["defects_per_cm2"])
    return tech.wafer_usd(node) / good if good > 0 else math.inf


def area_columns(totals: Mapping[str, Any], hardware: Hardware, option: Any = None) -> dict:
    """The area and cost columns of one result or a sweep's rows (scalars or arrays, the same
    arithmetic): ``totals`` needs ``capacity``, ``bandwidth`` and ``throughput``."""
    import numpy as np

    memory = hardware.memory_type or tech.DEFAULT_MEMORY
    node = hardware.node or tech.DEFAULT_NODE
    clock = hardware.clock or tech.DEFAULT_CLOCK
    die = tech.table()["die"]
    scalar = all(
        isinstance(totals[k], (int, float)) for k in ("capacity", "bandwidth", "throughput")
    )
    cap = np.asarray(totals["capacity"], dtype=float)
    bw = np.asarray(totals["bandwidth"], dtype=float)
    thr = np.asarray(totals["throughput"], dtype=float)
    sram = np.asarray(sram_area_at_node(cap, node), dtype=float)
    compute = thr / (2 * clock) * tech.mac_area_mm2(hardware.precision, node)
    unit_gbps, unit_gb, unit_mm2 = tech.memory_unit(memory)
    units = np.maximum(1.0, np.ceil(bw / (unit_gbps * 1e9) - 1e-9)) if unit_gbps else 0 * bw
    phy = units * unit_mm2
    area = (sram + compute + phy) / (1 - float(die["uncore_fraction"]))
    r = die["wafer_mm"] / 2
    gross = np.maximum(np.pi * r * r / area - np.pi * die["wafer_mm"] / np.sqrt(2 * area), 0.0)
    good = gross * np.exp(-area / 100 * die["defects_per_cm2"])
    with np.errstate(divide="ignore"):
        die_usd_ = np.where(good > 0, tech.wafer_usd(node) / np.where(good > 0, good, 1), np.inf)
    dram = units * unit_gb * tech.usd_per_gb(memory)
    out = {
        "area_mm2": area,
        "area_sram_mm2": sram,
        "area_compute_mm2": compute,
        "area_phy_mm2": phy,
        "cost_usd": die_usd_ + dram,
        "cost_die_usd": die_usd_,
        "cost_dram_usd": dram,
    }
    if scalar:
        return {k: float(v) for k, v in out.items()}
    return {k: np.broadcast_to(v, cap.shape).astype(float) for k, v in out.items()}


def peak_power_w(hardware: Hardware, sram_bytes: float | None = None) -> float:
    """Power (W) at peak: the MAC arrays at full throughput, the memory at full bandwidth, the
    SRAM's leakage and the rest's static power (docs/model/energy.md): the model's TDP."""
    from .energy import table_static_fraction

    memory = hardware.memory_type or tech.DEFAULT_MEMORY
    node = hardware.node or tech.DEFAULT_NODE
    mac_pj, _ = tech.compute_pj(hardware.precision, node)
    macs_w = hardware.throughput / 2 * mac_pj * 1e-12
    mem_w = hardware.bandwidth * tech.dram_pj_per_byte(memory)[0] * 1e-12
    sram = hardware.capacity if sram_bytes is None else sram_bytes
    return macs_w * (1 + table_static_fraction()) + mem_w + tech.sram_leakage_w(sram, node)


def preset_check() -> list[dict[str, Any]]:
    """The presets with a published die area or TDP beside the model's (docs/model/cost.md): each
    chip at its precision of widest MAC array, with all of its on-chip SRAM (the capacity and
    the ``extra`` register files and L1 the preset lists)."""
    from .presets import hardware, load_presets
    from .units import parse_bytes

    rows = []
    for key, e in load_presets().items():
        if "die_area" not in e and "tdp" not in e:
            continue
        rates = {p: float(hardware(key, p).throughput) for p in e["throughput"]}
        widest = max(rates, key=lambda p: rates[p])
        hw = hardware(key, widest)
        sram = float(hw.capacity) + sum(float(parse_bytes(v)) for v in e.get("extra", {}).values())
        cols = area_columns(
            {"capacity": sram, "bandwidth": hw.bandwidth, "throughput": hw.throughput}, hw
        )
        rows.append(
            {
                "key": key,
                "precision": widest,
                "die_mm2": float(e["die_area"].removesuffix("mm2")) if "die_area" in e else None,
                "model_mm2": cols["area_mm2"],
                "tdp_w": float(e["tdp"].removesuffix("W")) if "tdp" in e else None,
                "model_w": peak_power_w(hw, sram),
            }
        )
    return rows
