"""How far from optimal: lower bounds on traffic and time, and an LP-rounded plan
(docs/model/optimal.md).

* :func:`traffic_lower_bound` — the least off-chip traffic any plan can move at a capacity: the
  LP relaxation of the traffic problem (or, ``exact=True``, its integer optimum).
* :func:`time_lower_bound` — the least iteration time: an LP over the same plans with each step's
  end time and the one channel (or, ``exact=True``, its integer optimum).
* :func:`rounded_plan` — the LP's kept intervals rounded to a plan that fits, which the cache
  manager ``lp-rounded`` runs through the timeline (``estimate(..., policy="lp-rounded")``).
* :func:`gap` — a result beside its bounds: ``result / bound − 1``.
* :func:`export_trace` / :func:`trace_bound` — the schedule's full uses as a caching trace
  (``time id size`` lines) and the byte-miss LP of that trace (FOO's min-cost flow, Berger,
  Beckmann, Harchol-Balter, SIGMETRICS 2018, with byte costs).

The LPs are solved by HiGHS (``highspy``, the ``optimal`` extra), imported when first needed.
"""

from __future__ import annotations

import math
import os
import time as _time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from . import _core
from ._lazy import LazyModule
from ._optional import require

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .estimate import NetworkLike, Result
    from .hardware import Hardware
    from .network import Network
    from .policy import PolicyLike
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "Bound",
    "traffic_lower_bound",
    "time_lower_bound",
    "rounded_plan",
    "plan_traffic",
    "gap",
    "bounds",
    "export_trace",
    "trace_bound",
    "MAX_EXACT_USES",
]

#: ``exact=True`` is refused above this many full uses (the integer programs are solved in
#: seconds up to a few dozen layers; larger ones may run for hours).
MAX_EXACT_USES = 600

#: The LP's optimum is trusted to this relative tolerance: a bound is the LP value less this
#: share of the traffic (or time) that depends on the plan, so that a solver's rounding never
#: lifts it above an achievable result.
SAFETY = 1e-6

#: The Lagrangian bound is exact for its prices (no solver tolerance): only its sums in double
#: precision err, by far less than this share of the total, which it leaves out.
LAGRANGIAN_SAFETY = 1e-9

#: The ways to bound (``method=``): ``"lagrangian"`` (the default: the Lagrangian bound, the
#: C++ core, no extra needed) and ``"lp"`` (the LP relaxation solved by HiGHS: the tightest,
#: the ``optimal`` extra). docs/model/optimal.md says how they relate: L ≤ LP ≤ every plan.
METHODS = ("lagrangian", "lp")

#: The Lagrangian ascent's limits: at most this many evaluations of L(λ), and it stops once
#: its target margin falls below this share of the bound.
LAGRANGIAN_ITERATIONS = 2000
LAGRANGIAN_TOLERANCE = 1e-6


_BANNER_SILENCED = False


def _highspy() -> Any:
    require("highspy", "dnnmem.optimal (the LP and MILP bounds, the lp-rounded cache manager)")
    import highspy

    global _BANNER_SILENCED
    if not _BANNER_SILENCED:
        # HiGHS prints a two-line banner to the process's stdout (C level, before any option
        # can be set) when its first Highs object is made: it would land in the middle of
        # `dnnmem estimate --json` or a script's table. Make that first object with stdout
        # pointed at /dev/null.
        _BANNER_SILENCED = True
        import sys

        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
                module: Any = highspy
                module.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
    return highspy


# -- the instance: a schedule's full uses, intervals and values --------------------------------


@dataclass
class _Instance:
    """The traffic problem of one schedule (docs/model/optimal.md, "The traffic problem")."""

    n: int  # steps
    tensor: np.ndarray  # per full use f: its tensor
    step: np.ndarray  # per full use: its step
    read: np.ndarray
    write: np.ndarray
    size: np.ndarray  # per full use: its tensor's bytes
    has_prev: np.ndarray
    has_next: np.ndarray
    must_end: np.ndarray
    # Constant bytes: partial accesses, first reads, final write-outs of must-end-off-chip values.
    const_bytes: int
    # Loads: (use f that reads, cost bytes) saved by keeping interval f-1 (x[f-1]).
    load_f: np.ndarray
    # Values written at use a, read later: the intervals a .. e-1 they need kept, else a store.
    value_a: np.ndarray
    value_e: np.ndarray
    value_final_store: np.ndarray  # bool: the value must end off-chip (store in const_bytes)
    dead_write: np.ndarray  # per full use: a write whose value no later use reads
    partial: dict[str, np.ndarray]  # partial accesses: tensor, step, read, write, bytes
    tensor_role: np.ndarray
    costs: _Costs | None = None  # the LP's costs (_costs), built once


_CACHE: dict[int, tuple[Any, _Instance]] = {}
_OPTIONS: dict[str, Any] = {}


