"""dnnmem: design-space exploration of the memory subsystem of DNN-training accelerators.

The pipeline (SPEC §1): network → schedule → plan → timeline → report. This release has the
first two stages: load a network (:func:`load_network`, the built-in zoo), inspect its layers,
FLOPs, reuse frequencies and the schedule of one training iteration.
"""

from __future__ import annotations

from . import _core
from .network import Flops, Network, NetworkError, load_network
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
    "Flops",
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
]
