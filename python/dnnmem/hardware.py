"""A design point's hardware (SPEC §4): on-chip capacity, off-chip bandwidth, compute throughput."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import TYPE_CHECKING

from .part import _as_part
from .units import (
    format_bandwidth,
    format_bytes,
    format_throughput,
    parse_bandwidth,
    parse_bytes,
    parse_throughput,
)

if TYPE_CHECKING:
    from .network import Network

__all__ = [
    "Hardware",
    "PrecisionWarning",
    "PRECISIONS",
    "DEFAULT_CAPACITY",
    "DEFAULT_BANDWIDTH",
    "DEFAULT_THROUGHPUT",
]

#: Bytes per tensor element of each precision a throughput can be quoted at (``None``: the
#: source names no data type). A :class:`Hardware` with a precision makes :func:`dnnmem.estimate`
#: and :func:`dnnmem.sweep` load networks at that element size; TF32 is stored in 4 bytes.
PRECISIONS: dict[str, int | None] = {
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "unspecified": None,
}

#: The default design point, in Python and on the command line alike: the thesis's RTX 2080 Ti
#: (616 GB/s, 13.45 TFLOPS FP32, thesis Table 5.2) with 24 MiB on chip, the smallest capacity of
#: the thesis's sweeps (Figs. 5.2–5.4).
DEFAULT_CAPACITY = "24MiB"
DEFAULT_BANDWIDTH = "616GB/s"
DEFAULT_THROUGHPUT = "13.45TFLOPS"

# The unit parser of each numeric field (sweep specs and plot filters parse with these too).
FIELD_PARSERS = {
    "capacity": parse_bytes,
    "bandwidth": parse_bandwidth,
    "throughput": parse_throughput,
}


class PrecisionWarning(UserWarning):
    """A network's element size differs from the one its hardware's precision implies: the
    throughput is that precision's peak, but the traffic is that of the network's tensors."""


@dataclasses.dataclass(frozen=True, init=False)
class Hardware:
    """On-chip capacity (bytes), off-chip bandwidth (bytes/s), compute throughput (FLOP/s).

    Each accepts a number in those SI base units or a string with a unit::

        Hardware(capacity="24MiB", bandwidth="616GB/s", throughput="13.45TFLOPS")

    The defaults are dnnmem's one default design point (the same on the command line): the
    thesis's RTX 2080 Ti, 616 GB/s and 13.45 TFLOPS (FP32), with 24 MiB on chip.
    ``capacity`` may be 0 (no cache); bandwidth and throughput must be positive and finite.
    The core counts time exactly in whole bytes/s and FLOP/s, so both are rounded to integers.
    ``compute`` names the chip's compute model in a policy's part syntax
    (``"systolic(rows=45, cols=45)"``): a policy that names none uses it; ``""`` means
    ``peak`` (FLOPs / throughput).

    ``precision`` (optional: a key of :data:`PRECISIONS`, e.g. ``"bf16"``) says which data type
    the throughput is quoted for. It sets the element size too: :func:`dnnmem.estimate` and
    :func:`dnnmem.sweep` load networks given by name, file or document at
    :attr:`bytes_per_element` bytes per element, and warn (:class:`PrecisionWarning`) when a
    loaded :class:`Network` has another element size. ``None`` (the default) states no
    precision: networks are used at their own element size (4 bytes unless loaded otherwise).
    :func:`dnnmem.hardware` sets it from the preset.

    ``memory_type`` (``"hbm2e"``, ``"gddr6"``, ``"lpddr5"``, ``"pcie4"``, ...:
    :func:`dnnmem.technology.memory_technologies`), ``node`` (the process, ``"7nm"``) and
    ``clock`` (Hz, or ``"1.41GHz"``) feed the energy, area and cost model
    (docs/model/energy.md, docs/model/cost.md) and nothing else; None (the default) takes
    the default design point's (GDDR6, 12 nm, 1.545 GHz). Presets set them.
    """

    capacity: int
    bandwidth: float
    throughput: float
    name: str
    precision: str | None
    compute: str
    memory_type: str | None = None
    node: str | None = None
    clock: float | None = None

    def __init__(
        self,
        capacity: str | float = DEFAULT_CAPACITY,
        bandwidth: str | float = DEFAULT_BANDWIDTH,
        throughput: str | float = DEFAULT_THROUGHPUT,
        name: str = "",
        precision: str | None = None,
        compute: str = "",
        memory_type: str | None = None,
        node: str | None = None,
        clock: str | float | None = None,
    ) -> None:
        if precision is not None and precision not in PRECISIONS:
            raise ValueError(
                f"precision: unknown precision {precision!r} "
                f"(valid: {', '.join(PRECISIONS)}, or None)"
            )
        cap = _field("capacity", parse_bytes, capacity)
        bw = _field("bandwidth", parse_bandwidth, bandwidth)
        thr = _field("throughput", parse_throughput, throughput)
        for label, v, unit in (("bandwidth", bw, "bytes/s"), ("throughput", thr, "FLOP/s")):
            if not v >= 1:
                raise ValueError(f"{label}: must be >= 1 {unit}, got {v!r}")
            if v > 2.0**62:
                raise ValueError(f"{label}: {v:.4g} {unit} is too large (at most 2^62 {unit})")
        if cap > 2**62:
            raise ValueError(f"capacity: {cap:.4g} bytes is too large (at most 2^62 bytes)")
        object.__setattr__(self, "capacity", int(cap))
        object.__setattr__(self, "bandwidth", float(round(bw)))
        object.__setattr__(self, "throughput", float(round(thr)))
        object.__setattr__(self, "name", str(name))
        object.__setattr__(self, "precision", precision)
        if compute:
            compute = str(_as_part("compute", compute))
        object.__setattr__(self, "compute", str(compute or ""))
        object.__setattr__(self, "memory_type", _technology_field("memory_type", memory_type))
        object.__setattr__(self, "node", _technology_field("node", node))
        object.__setattr__(self, "clock", _clock(clock))

    def replace(self, **changes: str | float | None) -> Hardware:
        """A copy with some fields changed (values parsed as in the constructor)."""
        fields = {
            "capacity": self.capacity,
            "bandwidth": self.bandwidth,
            "throughput": self.throughput,
            "name": self.name,
            "precision": self.precision,
            "compute": self.compute,
            "memory_type": self.memory_type,
            "node": self.node,
            "clock": self.clock,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"Hardware.replace: unknown field(s) {sorted(unknown)}")
        fields.update(changes)
        return Hardware(**fields)  # type: ignore[arg-type]

    @property
    def bytes_per_element(self) -> int | None:
        """The element size :attr:`precision` implies (bytes), or None if it implies none."""
        return None if self.precision is None else PRECISIONS[self.precision]

    @property
    def ridge_point(self) -> float:
        """Throughput / bandwidth (FLOP/byte, thesis Eq. 3.2)."""
        return self.throughput / self.bandwidth

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return (
            f"Hardware({label}capacity={format_bytes(self.capacity)}, "
            f"bandwidth={format_bandwidth(self.bandwidth)}, "
            f"throughput={format_throughput(self.throughput)}{_precision(self)}"
            + (f", compute={self.compute}" if self.compute else "")
            + "".join(
                f", {k}={v}"
                for k, v in (
                    ("memory_type", self.memory_type),
                    ("node", self.node),
                    ("clock", None if self.clock is None else f"{self.clock / 1e9:.4g} GHz"),
                )
                if v is not None
            )
            + ")"
        )


def _precision(hw: Hardware) -> str:
    if hw.precision is None:
        return ""
    size = hw.bytes_per_element
    return f", precision={hw.precision}" + ("" if size is None else f" ({size} B/element)")


def check_element_size(hardware: Hardware, network: Network, stacklevel: int = 3) -> None:
    """Warn (:class:`PrecisionWarning`) if ``network``'s element size is not the one
    ``hardware.precision`` implies."""
    size = hardware.bytes_per_element
    if size is not None and network.bytes_per_element != size:
        warnings.warn(
            PrecisionWarning(
                f"hardware precision {hardware.precision} means {size}-byte elements, but network "
                f"{network.name!r} was loaded with {network.bytes_per_element} B/element: the "
                f"throughput is the {hardware.precision} peak while the traffic is that of "
                f"{network.bytes_per_element}-byte tensors. Load it with bytes_per_element={size} "
                f"(or give the network by name), or silence this warning if that mix is meant"
            ),
            stacklevel=stacklevel,
        )


def _field(label: str, parse, value):  # type: ignore[no-untyped-def]
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{label}: must be a number, got nan")
    try:
        return parse(value)
    except ValueError as e:
        msg = str(e).split(": ", 1)[-1]  # the units helper names its own quantity ("size: …")
        raise ValueError(f"{label}: {msg}") from None


def _technology_field(label: str, value: str | None) -> str | None:
    """A memory technology or a node, checked against the technology table (lower case)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{label}: expected a name such as 'hbm2e' or '7nm', got {value!r}")
    from . import technology  # a data table; imported when a field names one

    if label == "node":
        technology.node_nm(value)
        return value.strip().lower().replace(" ", "")
    key = value.strip().lower().replace(" ", "").replace("_", "-")
    technology.dram_pj_per_byte(key)  # raises naming memory_type
    return key


def _clock(value: str | float | None) -> float | None:
    """A clock in Hz from a number or ``"1.41GHz"`` / ``"700MHz"``."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().replace(" ", "")
        for suffix, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3), ("Hz", 1.0)):
            if text.endswith(suffix):
                try:
                    hz = float(text[: -len(suffix)]) * scale
                except ValueError:
                    break
                return _clock(hz)
        raise ValueError(f"clock: expected Hz or a value such as '1.41GHz', got {value!r}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"clock: expected Hz, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"clock: must be a finite number of Hz > 0, got {value!r}")
    return float(value)