def _instance(schedule: _core.Schedule) -> _Instance:
    hit = _CACHE.get(id(schedule))
    if hit is not None and hit[0] is schedule:
        return hit[1]
    u = schedule.use_table()
    t = schedule.tensor_table()
    partial = np.asarray(u["partial"], dtype=bool)
    full = ~partial
    tensor = np.asarray(u["tensor"], dtype=np.int64)[full]
    step = np.asarray(u["step"], dtype=np.int64)[full]
    read = np.asarray(u["read"], dtype=bool)[full]
    write = np.asarray(u["write"], dtype=bool)[full]
    tbytes = np.asarray(t["bytes"], dtype=np.int64)
    size = tbytes[tensor]
    nf = len(tensor)
    same_prev = np.zeros(nf, dtype=bool)
    if nf:
        same_prev[1:] = tensor[1:] == tensor[:-1]
    has_prev = same_prev
    has_next = np.zeros(nf, dtype=bool)
    if nf:
        has_next[:-1] = same_prev[1:]
    must_end = np.asarray(t["must_end_offchip"], dtype=bool)[tensor]
    pb = np.asarray(u["bytes"], dtype=np.int64)[partial]
    pr = np.asarray(u["read"], dtype=bool)[partial]
    pw = np.asarray(u["write"], dtype=bool)[partial]
    const = int((pb * pr).sum() + (pb * pw).sum())
    # Loads: the first full use that reads always loads; a later one unless kept into it.
    const += int(size[read & ~has_prev].sum())
    load_f = np.flatnonzero(read & has_prev)
    # Values: each write starts one; it is read by the uses after it up to the next write (that
    # one too when it reads: a read-modify-write).
    idx = np.arange(nf)
    is_write = write
    # next write strictly after f within the tensor, or the tensor's last use + 1 (= end).
    last_of_tensor = np.empty(nf, dtype=np.int64)
    if nf:
        ends = np.flatnonzero(~has_next)
        counts = np.diff(np.r_[-1, ends])
        last_of_tensor = np.repeat(ends, counts)
    nxt = np.full(nf + 1, nf, dtype=np.int64)
    # nearest write at or after f (scan from the end)
    w_idx = np.where(is_write, idx, nf)
    nearest = np.minimum.accumulate(w_idx[::-1])[::-1] if nf else w_idx
    nxt[:nf] = nearest
    a = np.flatnonzero(is_write)
    next_write = nxt[a + 1]  # nf when none
    next_write = np.where(next_write > last_of_tensor[a], -1, next_write)
    final = next_write < 0
    # e = the last use that reads the value: next write if it reads, else the use before it;
    # final values: the tensor's last use.
    e = np.where(
        final,
        last_of_tensor[a],
        np.where(read[np.maximum(next_write, 0)], next_write, next_write - 1),
    )
    final_store = final & must_end[a]
    const += int(size[a[final_store]].sum())
    has_reader = e > a
    dead = np.zeros(nf, dtype=bool)
    dead[a[~has_reader & ~final_store]] = True
    keep = has_reader & ~final_store
    inst = _Instance(
        n=int(schedule.num_steps),
        tensor=tensor,
        step=step,
        read=read,
        write=write,
        size=size,
        has_prev=has_prev,
        has_next=has_next,
        must_end=must_end,
        const_bytes=const,
        load_f=load_f,
        value_a=a[keep],
        value_e=e[keep],
        value_final_store=final_store,
        dead_write=dead,
        partial={
            "tensor": np.asarray(u["tensor"], dtype=np.int64)[partial],
            "step": np.asarray(u["step"], dtype=np.int64)[partial],
            "read": pr,
            "write": pw,
            "bytes": pb,
        },
        tensor_role=np.asarray(t["role"]),
    )
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[id(schedule)] = (schedule, inst)
    return inst


def plan_traffic(schedule: _core.Schedule, kept: Any, resident: Any = None) -> int:
    """Bytes moved by a plan of the model (docs/model/optimal.md) that keeps the reuse intervals
    flagged in ``kept`` (one flag per full use: the interval it starts) and, for writes whose
    value no later use reads, is resident at the steps flagged in ``resident`` (default: none).

    This is the traffic problem's objective, the bytes that ``lp-rounded`` moves for the same
    kept intervals (the tests check both ways)."""
    inst = _instance(schedule)
    x = np.asarray(kept, dtype=bool) & inst.has_next
    y = np.zeros(len(x), dtype=bool) if resident is None else np.asarray(resident, dtype=bool)
    total = inst.const_bytes
    total += int(inst.size[inst.load_f][~x[inst.load_f - 1]].sum())
    for a, e in zip(inst.value_a.tolist(), inst.value_e.tolist()):
        if not x[a:e].all():
            total += int(inst.size[a])
    dead = np.flatnonzero(inst.dead_write)
    total += int(inst.size[dead][~y[dead]].sum())
    return total


# -- the linear program ----------------------------------------------------------------------


class _Model:
    """A sparse LP in row-wise triplets, passed to HiGHS."""

    def __init__(self) -> None:
        self.cost: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.ncol = 0
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.rlo: list[np.ndarray] = []
        self.rhi: list[np.ndarray] = []
        self.nrow = 0

    def add_cols(
        self, n: int, cost: Any = 0.0, lo: Any = 0.0, hi: Any = 1.0, integer: bool = False
    ) -> int:
        first = self.ncol
        self.cost.append(np.broadcast_to(np.asarray(cost, dtype=float), (n,)).copy())
        self.lower.append(np.broadcast_to(np.asarray(lo, dtype=float), (n,)).copy())
        self.upper.append(np.broadcast_to(np.asarray(hi, dtype=float), (n,)).copy())
        self.integer.append(np.full(n, integer))
        self.ncol += n
        return first

    def add_rows(self, n: int, lo: Any, hi: Any) -> int:
        first = self.nrow
        self.rlo.append(np.broadcast_to(np.asarray(lo, dtype=float), (n,)).copy())
        self.rhi.append(np.broadcast_to(np.asarray(hi, dtype=float), (n,)).copy())
        self.nrow += n
        return first

    def add_entries(self, rows: Any, cols: Any, vals: Any) -> None:
        r = np.asarray(rows, dtype=np.int64)
        c = np.asarray(cols, dtype=np.int64)
        self.rows.append(r)
        self.cols.append(c)
        self.vals.append(np.broadcast_to(np.asarray(vals, dtype=float), r.shape).copy())

    def add_differences(
        self, first_col: int, n: int, lo: Any, hi: Any, backward: bool = False
    ) -> int:
        """``n`` rows over the ``n`` columns from ``first_col``, row s bounding ``col_s −
        col_{s−1}`` (``col_s − col_{s+1}`` when ``backward``; the end row has no neighbour)
        within ``[lo, hi]``: a running sum written one step at a time. Returns the first row."""
        r = self.add_rows(n, lo, hi)
        steps = np.arange(n)
        self.add_entries(r + steps, first_col + steps, 1.0)
        if backward:
            self.add_entries(r + steps[:-1], first_col + steps[1:], -1.0)
        else:
            self.add_entries(r + steps[1:], first_col + steps[:-1], -1.0)
        return r

    def add_occupants(
        self,
        first_row: int,
        n: int,
        cols: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        amount: np.ndarray,
    ) -> None:
        """Columns ``cols`` occupying ``amount`` over rows ``lo .. hi`` of an
        :meth:`add_differences` system: the amount enters at ``lo`` and leaves after ``hi``."""
        self.add_entries(first_row + lo, cols, -amount)
        leave = hi + 1 < n
        self.add_entries(first_row + hi[leave] + 1, cols[leave], amount[leave])

    def solve(self, mip: bool, time_limit: float | None) -> tuple[np.ndarray, float, str, float]:
        highspy = _highspy()
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        if time_limit is not None:
            h.setOptionValue("time_limit", float(time_limit))
        for k, val in _OPTIONS.items():
            h.setOptionValue(k, val)
        lp = highspy.HighsLp()
        lp.num_col_ = self.ncol
        lp.num_row_ = self.nrow
        lp.col_cost_ = np.concatenate(self.cost) if self.cost else np.zeros(0)
        lp.col_lower_ = np.concatenate(self.lower) if self.lower else np.zeros(0)
        lp.col_upper_ = np.concatenate(self.upper) if self.upper else np.zeros(0)
        lp.row_lower_ = np.concatenate(self.rlo) if self.rlo else np.zeros(0)
        lp.row_upper_ = np.concatenate(self.rhi) if self.rhi else np.zeros(0)
        r = np.concatenate(self.rows) if self.rows else np.zeros(0, dtype=np.int64)
        c = np.concatenate(self.cols) if self.cols else np.zeros(0, dtype=np.int64)
        v = np.concatenate(self.vals) if self.vals else np.zeros(0)
        order = np.lexsort((r, c))
        r, c, v = r[order], c[order], v[order]
        if len(r):  # an entry given twice is their sum
            new = np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])]
            groups = np.cumsum(new) - 1
            v = np.bincount(groups, weights=v)
            r, c = r[new], c[new]
        start = np.searchsorted(c, np.arange(self.ncol + 1))
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.num_col_ = self.ncol
        lp.a_matrix_.num_row_ = self.nrow
        lp.a_matrix_.start_ = start.astype(np.int32)
        lp.a_matrix_.index_ = r.astype(np.int32)
        lp.a_matrix_.value_ = v
        integer = np.concatenate(self.integer) if self.integer else np.zeros(0, dtype=bool)
        if mip and integer.any():
            lp.integrality_ = [
                highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                for i in integer
            ]
        h.passModel(lp)
        t0 = _time.perf_counter()
        h.run()
        elapsed = _time.perf_counter() - t0
        status = h.modelStatusToString(h.getModelStatus())
        sol = np.asarray(h.getSolution().col_value, dtype=float)
        info = h.getInfo()
        if mip and integer.any():
            value = float(info.mip_dual_bound)  # the proven lower bound (= optimum when solved)
        else:
            value = float(info.objective_function_value)
        return sol, value, status, elapsed


