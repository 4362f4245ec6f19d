"""Policies as compositions of four parts (docs/policies.md).

A policy says how one training iteration (or inference pass) runs on the memory system:

=============  =================================================  ==================
part           what it decides                                    default
=============  =================================================  ==================
scheduler      how the iteration becomes steps and accesses       ``default``
cache          what stays on chip and when each transfer happens  ``lookahead``
link           what a transfer costs: bytes on the wire, time     ``raw``
compute        how long a step computes                           ``peak`` (or the
                                                                  hardware's own)
=============  =================================================  ==================

Each part comes from a registry of its own in the C++ core, with declared options. A
:class:`Policy` is written as a string of parts joined by ``+``, in any order, each a name
with optional options in parentheses; part names are unique across the four registries::

    "lookahead"                                   # the thesis's policy (all else default)
    "split-backward(first=dw) + lru"
    "inference + belady + ratio(activation=2, cap=200GB/s)"

Option values take units where the option has one (``cap=200GB/s``, ``capacity=1MiB``); a bare
number is in base units (bytes, bytes/s, FLOP/s).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Union

from . import _core, registry
from .part import (
    DEFAULTS,
    FUSION_LEVELS,
    KIND_LABELS,
    KINDS,
    Part,
    PartLike,
    _as_part,
    _fusion_level,
    _parse_part,
    _split_top,
    _valid_names,
    _with_fusion,
)
from .part import parts as parts  # dnnmem.policy.parts, as documented

if TYPE_CHECKING:
    from .network import Network
    from .registry import SparsityLike

__all__ = ["FUSION_LEVELS", "Part", "Policy", "PolicyLike", "parts", "policy"]


@dataclasses.dataclass(frozen=True, init=False)
class Policy:
    """A composition: scheduler × cache manager × link × compute model.

    Each argument is a part name (``"lru"``), a name with options (``"ratio(activation=2)"``),
    a ``(name, {option: value})`` pair or a :class:`Part`. ``compute=None`` means the
    hardware's own compute model (NPU presets: ``systolic``), else ``peak``.

    Examples
    --------
    >>> Policy("lru", scheduler="split-backward")
    Policy('split-backward + lru')
    >>> str(Policy.parse("ratio(activation=2) + belady"))
    'belady + ratio(activation=2)'
    >>> Policy("lru", fusion="pointwise")
    Policy('lru + fusion=pointwise')

    ``fusion`` is the fusion level (``none``, ``pointwise``, ``accelerator``;
    docs/model/fusion.md), an option of every scheduler: ``Policy(scheduler="mbs",
    fusion="accelerator")`` is ``Policy(scheduler="mbs(fusion=accelerator)")``.
    """

    scheduler: Part
    cache: Part
    link: Part
    compute: Part | None

    def __init__(
        self,
        cache: PartLike = "lookahead",
        *,
        scheduler: PartLike = "default",
        link: PartLike = "raw",
        compute: PartLike = None,
        fusion: str | None = None,
    ) -> None:
        sched = _as_part("scheduler", scheduler or "default")
        assert sched is not None
        level = None if fusion is None else _fusion_level(fusion, "policy: fusion")
        object.__setattr__(self, "scheduler", _with_fusion(sched, level))
        object.__setattr__(self, "cache", _as_part("cache", cache or "lookahead"))
        object.__setattr__(self, "link", _as_part("link", link or "raw"))
        object.__setattr__(self, "compute", _as_part("compute", compute))

    @classmethod
    def parse(cls, text: str) -> Policy:
        """A policy from its string form: parts joined by ``+`` in any order, each at most
        once; parts not named take their defaults."""
        if not isinstance(text, str):
            raise TypeError(f"policy: expected a string, got {type(text).__name__}")
        found: dict[str, Part] = {}
        fusion: str | None = None
        for piece in _split_top(text, "+"):
            if not piece.strip():
                raise ValueError(f"policy: empty part in {text!r} ({_valid_names()})")
            head, eq, level = piece.partition("=")
            if eq and head.strip() == "fusion":
                if fusion is not None:
                    raise ValueError(f"policy: fusion given twice in {text!r}")
                fusion = _fusion_level(level.strip(), "policy: fusion")
                continue
            part = _parse_part(piece)
            if part.kind in found:
                raise ValueError(
                    f"policy: two {KIND_LABELS[part.kind]}s in {text!r}: "
                    f"{found[part.kind].name!r} and {part.name!r}"
                )
            found[part.kind] = part
        scheduler = found.get("scheduler", Part("scheduler", ""))
        if fusion is not None and "fusion" in scheduler.option_dict:
            raise ValueError(f"policy: fusion given twice in {text!r}")
        return cls(**found, fusion=fusion)

    def replace(self, **changes: PartLike) -> Policy:
        """A copy with some parts changed (``scheduler=``, ``cache=``, ``link=``, ``compute=``)
        or another fusion level (``fusion=``). A new scheduler keeps this policy's fusion
        level unless it names one."""
        unknown = set(changes) - {*KINDS, "fusion"}
        if unknown:
            raise TypeError(
                f"Policy.replace: unknown part(s) {sorted(unknown)} "
                f"(valid: {', '.join(KINDS)}, fusion)"
            )
        fields: dict[str, Any] = {k: getattr(self, k) for k in KINDS}
        fusion = changes.pop("fusion", None)
        fields.update(changes)
        if fusion is None and "scheduler" in changes:
            new = _as_part("scheduler", changes["scheduler"] or "default")
            if new is not None and "fusion" not in new.option_dict:
                fusion = self.fusion
        return Policy(**fields, fusion=fusion if fusion is None else str(fusion))

    @property
    def fusion(self) -> str:
        """The fusion level (docs/model/fusion.md): ``none``, ``pointwise`` or ``accelerator``."""
        return str(self.scheduler.option_dict.get("fusion", "none"))

    def on_network(self, scheduler: PartLike) -> Policy:
        """This policy run on a network that carries its own scheduler (one given by
        :meth:`Network.with_scheduler` or :meth:`Network.with_fusion`).

        A policy whose scheduler is the default (``default``, no option) takes the network's;
        a fusion level is taken from whichever of the two names one. Where both name
        something and it differs, the policy and the network disagree about the schedule:
        :class:`ValueError`, naming both (neither is dropped silently).

        Examples
        --------
        >>> str(Policy.parse("vdnn-all").on_network("default(fusion=accelerator)"))
        'vdnn-all + fusion=accelerator'
        >>> str(Policy.parse("mbs + mbs-strict").on_network("default(fusion=pointwise)"))
        'mbs + mbs-strict + fusion=pointwise'
        """
        given = _as_part("scheduler", scheduler or "default")
        assert given is not None
        mine = self.scheduler
        if str(given) == str(mine) or (given.name == DEFAULTS["scheduler"] and not given.options):
            return self
        # The scheduler itself and its fusion level are settled apart: each may come from
        # either side, but not two different ones from both.
        levels = {str(p.option_dict.get("fusion", "none")) for p in (given, mine)} - {"none"}
        base_given = _with_fusion(given, "none")
        base_mine = _with_fusion(mine, "none")
        mine_plain = base_mine.name == DEFAULTS["scheduler"] and not base_mine.options
        given_plain = base_given.name == DEFAULTS["scheduler"] and not base_given.options
        if len(levels) > 1 or not (mine_plain or given_plain or str(base_given) == str(base_mine)):
            raise ValueError(
                f"policy: {str(self)!r} schedules with {str(mine)!r} but the network carries "
                f"scheduler {str(given)!r} (Network.with_scheduler / with_fusion): name the "
                f"scheduler in one of them, or the same one in both"
            )
        base = base_given if mine_plain else base_mine
        return self.replace(scheduler=base, fusion=levels.pop() if levels else "none")

    def with_compute(self, default: PartLike) -> Policy:
        """This policy, its compute model ``default`` when it names none (the hardware's;
        ``""`` or None: none, i.e. ``peak``)."""
        return self if self.compute is not None or not default else self.replace(compute=default)

    def __str__(self) -> str:
        """The canonical string form: the parts that differ from their defaults, in the order
        scheduler, cache, link, compute; the cache manager always, and a compute model whenever
        one is named (``peak`` named overrides the hardware's own)."""
        out = []
        for kind in KINDS:
            part = getattr(self, kind)
            if part is None:
                continue
            if kind == "scheduler":
                part = _with_fusion(part, "none")  # the level is written on its own, last
            if kind in ("cache", "compute") or part.name != DEFAULTS[kind] or part.options:
                out.append(str(part))
        if self.fusion != "none":
            out.append(f"fusion={self.fusion}")
        return " + ".join(out)

    def __repr__(self) -> str:
        return f"Policy({str(self)!r})"

    def columns(self) -> dict[str, Any]:
        """One column per part (its name), ``fusion`` (the level), and one per option given
        (``<kind>_<option>``), for result rows."""
        out: dict[str, Any] = {}
        for kind in KINDS:
            part = getattr(self, kind)
            name = part.name if part is not None else DEFAULTS[kind]
            out[kind] = name
            if kind == "scheduler":
                out["fusion"] = self.fusion
            if part is not None:
                for k, v in part.options:
                    if kind == "scheduler" and k == "fusion":
                        continue
                    out[f"{kind}_{k}"] = v
        return out

    def prepare(
        self,
        schedule: _core.Schedule,
        ops_per_mac: int = 2,
        network: Network | None = None,
        sparsity: SparsityLike = None,
    ) -> _core.PreparedPolicy:
        """Check this policy against a schedule (built by its scheduler) and build the link's and
        the compute model's per-schedule tables. The compressing links (zvc, rle, zlib) need
        the ``network`` the schedule was built from (its layers give each tensor's sparsity,
        :mod:`dnnmem.cdma`) and take an optional per-layer ``sparsity`` table. Raises
        ValueError naming the part."""
        if schedule.scheduler != self.scheduler.name:
            raise ValueError(
                f"policy: the schedule was built by scheduler {schedule.scheduler!r}, "
                f"the policy names {self.scheduler.name!r}"
            )
        compute = self.compute or Part("compute", "peak")
        if registry.has_link_tables(self.link.name) and network is None:
            raise ValueError(
                f"link {self.link.name!r}: needs the network to know each tensor's sparsity "
                f"(Policy.prepare(schedule, network=...))"
            )
        sparse: list[float] = []
        ratio: list[float] = []
        if network is not None:
            sparse, ratio, _ = registry.link_tables(self.link, network, sparsity)
        return _core.prepare_policy(
            schedule,
            self.cache.name,
            self.cache.option_dict,
            self.link.name,
            self.link.option_dict,
            compute.name,
            compute.option_dict,
            ops_per_mac,
            sparse,
            ratio,
        )


PolicyLike = Union[str, Policy]

#: Cache managers whose plan needs data computed per design point in Python: name -> the module
#: whose ``prepare_point(schedule, prepared, capacity)`` returns the point's prepared policy
#: (``lp-rounded``: the LP's kept intervals, docs/model/optimal.md).
POINT_DATA: dict[str, str] = {"lp-rounded": "dnnmem.optimal"}


def prepare_point(
    composition: Policy, schedule: _core.Schedule, prepared: _core.PreparedPolicy, capacity: int
) -> _core.PreparedPolicy:
    """``prepared`` with the data its cache manager needs at ``capacity`` (:data:`POINT_DATA`),
    or ``prepared`` itself for every other manager."""
    module = POINT_DATA.get(composition.cache.name)
    if module is None:
        return prepared
    import importlib

    point: _core.PreparedPolicy = importlib.import_module(module).prepare_point(
        schedule, prepared, int(capacity)
    )
    return point


def policy(value: PolicyLike) -> Policy:
    """A :class:`Policy` from a string form (``"split-backward + lru"``) or a Policy."""
    if isinstance(value, Policy):
        return value
    if isinstance(value, str):
        return Policy.parse(value)
    raise ValueError(
        f"policy: expected a name, a string form or a dnnmem.Policy, got "
        f"{type(value).__name__} ({_valid_names()})"
    )
