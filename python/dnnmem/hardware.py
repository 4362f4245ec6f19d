"""A design point's hardware (SPEC §4): on-chip capacity, off-chip bandwidth, compute throughput."""

from __future__ import annotations

import dataclasses
import math

from .units import (
    format_bandwidth,
    format_bytes,
    format_throughput,
    parse_bandwidth,
    parse_bytes,
    parse_throughput,
)

__all__ = ["Hardware"]

# The unit parser of each numeric field (sweep specs and plot filters parse with these too).
FIELD_PARSERS = {"capacity": parse_bytes, "bandwidth": parse_bandwidth,
                 "throughput": parse_throughput}


@dataclasses.dataclass(frozen=True, init=False)
class Hardware:
    """On-chip capacity (bytes), off-chip bandwidth (bytes/s), compute throughput (FLOP/s).

    Each accepts a number in those SI base units or a string with a unit::

        Hardware(capacity="24MiB", bandwidth="616GB/s", throughput="13.45TFLOPS")

    ``capacity`` may be 0 (no cache); bandwidth and throughput must be positive and finite.
    The core counts time exactly in whole bytes/s and FLOP/s, so both are rounded to integers.
    """

    capacity: int
    bandwidth: float
    throughput: float
    name: str

    def __init__(self, capacity: str | float = 0, bandwidth: str | float = "616GB/s",
                 throughput: str | float = "13.45TFLOPS", name: str = "") -> None:
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

    def replace(self, **changes: str | float) -> Hardware:
        """A copy with some fields changed (values parsed as in the constructor)."""
        fields = {"capacity": self.capacity, "bandwidth": self.bandwidth,
                  "throughput": self.throughput, "name": self.name}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"Hardware.replace: unknown field(s) {sorted(unknown)}")
        fields.update(changes)
        return Hardware(**fields)  # type: ignore[arg-type]

    @property
    def ridge_point(self) -> float:
        """Throughput / bandwidth (FLOP/byte, thesis Eq. 3.2)."""
        return self.throughput / self.bandwidth

    def __repr__(self) -> str:
        label = f"{self.name}: " if self.name else ""
        return (f"Hardware({label}capacity={format_bytes(self.capacity)}, "
                f"bandwidth={format_bandwidth(self.bandwidth)}, "
                f"throughput={format_throughput(self.throughput)})")


def _field(label: str, parse, value):  # type: ignore[no-untyped-def]
    if isinstance(value, float) and math.isnan(value):
        raise ValueError(f"{label}: must be a number, got nan")
    try:
        return parse(value)
    except ValueError as e:
        msg = str(e).split(": ", 1)[-1]  # the units helper names its own quantity ("size: …")
        raise ValueError(f"{label}: {msg}") from None
