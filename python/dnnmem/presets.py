"""Hardware presets (SPEC §4): published chips as data, turned into :class:`Hardware`.

The figures live in ``dnnmem/data/hardware.json`` (shipped with the package); every figure there
has a source, and figures that are derived under an assumption are marked ``approximate``.
``docs/hardware.md`` lists them and is generated from the same file
(``python docs/gen_hardware_table.py``).

>>> hw = hardware("RTX 2080 Ti")            # thesis Table 5.2, FP32
>>> hw = hardware("h100-sxm", precision="bf16", capacity="100MiB")
>>> hardware_presets(group="thesis")         # the four chips of thesis Table 5.2
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from importlib import resources
from typing import TYPE_CHECKING, Any

from .hardware import Hardware
from .units import column_unit, parse_bandwidth, parse_bytes, parse_throughput

if TYPE_CHECKING:  # pandas is a dependency, but keep import dnnmem light
    import pandas as pd

__all__ = ["hardware", "hardware_presets", "load_presets"]

_DATA = "hardware.json"
_OVERRIDABLE = (
    "capacity",
    "bandwidth",
    "throughput",
    "name",
    "compute",
    "memory_type",
    "node",
    "clock",
)


@functools.lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    text = resources.files("dnnmem").joinpath("data").joinpath(_DATA).read_text(encoding="utf-8")
    return json.loads(text)


def load_presets() -> dict[str, dict[str, Any]]:
    """The preset table as stored: chip key → entry (a deep copy, safe to modify).

    Returns
    -------
    dict
        ``{key: {"name", "vendor", "year", "kind", "tags", "capacity", "bandwidth",
        "memory", "throughput": {precision: rate}, "default_precision", "notes",
        "sources", ...}}`` with sizes and rates as the unit strings of the JSON file.
    """
    return json.loads(json.dumps(_raw()["chips"]))


def _normalize(name: str) -> str:
    """Case- and punctuation-insensitive form: "RTX 2080 Ti" → "rtx2080ti"."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, str]:
    """Normalized key, display name and aliases → chip key."""
    index: dict[str, str] = {}
    for key, entry in _raw()["chips"].items():
        for label in (key, entry["name"], *entry.get("aliases", ())):
            norm = _normalize(label)
            if index.setdefault(norm, key) != key:
                raise ValueError(f"{_DATA}: name {label!r} of {key!r} also names {index[norm]!r}")
    return index


