"""Stages 1–2 of the pipeline in Python: load a network, look at its layers and its schedule.

The parsing, shape inference and scheduling happen in the C++ core (``cpp/src/network*.cpp``,
``cpp/src/schedule.cpp``); this module owns argument handling and turns the core's columns into
pandas DataFrames. A :class:`Network` is immutable; its schedule is built once, on first use,
and shared by everything that needs it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from functools import cached_property
from typing import TYPE_CHECKING, Any, Union

from . import _core
from ._lazy import LazyModule, is_integer
from ._zoo_index import BUILDERS
from .part import _as_part, _fusion_level, _with_fusion
from .units import column_unit, format_bytes, format_count

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = ["Network", "Flops", "NetworkError", "load_network"]

NetworkError = _core.NetworkError
"""A malformed network (a ``ValueError``): the message names the file, the layer and the field;
the attributes ``source``, ``layer``, ``field`` and ``detail`` hold them separately. Raised by the
C++ core's parser and by the Python checks alike."""

NetworkSource = Union[str, "os.PathLike[str]", dict]

_PHASE_NAMES = ["fwd", "loss", "bwd"]
_ROLE_NAMES = ["activation", "weight", "state", "gradient", "weight_grad"]


def _with_units(df: pd.DataFrame) -> pd.DataFrame:
    df.attrs["units"] = {str(c): column_unit(c) for c in df.columns}
    return df


@dataclasses.dataclass(frozen=True)
class Flops:
    """FLOPs of one training iteration at the network's batch (1 MAC = 2 FLOPs)."""

    forward: int
    loss: int
    backward_dx: int
    backward_dw: int

    @property
    def backward(self) -> int:
        """Backward FLOPs, dX and dW together."""
        return self.backward_dx + self.backward_dw

    @property
    def total(self) -> int:
        """Forward + loss + backward."""
        return self.forward + self.loss + self.backward

    def __repr__(self) -> str:
        def f(v: int) -> str:
            return format_count(v, "FLOP")

        return (
            f"Flops(forward={f(self.forward)}, loss={f(self.loss)}, "
            f"backward_dx={f(self.backward_dx)}, backward_dw={f(self.backward_dw)}, "
            f"total={f(self.total)})"
        )


def _error(source: str, detail: str) -> NetworkError:
    """A NetworkError raised from Python, with the same attributes as the core's."""
    e = NetworkError(f"{source}: {detail}")
    e.source, e.layer, e.field, e.detail = source, "", "", detail
    return e


_MAX_BATCH = 2**24  # the core's limit (cpp/src/schedule.cpp)


def _check_batch(batch: Any) -> int:
    if isinstance(batch, bool) or not is_integer(batch) or not 1 <= batch <= _MAX_BATCH:
        raise ValueError(f"batch: must be an integer from 1 to {_MAX_BATCH}, got {batch!r}")
    return int(batch)


def _check_element_size(n: Any) -> int:
    if isinstance(n, bool) or not is_integer(n) or not 1 <= n <= 16:
        raise ValueError(f"bytes_per_element: must be an integer from 1 to 16, got {n!r}")
    return int(n)


#: The layer kinds a following batch norm folds into (Network.fold_batchnorm).
_FOLDS_BATCHNORM = frozenset({"conv2d", "depthwise_conv2d", "dense"})


