"""Units: parse and format bytes, bandwidths and throughputs (SPEC §4).

Binary prefixes (KiB, MiB, GiB, TiB) are powers of 1024; SI prefixes (kB, MB, GB, TB, and k, M,
G, T, P on rates) are powers of 1000. ``24MiB`` is 25,165,824 bytes; ``616GB/s`` is 616e9
bytes/s; ``13.45TFLOPS`` is 13.45e12 FLOP/s. Every value dnnmem returns is in SI base units
(bytes, seconds, bytes/s, FLOP/s); these helpers turn what people type into those.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from fractions import Fraction
from typing import Any

__all__ = [
    "parse_bytes",
    "parse_bandwidth",
    "parse_throughput",
    "format_bytes",
    "format_bandwidth",
    "format_throughput",
    "format_time",
    "format_energy",
    "COLUMN_UNITS",
    "column_unit",
]

_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}
_MAX_AMOUNT = Fraction(1.7976931348623157e308)  # the largest float: anything above is "infinite"
_NUMBER = r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*"


def _is_number(value: Any) -> bool:
    """A real number: Python's or NumPy's int / float (bool excluded)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    return isinstance(value, numbers.Real)


def _check_number(value: Any, what: str) -> int | float:
    """`value` if it is a finite number >= 0: a Python int stays an int (exact at any size),
    anything else becomes a float."""
    if not _is_number(value):
        raise ValueError(f"{what}: expected a number or a string with a unit, got {value!r}")
    v = int(value) if isinstance(value, numbers.Integral) else float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{what}: must be a finite number >= 0, got {value!r}")
    return v


def _split(text: str, what: str, units: dict[str, float], example: str) -> Fraction:
    """The amount `text` names, exactly (a decimal number times its unit's factor); a bare
    number is in the base unit (bytes, bytes/s, FLOP/s)."""
    m = re.fullmatch(_NUMBER + r"([A-Za-z/]*)\s*", text)
    if not m:
        raise ValueError(f"{what}: cannot read {text!r}; write it like {example!r}")
    number, unit = m.group(1), m.group(2)
    if unit and unit not in units:
        valid = ", ".join(u for u in units if u)
        hint = _unit_hint(number, unit, units)
        raise ValueError(f"{what}: unknown unit {unit!r} in {text!r}{hint} (valid: {valid})")
    exponent = re.search(r"[eE]([+-]?\d+)$", number)
    # Far beyond any float: infinite, or 0 (without computing 10**exponent exactly).
    if exponent and int(exponent.group(1)) > 400:
        raise ValueError(f"{what}: must be a finite amount >= 0, got {text!r}")
    tiny = exponent is not None and int(exponent.group(1)) < -400
    v = Fraction(0) if tiny else Fraction(number) * Fraction(units.get(unit, 1.0))
    if v < 0 or v > _MAX_AMOUNT:
        raise ValueError(f"{what}: must be a finite amount >= 0, got {text!r}")
    return v


def _unit_hint(number: str, unit: str, units: dict[str, float]) -> str:
    """What was probably meant by an unknown unit: bits for bytes (``100Gb/s`` is 12.5 GB/s), a
    wrong case (``mib``), a size for a rate or back (``616GB`` for ``616GB/s``), a missing
    ``S`` (``TFLOP``), or a close spelling; ``""`` when nothing is close."""
    bits = re.fullmatch(r"([kKMGTPE]?i?)b(/s|ps|/S)?", unit)
    if bits and (prefix := bits.group(1)) + "B" + (per := bits.group(2) or "") in units:
        in_bytes = f"{float(Fraction(number) / 8):g}{prefix}B{per}"
        return f"; a lower-case b is a bit, dnnmem counts bytes: {number}{unit} is {in_bytes}"
    candidates = [u for u in units if u and u.lower() == unit.lower()][:1]  # GB/s, not GB/S too
    more = (unit + "/s", unit + "S", unit + "B", unit + "B/s", unit.removesuffix("/s"))
    candidates += [u for u in more if u in units]
    if not candidates:
        candidates = difflib.get_close_matches(unit, [u for u in units if u], n=2, cutoff=0.75)
    if not candidates:
        return ""
    return f"; did you mean {' or '.join(repr(number + u) for u in dict.fromkeys(candidates))}?"


def _byte_units() -> dict[str, float]:
    units: dict[str, float] = {"": 1.0, "B": 1.0}
    for p, f in _SI.items():
        if p:
            units[p + "B"] = f
    units["KB"] = 1e3  # a common spelling of kB
    for p, f in _BINARY.items():
        units[p + "B"] = f
    return units


def _rate_units(suffixes: tuple[str, ...]) -> dict[str, float]:
    units: dict[str, float] = {}
    for s in suffixes:
        for p, f in _SI.items():
            units[p + s] = f
        for p, f in _BINARY.items():
            if s.startswith("B"):
                units[p + s] = f
    return units


_BYTES = _byte_units()
# A plain number ("616e9") is in base units, as it is for sizes.
_BANDWIDTH = {"": 1.0, **_rate_units(("B/s", "Bps", "B/S"))}
_THROUGHPUT = {"": 1.0, **_rate_units(("FLOPS", "FLOP/s", "flops", "FLOP/S"))}