def _lookup(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name: expected a chip name string, got {type(name).__name__}")
    index = _index()
    key = index.get(_normalize(name))
    if key is not None:
        return key
    close = difflib.get_close_matches(_normalize(name), list(index), n=5, cutoff=0.6)
    suggestions = list(dict.fromkeys(index[c] for c in close))  # keys, first match first
    hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
    raise ValueError(f"unknown hardware {name!r}{hint} (known: {', '.join(_raw()['chips'])})")


def _rate(text: str | float) -> float:
    """A throughput; ``TOPS`` (integer ops) counts one op as one FLOP."""
    if isinstance(text, str):
        text = re.sub(r"(?<![A-Za-z])([kMGTPE]?)OPS$", r"\1FLOPS", text.strip())
    return parse_throughput(text)


def hardware(name: str, /, precision: str | None = None, **overrides: str | float) -> Hardware:
    """A :class:`Hardware` design point from a published chip.

    Parameters
    ----------
    name : str
        Chip key or name, case- and punctuation-insensitive: ``"rtx2080ti"``, ``"RTX 2080 Ti"``,
        ``"A100"``, ``"h100-sxm"``, ``"TPU v4"``. See :func:`hardware_presets` for the list.
        Positional-only, so that ``name=`` can override the design point's label.
    precision : str, optional
        The data type, which sets both halves of a precision: the ``throughput`` (the chip's
        peak at that precision) and the element size (:attr:`Hardware.precision`): networks
        that :func:`dnnmem.estimate` and :func:`dnnmem.sweep` load by name or file get 2 bytes
        per element for bf16 / fp16, 1 for fp8 / int8, 4 for fp32 / tf32, and a loaded
        :class:`Network` of another element size draws a :class:`~dnnmem.PrecisionWarning`.
        One of ``"fp32"``, ``"tf32"``, ``"bf16"``, ``"fp16"``, ``"fp8"``, ``"int8"`` or
        ``"unspecified"`` (research NPUs whose paper gives no data type: no element size
        implied), whichever the chip lists. Default: the chip's ``default_precision``
        (``"fp32"`` where the chip has it, else its main precision, e.g. ``"bf16"`` on TPUs).
    **overrides
        ``capacity``, ``bandwidth``, ``throughput``, ``name``, ``compute``, or the technology of
        the energy and cost model (``memory_type``, ``node``, ``clock``: "the A100 at 5 nm"),
        parsed as in :class:`Hardware` (``capacity="80MiB"``). Needed for ``capacity`` on chips
        whose on-chip capacity is unpublished (``b200``, ``tpu-v5e``).

    Returns
    -------
    Hardware
        Named ``"<display name> (<precision>)"`` unless ``name`` is overridden.

    Raises
    ------
    ValueError
        Unknown chip (the message lists close matches and all keys), a precision the chip does
        not list (the message lists the chip's precisions), or an unpublished capacity with no
        ``capacity`` override.
    TypeError
        An override other than capacity, bandwidth, throughput and name.
    """
    key = _lookup(name)
    entry = _raw()["chips"][key]
    unknown = sorted(set(overrides) - set(_OVERRIDABLE))
    if unknown:
        raise TypeError(
            f"hardware: unknown override(s) {unknown}; valid: {', '.join(_OVERRIDABLE)}"
        )
    prec = entry["default_precision"] if precision is None else precision
    if prec not in entry["throughput"]:
        raise ValueError(
            f"precision: {key} has no {prec!r} peak (has: {', '.join(entry['throughput'])})"
        )
    fields: dict[str, Any] = {
        "capacity": entry["capacity"],
        "bandwidth": entry["bandwidth"],
        "throughput": _rate(entry["throughput"][prec]),
        "name": f"{entry['name']} ({prec})",
        "compute": entry.get("compute") or "",
        "precision": prec,
        "memory_type": _memory_type(entry),
        "node": entry.get("process"),
        "clock": entry.get("clock"),
    }
    fields.update(overrides)
    if fields["capacity"] is None:
        raise ValueError(
            f"capacity: the on-chip capacity of {key} is not published "
            f"({entry['sources']['capacity']}); pass capacity=..., "
            f"e.g. dnnmem.hardware({key!r}, capacity='50MiB')"
        )
    return Hardware(**fields)


_COLUMNS = {
    "key": "object",
    "name": "object",
    "vendor": "object",
    "year": "int64",
    "kind": "object",
    "tags": "object",
    "precision": "object",
    "default": "bool",
    "capacity": "Int64",
    "capacity_kind": "object",
    "bandwidth": "float64",
    "throughput": "float64",
    "ridge_point": "float64",
    "memory": "Int64",
    "memory_type": "object",
    "approximate": "bool",
}


def as_hardware(value: Hardware | str | None, **overrides: str | float) -> Hardware | None:
    """``value`` itself, or the preset it names (``estimate(net, "rtx2080ti")``) with
    ``overrides`` (so that ``estimate(net, "b200", capacity="50MiB")`` works for a chip whose
    capacity is unpublished); an unknown name is a ValueError that starts with ``hardware:``."""
    if not isinstance(value, str):
        return value
    try:
        return hardware(value, None, **overrides)
    except ValueError as e:
        hint = (
            " (a capacity, bandwidth or throughput goes in its keyword: capacity='24MiB')"
            if value[:1].isdigit()
            else ""
        )
        raise ValueError(f"hardware: {e}{hint}") from None


def hardware_presets(group: str | None = None) -> pd.DataFrame:
    """All presets as a table: one row per chip and precision, SI base units.

    Parameters
    ----------
    group : str, optional
        Keep only chips with this tag: ``"thesis"`` (the four chips of thesis Table 5.2),
        ``"current"``, ``"seed"`` (the seed papers' accelerators), ``"gpu"``, ``"cpu"``,
        ``"npu"``, ``"tpu"``.

    Returns
    -------
    pandas.DataFrame
        Columns: ``key`` (pass it to :func:`hardware`), ``name``, ``vendor``, ``year`` (int),
        ``kind`` (cpu/gpu/tpu/npu), ``tags`` (comma-separated), ``precision``, ``default``
        (bool: the chip's default precision), ``capacity`` (bytes, nullable ``Int64``: <NA>
        where unpublished), ``capacity_kind`` (what the capacity is: L2, Infinity Cache,
        scratchpad, ...), ``bandwidth`` (bytes/s), ``throughput`` (FLOP/s, dense peak at
        ``precision``), ``ridge_point`` (FLOP/byte), ``memory`` (off-chip bytes, nullable
        ``Int64``), ``memory_type``, ``approximate`` (bool: some figure of the row is marked
        approximate in the data). Rows are in file order, each chip's precisions in the
        order listed. ``attrs["units"]`` gives each column's unit.

    Raises
    ------
    ValueError
        For a group no chip has (the message lists the groups).
    """
    import pandas as pd

    chips = _raw()["chips"]
    groups = sorted({t for e in chips.values() for t in e["tags"]})
    if group is not None and group not in groups:
        raise ValueError(f"group: unknown group {group!r} (valid: {', '.join(groups)})")
    rows = []
    for key, e in chips.items():
        if group is not None and group not in e["tags"]:
            continue
        approx = set(e.get("approximate", {}))
        cap = None if e["capacity"] is None else parse_bytes(e["capacity"])
        bw = parse_bandwidth(e["bandwidth"])
        for prec, rate in e["throughput"].items():
            thr = _rate(rate)
            rows.append(
                {
                    "key": key,
                    "name": e["name"],
                    "vendor": e["vendor"],
                    "year": e["year"],
                    "kind": e["kind"],
                    "tags": ",".join(e["tags"]),
                    "precision": prec,
                    "default": prec == e["default_precision"],
                    "capacity": cap,
                    "capacity_kind": e["capacity_kind"],
                    "bandwidth": bw,
                    "throughput": thr,
                    "ridge_point": thr / bw,
                    "memory": None if e["memory"] is None else parse_bytes(e["memory"]),
                    "memory_type": e["memory_type"],
                    "approximate": bool(
                        approx & {"capacity", "bandwidth", "memory", f"throughput.{prec}"}
                    ),
                }
            )
    frame = pd.DataFrame(rows, columns=list(_COLUMNS)).astype(_COLUMNS)
    frame.attrs["units"] = {c: column_unit(c) for c in frame.columns}
    return frame


def _memory_type(entry: dict[str, Any]) -> str | None:
    """The chip's memory technology as the energy table names it (``"HBM2e"`` -> ``"hbm2e"``),
    None where the preset names none or the table has no figures for it."""
    from .technology import memory_technologies

    name = entry.get("memory_type")
    key = None if name is None else str(name).lower().replace(" ", "")
    return key if key in memory_technologies() else None