@dataclass
class _Vars:
    x: np.ndarray  # per full use: column of the interval it starts (-1: none)
    y: np.ndarray  # per full use: column of its residency at its step (-1: none)
    z: np.ndarray  # per value with several readers: its store column
    model: _Model
    unit: float


@dataclass
class _Costs:
    """The traffic problem's costs and occupancies, shared by the LP and the Lagrangian bound
    (docs/model/optimal.md): per full use f, the interval it starts (x) and its residency at
    its step (y); in bytes / ``unit``."""

    unit: float
    s: np.ndarray  # per full use: its tensor's size, in units
    x_cost: np.ndarray  # per use with a next use: keeping its interval (− the bytes it saves)
    has_y: np.ndarray  # uses between two intervals, and dead writes
    y_cost: np.ndarray  # per use with y: occupying its step (− a dead write's store)
    lo: np.ndarray  # per use with a next use: the steps its kept interval occupies itself,
    hi: np.ndarray  # lo … hi (its ends that have a y column are the y's)
    group_a: np.ndarray  # values read by several later uses: their write's use,
    group_e: np.ndarray  # and their last reader's (intervals a … e − 1 must all be kept)


def _costs(inst: _Instance) -> _Costs:
    if inst.costs is not None:
        return inst.costs
    nf = len(inst.tensor)
    unit = float(max(int(inst.size.max()) if nf else 1, 1))
    s = inst.size / unit
    # Objective: − size · x for each load saved, + size · z for each shared store.
    x_cost = np.zeros(nf)
    np.add.at(x_cost, inst.load_f - 1, -s[inst.load_f])
    single = inst.value_e == inst.value_a + 1
    # A value read by one later use: its store is saved exactly when that interval is kept.
    np.add.at(x_cost, inst.value_a[single], -s[inst.value_a[single]])
    # y: uses between two intervals, and dead writes (born on chip they move nothing).
    has_y = (inst.has_prev & inst.has_next) | inst.dead_write
    y_cost = np.where(inst.dead_write, -s, 0.0)
    # An interval covers its interior, and each end whose use has no y column.
    lo = np.where(has_y, inst.step + 1, inst.step)
    hi = np.full(nf, -1, dtype=np.int64)
    if nf:
        hi[:-1] = np.where(has_y[1:], inst.step[1:] - 1, inst.step[1:])
    lo = np.where(inst.has_next, lo, 0)
    hi = np.where(inst.has_next, hi, -1)
    multi = ~single
    inst.costs = _Costs(
        unit=unit,
        s=s,
        x_cost=np.where(inst.has_next, x_cost, 0.0),
        has_y=has_y,
        y_cost=y_cost,
        lo=lo,
        hi=hi,
        group_a=inst.value_a[multi],
        group_e=inst.value_e[multi],
    )
    return inst.costs


def _group_members(c: _Costs) -> tuple[np.ndarray, np.ndarray]:
    """Per interval of a store group: (its group's index, its use)."""
    lengths = c.group_e - c.group_a
    owner = np.repeat(np.arange(len(lengths)), lengths)
    offs = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return owner, np.repeat(c.group_a, lengths) + offs


def _traffic_model(inst: _Instance, capacity: int, integer: bool, cost: bool = True) -> _Vars:
    """The traffic problem as an LP (docs/model/optimal.md): columns x (kept intervals), y
    (resident at a use's step, where both neighbours' intervals meet or a dead write), z (a
    store shared by several intervals), O (bytes resident at each step); costs in bytes /
    ``unit``. A tensor larger than the capacity is never resident (its x and y are 0).
    Returns the columns; the constant part is ``inst.const_bytes``."""
    m = _Model()
    nf = len(inst.tensor)
    c = _costs(inst)
    unit, s = c.unit, c.s
    fits = np.where(inst.size <= capacity, 1.0, 0.0)
    has_x = inst.has_next
    x = np.full(nf, -1, dtype=np.int64)
    nx = int(has_x.sum())
    first = m.add_cols(nx, c.x_cost[has_x] if cost else 0.0, 0.0, fits[has_x], integer)
    x[has_x] = first + np.arange(nx)
    has_y = c.has_y
    y = np.full(nf, -1, dtype=np.int64)
    ny = int(has_y.sum())
    first = m.add_cols(ny, c.y_cost[has_y] if cost else 0.0, 0.0, fits[has_y], integer)
    y[has_y] = first + np.arange(ny)
    # y >= x of each neighbour interval.
    for nb, mask in (
        (x[np.maximum(np.arange(nf) - 1, 0)], has_y & inst.has_prev),
        (x, has_y & inst.has_next),
    ):
        idx = np.flatnonzero(mask)
        r0 = m.add_rows(len(idx), 0.0, math.inf)
        rows = r0 + np.arange(len(idx))
        m.add_entries(rows, y[idx], 1.0)
        m.add_entries(rows, nb[idx], -1.0)
    # z for values read by several later uses: z >= 1 - x_i, i = a .. e-1.
    nz = len(c.group_a)
    zc = s[c.group_a] if cost else np.zeros(nz)
    z0 = m.add_cols(nz, zc, 0.0, 1.0, False)
    z = z0 + np.arange(nz)
    if nz:
        owner, ints = _group_members(c)
        r0 = m.add_rows(len(ints), 1.0, math.inf)
        rows = r0 + np.arange(len(ints))
        m.add_entries(rows, z[owner], 1.0)
        m.add_entries(rows, x[ints], 1.0)
    # Occupancy: O_s = sum of the columns covering step s, O_s <= capacity (FOO's central path).
    n = inst.n
    o0 = m.add_cols(n, 0.0, 0.0, capacity / unit, False)
    r0 = m.add_differences(o0, n, 0.0, 0.0)
    fi = np.flatnonzero(has_x)
    cover = c.lo[fi] <= c.hi[fi]
    cols = np.r_[x[fi][cover], y[has_y]]
    los = np.r_[c.lo[fi][cover], inst.step[has_y]]
    his = np.r_[c.hi[fi][cover], inst.step[has_y]]
    amount = np.r_[s[fi][cover], s[has_y]]
    m.add_occupants(r0, n, cols, los, his, amount)
    return _Vars(x=x, y=y, z=z, model=m, unit=unit)


