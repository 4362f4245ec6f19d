"""Energy of one iteration, two ways: in joules by component (:func:`joule_columns`,
docs/model/energy.md: SRAM, DRAM, host link, compute, SRAM leakage, static), and, kept under its
name for the mini-batch serialization paper's ratios, in relative units from its DRAM bytes,
global-buffer bytes and MACs (docs/model/report.md, "Energy and the serialized schedule"). Both
are report models (:mod:`dnnmem.registry`): every result and sweep row carries their columns.

The model is the one the mini-batch serialization paper ("Mini-batch Serialization: CNN
Training with Inter-layer Data Reuse", §6) allows: it gives ratios, not joules, so energy is in
**DRAM-byte units** — the energy of moving one byte to or from DRAM is 1::

    energy = dram · (traffic_in + traffic_out) + global_buffer · gb_bytes + mac · macs

Constants of :data:`WAVECORE` and where each comes from:

- ``dram = 1``: the unit.
- ``global_buffer = 1/8``: §6, "a global buffer access energy is 8× lower than that of DRAM".
- ``mac = 0.1085``: calibrated once so that DRAM is 21.6 % of the energy of the paper's Baseline
  on ResNet-50 (§6, MBS1 reduces "the DRAM energy portion from 21.6%"): one WaveCore core, batch
  32, 16-bit, ``default + none`` moves D = 11.35 GB, its steps touch G = 11.35 GB of the global
  buffer and run M = 366.6 G MACs, so mac = (D / 0.216 − D − G / 8) / M = 0.1085
  (:func:`calibrate_mac` repeats the computation; a test checks it).

``gb_bytes`` is every byte a step reads or writes (a read-modify-write in both): each operand
passes through the global buffer on its way to or from the PE array (WaveCore, §4.2). It is a
property of the schedule, not of the cache manager. Static energy, which the paper also counts,
is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .network import schedule_columns, sub_batch_string

if TYPE_CHECKING:
    from .hardware import Hardware

__all__ = [
    "EnergyModel",
    "RELATIVE_COLUMNS",
    "relative_columns",
    "relative_model",
    "WAVECORE",
    "calibrate_mac",
    "GLOBAL_BUFFER_PATHS",
    "sram_bytes",
    "sram_joules",
    "schedule_columns",
    "sub_batch_string",
]


@dataclass(frozen=True)
class EnergyModel:
    """Energy per DRAM byte, per global-buffer byte and per MAC, in DRAM-byte units.

    Attributes
    ----------
    dram, global_buffer, mac : float
        Energy of one byte of DRAM traffic, of one byte read from or written to the global
        buffer, and of one multiply-accumulate; relative to ``dram`` (1 by default).
    """

    dram: float = 1.0
    global_buffer: float = 1 / 8
    mac: float = 0.1085

    def __post_init__(self) -> None:
        for name in ("dram", "global_buffer", "mac"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise ValueError(f"energy.{name}: expected a number >= 0, got {v!r}")
        if not self.dram > 0:
            raise ValueError("energy.dram: must be > 0 (it is the unit)")

    def total(self, traffic: Any, gb_bytes: Any, macs: Any) -> Any:
        """Energy (DRAM-byte units) of ``traffic`` DRAM bytes, ``gb_bytes`` global-buffer bytes
        and ``macs`` MACs; scalars or NumPy arrays (the same arithmetic for both)."""
        return self.dram * traffic + self.global_buffer * gb_bytes + self.mac * macs


#: The WaveCore constants (module docstring): the default of estimate() and sweep().
WAVECORE = EnergyModel()


def calibrate_mac(
    dram_bytes: float, gb_bytes: float, macs: float, dram_share: float, global_buffer: float = 1 / 8
) -> float:
    """The MAC energy (DRAM-byte units) that makes DRAM ``dram_share`` of the energy of a run
    that moves ``dram_bytes``, touches ``gb_bytes`` of the global buffer and runs ``macs``."""
    return (dram_bytes / dram_share - dram_bytes - global_buffer * gb_bytes) / macs


#: The columns of the relative model (:func:`relative_columns`), as :mod:`dnnmem.registry` adds
#: them to every result.
RELATIVE_COLUMNS = ("energy", "energy_dram_share")


def relative_model(value: Any) -> EnergyModel:
    """The ``energy=`` argument of :func:`dnnmem.estimate` and :func:`dnnmem.sweep` checked: an
    :class:`EnergyModel`, or None for :data:`WAVECORE`."""
    if value is None:
        return WAVECORE
    if not isinstance(value, EnergyModel):
        raise TypeError(f"energy: expected dnnmem.EnergyModel, got {type(value).__name__}")
    return value


def _share(part: Any, whole: Any) -> Any:
    """part / whole: NaN where whole is 0 (a scalar, or NumPy arrays element-wise)."""
    if isinstance(whole, (int, float)):
        return part / whole if whole else math.nan
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return part / whole


def relative_columns(totals: Mapping[str, Any], hardware: Hardware, model: Any) -> dict:
    """The ``energy`` and ``energy_dram_share`` columns of one result or a sweep's rows
    (:class:`dnnmem.registry.ReportModel`'s ``derive``): ``totals`` needs ``traffic_in``,
    ``traffic_out``, ``gb_bytes`` and ``macs``, scalars or arrays."""
    traffic = totals["traffic_in"] + totals["traffic_out"]
    energy = model.total(traffic, totals["gb_bytes"], totals["macs"])
    return {"energy": energy, "energy_dram_share": _share(model.dram * traffic, energy)}


# -- joules (docs/model/energy.md) ----------------------------------------------------------------

#: The joule model's columns (:func:`joule_columns`): the iteration's energy, per sample, and
#: its six components, which add up to ``energy_j``.
JOULE_COLUMNS = (
    "energy_j",
    "energy_per_sample_j",
    "energy_sram_j",
    "energy_dram_j",
    "energy_host_link_j",
    "energy_compute_j",
    "energy_sram_leakage_j",
    "energy_static_j",
)


def _technology(hardware: Hardware) -> tuple[str, str, float, str | None]:
    """(memory technology, node, clock Hz, precision) of ``hardware``, defaults filled in."""
    from . import technology as tech

    return (
        hardware.memory_type or tech.DEFAULT_MEMORY,
        hardware.node or tech.DEFAULT_NODE,
        hardware.clock or tech.DEFAULT_CLOCK,
        hardware.precision,
    )


def _sram_area(capacity: Any, node: str) -> Any:
    from .area import sram_area_at_node

    return sram_area_at_node(capacity, node)


def joule_columns(totals: Mapping[str, Any], hardware: Hardware, option: Any = None) -> dict:
    """The energy of one iteration in joules, by component (docs/model/energy.md), for one
    result or a sweep's rows (scalars or arrays, :class:`dnnmem.registry.ReportModel`'s
    ``derive``). ``totals`` needs ``traffic_in``, ``traffic_out``, ``gb_bytes``, ``macs``,
    ``flops``, ``time``, ``capacity``, ``throughput`` and ``batch``; the technology (memory,
    node, clock, precision) is ``hardware``'s."""
    from . import technology as tech

    memory, node, _, precision = _technology(hardware)
    pj = 1e-12
    traffic = totals["traffic_in"] + totals["traffic_out"]
    capacity = totals["capacity"]
    # SRAM: every byte a step reads or writes, and every byte moved to or from off-chip memory
    # (written into the buffer on its way in, read on its way out).
    sram = sram_bytes(totals["gb_bytes"], traffic)
    if tech._is_scalar(capacity):  # one result
        e_sram = tech.sram_pj_per_byte(capacity, node, float(_sram_area(capacity, node)))
    else:  # a sweep's rows: element-wise, bit for bit the scalar formula (technology's arrays)
        import numpy as np

        capacity = np.asarray(capacity, dtype=float)
        e_sram = tech.sram_pj_per_byte(capacity, node, _sram_area(capacity, node))
    e_move, kind = tech.dram_pj_per_byte(memory)
    mac_pj, op_pj = tech.compute_pj(precision, node)
    macs = totals["macs"]
    vector_ops = _clip0(totals["flops"] - 2 * macs) if "flops" in totals else 0
    compute = (macs * mac_pj + vector_ops * op_pj) * pj
    leak_w = tech.sram_leakage_w(capacity, node)
    peak_macs_per_s = totals["throughput"] / 2
    static_w = table_static_fraction() * peak_macs_per_s * mac_pj * pj
    time = totals["time"]
    out = {
        "energy_sram_j": sram * e_sram * pj,
        "energy_dram_j": traffic * e_move * pj if kind == "dram" else 0.0 * traffic,
        "energy_host_link_j": traffic * e_move * pj if kind != "dram" else 0.0 * traffic,
        "energy_compute_j": compute,
        "energy_sram_leakage_j": leak_w * time,
        "energy_static_j": static_w * time,
    }
    total = sum(out.values())
    return {"energy_j": total, "energy_per_sample_j": total / totals["batch"], **out}


