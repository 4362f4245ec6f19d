"""Stages 3–5 from Python: estimate one training iteration at one design point (SPEC §4–7).

The plan, the timeline and the totals are computed in C++ (``cpp/src/policies/``,
``cpp/src/timeline.cpp``, ``cpp/src/estimate.cpp``); this module handles arguments and units and
turns the result into a :class:`Result` with pandas tables.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Union

from . import _core, registry
from ._lazy import LazyModule
from .hardware import Hardware, check_element_size
from .network import Network, load_network, looks_like_json, schedule_columns
from .part import _format_value, parts
from .policy import Policy, PolicyLike, prepare_point
from .policy import policy as as_policy
from .presets import as_hardware
from .units import (
    column_unit,
    format_bandwidth,
    format_bytes,
    format_count,
    format_energy,
    format_time,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .registry import SparsityLike
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = ["estimate", "load_result", "policies", "Result"]

NetworkLike = Union[Network, str, "os.PathLike[str]", dict]

#: Tensor roles, in the order of the C++ enum (the ``traffic_<in|out>_<role>`` columns).
ROLES = ("activation", "weight", "state", "gradient", "weight_grad")


def policies(kind: str | None = None) -> pd.DataFrame:
    """Every part a policy can be composed of (docs/policies.md): one row per part with
    ``kind`` (scheduler, cache, link, compute), ``name``, ``description`` and ``options``
    (a one-line summary: name, unit, default). The thesis's policies (``lookahead``,
    ``belady``, ``prefetch-next``, ``no-lookahead``, ``lru``, ``none``) are cache managers."""
    rows = []
    for name, p in parts(kind).items():
        opts = []
        for o in p["options"]:
            if o["type"] == "choice":
                opts.append(f"{o['name']}={'|'.join(o['choices'])} (default {o['default']})")
            else:
                # As an option is written in a policy: mbs(buffer=10MiB), ratio(cap=48GB/s).
                unit = f" in {o['unit']}" if o["unit"] else ""
                shown = _format_value(float(o["default"]), o["unit"])
                opts.append(f"{o['name']}{unit} (default {shown})")
        rows.append(
            {
                "kind": p["kind"],
                "name": name,
                "description": p["description"],
                "options": "; ".join(opts),
            }
        )
    return pd.DataFrame(rows, columns=["kind", "name", "description", "options"])


def _resolve_policy(value: PolicyLike, hardware: Hardware) -> Policy:
    """The policy to run: ``value`` parsed, its compute model the hardware's when it names none."""
    return as_policy(value).with_compute(hardware.compute)


def _network(
    network: NetworkLike, batch: int | None, bytes_per_element: int | None = None
) -> Network:
    """``network`` as a Network at ``batch`` (None: its own, or 1); a name, file or document is
    loaded at ``bytes_per_element`` (None: 4)."""
    size = 4 if bytes_per_element is None else bytes_per_element
    if isinstance(network, Network):
        return network if batch is None or batch == network.batch else network.with_batch(batch)
    if isinstance(network, str) and not os.path.exists(network) and not looks_like_json(network):
        from .zoo import network as zoo_network
        from .zoo import networks, unknown_network_message

        if network.lower() in networks():
            return zoo_network(network, batch=1 if batch is None else batch, bytes_per_element=size)
        raise ValueError(f"network: {unknown_network_message(network)}")
    if isinstance(network, (str, os.PathLike, dict)):
        return load_network(network, batch=1 if batch is None else batch, bytes_per_element=size)
    raise TypeError(
        f"network: expected a Network, a built-in name, a JSON path or a dict, "
        f"got {type(network).__name__}"
    )


def _check_has_steps(net: Network) -> None:
    """Raise if ``net`` has no step (shared by :func:`estimate` and :func:`dnnmem.sweep`)."""
    if net.num_steps == 0:
        # Every output is an input or a folded view of one: there is nothing to train or time.
        raise ValueError(
            f"network: {net.name!r} has no step to estimate (every output is an "
            f"input or a re-indexing of one)"
        )


