"""The Python side of parts, one line each, as ``cpp/src/registry.cpp`` lists the C++ parts.

The core — :meth:`dnnmem.Policy.prepare`, :func:`dnnmem.estimate`, :func:`dnnmem.sweep` — asks
this module, never a part's own module, for what a part adds in Python:

* **link tables**: a link whose C++ side reads per-tensor inputs (``zvc``: each tensor's
  sparsity; ``rle``, ``zlib``: a compression ratio) has a function that builds them from the
  network (:mod:`dnnmem.compression`);
* **report models**: a model that adds columns to every result, a :class:`dnnmem.Result`'s
  (:meth:`~dnnmem.Result.to_dict`, attributes) and a sweep's rows alike, from the result's
  totals and the hardware (:mod:`dnnmem.energy`: the ``energy`` columns in DRAM-byte units
  and the ``energy_*_j`` columns in joules; :mod:`dnnmem.cost`: ``area_*_mm2``, ``cost_*_usd``).

A new part is one file and one line below (or a call of :func:`register_link_tables` /
:func:`register_report` from a package of your own, as ``matplotlib.projections.
register_projection`` lets a plug-in add a projection): the core does not change, and the part
imports nothing of the core that imports it (no import circle, a test checks it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable

from . import compression, cost, energy

if TYPE_CHECKING:
    from .hardware import Hardware
    from .network import Network
    from .part import Part

__all__ = [
    "LinkTables",
    "ReportModel",
    "SparsityLike",
    "check_options",
    "derive",
    "has_link_tables",
    "link_tables",
    "register_link_tables",
    "register_report",
    "report_columns",
    "report_models",
    "report_options",
]

#: A per-layer sparsity table (DataFrame, mapping or CSV path), as the compressing links read.
SparsityLike = compression.SparsityLike

#: ``(link part, scheduled network, sparsity table or None) -> (per-tensor sparsity, per-tensor
#: ratio, where the sparsity came from)``; lists in the schedule's tensor order, empty when the
#: link reads none of them.
LinkTables = Callable[["Part", "Network", Any], "tuple[list[float], list[float], str]"]


@dataclasses.dataclass(frozen=True)
class ReportModel:
    """A model that adds columns to every result.

    Attributes
    ----------
    name : str
        What it models, for messages (``"energy"``).
    columns : tuple of str
        The columns it adds, in order (each needs a unit in :data:`dnnmem.units.COLUMN_UNITS`).
    derive : callable
        ``derive(totals, hardware, option) -> {column: value}``. ``totals`` maps the result's
        columns (:meth:`dnnmem.Result.to_dict`'s, before the models' own) to Python scalars
        for one result, or to NumPy arrays for a sweep's rows (the same arithmetic serves
        both); ``hardware`` is the design point's :class:`dnnmem.Hardware` (a sweep's, whose
        capacity, bandwidth and throughput the totals' columns override); ``option`` is what
        ``check`` made of the keyword argument.
    option : str
        The keyword argument of :func:`dnnmem.estimate` and :func:`dnnmem.sweep` it reads
        (``"energy"``), or ``""`` for none.
    check : callable
        ``check(value) -> option``: the keyword's value (None when not given) checked, its
        default filled in; raises ``TypeError`` / ``ValueError`` naming the keyword.
    """

    name: str
    columns: tuple[str, ...]
    derive: Callable[[Mapping[str, Any], Hardware, Any], Mapping[str, Any]]
    option: str = ""
    check: Callable[[Any], Any] = lambda value: value


_LINK_TABLES: dict[str, LinkTables] = {}
_REPORTS: list[ReportModel] = []


def register_link_tables(names: str | Sequence[str], tables: LinkTables) -> None:
    """Make ``tables`` build the per-tensor inputs of the link(s) ``names`` (C++ parts of the
    link registry)."""
    for name in [names] if isinstance(names, str) else names:
        _LINK_TABLES[name] = tables


def register_report(model: ReportModel) -> None:
    """Add ``model``'s columns to every result; a model of the same name is replaced."""
    clash = {c for m in _REPORTS if m.name != model.name for c in m.columns} & set(model.columns)
    if clash:
        raise ValueError(f"register_report: {model.name}: column(s) {sorted(clash)} taken")
    _REPORTS[:] = [m for m in _REPORTS if m.name != model.name] + [model]


# -- the built-in parts, one line each ----------------------------------------------------------
register_link_tables(compression.COMPRESSING_LINKS, compression.link_tables)
register_report(
    ReportModel(
        "energy (DRAM-byte units)",
        energy.RELATIVE_COLUMNS,
        energy.relative_columns,
        option="energy",
        check=energy.relative_model,
    )
)
register_report(ReportModel("energy (joules)", energy.JOULE_COLUMNS, energy.joule_columns))
register_report(ReportModel("area and cost", cost.AREA_COLUMNS, cost.area_columns))


# -- what the core asks -------------------------------------------------------------------------


def has_link_tables(link: str) -> bool:
    """Whether the link ``link`` reads per-tensor inputs (and so needs the network)."""
    return link in _LINK_TABLES


def link_tables(
    link: Part, network: Network, sparsity: Any = None
) -> tuple[list[float], list[float], str]:
    """The per-tensor inputs of ``link`` for ``network`` (see :data:`LinkTables`); empty lists
    and ``""`` for a link that reads none, which must then be given no ``sparsity``."""
    tables = _LINK_TABLES.get(link.name)
    if tables is None:
        if sparsity is not None:
            readers = ", ".join(_LINK_TABLES)
            raise ValueError(f"sparsity: link {link.name!r} does not use it ({readers} do)")
        return [], [], ""
    return tables(link, network, sparsity)


def report_models() -> tuple[ReportModel, ...]:
    """The registered report models, in order."""
    return tuple(_REPORTS)


def report_columns() -> list[str]:
    """Every column the report models add, in order."""
    return [c for m in _REPORTS for c in m.columns]


def report_options() -> tuple[str, ...]:
    """The keyword arguments the report models read (``("energy",)``)."""
    return tuple(dict.fromkeys(m.option for m in _REPORTS if m.option))


def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Each model's option checked, its default filled in: ``{keyword: value}``."""
    out: dict[str, Any] = {}
    for m in _REPORTS:
        if m.option and m.option not in out:
            out[m.option] = m.check(options.get(m.option))
    return out


def derive(totals: Mapping[str, Any], hardware: Hardware, options: Mapping[str, Any]) -> dict:
    """Every model's columns for ``totals`` (scalars or arrays) at ``hardware``, with the
    checked ``options`` (:func:`check_options`)."""
    out: dict[str, Any] = {}
    for m in _REPORTS:
        out.update(m.derive(totals, hardware, options.get(m.option) if m.option else None))
    return out