@dataclass
class _Weights:
    """What each transfer of the traffic problem costs (bytes, or channel seconds), as the
    chain problem's costs in units of ``unit``: ``const`` + ``variable`` + ``unit`` · L(λ) is
    a lower bound on every plan's total (``variable``: the costs written as savings)."""

    unit: float
    keep_cost: np.ndarray
    y_cost: np.ndarray
    group_cost: np.ndarray  # per group (_Costs.group_a)
    const: float
    variable: float


def _weights(inst: _Instance, load_w: np.ndarray, store_w: np.ndarray, const: float) -> _Weights:
    """The chain problem's costs when a load of full use f costs ``load_w[f]`` and a store of
    the value written at f costs ``store_w[f]``; ``const`` is what every plan pays besides
    (partial accesses, first reads, final write-outs)."""
    c = _costs(inst)
    nf = len(inst.tensor)
    unit = float(max(load_w.max(initial=0.0), store_w.max(initial=0.0)))
    unit = unit if unit > 0 else 1.0
    lw, sw = load_w / unit, store_w / unit
    keep = np.zeros(nf)
    np.add.at(keep, inst.load_f - 1, -lw[inst.load_f])
    single = inst.value_a[inst.value_e == inst.value_a + 1]
    np.add.at(keep, single, -sw[single])
    dead = inst.dead_write
    variable = float(load_w[inst.load_f].sum() + store_w[single].sum() + store_w[dead].sum())
    return _Weights(
        unit=unit,
        keep_cost=np.where(inst.has_next, keep, 0.0),
        y_cost=np.where(dead & c.has_y, -sw, 0.0),
        group_cost=sw[c.group_a],
        const=const,
        variable=variable,
    )


def _traffic_weights(inst: _Instance) -> _Weights:
    size = inst.size.astype(float)
    return _weights(inst, size, size, float(inst.const_bytes))


def _chain_problem(inst: _Instance, capacity: int, w: _Weights) -> Any:
    """The traffic problem chain by chain (one chain per tensor) for the Lagrangian bound:
    the occupancies of :func:`_traffic_model`, the costs ``w``, the capacity rows left to the
    prices (``_core.ChainProblem``, cpp/include/dnnmem/bound.hpp)."""
    c = _costs(inst)
    nf = len(inst.tensor)
    group = np.zeros(nf, dtype=np.uint8)
    group_cost = np.zeros(nf)
    if len(c.group_a):
        _, ints = _group_members(c)
        group[ints] |= 1  # kGroupInside
        group[c.group_a] |= 2  # kGroupFirst
        group[c.group_e - 1] |= 4  # kGroupLast
        group_cost[c.group_e - 1] = w.group_cost
    chain_start = np.r_[np.flatnonzero(~inst.has_prev), nf].astype(np.int64)
    return _core.ChainProblem(
        inst.n,
        capacity / c.unit,
        chain_start,
        inst.step.astype(np.int32),
        c.s,
        w.keep_cost,
        c.lo.astype(np.int32),
        c.hi.astype(np.int32),
        c.has_y.astype(np.uint8),
        w.y_cost,
        group,
        group_cost,
    )


def _lagrangian(
    inst: _Instance,
    capacity: int,
    w: _Weights,
    start: np.ndarray | None = None,
    time_limit: float | None = None,
) -> tuple[float, np.ndarray, np.ndarray, int, float]:
    """The Lagrangian bound (docs/model/optimal.md): (the bound in the weights' unit, before
    rounding; the prices; the minimiser's kept flags; iterations; seconds)."""
    p = _chain_problem(inst, capacity, w)
    t0 = _time.perf_counter()
    value, price, kept, iterations = p.maximize(
        np.zeros(0) if start is None else np.asarray(start, dtype=float),
        max_iterations=LAGRANGIAN_ITERATIONS,
        time_limit=0.0 if time_limit is None else float(time_limit),
        tolerance=LAGRANGIAN_TOLERANCE * (w.const + w.variable) / w.unit,
    )
    elapsed = _time.perf_counter() - t0
    return w.const + w.variable + value * w.unit, price, kept, iterations, elapsed


# -- results ---------------------------------------------------------------------------------


@dataclass
class Bound:
    """A lower bound at one design point (docs/model/optimal.md).

    Attributes
    ----------
    kind : str
        ``"traffic"`` (bytes) or ``"time"`` (seconds).
    value : float
        The bound: no plan of the model moves fewer bytes (``traffic``) or finishes sooner
        (``time``) at this design point. Bytes: the LP value less its tolerance, rounded up
        to a whole byte (every plan moves whole bytes).
    exact : bool
        True when the integer program was solved to optimality (``exact=True``): ``value`` is
        then the optimum of the problem, not only a bound on it.
    status : str
        The solver's status (``"Optimal"``, or why it stopped; ``method="lagrangian"``: the
        iterations it took).
    solver_time : float
        Seconds the solver took (HiGHS, or the Lagrangian ascent).
    lp_value : float
        The solver's objective, unrounded (bytes or seconds): the LP's optimum, or the best
        L(λ) of the Lagrangian bound.
    kept : numpy.ndarray
        Per full use, the fraction of the interval it starts that the solution keeps (0 … 1;
        0 where the use has no next full use). The Lagrangian bound: its minimiser's flags
        (0 or 1; together they may not fit the capacity).
    compute_time : float
        ``time`` only: the iteration's compute seconds (the bound is never below it).
    traffic : float
        ``traffic`` only: the solution's traffic, bytes (unrounded).
    capacity : int
        The capacity (bytes) of the point.
    method : str
        ``"lagrangian"``, ``"lp"`` or ``"exact"`` (the integer program).
    price : numpy.ndarray or None
        ``"lagrangian"``: the price of each step's capacity at the best L(λ), in the
        problem's units (a warm start for a neighbouring capacity).
    """

    kind: str
    value: float
    exact: bool
    status: str
    solver_time: float
    lp_value: float
    kept: np.ndarray = field(repr=False)
    capacity: int = 0
    traffic: float = math.nan
    compute_time: float = math.nan
    method: str = "lp"
    price: np.ndarray | None = field(default=None, repr=False)