def estimate(
    network: NetworkLike,
    hardware: Hardware | str | None = None,
    policy: PolicyLike = "lookahead",
    *,
    batch: int | None = None,
    capacity: str | float | None = None,
    bandwidth: str | float | None = None,
    throughput: str | float | None = None,
    ops_per_mac: int = 2,
    sparsity: SparsityLike = None,
    energy: Any = None,
) -> Result:
    """Estimate one training iteration of ``network`` on ``hardware`` under ``policy``.

    Parameters
    ----------
    network : Network, str, path or dict
        A loaded :class:`Network`, a built-in name (``"resnet50"``), a JSON file or a document.
        A name, file or document is loaded at the element size of ``hardware.precision``
        (``hardware("a100", precision="bf16")``: 2 bytes), else 4 bytes (FP32); a loaded
        Network keeps its own and draws a :class:`~dnnmem.PrecisionWarning` if the
        hardware's precision implies another.
    hardware : Hardware or str, optional
        The design point, or a preset's name (``"rtx2080ti"``: :func:`dnnmem.hardware`) (default: ``Hardware()``, dnnmem's default design point: 24 MiB,
        616 GB/s, 13.45 TFLOPS). Keyword arguments ``capacity``, ``bandwidth``,
        ``throughput`` build one (or override fields of the one given); unit strings such as
        ``"24MiB"`` work.
    policy : str or Policy
        A composition of scheduler, cache manager, link and compute model: a
        :class:`dnnmem.Policy` or its string form (``"split-backward + lru"``); a cache
        manager's name alone (default ``"lookahead"``, the thesis's) keeps the other parts at
        their defaults. See :func:`policies` and docs/policies.md. On a network that carries
        its own scheduler or fusion level (:meth:`Network.with_scheduler`,
        :meth:`Network.with_fusion`) it runs as :meth:`Policy.on_network` makes it.
    batch : int, optional
        Mini-batch size (default: the network's own, or 1 for a file / name, as everywhere in
        dnnmem, the command line included).
    ops_per_mac : int
        FLOPs per multiply-accumulate: 2 (default) or 1 (SPEC §2).
    sparsity : DataFrame, mapping, CSV path, optional
        For the compressing links (``zvc``, ``rle``, ``zlib``): per-layer output sparsity
        (columns ``layer``, ``sparsity``), overriding the links' type/depth rule for the layers
        it names (docs/model/cdma.md). The result's ``sparsity_source`` says which was used.
    energy : EnergyModel, optional
        Energy per DRAM byte, global-buffer byte and MAC for the ``energy`` total (default
        :data:`dnnmem.energy.WAVECORE`, the mini-batch serialization paper's ratios). It is
        the option of a report model (:mod:`dnnmem.registry`), checked there.

    Returns
    -------
    Result
        Totals in SI base units (s, bytes, bytes/s) and a per-step table.

    Raises
    ------
    ValueError
        Naming the argument for invalid hardware, an unknown part or option, a combination
        of parts that makes no sense, or a bad ``ops_per_mac``.
    """
    overrides = {
        k: v
        for k, v in (("capacity", capacity), ("bandwidth", bandwidth), ("throughput", throughput))
        if v is not None
    }
    hardware = as_hardware(hardware, **overrides)  # a preset's name: dnnmem.hardware(name)
    if hardware is None:
        hardware = Hardware(**overrides)  # type: ignore[arg-type]
    elif not isinstance(hardware, Hardware):
        raise TypeError(f"hardware: expected dnnmem.Hardware, got {type(hardware).__name__}")
    elif overrides:
        hardware = hardware.replace(**overrides)
    net = _network(network, batch, hardware.bytes_per_element)
    _check_has_steps(net)
    check_element_size(hardware, net)
    composition = _resolve_policy(policy, hardware).on_network(net.scheduler)
    if ops_per_mac not in (1, 2) or isinstance(ops_per_mac, bool):
        raise ValueError(f"ops_per_mac: must be 1 or 2, got {ops_per_mac!r}")
    scheduled = net.with_scheduler(composition.scheduler)
    _check_has_steps(scheduled)
    prepared = composition.prepare(scheduled.schedule, ops_per_mac, scheduled, sparsity)
    prepared = prepare_point(composition, scheduled.schedule, prepared, hardware.capacity)
    core = _core.estimate(
        scheduled.schedule, hardware.capacity, hardware.bandwidth, hardware.throughput, prepared
    )
    options = registry.check_options({"energy": energy})
    result = Result(scheduled, hardware, composition, ops_per_mac, core, options)
    result._sparsity = sparsity
    if registry.has_link_tables(composition.link.name):
        _, _, result.sparsity_source = registry.link_tables(composition.link, scheduled, sparsity)
        t = scheduled.tensors
        result.max_link_ratio = max(
            (
                b / prepared.link_wire_bytes(i, b)
                for i, (b, role) in enumerate(zip(t["bytes"], t["role"]))
                if role == "activation" and b > 0
            ),
            default=1.0,
        )
    return result