#: The readings of what crosses the global buffer (:func:`sram_bytes`; docs/model/energy.md,
#: "What crosses the SRAM"): ``through`` is the joule model's, ``bypass`` the mini-batch
#: serialization paper's WaveCore (§4.2, §6).
GLOBAL_BUFFER_PATHS = ("through", "bypass")


def sram_bytes(gb_bytes: Any, traffic: Any, streamed: Any = 0, path: str = "through") -> Any:
    """Bytes that cross the on-chip SRAM in one iteration (scalars or arrays).

    Parameters
    ----------
    gb_bytes : float or array
        Every byte a step reads or writes (bytes).
    traffic : float or array
        Bytes moved to or from off-chip memory (``traffic_in + traffic_out``).
    streamed : float or array
        The part of ``traffic`` that is a step's own streamed access (the steps'
        ``bytes_streamed_in + bytes_streamed_out``); read by ``bypass`` only.
    path : {"through", "bypass"}
        ``through`` (the joule model's): every step byte, and every off-chip byte once more on its
        way into or out of the buffer, ``gb_bytes + traffic``. ``bypass`` (WaveCore's, §4.2: the
        local buffers overlap compute "with accesses to the global buffer and to memory"): a
        streamed access moves between off-chip memory and the array without touching the
        buffer, so it leaves both terms, ``gb_bytes + traffic − 2 · streamed``; the buffer then
        carries what a cache manager keeps, and its bytes grow as the off-chip bytes fall (§6).

    Returns
    -------
    float or array
        Bytes.
    """
    if path == "through":
        return gb_bytes + traffic
    if path == "bypass":
        return gb_bytes + traffic - 2 * streamed
    raise ValueError(f"sram_bytes: path must be one of {GLOBAL_BUFFER_PATHS}, got {path!r}")