def _method(method: str | None, exact: bool) -> str:
    """The method a call uses: ``"exact"``, ``"lp"`` or ``"lagrangian"``."""
    if method is not None and method not in METHODS:
        raise ValueError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if exact:
        if method == "lagrangian":
            raise ValueError(
                "exact=True solves the integer program; method='lagrangian' bounds its LP "
                "relaxation: pass one of them"
            )
        return "exact"
    return method or "lagrangian"


def _check_exact(inst: _Instance, exact: bool) -> None:
    if exact and len(inst.tensor) > MAX_EXACT_USES:
        raise ValueError(
            f"exact=True: the schedule has {len(inst.tensor)} full uses, more than "
            f"MAX_EXACT_USES = {MAX_EXACT_USES} (the integer program could run for hours); "
            f"use the LP bound (exact=False)"
        )


def _point(
    network: NetworkLike,
    hardware: Hardware | str | None,
    policy: PolicyLike,
    batch: int | None,
    capacity: Any,
    bandwidth: Any = None,
    throughput: Any = None,
) -> tuple[Network, Hardware, Any, Any]:
    """The scheduled network, the hardware and the prepared policy of a point, as
    :func:`dnnmem.estimate` resolves them."""
    from .estimate import _check_has_steps, _network, _resolve_policy
    from .hardware import Hardware, check_element_size
    from .presets import as_hardware

    overrides = {
        k: v
        for k, v in (("capacity", capacity), ("bandwidth", bandwidth), ("throughput", throughput))
        if v is not None
    }
    hw = as_hardware(hardware, **overrides)
    if hw is None:
        hw = Hardware(**overrides)
    elif not isinstance(hw, Hardware):
        raise TypeError(f"hardware: expected dnnmem.Hardware, got {type(hw).__name__}")
    elif overrides:
        hw = hw.replace(**overrides)
    net = _network(network, batch, hw.bytes_per_element)
    check_element_size(hw, net)
    composition = _resolve_policy(policy, hw).on_network(net.scheduler)
    scheduled = net.with_scheduler(composition.scheduler)
    _check_has_steps(scheduled)
    return scheduled, hw, composition, scheduled.schedule


def traffic_lower_bound(
    network: NetworkLike,
    hardware: Hardware | str | None = None,
    policy: PolicyLike = "lookahead",
    *,
    batch: int | None = None,
    capacity: str | float | None = None,
    method: str | None = None,
    exact: bool = False,
    time_limit: float | None = None,
) -> Bound:
    """The least off-chip traffic (bytes) any plan of the model can move at a capacity.

    Parameters
    ----------
    network, hardware, batch, capacity
        As :func:`dnnmem.estimate`. Only the capacity of the hardware matters.
    policy : str or Policy
        Only its scheduler matters (it makes the schedule); the bound holds for every cache
        manager that keeps within the capacity (docs/model/optimal.md says which).
    method : {"lagrangian", "lp"}, optional
        ``"lagrangian"`` (the default): the Lagrangian bound, computed by the C++ core in
        milliseconds to seconds (GNMT), at most a few tenths of a percent below the LP's;
        ``"lp"``: the LP relaxation itself, solved by HiGHS (the ``optimal`` extra), the
        tightest bound short of ``exact`` and the slowest (docs/performance.md, "Bounds").
    exact : bool
        Solve the integer program (the optimum itself) instead of its LP relaxation; refused
        above :data:`MAX_EXACT_USES` full uses.
    time_limit : float, optional
        Seconds for the solver; an integer program stopped early still gives a valid bound
        (its dual bound), with ``exact`` False; the Lagrangian ascent stopped early gives its
        best bound so far.

    Returns
    -------
    Bound
        ``value`` in bytes (rounded down), ``kept`` the solution's intervals.
    """
    _, hw, _, schedule = _point(network, hardware, policy, batch, capacity)
    return _traffic_bound(schedule, hw.capacity, exact, time_limit, method)


def _traffic_bound(
    schedule: _core.Schedule,
    capacity: int,
    exact: bool = False,
    time_limit: float | None = None,
    method: str | None = None,
    start: np.ndarray | None = None,
) -> Bound:
    how = _method(method, exact)
    inst = _instance(schedule)
    _check_exact(inst, exact)
    variable = _variable_bytes(inst)
    if how == "lagrangian":
        lp, price, flags, iterations, elapsed = _lagrangian(
            inst, int(capacity), _traffic_weights(inst), start, time_limit
        )
        status = f"{iterations} iterations"
        kept = flags.astype(float)
        solved = False
    else:
        v = _traffic_model(inst, int(capacity), integer=exact)
        sol, obj, status, elapsed = v.model.solve(exact, time_limit)
        kept = np.zeros(len(inst.tensor))
        if len(sol):
            kept[v.x >= 0] = np.clip(sol[v.x[v.x >= 0]], 0.0, 1.0)
        lp = inst.const_bytes + obj * v.unit + variable
        price = None
        solved = status == "Optimal"
    # Every plan moves whole bytes: the least integer at or above the LP value is a bound too.
    margin = LAGRANGIAN_SAFETY * (inst.const_bytes + variable) if how == "lagrangian" else 0.0
    margin += SAFETY * variable if how != "lagrangian" else 0.0
    value = math.ceil(max(lp - margin - 1e-9, inst.const_bytes))
    return Bound(
        kind="traffic",
        value=float(value),
        exact=exact and solved,
        status=status,
        solver_time=elapsed,
        lp_value=lp,
        kept=kept,
        capacity=int(capacity),
        traffic=lp,
        method=how,
        price=price,
    )


def _variable_bytes(inst: _Instance) -> float:
    """The bytes the objective's variable part counts when nothing is kept (its costs are
    written as savings from this)."""
    single = inst.value_e == inst.value_a + 1
    return float(
        inst.size[inst.load_f].sum()
        + inst.size[inst.value_a[single]].sum()
        + inst.size[inst.dead_write].sum()
    )