def parse_bytes(value: str | float) -> int:
    """Parse a size in bytes.

    Parameters
    ----------
    value : str or number
        ``"24MiB"`` (binary), ``"40MB"`` (SI), ``"512 KiB"``, or a number of bytes (also as
        a string without a unit: ``"25165824"``, ``"2.5e7"``).

    Returns
    -------
    int
        Bytes. An amount with a prefix that is not whole (``"1.3MiB"``, 1363148.8 bytes) is
        rounded to the nearest byte (half to even), and so is a number (``0.3 * 2**30``).

    Raises
    ------
    ValueError
        For negative, NaN or unreadable input, an unknown unit, a fraction of a byte written
        in bytes (``"0.5"``, ``"1.5B"``: bytes are whole, and such a value is usually a
        missing unit), and an amount above 0 that would round to 0 bytes (``0.4``,
        ``"0.0001KiB"``: no cache at all, which is written ``0``).
    """
    if isinstance(value, str):
        amount = _split(value, "size", _BYTES, "24MiB")  # exact: "9007199254740993B" too
        if amount.denominator == 1:
            return int(amount)
        m = re.fullmatch(_NUMBER + r"([A-Za-z/]*)\s*", value)
        number, unit = (m.group(1), m.group(2)) if m else (value, "")
        if unit in ("", "B"):
            raise ValueError(
                f"size: {value!r} is not a whole number of bytes (did you mean "
                f"{number}KiB, {number}MiB or {number}GiB?)"
            )
        return _whole_bytes(amount, value)
    v = _check_number(value, "size")
    return v if isinstance(v, int) else _whole_bytes(v, value)


def _whole_bytes(amount: Fraction | float, value: object) -> int:
    """``amount`` rounded to the nearest byte (half to even); an error if that makes an amount
    above 0 into 0 bytes (no cache at all)."""
    whole = round(amount)
    if whole == 0 and amount > 0:
        if isinstance(value, str):
            shown, hint = f"{value!r} ({float(amount):.4g} bytes)", ""
        else:
            shown, hint = repr(value), f"; did you forget a unit, as in '{value}MiB'?"
        raise ValueError(
            f"size: {shown} is less than one byte, which rounds to 0, no cache at all{hint}"
        )
    return whole


def parse_bandwidth(value: str | float) -> float:
    """Parse a bandwidth into bytes/s (``"616GB/s"`` → 616e9; ``"1TiB/s"`` → 2**40; a number,
    or a string without a unit such as ``"616e9"``, is bytes/s)."""
    if isinstance(value, str):
        return float(_split(value, "bandwidth", _BANDWIDTH, "616GB/s"))
    return float(_check_number(value, "bandwidth"))


def parse_throughput(value: str | float) -> float:
    """Parse a compute throughput into FLOP/s (``"13.45TFLOPS"`` → 13.45e12; a number, or a
    string without a unit such as ``"13.45e12"``, is FLOP/s)."""
    if isinstance(value, str):
        return float(_split(value, "throughput", _THROUGHPUT, "13.45TFLOPS"))
    return float(_check_number(value, "throughput"))


def _format(value: float, steps: list[tuple[float, str]], digits: int) -> str:
    for factor, unit in steps:
        if abs(value) >= factor:
            return f"{value / factor:.{digits}g} {unit}"
    factor, unit = steps[-1]  # below the smallest step: keep its unit
    return f"{value / factor:.{digits}g} {unit}"


def format_bytes(value: float, binary: bool = True, digits: int = 4) -> str:
    """Format bytes with a binary (``MiB``) or SI (``MB``) prefix: ``format_bytes(2**20)`` → ``'1 MiB'``."""
    if binary:
        steps = [
            (2.0**50, "PiB"),
            (2.0**40, "TiB"),
            (2.0**30, "GiB"),
            (2.0**20, "MiB"),
            (2.0**10, "KiB"),
            (1.0, "B"),
        ]
    else:
        steps = [
            (1e18, "EB"),
            (1e15, "PB"),
            (1e12, "TB"),
            (1e9, "GB"),
            (1e6, "MB"),
            (1e3, "kB"),
            (1.0, "B"),
        ]
    return _format(float(value), steps, digits)


def format_bandwidth(value: float, digits: int = 4) -> str:
    """Format bytes/s with SI prefixes: ``format_bandwidth(616e9)`` → ``'616 GB/s'``."""
    return _format(
        float(value),
        [
            (1e18, "EB/s"),
            (1e15, "PB/s"),
            (1e12, "TB/s"),
            (1e9, "GB/s"),
            (1e6, "MB/s"),
            (1e3, "kB/s"),
            (1.0, "B/s"),
        ],
        digits,
    )


def format_throughput(value: float, digits: int = 4) -> str:
    """Format FLOP/s with SI prefixes: ``format_throughput(13.45e12)`` → ``'13.45 TFLOPS'``."""
    steps = [
        (1e18, "EFLOPS"),
        (1e15, "PFLOPS"),
        (1e12, "TFLOPS"),
        (1e9, "GFLOPS"),
        (1e6, "MFLOPS"),
        (1.0, "FLOPS"),
    ]
    return _format(float(value), steps, digits)