class Network:
    """A network at a given batch and element size: layers, parameters, FLOPs and schedule.

    Create one with :func:`load_network` (or, later, ``dnnmem.network(name)``). Sizes are bytes,
    operation counts FLOPs with 1 multiply-accumulate = 2 FLOPs, all for the whole batch.
    """

    def __init__(
        self,
        core: _core.Network,
        batch: int = 1,
        bytes_per_element: int = 4,
        scheduler: str = "default",
    ) -> None:
        self._core = core
        self.batch: int = _check_batch(batch)
        self.bytes_per_element: int = _check_element_size(bytes_per_element)
        part = _as_part("scheduler", scheduler)
        assert part is not None
        #: The scheduler that turns it into steps (a policy part, ``"default"``: the thesis's).
        self.scheduler: str = str(part)
        self._scheduler_part = part
        self._variants: dict[str, Network] = {}

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        """The name in the file (or the file's name when it has none)."""
        return self._core.name or os.path.basename(self._core.source)

    @property
    def source(self) -> str:
        """Where it was read from: a path, or ``"<dict>"``."""
        return self._core.source

    def with_batch(self, batch: int) -> Network:
        """The same network at another batch size (the parsed graph is shared)."""
        return Network(self._core, batch, self.bytes_per_element, self.scheduler)

    def with_scheduler(self, scheduler: Any) -> Network:
        """The same network scheduled by another scheduler (a name, ``"name(options)"`` or a
        :class:`dnnmem.Part`; see ``dnnmem.parts("scheduler")``). Its schedule, steps,
        tensors and accesses are that scheduler's; the result is cached."""
        part = _as_part("scheduler", scheduler)
        key = str(part)
        if key == self.scheduler:
            return self
        if key not in self._variants:
            self._variants[key] = Network(self._core, self.batch, self.bytes_per_element, key)
        return self._variants[key]

    @property
    def fusion(self) -> str:
        """The fusion level of its schedule (docs/model/fusion.md): ``none``, ``pointwise``
        or ``accelerator``, an option of its scheduler."""
        return str(self._scheduler_part.option_dict.get("fusion", "none"))

    def with_fusion(self, level: str) -> Network:
        """The same network and scheduler at another fusion level (``none``, ``pointwise``,
        ``accelerator``; docs/model/fusion.md); the result is cached."""
        return self.with_scheduler(
            _with_fusion(self._scheduler_part, _fusion_level(level, "with_fusion"))
        )

    def fold_batchnorm(self) -> Network:
        """The inference graph a framework's optimizer hands an accelerator: each batch norm
        folded into the convolution or dense layer before it (docs/model/network.md,
        "Folding batch norms").

        A ``batchnorm`` whose input is a ``conv2d``, ``depthwise_conv2d`` or ``dense`` layer read
        by no other layer disappears: its FLOPs, its four parameters per channel and its output
        tensor go; the product gets a bias (``use_bias`` true: the folded shift) and every
        reader of the batch norm reads the product instead. Other batch norms stay. Valid
        for inference only (running statistics); a network with none to fold is returned as
        it is. Batch, element size and scheduler are kept.

        Returns
        -------
        Network
            The folded network (name and source unchanged).
        """
        doc = self.to_dict()
        layers = doc["layers"]
        readers: dict[str, int] = {}
        for layer in layers:
            for name in layer.get("inputs", []):
                readers[name] = readers.get(name, 0) + 1
        by_name = {layer["name"]: layer for layer in layers}
        into: dict[str, str] = {}  # folded batch norm -> the product that now writes its output
        for layer in layers:
            inputs = layer.get("inputs", [])
            if layer["kind"] != "batchnorm" or len(inputs) != 1:
                continue
            producer = by_name.get(inputs[0])
            if (
                producer is not None
                and producer["kind"] in _FOLDS_BATCHNORM
                and readers.get(producer["name"], 0) == 1
            ):
                into[layer["name"]] = producer["name"]
                producer["use_bias"] = True
        if not into:
            return self
        doc["layers"] = [
            {**layer, "inputs": [into.get(n, n) for n in layer["inputs"]]}
            if "inputs" in layer
            else layer
            for layer in layers
            if layer["name"] not in into
        ]
        core = _core.parse_network(json.dumps(doc), self.source)
        return Network(core, self.batch, self.bytes_per_element, self.scheduler)

    def fusion_groups(self, level: str | None = None) -> pd.DataFrame:
        """The fused steps of a fusion level (default: this network's): one row per forward
        and backward step (loss steps left out), each a group of layers
        (docs/model/fusion.md).

        Columns: ``group`` (its index in its pass), ``phase`` ("fwd", "bwd"), ``step`` (its
        index in the schedule), ``name``, ``layers`` (tuple of names, forward order),
        ``kinds`` (tuple), ``layer_count``, ``bytes_read``, ``bytes_written`` (its accesses,
        all streamed), ``intermediate_bytes`` (written by one layer of the step and used by
        no other step: never off chip), ``saved_bytes`` (forward steps: the bytes it writes
        that a backward step reads, masks included), ``mask_bytes`` (forward steps: its 1-bit
        masks), ``flops``. ``attrs["units"]`` names each column's unit.
        """
        net = self if level is None else self.with_fusion(level)
        steps = net.steps
        acc = net.accesses
        names = self._core.layer_table()["name"]
        kinds = self._core.layer_table()["kind"]
        ft = net.schedule.fusion_table()
        members: dict[int, list[int]] = {}
        for step, layer in zip(ft["step"].tolist(), ft["layer"].tolist()):
            members.setdefault(step, []).append(layer)
        phase = steps["phase"].to_numpy()
        bwd_read = set(acc.loc[(phase[acc["step"]] == "bwd") & acc["read"], "tensor"])
        writes = acc[acc["write"]]
        saved = writes[writes["tensor"].isin(bwd_read)].groupby("step")["bytes"].sum()
        masks = writes[writes["tensor"].str.startswith("M:")].groupby("step")["bytes"].sum()
        rows = steps[steps["phase"] != "loss"]
        counter = {"fwd": 0, "bwd": 0}
        group = []
        for p in rows["phase"]:
            group.append(counter[p])
            counter[p] += 1
        fwd = (rows["phase"] == "fwd").to_numpy()
        df = pd.DataFrame(
            {
                "group": group,
                "phase": rows["phase"].to_numpy(),
                "step": rows["step"].to_numpy(),
                "name": rows["name"].to_numpy(),
                "layers": [tuple(names[members[s]]) for s in rows["step"]],
                "kinds": [tuple(kinds[members[s]]) for s in rows["step"]],
                "layer_count": [len(members[s]) for s in rows["step"]],
                "bytes_read": rows["bytes_read"].to_numpy(),
                "bytes_written": rows["bytes_written"].to_numpy(),
                "intermediate_bytes": ft["intermediate_bytes"][rows["step"].to_numpy()],
                "saved_bytes": np.where(fwd, saved.reindex(rows["step"], fill_value=0), 0),
                "mask_bytes": np.where(fwd, masks.reindex(rows["step"], fill_value=0), 0),
                "flops": rows["flops"].to_numpy(),
            }
        )
        return _with_units(df)

    # -- the schedule (C++), built once --------------------------------------------------------
    @cached_property
    def schedule(self) -> _core.Schedule:
        """The compiled schedule (SPEC §3): one training iteration with the default scheduler,
        or whatever :attr:`scheduler` makes of it."""
        part = self._scheduler_part
        return _core.build_schedule(
            self._core, self.batch, self.bytes_per_element, part.name, part.option_dict
        )

    # -- tables --------------------------------------------------------------------------------
    @cached_property
    def layers(self) -> pd.DataFrame:
        """One row per layer of the file (macro kinds expanded), in file order.

        Columns: ``name``, ``kind``, ``class`` ("I", "II", or "" for inputs and folded layers),
        ``inputs`` (tuple of names), ``output_shape`` (per sample, channels last),
        ``output_bytes`` (the tensor it creates for the whole batch; 0 for folded layers, which
        create none), ``weight`` (name of its W tensor, shared ones included), ``weight_bytes``,
        ``state_bytes``, ``trainable`` (its W gets a dW), ``params`` (its trainable + non-trainable parameters; a shared weight
        is counted at the first layer using it, so the column sums to :attr:`params`),
        ``fwd_flops``, ``bwd_dx_flops``, ``bwd_dw_flops`` (FLOPs for the batch, 2 per MAC),
        ``fwd_macs``, ``rf_fwd``, ``rf_bwd`` (reuse frequency, thesis Eq. 3.4: the step's FLOPs
        over the bytes it accesses, FLOP/byte; NaN where there is no such step), ``fwd_step``,
        ``bwd_step`` (step indices, -1 if none), ``folded``. ``attrs["units"]`` names each
        column's unit (bytes, FLOP, MAC, FLOP/byte, count; elements for the shape; "" for
        names, labels, flags and step indices).
        """
        t = self._core.layer_table()
        n, bpe = self.batch, self.bytes_per_element
        elem_bytes = np.where(t["int_bytes"] > 0, t["int_bytes"], bpe)
        folded = t["folded"]
        df = pd.DataFrame(
            {
                "name": t["name"],
                "kind": t["kind"],
                "class": t["class"],
                "inputs": t["inputs"],
                "output_shape": t["output_shape"],
                "output_bytes": np.where(folded, 0, n * t["elements"] * elem_bytes),
                "weight": t["weight"],
                "weight_bytes": t["weight_elements"] * bpe,
                "state_bytes": t["state_elements"] * bpe,
            }
        )
        first_use = ~pd.Series(t["weight"]).duplicated() & (pd.Series(t["weight"]) != "")
        df["trainable"] = t["trainable"]
        df["params"] = np.where(first_use, t["weight_elements"], 0) + t["state_elements"]
        steps = self._step_arrays
        fwd_step = np.full(len(df), -1)
        bwd_step = np.full(len(df), -1)
        for phase, target in ((0, fwd_step), (2, bwd_step)):
            sel = steps["phase"] == phase
            target[steps["layer"][sel]] = np.nonzero(sel)[0]
        if self.fusion != "none":
            # A fused step runs several layers: each points at it. The FLOPs per layer are
            # the unfused schedule's (fusion moves no work).
            ft = self.schedule.fusion_table()
            step_phase = steps["phase"][ft["step"]]
            for phase, target in ((0, fwd_step), (2, bwd_step)):
                sel = step_phase == phase
                target[ft["layer"][sel]] = ft["step"][sel]
            unfused = self.with_fusion("none")._step_arrays
            own_bwd = np.full(len(df), -1)
            sel = unfused["phase"] == 2
            own_bwd[unfused["layer"][sel]] = np.nonzero(sel)[0]
        else:
            unfused, own_bwd = steps, bwd_step
        step_flops = 2 * unfused["macs"] + unfused["flops"]
        df["fwd_flops"] = n * (2 * t["fwd_macs"] + t["fwd_flops"])
        dw = np.where(t["trainable"], n * (2 * t["bwd_dw_macs"] + t["bwd_dw_flops"]), 0)
        bwd_total = np.append(step_flops, 0)[own_bwd]
        df["bwd_dx_flops"] = np.where(own_bwd >= 0, bwd_total - dw, 0)
        df["bwd_dw_flops"] = np.where(own_bwd >= 0, dw, 0)
        df["fwd_macs"] = n * t["fwd_macs"]
        rf = np.append(self.schedule.reuse_frequency(2), np.nan)  # index -1 -> NaN (no step)
        df["rf_fwd"] = rf[fwd_step]
        df["rf_bwd"] = rf[bwd_step]
        df["fwd_step"] = fwd_step
        df["bwd_step"] = bwd_step
        df["folded"] = folded
        return _with_units(df)

    @cached_property
    def _step_arrays(self) -> dict[str, np.ndarray]:
        return self.schedule.step_table()

    @cached_property
    def tensors(self) -> pd.DataFrame:
        """One row per tensor in the order of SPEC §3: ``name``, ``role``, ``layer``, ``bytes``,
        ``first_use``, ``last_use``, ``first_full_use`` (step indices), ``num_uses``,
        ``starts_offchip`` (inputs, weights), ``must_end_offchip`` (dW). ``attrs["units"]``
        names each column's unit (bytes, count; "" for names, labels, flags and step indices)."""
        t = self.schedule.tensor_table()
        names = self._core.layer_table()["name"]
        table = pd.DataFrame(
            {
                "name": t["name"],
                "role": np.array(_ROLE_NAMES, dtype=object)[t["role"]],
                "layer": names[t["layer"]],
                "bytes": t["bytes"],
                "first_use": t["first_use"],
                "last_use": t["last_use"],
                "first_full_use": t["first_full_use"],
                "num_uses": t["num_uses"],
                "starts_offchip": t["starts_offchip"],
                "must_end_offchip": t["must_end_offchip"],
            }
        )
        return _with_units(table)

    @cached_property
    def accesses(self) -> pd.DataFrame:
        """One row per tensor access: ``step``, ``tensor`` (name), ``role``, ``read``, ``write``
        (both for a read-modify-write), ``partial`` (embedding rows), ``bytes``.
        ``attrs["units"]`` names each column's unit (bytes; "" for the others)."""
        a = self.schedule.access_table()
        s = self._step_arrays
        step = np.repeat(np.arange(len(s["phase"])), s["num_accesses"])
        tensors = self.tensors
        table = pd.DataFrame(
            {
                "step": step,
                "tensor": tensors["name"].to_numpy()[a["tensor"]],
                "role": tensors["role"].to_numpy()[a["tensor"]],
                "read": a["read"],
                "write": a["write"],
                "partial": a["partial"],
                "bytes": a["bytes"],
            }
        )
        return _with_units(table)

    @cached_property
    def steps(self) -> pd.DataFrame:
        """The schedule: one row per step (forward, loss, backward), in execution order.

        Columns: ``step``, ``name`` (``F:conv1``, ``loss:fc``, ``B:conv1``; a split backward
        ``B:conv1/dx`` and ``B:conv1/dw``; a fused step ``F:bn1+relu1``, its layers joined
        by ``+``, docs/model/fusion.md), ``phase`` ("fwd", "loss", "bwd"), ``part`` ("" for
        a whole layer's step, "dx" / "dw" for the halves of a split backward), ``layer``,
        ``kind``, ``class`` (of its layer: a fused step's first), ``flops`` (2 per MAC),
        ``macs``, ``bytes_read``, ``bytes_written`` (if every access were streamed; a
        read-modify-write counts in both), ``accesses`` (how many tensors it touches),
        ``rf`` (FLOP/byte, Eq. 3.4). ``attrs["units"]`` names each column's unit (FLOP, MAC,
        bytes, count, FLOP/byte; "" for names, labels and the step index).
        """
        s = self._step_arrays
        lt = self._core.layer_table()
        a = self.schedule.access_table()
        step_of = np.repeat(np.arange(len(s["phase"])), s["num_accesses"])
        # Exact int64 sums (np.bincount's weights are float64: inexact above 2^53 bytes).
        reads = np.zeros(len(s["phase"]), dtype=np.int64)
        writes = np.zeros(len(s["phase"]), dtype=np.int64)
        np.add.at(reads, step_of, a["bytes"] * a["read"])
        np.add.at(writes, step_of, a["bytes"] * a["write"])
        phase = np.array(_PHASE_NAMES, dtype=object)[s["phase"]]
        layer = lt["name"][s["layer"]]
        prefix = np.array(["F:", "loss:", "B:"], dtype=object)[s["phase"]]
        part = np.array(["", "dx", "dw"], dtype=object)[s["part"]]
        suffix = np.array(["", "/dx", "/dw"], dtype=object)[s["part"]]
        runs = layer
        if self.fusion != "none":  # a fused step is named after all its layers
            ft = self.schedule.fusion_table()
            joined: list[list[str]] = [[] for _ in range(len(layer))]
            for step, member in zip(ft["step"].tolist(), ft["layer"].tolist()):
                joined[step].append(lt["name"][member])
            runs = np.array(["+".join(j) for j in joined], dtype=object)
        is_loss = s["phase"] == 1
        table = pd.DataFrame(
            {
                "step": np.arange(len(phase)),
                "name": prefix + runs + suffix,
                "phase": phase,
                "part": part,
                "layer": layer,
                "kind": np.where(is_loss, "loss", lt["kind"][s["layer"]]),
                "class": np.where(is_loss, "", lt["class"][s["layer"]]),
                "flops": 2 * s["macs"] + s["flops"],
                "macs": s["macs"],
                "bytes_read": reads,
                "bytes_written": writes,
                "accesses": s["num_accesses"],
                "rf": self.schedule.reuse_frequency(2),
            }
        )
        return _with_units(table)

    # -- totals --------------------------------------------------------------------------------
    @property
    def params(self) -> int:
        """All parameters (trainable and not; a shared weight once)."""
        return int(self._core.parameters())

    @property
    def trainable_params(self) -> int:
        """Trainable parameters (a shared weight once)."""
        return int(self._core.trainable_parameters())

    @cached_property
    def flops(self) -> Flops:
        """FLOPs of one iteration at this batch (2 per MAC): forward, loss, backward dX / dW."""
        df = self.layers
        steps = self.steps
        return Flops(
            forward=int(df["fwd_flops"].sum()),
            loss=int(steps.loc[steps["phase"] == "loss", "flops"].sum()),
            backward_dx=int(df["bwd_dx_flops"].sum()),
            backward_dw=int(df["bwd_dw_flops"].sum()),
        )

    @property
    def num_steps(self) -> int:
        """Steps of one training iteration."""
        return int(self.schedule.num_steps)

    @property
    def peak_alive_bytes(self) -> int:
        """Largest total of tensors alive at one step (SPEC §8 P1): above this capacity nothing
        is ever reloaded."""
        return int(self.schedule.peak_alive_bytes())

    # -- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The network document as a dict (the format of ``docs/network-format.md``)."""
        return json.loads(self._core.document)

    def to_json(self, indent: int | None = None) -> str:
        """The network document as JSON text; :func:`load_network` reads it back unchanged."""
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the network document to ``path`` (JSON), through a temporary file in the same
        folder renamed over it: a write that fails (a full disk) leaves the file that was there
        as it was, and the ``OSError`` names it."""
        from ._files import write_text_atomically

        write_text_atomically(path, self.to_json(indent=1))

    # -- display -------------------------------------------------------------------------------
    def summary(self) -> str:
        """A few lines for people: size, parameters, FLOPs, steps, largest tensor."""
        df = self.layers
        kinds = df.loc[~df["folded"] & (df["kind"] != "input"), "kind"].value_counts()
        t = self.tensors
        largest = "none (no step)"
        if len(t):
            big = t.loc[t["bytes"].idxmax()]
            largest = f"{big['name']} {format_bytes(big['bytes'])}"
        fl = self.flops
        lines = [
            f"{self.name}: {len(df)} layers ({int((~df['folded'] & (df['kind'] != 'input')).sum())} "
            f"with a step), batch {self.batch}, {self.bytes_per_element} B/element",
            f"  parameters   {self.params:,} ({self.trainable_params:,} trainable)",
            f"  FLOPs        forward {format_count(fl.forward, 'FLOP')}, iteration "
            f"{format_count(fl.total, 'FLOP')} (1 MAC = 2 FLOPs)",
            f"  schedule     {self.num_steps} steps, {len(t)} tensors, "
            f"{int(self.schedule.num_intervals())} reuse intervals",
            f"  largest      {largest}; peak alive {format_bytes(self.peak_alive_bytes)}",
            "  layer kinds  " + ", ".join(f"{k} {v}" for k, v in kinds.items()),
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<dnnmem.Network {self.name!r}: {len(self.layers)} layers, "
            f"{self.params:,} params, batch {self.batch}, "
            f"{format_count(self.flops.forward, 'FLOP')} forward>"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Network):
            return NotImplemented
        return (
            self.to_dict() == other.to_dict()
            and self.batch == other.batch
            and self.bytes_per_element == other.bytes_per_element
            and self.scheduler == other.scheduler
        )

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (process pools, joblib, caches): the document, its source, batch, element
        size and scheduler; the schedule is built again where it is first used."""
        return (
            _network_from_document,
            (self._core.document, self.source, self.batch, self.bytes_per_element, self.scheduler),
        )