def _transfer_seconds(
    prepared: Any, tensor: np.ndarray, nbytes: np.ndarray, load: bool | np.ndarray, hw: Hardware
) -> np.ndarray:
    loads = np.broadcast_to(np.asarray(load, dtype=bool), tensor.shape)
    return np.asarray(
        prepared.transfer_seconds(
            tensor.astype(np.int32).tolist(),
            nbytes.astype(np.int64).tolist(),
            loads.tolist(),
            hw.bandwidth,
            hw.throughput,
        ),
        dtype=float,
    )


def time_lower_bound(
    network: NetworkLike,
    hardware: Hardware | str | None = None,
    policy: PolicyLike = "lookahead",
    *,
    batch: int | None = None,
    capacity: str | float | None = None,
    bandwidth: str | float | None = None,
    throughput: str | float | None = None,
    ops_per_mac: int = 2,
    method: str | None = None,
    exact: bool = False,
    time_limit: float | None = None,
) -> Bound:
    """The least iteration time (s) any plan of the model can take at a design point.

    ``method="lp"``: an LP over the kept intervals and each step's end time
    (docs/model/optimal.md, "The time problem"): compute runs the steps in order; the one
    channel moves every load a step needs by the step's end, and cannot start a transfer
    before the data exists. ``method="lagrangian"`` (the default): the larger of the compute
    time and the Lagrangian bound on the channel's seconds (every transfer, one at a time),
    in milliseconds where the LP takes seconds, and looser. The policy's scheduler, link (a
    transfer's seconds) and compute model (a step's seconds) are used; its cache manager is
    not.

    Parameters
    ----------
    method : {"lagrangian", "lp"}, optional
        As :func:`traffic_lower_bound`.
    exact : bool
        The integer program: the optimum of this relaxed problem, a bound on every plan's time
        that its own plan (run through the timeline by ``lp-rounded``) may or may not reach.
    Other parameters
        As :func:`traffic_lower_bound` and :func:`dnnmem.estimate`.

    Returns
    -------
    Bound
        ``value`` in seconds.
    """
    if ops_per_mac not in (1, 2) or isinstance(ops_per_mac, bool):
        raise ValueError(f"ops_per_mac: must be 1 or 2, got {ops_per_mac!r}")
    net, hw, composition, schedule = _point(
        network, hardware, policy, batch, capacity, bandwidth, throughput
    )
    prepared = composition.prepare(schedule, ops_per_mac, net)
    return _time_bound(schedule, hw, prepared, exact, time_limit, method)


def _time_bound(
    schedule: _core.Schedule,
    hw: Hardware,
    prepared: Any,
    exact: bool = False,
    time_limit: float | None = None,
    method: str | None = None,
    start: np.ndarray | None = None,
) -> Bound:
    how = _method(method, exact)
    inst = _instance(schedule)
    _check_exact(inst, exact)
    n = inst.n
    compute = np.asarray(prepared.compute_work, dtype=float) / hw.throughput  # s per step
    nf = len(inst.tensor)
    load_s = _transfer_seconds(prepared, inst.tensor, inst.size, True, hw)
    store_s = _transfer_seconds(prepared, inst.tensor, inst.size, False, hw)
    p = inst.partial
    p_in = _transfer_seconds(prepared, p["tensor"], p["bytes"], True, hw) * p["read"]
    p_out = _transfer_seconds(prepared, p["tensor"], p["bytes"], False, hw) * p["write"]
    total_compute = float(compute.sum())
    if how == "lagrangian":
        # The channel moves every transfer of a plan one at a time: its seconds, bounded as
        # the traffic is (each load and store weighed by its seconds), bound the time; so
        # does the compute.
        first_read = inst.read & ~inst.has_prev
        final = np.flatnonzero(inst.write)[inst.value_final_store]
        fixed = float(load_s[first_read].sum() + store_s[final].sum() + p_in.sum() + p_out.sum())
        w = _weights(inst, load_s, store_s, fixed)
        channel, price, flags, iterations, elapsed = _lagrangian(
            inst, hw.capacity, w, start, time_limit
        )
        return Bound(
            kind="time",
            value=max(channel * (1 - LAGRANGIAN_SAFETY), total_compute),
            exact=False,
            status=f"{iterations} iterations",
            solver_time=elapsed,
            lp_value=channel,
            kept=flags.astype(float),
            capacity=int(hw.capacity),
            compute_time=total_compute,
            method=how,
            price=price,
        )
    scale = max(float(compute.sum()) + float(load_s.sum() + store_s.sum()), 1e-30) / 1e3
    v = _traffic_model(inst, hw.capacity, integer=exact, cost=False)
    m = v.model
    x = v.x
    # Terms: (column or -1 for a constant, sign, seconds, due step or -1, release step).
    # Loads of reads: 1 (first) or 1 - x[f-1]; due at their step; released after the previous
    # full use (at 0 for a first use).
    first_read = np.flatnonzero(inst.read & ~inst.has_prev)
    lf = inst.load_f
    single = inst.value_e == inst.value_a + 1
    multi = ~single
    writes = np.flatnonzero(inst.write)
    final_writes = writes[inst.value_final_store]
    dead = np.flatnonzero(inst.dead_write)
    terms_col: list[np.ndarray] = []
    terms_coef: list[np.ndarray] = []  # multiplies the column (constant part separate)
    terms_const: list[np.ndarray] = []
    terms_due: list[np.ndarray] = []
    terms_rel: list[np.ndarray] = []

    def add(
        col: np.ndarray, coef: np.ndarray, const: np.ndarray, due: np.ndarray, rel: np.ndarray
    ) -> None:
        terms_col.append(col)
        terms_coef.append(coef)
        terms_const.append(const)
        terms_due.append(due)
        terms_rel.append(rel)

    sec = load_s / scale
    add(
        np.full(len(first_read), -1),
        np.zeros(len(first_read)),
        sec[first_read],
        inst.step[first_read],
        np.zeros(len(first_read), dtype=np.int64),
    )
    add(x[lf - 1], -sec[lf], sec[lf], inst.step[lf], inst.step[lf - 1] + 1)
    sst = store_s / scale
    a1 = inst.value_a[single]
    add(x[a1], -sst[a1], sst[a1], np.full(len(a1), -1), inst.step[a1])
    am = inst.value_a[multi]
    add(v.z, sst[am], np.zeros(len(am)), np.full(len(am), -1), inst.step[am])
    add(
        np.full(len(final_writes), -1),
        np.zeros(len(final_writes)),
        sst[final_writes],
        np.full(len(final_writes), -1),
        inst.step[final_writes],
    )
    add(v.y[dead], -sst[dead], sst[dead], np.full(len(dead), -1), inst.step[dead])
    ps = (p_in + p_out) / scale
    add(np.full(len(ps), -1), np.zeros(len(ps)), ps, p["step"], p["step"])
    col = np.concatenate(terms_col)
    coef = np.concatenate(terms_coef)
    const = np.concatenate(terms_const)
    due = np.concatenate(terms_due)
    rel = np.concatenate(terms_rel)
    # Columns: E_s (end of step s), P_s (channel seconds due by the end of s), R_s (released
    # at s or later), T.
    e0 = m.add_cols(n, 0.0, 0.0, math.inf)
    p0 = m.add_cols(n, 0.0, -math.inf, math.inf)
    q0 = m.add_cols(n, 0.0, -math.inf, math.inf)
    t0 = m.add_cols(1, 1.0, 0.0, math.inf)
    steps = np.arange(n)
    c = compute / scale
    # E_s - E_{s-1} >= c_s
    m.add_differences(e0, n, c, math.inf)
    # P_s - P_{s-1} - sum(terms due at s) = const due at s
    const_due = np.bincount(due[due >= 0], weights=const[due >= 0], minlength=n)
    r = m.add_differences(p0, n, const_due, const_due)
    sel = (due >= 0) & (col >= 0)
    m.add_entries(r + due[sel], col[sel], -coef[sel])
    # R_s - R_{s+1} - sum(terms released at s) = const released at s
    const_rel = np.bincount(rel, weights=const, minlength=n)[:n]
    r = m.add_differences(q0, n, const_rel, const_rel, backward=True)
    sel = col >= 0
    m.add_entries(r + rel[sel], col[sel], -coef[sel])
    # E_s >= P_s
    r = m.add_rows(n, 0.0, math.inf)
    m.add_entries(r + steps, e0 + steps, 1.0)
    m.add_entries(r + steps, p0 + steps, -1.0)
    # T >= E_{s-1} + R_s (E_{-1} = 0), T >= E_{n-1}
    r = m.add_rows(n + 1, 0.0, math.inf)
    m.add_entries(r + np.arange(n + 1), np.full(n + 1, t0), 1.0)
    m.add_entries(r + steps[1:], e0 + steps[:-1], -1.0)
    m.add_entries(r + steps, q0 + steps, -1.0)
    m.add_entries([r + n], [e0 + n - 1], [-1.0])
    sol, obj, status, elapsed = m.solve(exact, time_limit)
    kept = np.zeros(nf)
    if len(sol):
        kept[x >= 0] = np.clip(sol[x[x >= 0]], 0.0, 1.0)
    lp = obj * scale
    value = max(lp * (1 - SAFETY), total_compute)
    return Bound(
        kind="time",
        value=value,
        exact=exact and status == "Optimal",
        status=status,
        solver_time=elapsed,
        lp_value=lp,
        kept=kept,
        capacity=int(hw.capacity),
        compute_time=total_compute,
        method=how,
    )