def load_result(path: str | os.PathLike[str]) -> Result:
    """Read a result written by :meth:`Result.save`.

    Parameters
    ----------
    path : path
        The file (JSON, ``"format": "dnnmem-result"``).

    Returns
    -------
    Result
        Equal to the result saved: every total, ``steps``, ``pin_table()``, the network,
        hardware, policy and energy model (``baseline`` is estimated again when read).

    Raises
    ------
    ValueError
        Naming the file, for a file that is not a saved result, or one of a newer version
        than this dnnmem reads.
    OSError
        When the file cannot be read.
    """
    from .result_io import read_result

    result: Result = read_result(path, Result)
    return result


#: How a result's sparsity came about, in words (compressing links only).
_SPARSITY_SOURCES = {
    "rule": "the type/depth rule (default, not measured)",
    "table": "the table given",
    "table+rule": "the table given, the rule elsewhere",
}


class Result:
    """One estimated training iteration. Every total is in SI base units.

    Attributes
    ----------
    time : float
        Seconds for the iteration, drain included.
    traffic_in, traffic_out : int
        Bytes loaded into / written out of the cache (the tensors' sizes).
    link_in, link_out : int
        The same transfers' bytes on the link: equal to traffic_in / traffic_out for the
        ``raw`` link, fewer when the link compresses.
    avg_bandwidth : float
        (link in + out) / time, bytes/s (thesis Eq. 4.1).
    policy : str
        The composition's string form; :attr:`composition` is the :class:`dnnmem.Policy`.
    active_time : float
        avg_bandwidth / peak bandwidth: the fraction of time the memory is busy (Eq. 4.2).
    utilization : float
        FLOPs / (throughput × time) (Eq. 4.3).
    samples_per_s : float
        batch / time (Eq. 5.2).
    compute_time, stall_time, capacity_stall_time, drain_time : float
        Seconds: Σ step compute; time the steps are not computing; the part of the stall spent
        waiting for offloads to free capacity; off-chip writes still running after the last step.
    traffic_in_by_role, traffic_out_by_role : dict of str to int
        traffic_in / traffic_out split by the role of the tensor moved (``activation``,
        ``weight``, ``state``, ``gradient``, ``weight_grad``), bytes; columns
        ``traffic_in_<role>``, ``traffic_out_<role>`` of :meth:`to_dict`.
    groups : int
        Layer groups of a serialized schedule (scheduler ``mbs``); 0 for the others.
    sub_batches : str
        Each group's sub-batch sizes in samples (:func:`dnnmem.energy.sub_batch_string`),
        ``""`` without groups.
    gb_bytes, macs : int
        Bytes the steps read and write (the global-buffer bytes of the energy model) and the
        MACs of the iteration.
    energy : float
        DRAM-byte units (:class:`dnnmem.EnergyModel`): dram · traffic + global_buffer ·
        gb_bytes + mac · macs; ``energy_dram_share`` is the DRAM term's fraction of it. These
        two, and every column a report model adds (:mod:`dnnmem.registry`), are attributes
        too, computed when first read.
    options : dict
        The report models' options the result was computed with (``{"energy":
        EnergyModel(...)}``), as :func:`estimate` took them.
    """

    def __init__(
        self,
        network: Network,
        hardware: Hardware,
        policy: Policy,
        ops_per_mac: int,
        core: _core.Estimate,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.network = network
        self.hardware = hardware
        self.composition: Policy = policy
        self.policy: str = str(policy)
        self.ops_per_mac = ops_per_mac
        self._core = core
        self.time: float = core.seconds
        self.traffic_in: int = int(core.traffic_in)
        self.traffic_out: int = int(core.traffic_out)
        self.link_in: int = int(core.wire_in)
        self.link_out: int = int(core.wire_out)
        self.compute_time: float = core.compute_seconds
        self.stall_time: float = core.stall_seconds
        self.capacity_stall_time: float = core.capacity_stall_seconds
        self.drain_time: float = core.drain_seconds
        self.flops: int = int(network.schedule.total_ops(ops_per_mac))
        self.avg_bandwidth: float = (self.link_in + self.link_out) / self.time
        self.active_time: float = self.avg_bandwidth / hardware.bandwidth
        self.utilization: float = self.flops / (hardware.throughput * self.time)
        self.samples_per_s: float = network.batch / self.time
        self.counts: dict[str, int] = dict(core.counts)
        #: compressing links: where the sparsity came from ("rule", "table", "table+rule")
        self.sparsity_source: str = ""
        #: compressing links: the largest whole-tensor compression ratio among activations
        self.max_link_ratio: float = 1.0
        self.options: dict[str, Any] = registry.check_options(options or {})
        self._sparsity: SparsityLike = None
        self._init_pins(core)

    @property
    def traffic(self) -> int:
        """traffic_in + traffic_out, bytes."""
        return self.traffic_in + self.traffic_out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write this result to ``path`` (JSON, versioned; :func:`dnnmem.load_result` reads it
        back equal), through a temporary file renamed over it (docs/analysis.md, "Keeping
        results")."""
        from .result_io import save_result

        save_result(self, path)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (process pools, joblib, caches): the same contents as :meth:`save`."""
        from .result_io import result_from_state, result_state

        return (result_from_state, (result_state(self), type(self)))

    # The columns below are derived when first read, and kept: a point whose caller reads only
    # the totals (a loop over estimate(), a one-point command) does not build the step table
    # or scan the schedule for them.

    @cached_property
    def traffic_in_by_role(self) -> dict[str, int]:
        """traffic_in split by the role of the tensor moved, bytes."""
        t = self._core.step_table()
        return {r: int(t[f"bytes_in_{r}"].sum()) for r in ROLES}

    @cached_property
    def traffic_out_by_role(self) -> dict[str, int]:
        """traffic_out split by the role of the tensor moved, bytes."""
        t = self._core.step_table()
        return {r: int(t[f"bytes_out_{r}"].sum()) for r in ROLES}

    @cached_property
    def _schedule_columns(self) -> dict[str, Any]:
        return schedule_columns(self.network)

    @property
    def energy_model(self) -> Any:
        """The ``energy`` option (:attr:`options`)."""
        return self.options.get("energy")

    @cached_property
    def groups(self) -> int:
        """Layer groups of a serialized schedule (scheduler ``mbs``); 0 for the others."""
        return int(self._schedule_columns["groups"])

    @cached_property
    def sub_batches(self) -> str:
        """Each group's sub-batch sizes (:func:`dnnmem.energy.sub_batch_string`), ``""``
        without groups."""
        return str(self._schedule_columns["sub_batches"])

    @cached_property
    def gb_bytes(self) -> int:
        """Bytes the steps read and write (the global-buffer bytes of the energy model)."""
        return int(self._schedule_columns["gb_bytes"])

    @cached_property
    def macs(self) -> int:
        """MACs of the iteration."""
        return int(self._schedule_columns["macs"])

    @cached_property
    def _report(self) -> dict[str, Any]:
        """The report models' columns (:mod:`dnnmem.registry`), from the totals they read."""
        return registry.derive(_Totals(self), self.hardware, self.options)

    def __getattr__(self, name: str) -> Any:
        # A report model's column (energy, ...) as an attribute. Not for private names: copy and
        # pickle look some up before __init__ has run.
        if not name.startswith("_") and name in registry.report_columns():
            return self._report[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @cached_property
    def steps(self) -> pd.DataFrame:
        """One row per step (SPEC §7): ``step``, ``name``, ``layer``, ``kind``, ``class``,
        ``phase``, ``part``, ``flops``, ``start``, ``end``, ``time`` (end − previous end, s),
        ``compute_time``, ``stall`` (time − compute_time), ``capacity_stall`` (s),
        ``bytes_in``, ``bytes_out`` (issued at the step's start, or its end for offloads),
        ``link_in``, ``link_out`` (the same transfers' bytes on the link),
        ``bytes_streamed_in``, ``bytes_streamed_out`` (the part of them that is the step's own
        accesses going off-chip: issued at its start and due at its end),
        ``link_streamed_in``, ``link_streamed_out`` (the same streamed transfers' bytes on the
        link: the step lasts at least their bytes / bandwidth, whatever the link;
        :func:`dnnmem.plots.roofline` uses them),
        ``resident_bytes`` (on chip at its start, data being written out included), and
        ``bytes_in_<role>`` / ``bytes_out_<role>`` for each tensor role (activation, weight,
        state, gradient, weight_grad), which add up to ``bytes_in`` / ``bytes_out``.
        ``attrs["units"]`` names each column's unit (s, FLOP, bytes; "" for labels)."""
        base = self.network.steps
        t = self._core.step_table()
        df = pd.DataFrame(
            {
                "step": base["step"],
                "name": base["name"],
                "layer": base["layer"],
                "kind": base["kind"],
                "class": base["class"],
                "phase": base["phase"],
                "part": base["part"],
                "flops": self.ops_per_mac * base["macs"] + (base["flops"] - 2 * base["macs"]),
                "start": t["start"],
                "end": t["end"],
                "time": t["time"],
                "compute_time": t["compute_time"],
            }
        )
        df["stall"] = np.maximum(df["time"] - df["compute_time"], 0.0)
        df["capacity_stall"] = t["capacity_stall"]
        df["bytes_in"] = t["bytes_in"]
        df["bytes_out"] = t["bytes_out"]
        df["link_in"] = t["wire_in"]
        df["link_out"] = t["wire_out"]
        df["bytes_streamed_in"] = t["bytes_streamed_in"]
        df["bytes_streamed_out"] = t["bytes_streamed_out"]
        df["link_streamed_in"] = t["wire_streamed_in"]
        df["link_streamed_out"] = t["wire_streamed_out"]
        df["resident_bytes"] = t["resident_bytes"]
        for role in ("activation", "weight", "state", "gradient", "weight_grad"):
            df[f"bytes_in_{role}"] = t[f"bytes_in_{role}"]
            df[f"bytes_out_{role}"] = t[f"bytes_out_{role}"]
        df.attrs["units"] = {c: column_unit(c) for c in df.columns}
        return df

    def _breakdown(self, column: str) -> pd.Series:
        s = self.steps
        label = s[column].where(s["phase"] != "loss", "loss").replace("", "other")
        out = s["time"].groupby(label, sort=False).sum()
        if self.drain_time > 0:
            out["drain"] = self.drain_time
        out.name = "seconds"
        return out

    def by_kind(self) -> pd.Series:
        """Time (s) by layer kind (thesis Fig. 5.5); loss steps under ``"loss"``, off-chip writes
        after the last step under ``"drain"``. Sums to :attr:`time`."""
        return self._breakdown("kind")

    def by_class(self) -> pd.Series:
        """Time (s) by layer class ``"I"`` / ``"II"`` (thesis §5), ``"loss"`` and ``"drain"``."""
        return self._breakdown("class")

    def to_dict(self) -> dict[str, Any]:
        """The totals as a flat dict (SI base units), e.g. for a DataFrame row."""
        return {**self._core_dict(), **self._report, **self._pin_dict()}

    def _core_dict(self) -> dict[str, Any]:
        """:meth:`to_dict`'s columns that come from the engine and the schedule."""
        return {
            "network": self.network.name,
            "batch": self.network.batch,
            "policy": self.policy,
            **self.composition.columns(),
            "capacity": self.hardware.capacity,
            "bandwidth": self.hardware.bandwidth,
            "throughput": self.hardware.throughput,
            "time": self.time,
            "traffic_in": self.traffic_in,
            "traffic_out": self.traffic_out,
            "link_in": self.link_in,
            "link_out": self.link_out,
            "avg_bandwidth": self.avg_bandwidth,
            "active_time": self.active_time,
            "utilization": self.utilization,
            "samples_per_s": self.samples_per_s,
            "compute_time": self.compute_time,
            "stall_time": self.stall_time,
            "capacity_stall_time": self.capacity_stall_time,
            "drain_time": self.drain_time,
            **{f"traffic_in_{r}": v for r, v in self.traffic_in_by_role.items()},
            **{f"traffic_out_{r}": v for r, v in self.traffic_out_by_role.items()},
            "groups": self.groups,
            "sub_batches": self.sub_batches,
            "gb_bytes": self.gb_bytes,
            "macs": self.macs,
        }

    # -- the pinning managers' report (docs/model/report.md, "Pinning") -------------------------

    def _init_pins(self, core: _core.Estimate) -> None:
        pins = core.pins
        #: tensors pinned on chip by the cache manager (OnSRAM's PinLoc = SPM; 0 for the others)
        self.pinned: int = int(pins["pinned"])
        #: bytes: the sum of the pinned tensors' sizes
        self.pinned_bytes: int = int(pins["pinned_bytes"])
        #: seconds of steps re-executed to recover lost tensors (OnSRAM-Eager Spec), included in
        #: compute_time
        self.recompute_time: float = float(pins["recompute_seconds"])

    def _pin_dict(self) -> dict[str, Any]:
        return {
            "pinned": self.pinned,
            "pinned_bytes": self.pinned_bytes,
            "recompute_time": self.recompute_time,
        }

    @cached_property
    def baseline(self) -> Result:
        """The baseline of :attr:`speedup`: the same composition with the cache manager
        ``none`` (nothing kept on chip: every access streamed; the OnSRAM paper's No SPM Mgmt) at
        the same design point — same network, scheduler, link, compute model and hardware."""
        return estimate(
            self.network,
            self.hardware,
            self.composition.replace(cache="none"),
            ops_per_mac=self.ops_per_mac,
            sparsity=self._sparsity,
            **self.options,
        )

    @property
    def speedup(self) -> float:
        """``baseline.time / time`` (×): how much faster than keeping nothing on chip."""
        return self.baseline.time / self.time

    def pin_table(self) -> pd.DataFrame:
        """The cache manager's pin decisions (OnSRAM's *PinLoc*), one row per activation or
        gradient tensor, in tensor order: ``tensor``, ``layer`` (the layer it belongs to),
        ``role``, ``bytes``, ``first_step`` / ``last_step`` (its first full use and last use,
        step indices), ``pin_loc`` (``"SPM"``: pinned over its whole live interval;
        ``"SPM+EXT"``: pinned over part of it, streamed at its other uses; ``"EXT"``: never
        pinned), ``pin_start`` / ``pin_end`` (the steps it is resident from and to, both
        included; -1 when EXT) and ``pinned_steps``. A tensor pinned over several intervals
        (``onsram-static(split=…)``) has one row per interval. Managers that do not pin
        (``lookahead``, ``lru``, …) give every tensor EXT."""
        t = self.network.tensors
        p = pd.DataFrame(self._core.pin_table())
        cand = t[t["role"].isin(["activation", "gradient"])]
        rows = []
        by_tensor = {int(k): g for k, g in p.groupby("tensor")} if len(p) else {}
        for i, x in cand.iterrows():
            first, last = int(x["first_full_use"]), int(x["last_use"])
            base = {
                "tensor": x["name"],
                "layer": x["layer"],
                "role": x["role"],
                "bytes": int(x["bytes"]),
                "first_step": first,
                "last_step": last,
            }
            pins = by_tensor.get(int(i))
            if pins is None:
                rows.append({**base, "pin_loc": "EXT", "pin_start": -1, "pin_end": -1})
                continue
            whole = (
                len(pins) == 1
                and int(pins["start"].iat[0]) <= first
                and int(pins["end"].iat[0]) >= last
            )
            for a, b in zip(pins["start"], pins["end"]):
                rows.append(
                    {
                        **base,
                        "pin_loc": "SPM" if whole else "SPM+EXT",
                        "pin_start": int(a),
                        "pin_end": int(b),
                    }
                )
        cols = [
            "tensor",
            "layer",
            "role",
            "bytes",
            "first_step",
            "last_step",
            "pin_loc",
            "pin_start",
            "pin_end",
        ]
        df = pd.DataFrame(rows, columns=cols)
        df["pinned_steps"] = np.where(df["pin_start"] >= 0, df["pin_end"] - df["pin_start"] + 1, 0)
        return df

    def _pin_rows(self) -> list[tuple[str, str]]:
        """The printed lines of the pin report, when the manager pinned or re-executed."""
        if not self.pinned and not self.recompute_time:
            return []
        return [
            ("pinned", f"{self.pinned} tensors, {format_bytes(self.pinned_bytes)}"),
            *([("recomputed", format_time(self.recompute_time))] if self.recompute_time else []),
        ]

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("time", format_time(self.time)),
            (
                "traffic in / out",
                f"{format_bytes(self.traffic_in)} / {format_bytes(self.traffic_out)}",
            ),
            *(
                [
                    (
                        "on the link in / out",
                        f"{format_bytes(self.link_in)} / {format_bytes(self.link_out)}",
                    )
                ]
                if (self.link_in, self.link_out) != (self.traffic_in, self.traffic_out)
                else []
            ),
            *(
                [("sparsity", _SPARSITY_SOURCES.get(self.sparsity_source, self.sparsity_source))]
                if self.sparsity_source
                else []
            ),
            (
                "average bandwidth",
                f"{format_bandwidth(self.avg_bandwidth)} ({self.active_time:.1%} of peak)",
            ),
            ("compute utilization", f"{self.utilization:.1%}"),
            ("throughput", f"{self.samples_per_s:.4g} samples/s"),
            (
                "stall",
                f"{format_time(self.stall_time)} (capacity {format_time(self.capacity_stall_time)}), "
                f"drain {format_time(self.drain_time)}",
            ),
            ("FLOPs", format_count(self.flops, "FLOP")),
            *self._pin_rows(),
            *self._energy_area_rows(),
        ]

    def _energy_area_rows(self) -> list[tuple[str, str]]:
        """The printed lines of the joule, area and cost models (docs/model/energy.md,
        docs/model/cost.md), with the technology they were computed at."""
        from . import technology as tech

        col = self._report
        if not {"energy_j", "area_mm2", "cost_usd"} <= set(col):  # a model replaced
            return []
        hw = self.hardware
        given = [hw.memory_type, hw.node, hw.clock]
        shown = [
            hw.memory_type or tech.DEFAULT_MEMORY,
            hw.node or tech.DEFAULT_NODE,
            f"{(hw.clock or tech.DEFAULT_CLOCK) / 1e9:.4g} GHz",
            hw.precision or "fp32",
        ]
        technology = ", ".join(shown) + (" (defaults)" if given == [None] * 3 else "")
        energy = col["energy_j"]
        parts = sorted(
            ((_ENERGY_PARTS[k], v) for k, v in col.items() if k in _ENERGY_PARTS and v > 0),
            key=lambda kv: -kv[1],
        )
        split = ", ".join(f"{name} {v / energy:.0%}" for name, v in parts) if energy > 0 else ""
        blocks = ", ".join(
            f"{name} {col[k]:.4g}"
            for k, name in (
                ("area_sram_mm2", "SRAM"),
                ("area_compute_mm2", "MACs"),
                ("area_phy_mm2", "memory PHY"),
            )
        )
        uncore = float(tech.table()["die"]["uncore_fraction"])
        return [
            ("technology", technology),
            (
                "energy",
                f"{format_energy(energy)}, {format_energy(col['energy_per_sample_j'])}/sample"
                + (f" ({split})" if split else ""),
            ),
            (
                "die area",
                f"{col['area_mm2']:.4g} mm² ({blocks} mm², + {uncore:.0%} uncore of the die)",
            ),
            (
                "cost (rough)",
                f"{_usd(col['cost_usd'])} (die {_usd(col['cost_die_usd'])} + DRAM "
                f"{_usd(col['cost_dram_usd'])}; rough, docs/model/cost.md)",
            ),
        ]

    def _point(self) -> str:
        """The design point in words: every input the totals depend on, defaults included."""
        net = self.network
        flops = "" if self.ops_per_mac == 2 else f", ops_per_mac={self.ops_per_mac}"
        return (
            f"{net.name}, batch={net.batch}, {net.bytes_per_element} B/element, "
            f"policy={self.policy}{flops}, {self.hardware!r}"
        )

    def __repr__(self) -> str:
        head = f"<dnnmem.Result {self._point()}>"
        return head + "".join(f"\n  {k:<20} {v}" for k, v in self._rows())

    def _repr_html_(self) -> str:
        import html

        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
            for k, v in self._rows()
        )
        title = html.escape(self._point())
        return f"<div><b>{title}</b><table>{rows}</table></div>"


class _Totals(Mapping[str, Any]):
    """A :class:`Result`'s engine and schedule columns as a mapping, each computed when a report
    model reads it (the energy needs no step table: reading ``traffic_in_<role>`` builds it)."""

    def __init__(self, result: Result) -> None:
        self._result = result

    def __getitem__(self, key: str) -> Any:
        r = self._result
        for direction, by_role in (("in", "traffic_in_by_role"), ("out", "traffic_out_by_role")):
            prefix = f"traffic_{direction}_"
            if key.startswith(prefix) and key[len(prefix) :] in ROLES:
                return getattr(r, by_role)[key[len(prefix) :]]
        if key in ("capacity", "bandwidth", "throughput"):
            return getattr(r.hardware, key)
        if key == "batch":
            return r.network.batch
        if key in _TOTALS:
            return getattr(r, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._result._core_dict())

    def __len__(self) -> int:
        return len(self._result._core_dict())


def _usd(value: float) -> str:
    """A rough price as printed: ``$1,234``; a die too large for a wafer has none."""
    return f"${value:,.0f}" if math.isfinite(value) else "no die fits a 300 mm wafer"


#: The printed name of each energy component (Result.__repr__), by its column.
_ENERGY_PARTS = {
    "energy_sram_j": "SRAM",
    "energy_dram_j": "DRAM",
    "energy_host_link_j": "host link",
    "energy_compute_j": "compute",
    "energy_sram_leakage_j": "SRAM leakage",
    "energy_static_j": "static",
}

#: The Result totals that are also sweep columns (:data:`dnnmem.sweep.RESULT_COLUMNS`, same
#: names, SI units): time and traffic, then the plan counts of the seed schedulers.
RUN_TOTALS = (
    "time",
    "traffic_in",
    "traffic_out",
    "link_in",
    "link_out",
    "avg_bandwidth",
    "active_time",
    "utilization",
    "samples_per_s",
    "compute_time",
    "stall_time",
    "capacity_stall_time",
    "drain_time",
    "flops",
)
PLAN_TOTALS = ("groups", "sub_batches", "gb_bytes", "macs")

#: The Result attributes a report model may read by name through _Totals.
_TOTALS = frozenset(RUN_TOTALS + PLAN_TOTALS)