def format_time(seconds: float, digits: int = 4) -> str:
    """Format seconds: ``format_time(0.0543)`` → ``'54.3 ms'``."""
    steps = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
    if seconds == 0:
        return "0 s"
    return _format(float(seconds), steps, digits)


def format_energy(joules: float, digits: int = 4) -> str:
    """Format joules with SI prefixes: ``format_energy(0.2141)`` → ``'214.1 mJ'``."""
    steps = [(1e3, "kJ"), (1.0, "J"), (1e-3, "mJ"), (1e-6, "µJ"), (1e-9, "nJ"), (1e-12, "pJ")]
    if joules == 0:
        return "0 J"
    return _format(float(joules), steps, digits)


def format_count(value: float, unit: str, digits: int = 4) -> str:
    """Format a count with SI prefixes: ``format_count(4.1e9, "FLOP")`` → ``'4.1 GFLOP'``."""
    steps = [
        (1e18, "E" + unit),
        (1e15, "P" + unit),
        (1e12, "T" + unit),
        (1e9, "G" + unit),
        (1e6, "M" + unit),
        (1e3, "k" + unit),
        (1.0, unit),
    ]
    return _format(float(value), steps, digits)


_ROLES = ("activation", "weight", "state", "gradient", "weight_grad")

#: The unit of each column of dnnmem's tables, one name one unit wherever it appears: a sweep's
#: DataFrame (docs/model/report.md), :attr:`Result.steps`, the Network tables (``layers``,
#: ``steps``, ``tensors``, ``accesses``) and :func:`dnnmem.hardware_presets`. Each gives it as
#: ``df.attrs["units"]``; a column not listed (a name, label, flag or step index) has "".
COLUMN_UNITS: dict[str, str] = {
    **dict.fromkeys(
        ("capacity", "memory", "bytes", "output_bytes", "weight_bytes", "state_bytes"), "bytes"
    ),
    **dict.fromkeys(("bytes_read", "bytes_written", "resident_bytes", "pinned_bytes"), "bytes"),
    **dict.fromkeys(("intermediate_bytes", "saved_bytes", "mask_bytes"), "bytes"),
    **dict.fromkeys(("traffic_in", "traffic_out", "link_in", "link_out", "gb_bytes"), "bytes"),
    **dict.fromkeys(("bytes_in", "bytes_out", "bytes_streamed_in", "bytes_streamed_out"), "bytes"),
    **dict.fromkeys(("link_streamed_in", "link_streamed_out"), "bytes"),
    **{f"traffic_{d}_{r}": "bytes" for d in ("in", "out") for r in _ROLES},
    **{f"bytes_{d}_{r}": "bytes" for d in ("in", "out") for r in _ROLES},
    **dict.fromkeys(("bandwidth", "avg_bandwidth"), "bytes/s"),
    "throughput": "FLOP/s",
    **dict.fromkeys(("flops", "fwd_flops", "bwd_dx_flops", "bwd_dw_flops"), "FLOP"),
    **dict.fromkeys(("macs", "fwd_macs"), "MAC"),
    **dict.fromkeys(("rf", "rf_fwd", "rf_bwd", "ridge_point"), "FLOP/byte"),
    **dict.fromkeys(("time", "start", "end", "stall", "capacity_stall"), "s"),
    **dict.fromkeys(("compute_time", "stall_time", "capacity_stall_time", "drain_time"), "s"),
    **dict.fromkeys(("recompute_time", "baseline_time"), "s"),
    **dict.fromkeys(("active_time", "utilization", "energy_dram_share"), "fraction"),
    **dict.fromkeys(("batch", "sub_batches"), "samples"),
    "samples_per_s": "samples/s",
    **dict.fromkeys(("kept", "prefetched", "born", "offloads", "groups", "pinned"), "count"),
    **dict.fromkeys(("params", "num_uses", "accesses", "layer_count"), "count"),
    "output_shape": "elements",
    **dict.fromkeys(
        (
            "energy_j",
            "energy_sram_j",
            "energy_dram_j",
            "energy_host_link_j",
            "energy_compute_j",
            "energy_sram_leakage_j",
            "energy_static_j",
        ),
        "J",
    ),
    "energy_per_sample_j": "J/sample",
    **dict.fromkeys(("area_mm2", "area_sram_mm2", "area_compute_mm2", "area_phy_mm2"), "mm²"),
    **dict.fromkeys(("cost_usd", "cost_die_usd", "cost_dram_usd"), "USD"),
    "energy": "DRAM-byte units",
    "speedup": "×",
    "year": "year",
    # sweep(bounds=True), dnnmem.optimal
    "traffic_lower_bound": "bytes",
    "time_lower_bound": "s",
    **dict.fromkeys(("traffic_gap", "time_gap"), "fraction"),
}


def column_unit(column: object) -> str:
    """The unit of a column of dnnmem's tables (:data:`COLUMN_UNITS`), "" for one not listed."""
    return COLUMN_UNITS.get(str(column), "")
