"""dnnmem: design-space exploration of the memory subsystem of DNN-training accelerators.

The pipeline (SPEC §1): network → schedule → plan → timeline → report. Load a network
(:func:`load_network`, :func:`network`), inspect its layers, FLOPs and schedule, and
:func:`estimate` one training iteration on a :class:`Hardware` design point under a policy.
"""

from __future__ import annotations

from . import _core, plots
from .area import sram_area, with_area
from .energy import EnergyModel
from .estimate import Result, estimate, policies
from .hardware import Hardware, PrecisionWarning
from .network import Flops, Network, NetworkError, load_network
from .pareto import pareto
from .policy import Part, Policy, parts
from .presets import hardware, hardware_presets
from .sweep import SweepInterrupted, sweep
from .thesis import ThesisReading, default_reading, thesis_reading
from .units import (
    format_bandwidth,
    format_bytes,
    format_throughput,
    format_time,
    parse_bandwidth,
    parse_bytes,
    parse_throughput,
)
from .zoo import network, networks

__version__: str = _core.__version__

__all__ = [
    "__version__",
    "EnergyModel",
    "Flops",
    "Hardware",
    "PrecisionWarning",
    "hardware",
    "hardware_presets",
    "Result",
    "estimate",
    "policies",
    "Policy",
    "Part",
    "parts",
    "sweep",
    "ThesisReading",
    "default_reading",
    "thesis_reading",
    "SweepInterrupted",
    "Network",
    "NetworkError",
    "load_network",
    "network",
    "networks",
    "parse_bytes",
    "parse_bandwidth",
    "parse_throughput",
    "format_bytes",
    "format_bandwidth",
    "format_throughput",
    "format_time",
    "pareto",
    "sram_area",
    "with_area",
    "plots",
]
