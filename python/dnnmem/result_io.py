"""Keeping a :class:`dnnmem.Result`: pickling (process pools, joblib, caches) and a file
(:meth:`dnnmem.Result.save`, :func:`dnnmem.load_result`).

Both hold the same things: the network's document, batch, element size and scheduler; the
hardware; the policy's string form; ``ops_per_mac``; the energy model; the sparsity table given
to a compressing link; and the engine's whole output (the totals, the plan counts, the pin
report, the per-step table and the tile walk's table). A loaded result is the result that was
saved: every total and table is read back, not estimated again (a later dnnmem whose model
changed still shows the numbers of the run that was saved); only :attr:`Result.baseline`
estimates anew.

The file is JSON (``docs/analysis.md``, "Keeping results"): an object with ``"format":
"dnnmem-result"`` and ``"version": 1``; floats are written in the shortest form that reads
back to the same double, so a loaded result equals the saved one exactly. A version this
dnnmem does not know is refused with a message naming it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ._core import __version__
from ._lazy import LazyModule

if TYPE_CHECKING:
    import numpy as np
else:
    np = LazyModule("numpy")

__all__ = ["read_result", "result_from_state", "result_state", "save_result", "FORMAT", "VERSION"]

#: The ``"format"`` of a saved result.
FORMAT = "dnnmem-result"
#: The ``"version"`` this dnnmem writes (and the newest it reads).
VERSION = 1

_SCALARS = (
    "seconds",
    "steps_seconds",
    "drain_seconds",
    "stall_seconds",
    "capacity_stall_seconds",
    "compute_seconds",
    "traffic_in",
    "traffic_out",
    "wire_in",
    "wire_out",
)


class StoredEstimate:
    """The engine's output of one estimate, kept in Python: what ``_core.Estimate`` offers
    (the same attributes and methods), for a result that was pickled or loaded."""

    def __init__(self, state: dict[str, Any]) -> None:
        for name in _SCALARS:
            setattr(self, name, state[name])
        self.counts: dict[str, int] = dict(state["counts"])
        self.pins: dict[str, float] = dict(state["pins"])
        self._steps: dict[str, np.ndarray] = state["step_table"]
        self._pins: dict[str, np.ndarray] = state["pin_table"]
        self._tiles: list[dict[str, Any]] = state["tile_table"]

    @classmethod
    def of(cls, core: Any) -> StoredEstimate:
        """A copy of ``core`` (a ``_core.Estimate`` or a StoredEstimate)."""
        return cls(_estimate_state(core))

    def step_table(self) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in self._steps.items()}

    def pin_table(self) -> dict[str, np.ndarray]:
        return {k: v.copy() for k, v in self._pins.items()}

    def tile_table(self) -> list[dict[str, Any]]:
        return [dict(row) for row in self._tiles]


def _estimate_state(core: Any) -> dict[str, Any]:
    state: dict[str, Any] = {name: getattr(core, name) for name in _SCALARS}
    state["counts"] = dict(core.counts)
    state["pins"] = dict(core.pins)
    state["step_table"] = core.step_table()
    state["pin_table"] = core.pin_table()
    state["tile_table"] = core.tile_table()
    return state


def _sparsity_table(sparsity: Any) -> dict[str, float] | None:
    """The sparsity table a result was estimated with, as ``{layer: sparsity}`` (a CSV path is
    read: the file may be gone when the result is loaded)."""
    if sparsity is None:
        return None
    import pandas as pd

    if isinstance(sparsity, (str, os.PathLike)):
        sparsity = pd.read_csv(sparsity)
    if isinstance(sparsity, pd.DataFrame):
        return {str(k): float(v) for k, v in zip(sparsity["layer"], sparsity["sparsity"])}
    return {str(k): float(v) for k, v in dict(sparsity).items()}


def result_state(result: Any) -> dict[str, Any]:
    """Everything :func:`result_from_state` needs to rebuild ``result`` (NumPy arrays as they
    are: pickle keeps them; :func:`save_result` writes them as lists)."""
    net = result.network
    hw = result.hardware
    energy = result.energy_model
    return {
        "format": FORMAT,
        "version": VERSION,
        "dnnmem": __version__,
        "network": {
            "document": net._core.document,
            "source": net.source,
            "batch": net.batch,
            "bytes_per_element": net.bytes_per_element,
            "scheduler": net.scheduler,
        },
        "hardware": {
            "capacity": hw.capacity,
            "bandwidth": hw.bandwidth,
            "throughput": hw.throughput,
            "name": hw.name,
            "precision": hw.precision,
            "compute": hw.compute,
            "memory_type": hw.memory_type,
            "node": hw.node,
            "clock": hw.clock,
        },
        "policy": result.policy,
        "ops_per_mac": result.ops_per_mac,
        "energy": {"dram": energy.dram, "global_buffer": energy.global_buffer, "mac": energy.mac},
        "sparsity": _sparsity_table(result._sparsity),
        "sparsity_source": result.sparsity_source,
        "max_link_ratio": result.max_link_ratio,
        "estimate": _estimate_state(result._core),
    }


def result_from_state(state: dict[str, Any], cls: type) -> Any:
    """The :class:`dnnmem.Result` (``cls``) that :func:`result_state` describes. The class is
    given, not imported: :mod:`dnnmem.estimate` imports this module (no import circle)."""
    from . import _core
    from .energy import EnergyModel
    from .hardware import Hardware
    from .network import Network
    from .policy import Policy

    n = state["network"]
    core = _core.parse_network(n["document"], n["source"])
    network = Network(core, n["batch"], n["bytes_per_element"], n["scheduler"])
    result = cls(
        network,
        Hardware(**state["hardware"]),
        Policy.parse(state["policy"]),
        state["ops_per_mac"],
        StoredEstimate(state["estimate"]),
        {"energy": EnergyModel(**state["energy"])},
    )
    result._sparsity = state["sparsity"]
    result.sparsity_source = state["sparsity_source"]
    result.max_link_ratio = state["max_link_ratio"]
    return result


# -- the file ------------------------------------------------------------------------------------


def _encode(value: Any) -> Any:
    """JSON for a NumPy array: its dtype and values (ints stay exact, floats round-trip)."""
    if isinstance(value, np.ndarray):
        return {"dtype": value.dtype.str, "values": value.tolist()}
    raise TypeError(f"cannot write a {type(value).__name__} to a result file")


def _decode_table(table: dict[str, Any], where: str) -> dict[str, np.ndarray]:
    try:
        return {k: np.asarray(v["values"], dtype=np.dtype(v["dtype"])) for k, v in table.items()}
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{where}: a table of the file is malformed ({e})") from None


def save_result(result: Any, path: str | os.PathLike[str]) -> None:
    """Write ``result`` to ``path`` (JSON, version :data:`VERSION`) through a temporary file
    renamed over it (:func:`dnnmem._files.write_atomically`)."""
    from ._files import write_text_atomically

    text = json.dumps(result_state(result), default=_encode, separators=(",", ":"))
    write_text_atomically(path, text + "\n")


def read_result(path: str | os.PathLike[str], cls: type) -> Any:
    """:func:`dnnmem.load_result`, reading the file as a ``cls`` (:class:`dnnmem.Result`, which
    this module cannot import: estimate.py imports it). Parameters, result and errors as
    :func:`dnnmem.load_result` documents them."""
    where = os.fspath(path)
    with open(where, encoding="utf-8") as f:
        try:
            state = json.load(f)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"{where}: not a saved dnnmem result (not JSON: {e})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(
            f'{where}: not a saved dnnmem result (no "format": "{FORMAT}"); '
            f"Result.save() writes one"
        )
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise ValueError(
            f"{where}: a result file of version {version!r}, written by dnnmem "
            f"{state.get('dnnmem', '?')}; this dnnmem ({__version__}) reads version "
            f"{VERSION} and older: upgrade dnnmem"
        )
    try:
        est = state["estimate"]
        est["step_table"] = _decode_table(est["step_table"], where)
        est["pin_table"] = _decode_table(est["pin_table"], where)
        return result_from_state(state, cls)
    except (KeyError, TypeError) as e:
        raise ValueError(
            f"{where}: a saved result with a field missing or malformed ({e})"
        ) from None