# -- the rounded plan ------------------------------------------------------------------------


def _round(inst: _Instance, kept: np.ndarray, capacity: int) -> np.ndarray:
    """Kept intervals that fit: those the solution keeps whole first, then the others by
    decreasing kept fraction, shorter first, each if it fits (consecutive kept intervals of a
    tensor share their endpoint, as the thesis's rule 2, reading R2)."""
    nf = len(inst.tensor)
    occ = np.zeros(inst.n + 1, dtype=np.int64)
    resident = np.zeros(nf, dtype=bool)
    out = np.zeros(nf, dtype=np.uint8)
    f = np.flatnonzero(inst.has_next & (kept > 1e-9))
    length = inst.step[f + 1] - inst.step[f]
    order = f[np.lexsort((inst.step[f + 1], length, -np.round(kept[f], 6)))]
    step = inst.step
    size = inst.size
    for g in order.tolist():
        lo = int(step[g]) if not resident[g] else int(step[g]) + 1
        hi = int(step[g + 1])
        b = int(size[g])
        top = int(occ[lo : hi + 1].max()) if lo <= hi else 0
        if top + b > capacity:
            continue
        if resident[g + 1]:  # its end is already counted (the interval after it is kept)
            hi -= 1
        if lo <= hi:
            occ[lo : hi + 1] += b
        resident[g] = resident[g + 1] = True
        out[g] = 1
    return out


def rounded_plan(
    network: NetworkLike,
    hardware: Hardware | str | None = None,
    policy: PolicyLike = "lookahead",
    *,
    batch: int | None = None,
    capacity: str | float | None = None,
    exact: bool = False,
) -> np.ndarray:
    """The kept intervals of ``lp-rounded`` at a point: one flag (uint8) per full use of the
    schedule, in its use order (:meth:`dnnmem.Network.tensors`' uses, partial ones left out),
    1 where the interval it starts is kept. ``exact=True`` rounds the integer optimum."""
    _, hw, _, schedule = _point(network, hardware, policy, batch, capacity)
    return _rounded(schedule, hw.capacity, exact)


def _rounded(schedule: _core.Schedule, capacity: int, exact: bool = False) -> np.ndarray:
    inst = _instance(schedule)
    b = _traffic_bound(schedule, capacity, exact, method=None if exact else "lp")
    return _round(inst, b.kept, int(capacity))


def prepare_point(schedule: _core.Schedule, prepared: Any, capacity: int) -> Any:
    """``prepared`` (cache manager lp-rounded) with the kept intervals of its point
    (:data:`dnnmem.policy.POINT_DATA`)."""
    return prepared.with_kept(_rounded(schedule, capacity).tolist())


# -- results beside their bounds -------------------------------------------------------------


def bounds(result: Result, *, method: str | None = None, exact: bool = False) -> dict[str, float]:
    """The bounds of a result's design point and its gaps to them.

    Parameters
    ----------
    method, exact
        As :func:`traffic_lower_bound` (default: the Lagrangian bounds).

    Returns
    -------
    dict
        ``traffic_lower_bound`` (bytes), ``time_lower_bound`` (s), ``traffic_gap`` =
        traffic / traffic bound − 1 and ``time_gap`` = time / time bound − 1 (fractions; 0.05
        is 5 % above the bound; NaN where the bound is 0).
    """
    schedule = result.network.schedule
    t = _traffic_bound(schedule, result.hardware.capacity, exact, method=method)
    prepared = result.composition.prepare(schedule, result.ops_per_mac, result.network)
    tb = _time_bound(schedule, result.hardware, prepared, exact, method=method)
    return {
        "traffic_lower_bound": t.value,
        "time_lower_bound": tb.value,
        "traffic_gap": result.traffic / t.value - 1 if t.value > 0 else math.nan,
        "time_gap": result.time / tb.value - 1 if tb.value > 0 else math.nan,
    }


