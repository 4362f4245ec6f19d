"""dnnmem: design-space exploration of the memory subsystem of DNN-training accelerators.

The pipeline (SPEC §1): network → schedule → plan → timeline → report. Load a network
(:func:`load_network`, :func:`network`), inspect its layers, FLOPs and schedule, and
:func:`estimate` one training iteration on a :class:`Hardware` design point under a policy.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:
    from . import plots
    from .area import sram_area, with_area
    from .energy import EnergyModel
    from .estimate import Result, estimate, load_result, policies
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
    "load_result",
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

# Where each name of the API lives. ``import dnnmem`` imports none of these modules (nor pandas,
# NumPy or matplotlib behind them): a name's module is imported when the name is first read,
# e.g. ``dnnmem.estimate`` or ``from dnnmem import sweep`` (PEP 562).
_LAZY: dict[str, str] = {
    "EnergyModel": "energy",
    "Flops": "network",
    "Hardware": "hardware",
    "PrecisionWarning": "hardware",
    "hardware": "presets",
    "hardware_presets": "presets",
    "Result": "estimate",
    "estimate": "estimate",
    "policies": "estimate",
    "load_result": "estimate",
    "Policy": "policy",
    "Part": "policy",
    "parts": "policy",
    "sweep": "sweep",
    "ThesisReading": "thesis",
    "default_reading": "thesis",
    "thesis_reading": "thesis",
    "SweepInterrupted": "sweep",
    "Network": "network",
    "NetworkError": "network",
    "load_network": "network",
    "network": "zoo",
    "networks": "zoo",
    "parse_bytes": "units",
    "parse_bandwidth": "units",
    "parse_throughput": "units",
    "format_bytes": "units",
    "format_bandwidth": "units",
    "format_throughput": "units",
    "format_time": "units",
    "pareto": "pareto",
    "sram_area": "area",
    "with_area": "area",
}
# Submodules reachable as attributes (``dnnmem.zoo.networks()``), imported on first use: those
# that an eager ``import dnnmem`` used to load, and ``plots``.
_SUBMODULES = frozenset(
    {
        "plots",
        "area",
        "cdma",
        "compression",
        "cost",
        "energy",
        "policy",
        "presets",
        "registry",
        "technology",
        "thesis",
        "units",
        "zoo",
    }
)
# Names of the API that are also names of submodules: the import system binds a submodule on
# its package when it first imports it, which would hide the function.
_SHADOWED = frozenset(name for name, module in _LAZY.items() if name in _LAZY.values())


class _Package(types.ModuleType):
    """dnnmem's module type: a submodule named as a function of the API (``estimate``,
    ``sweep``, ``network``, ``hardware``, ``pareto``) does not replace the function when it
    is imported."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return  # the function is bound on first read (__getattr__)
        super().__setattr__(name, value)


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """Imports the module behind ``name`` on its first read (PEP 562) and binds it here."""
        module = _LAZY.get(name)
        if module is not None:
            value = getattr(importlib.import_module(f".{module}", __name__), name)
        elif name in _SUBMODULES:
            value = importlib.import_module(f".{name}", __name__)
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    """Every name of the API, imported yet or not, and the submodules reachable as attributes;
    not the names this file uses itself (``sys``, ``Any``, ...) nor private ones."""
    return sorted(set(__all__) | _SUBMODULES)


sys.modules[__name__].__class__ = _Package