def _network_from_document(
    document: str, source: str, batch: int, bytes_per_element: int, scheduler: str
) -> Network:
    """A pickled :class:`Network` (:meth:`Network.__reduce__`)."""
    return Network(_core.parse_network(document, source), batch, bytes_per_element, scheduler)


_MAX_DEPTH = 64  # the core's limit on nested lists / objects (cpp/src/network_json.cpp)
#: The largest network file :func:`load_network` reads (the core's limit: 256 MiB).
MAX_FILE_BYTES: int = int(_core.MAX_NETWORK_FILE_BYTES)


def _scan_dict(doc: dict) -> tuple[str, str, float] | None:
    """(layer name, field, value) of the first NaN / infinity in a network dict, if any.

    Iterative, so that a hostile nesting cannot exhaust Python's stack: nesting deeper than the
    core accepts (64 levels of lists / dicts, the document included) raises its NetworkError.
    """
    layers = doc.get("layers")
    # (value, depth of the containers around it, layer name, field) — the document is depth 1.
    stack: list[tuple[Any, int, str, str]] = []
    for field, v in reversed(list(doc.items())):
        if field != "layers":
            stack.append((v, 1, "", str(field)))
    if isinstance(layers, list):
        for layer in reversed(layers):
            if isinstance(layer, dict):
                name = layer.get("name")
                name = name if isinstance(name, str) else ""
                for field, v in reversed(list(layer.items())):
                    stack.append((v, 3, name, str(field)))
            else:
                stack.append((layer, 2, "", "layers"))
    first: tuple[str, str, float] | None = None
    while stack:
        v, depth, name, field = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            first = first or (name, field, v)
        elif isinstance(v, (list, tuple, dict)):
            if depth + 1 > _MAX_DEPTH:
                raise _error("<dict>", "the JSON is nested too deeply (more than 64 levels)")
            items = v.values() if isinstance(v, dict) else v
            stack.extend((x, depth + 1, name, field) for x in reversed(list(items)))
    return first