def gap(result: Result, *, method: str | None = None, exact: bool = False) -> dict[str, float]:
    """``traffic_gap`` and ``time_gap`` of a result: its traffic and time over the bounds of its
    design point, minus 1 (fractions). See :func:`bounds`."""
    b = bounds(result, method=method, exact=exact)
    return {"traffic_gap": b["traffic_gap"], "time_gap": b["time_gap"]}


# -- the trace form (FOO) --------------------------------------------------------------------


def export_trace(
    network: NetworkLike,
    path: str | os.PathLike[str] | None = None,
    *,
    batch: int | None = None,
    policy: PolicyLike = "lookahead",
) -> pd.DataFrame:
    """The schedule's full uses as a caching trace: one request per full use, in step order
    and, within a step, in tensor order; ``time`` the request's index, ``id`` the tensor's
    index, ``size`` its bytes (docs/model/optimal.md, "The trace form"). Written as ``time id
    size`` lines to ``path`` when given (the format of the FOO authors' tools)."""
    _, _, _, schedule = _point(network, None, policy, batch, None)
    inst = _instance(schedule)
    order = np.lexsort((inst.tensor, inst.step))
    df = pd.DataFrame(
        {
            "time": np.arange(len(order)),
            "id": inst.tensor[order],
            "size": inst.size[order],
            "step": inst.step[order],
        }
    )
    if path is not None:
        with open(path, "w") as fh:
            for t, i, s in zip(df["time"], df["id"], df["size"]):
                fh.write(f"{t} {i} {s}\n")
    return df


TraceLike = Union["pd.DataFrame", str, "os.PathLike[str]"]


def trace_bound(trace: TraceLike, capacity: int) -> float:
    """The byte-miss LP of a caching trace (FOO with byte costs): the least bytes missed by
    requests that are not an object's first, over every fractional caching of the intervals
    between an object's consecutive requests, where an interval from request *i* to request *j*
    occupies the cache between requests *i* … *j* − 1 that have a next request (the authors'
    graph). An object is its (id, size)."""
    if not isinstance(trace, pd.DataFrame):
        trace = pd.read_csv(trace, sep=r"\s+", header=None, names=["time", "id", "size"])
    ids = trace["id"].to_numpy()
    sizes = trace["size"].to_numpy().astype(np.int64)
    key = pd.MultiIndex.from_arrays([ids, sizes]).factorize()[0] if len(ids) else ids
    nreq = len(ids)
    # next request of the same object
    order = np.lexsort((np.arange(nreq), key))
    k = key[order]
    nxt = np.full(nreq, -1, dtype=np.int64)
    same = np.r_[k[1:] == k[:-1], False]
    nxt[order[same]] = order[np.r_[False, same[:-1]]]
    has_next = nxt >= 0
    # central arcs: one after each request that has a next request
    arc_of = np.cumsum(has_next) - 1  # arc created at request r (if has_next)
    narc = int(has_next.sum())
    m = _Model()
    req = np.flatnonzero(has_next)
    unit = float(max(int(sizes.max()) if nreq else 1, 1))
    s = sizes[req] / unit
    x0 = m.add_cols(len(req), -s, 0.0, 1.0)
    o0 = m.add_cols(narc, 0.0, 0.0, capacity / unit)
    r0 = m.add_differences(o0, narc, 0.0, 0.0)
    lo = arc_of[req]
    hi = arc_of[nxt[req]] - has_next[nxt[req]]
    # interval i -> j covers arcs created at requests i .. (last arc-creating request < j)
    m.add_occupants(r0, narc, x0 + np.arange(len(req)), lo, hi, s)
    _, obj, _, _ = m.solve(False, None)
    return float(s.sum() * unit + obj * unit)


# -- sweeps ----------------------------------------------------------------------------------

#: The columns ``sweep(..., bounds=True)`` adds, with their units.
BOUND_COLUMNS = {
    "traffic_lower_bound": "bytes",
    "time_lower_bound": "s",
    "traffic_gap": "fraction",
    "time_gap": "fraction",
}


def with_bounds(
    df: pd.DataFrame,
    networks: dict[tuple[str, int, str], Network],
    policies: dict[str, Any],
    ops_per_mac: int = 2,
    method: str | None = None,
) -> pd.DataFrame:
    """``df`` (a sweep's rows) with :data:`BOUND_COLUMNS`: each point's traffic and time lower
    bounds and its gaps to them (``result / bound − 1``). ``networks`` maps (network, batch,
    scheduler) to the scheduled network, ``policies`` a row's ``policy`` to its Policy;
    ``method`` as :func:`traffic_lower_bound`. Each bound is solved once per distinct input
    (the traffic bound per schedule and capacity, the time bound per schedule, link, compute
    model and hardware)."""
    from .hardware import Hardware

    traffic_of: dict[tuple[Any, ...], float] = {}
    time_of: dict[tuple[Any, ...], float] = {}
    prepared_of: dict[tuple[Any, ...], Any] = {}
    tb = np.empty(len(df))
    tt = np.empty(len(df))
    cols = [
        df[c].to_numpy()
        for c in ("network", "batch", "policy", "capacity", "bandwidth", "throughput")
    ]
    for i, (name, batch, label, cap, bw, thr) in enumerate(zip(*cols)):
        composition = policies[str(label)]
        key = (str(name), int(batch), str(composition.scheduler))
        net = networks[key]
        tkey = (*key, int(cap))
        if tkey not in traffic_of:
            traffic_of[tkey] = _traffic_bound(net.schedule, int(cap), method=method).value
        tb[i] = traffic_of[tkey]
        rest = str(composition.replace(cache="none"))
        pkey = (*key, rest)
        if pkey not in prepared_of:
            prepared_of[pkey] = composition.replace(cache="none").prepare(
                net.schedule, ops_per_mac, net
            )
        hkey = (*pkey, int(cap), float(bw), float(thr))
        if hkey not in time_of:
            hw = Hardware(capacity=int(cap), bandwidth=float(bw), throughput=float(thr))
            time_of[hkey] = _time_bound(net.schedule, hw, prepared_of[pkey], method=method).value
        tt[i] = time_of[hkey]
    out = df.copy()
    traffic = (out["traffic_in"] + out["traffic_out"]).to_numpy(dtype=float)
    out["traffic_lower_bound"] = tb
    out["time_lower_bound"] = tt
    with np.errstate(divide="ignore", invalid="ignore"):
        out["traffic_gap"] = np.where(tb > 0, traffic / np.where(tb > 0, tb, 1) - 1, np.nan)
        out["time_gap"] = out["time"].to_numpy() / tt - 1
    return out