def sram_joules(result: Any, path: str = "through") -> float:
    """The SRAM joules (``energy_sram_j``) of one :class:`dnnmem.Result` with the global buffer
    crossed as ``path`` says (:func:`sram_bytes`): ``through`` gives the result's own
    ``energy_sram_j``; ``bypass`` takes the streamed bytes from the result's steps."""
    from . import technology as tech

    d = result.to_dict()
    steps = result.steps
    streamed = float(steps["bytes_streamed_in"].sum() + steps["bytes_streamed_out"].sum())
    _, node, _, _ = _technology(result.hardware)
    capacity = result.hardware.capacity
    e_sram = tech.sram_pj_per_byte(capacity, node, float(_sram_area(capacity, node)))
    traffic = d["traffic_in"] + d["traffic_out"]
    return float(sram_bytes(d["gb_bytes"], traffic, streamed, path) * e_sram * 1e-12)


def table_static_fraction() -> float:
    """The logic's leakage as a fraction of its peak dynamic power (``static.logic_fraction``)."""
    from . import technology as tech

    return float(tech.table()["static"]["logic_fraction"])


def _clip0(x: Any) -> Any:
    """max(x, 0), scalar or array."""
    if isinstance(x, (int, float)):
        return max(x, 0)
    import numpy as np

    return np.maximum(x, 0)