def shorten(text: str, limit: int = 100) -> str:
    """``repr(text)``, cut in the middle when longer than ``limit`` characters and followed by
    its length: what an error message shows of a value that can be huge (a document pasted
    where a path goes)."""
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half]!r}...{text[-half // 2 :]!r} ({len(text):,} characters)"


def looks_like_json(text: str) -> bool:
    """Whether a string given as a path is a JSON document instead (no path starts with
    ``{``)."""
    return text.lstrip()[:1] == "{"


def _read_file(path: str) -> bytes:
    """The bytes of a network file, at most MAX_FILE_BYTES (a device such as /dev/zero never
    ends: read in chunks and stop)."""
    chunks: list[bytes] = []
    size = 0
    try:
        with open(path, "rb") as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    return b"".join(chunks)
                size += len(chunk)
                if size > MAX_FILE_BYTES:
                    raise _error(
                        path,
                        f"the file is larger than {MAX_FILE_BYTES} bytes, the "
                        f"most a network file may hold",
                    )
                chunks.append(chunk)
    except OSError as e:
        hint = ""
        if isinstance(e, FileNotFoundError):
            if path.lower() in BUILDERS:
                hint = f" (the built-in network: dnnmem.network({path!r}))"
        shown = path if len(path) <= 200 else shorten(path)
        raise _error(shown, f"cannot read the file: {e.strerror}{hint}") from None


def load_network(source: NetworkSource, batch: int = 1, bytes_per_element: int = 4) -> Network:
    """Load a network from a JSON file path or a dict in the network format.

    Parameters
    ----------
    source : path or dict
        A ``.json`` file (``docs/network-format.md``) or the same document as a dict.
    batch : int
        Mini-batch size N: activations and their gradients scale with it, weights do not.
    bytes_per_element : int
        Element size of weights and activations (4 = FP32, 2 = FP16/BF16). Integer inputs
        (token ids) keep their own width.

    Raises
    ------
    NetworkError
        (a ``ValueError``) naming the file, the layer and the field for any malformed network,
        including a file over :data:`MAX_FILE_BYTES` and lists / dicts nested more than 64
        levels deep.
    ValueError
        For a bad ``batch`` or ``bytes_per_element``. (A network too large to count exactly
        at this batch raises ``ValueError`` when its schedule is first built:
        ``docs/estimator.md``, "Limits".)
    """
    batch = _check_batch(batch)
    bytes_per_element = _check_element_size(bytes_per_element)
    if isinstance(source, dict):
        bad = _scan_dict(source)
        if bad is not None:
            layer, field, value = bad
            e = NetworkError(
                f"<dict>: layer '{layer}', field '{field}': must be a finite number, got {value!r}"
                if layer
                else f"<dict>: field '{field}': must be a finite number, got {value!r}"
            )
            e.source, e.layer, e.field, e.detail = (
                "<dict>",
                layer,
                field,
                f"must be a finite number, got {value!r}",
            )
            raise e
        try:
            text = json.dumps(source, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise _error("<dict>", f"not a JSON document: {e}") from None
        core = _core.parse_network(text, "<dict>")
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if isinstance(path, str) and looks_like_json(path) and not os.path.exists(path):
            raise _error(
                "<string>",
                f"got a JSON document as a string ({shorten(path, 60)}), where a path or a "
                f"dict goes: pass json.loads(text) (on the command line: a .json file)",
            )
        core = _core.parse_network(_read_file(path), path)
    else:
        raise TypeError(f"load_network: expected a path or a dict, got {type(source).__name__}")
    return Network(core, batch, bytes_per_element)


# -- what the report takes from a scheduled network alone ------------------------------------


def sub_batch_string(bounds: list[list[int]]) -> str:
    """The sub-batch sizes of each layer group, compactly: one entry per group in network
    order, separated by spaces; an entry lists its sizes run-length coded, ``<size>x<count>``
    joined by ``+`` (balanced splits have at most two sizes). ``"2x16 11x2+10x1 32x1"``: three
    groups, of 16 sub-batches of 2 samples, of 11 + 11 + 10 samples, and of the whole batch."""
    out = []
    for b in bounds:
        sizes = [hi - lo for lo, hi in zip(b[:-1], b[1:])]
        runs: list[list[int]] = []
        for s in sizes:
            if runs and runs[-1][0] == s:
                runs[-1][1] += 1
            else:
                runs.append([s, 1])
        out.append("+".join(f"{s}x{n}" for s, n in runs))
    return " ".join(out)


def schedule_columns(net: Network) -> dict[str, Any]:
    """What the report takes from a scheduled network alone (no hardware, no cache manager):
    ``groups`` (layer groups of a serialized schedule, 0 for the others), ``sub_batches``
    (:func:`sub_batch_string`; ``""`` when there are no groups), ``gb_bytes`` (bytes the steps
    read and write: the global-buffer bytes of the energy model) and ``macs``."""
    s = net.schedule
    a = s.access_table()
    b = a["bytes"].astype(np.int64)
    gb = int((b * a["read"]).sum() + (b * a["write"]).sum())
    g = s.group_table()
    return {
        "groups": len(g["bounds"]),
        "sub_batches": sub_batch_string([list(map(int, x)) for x in g["bounds"]]),
        "gb_bytes": gb,
        "macs": int(s.step_table()["macs"].sum()),
    }
