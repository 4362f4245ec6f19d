"""A brute-force oracle of docs/model/optimal.md, written from the page alone.

For a tiny schedule it enumerates every set of kept reuse intervals (and, for writes whose
value no later use reads, every choice of bearing them on chip), keeps those that fit the
capacity at every step, and walks each plan use by use — loads of reads not kept into their
step, stores of dirty values that leave while a later use needs them or that must end
off-chip, streamed writes — to find the least traffic; and, for each plan, the least time of
the page's time problem in closed form. No LP, no solver, nothing shared with dnnmem.optimal.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

import dnnmem


@dataclass
class _Use:
    step: int
    read: bool
    write: bool


@dataclass
class Tiny:
    n: int
    size: list[int]
    must_end: list[bool]
    uses: list[list[_Use]]  # per tensor, its full uses in step order
    partial: list[tuple[int, int, bool, bool, int]]  # tensor, step, read, write, bytes
    compute: list[float]  # seconds per step
    load_s: list[float]  # seconds to load tensor t whole
    store_s: list[float]


def tiny(net: dnnmem.Network, bandwidth: float = 1.0, throughput: float = 1.0) -> Tiny:
    s = net.schedule
    u = s.use_table()
    t = s.tensor_table()
    nt = len(t["bytes"])
    uses: list[list[_Use]] = [[] for _ in range(nt)]
    partial = []
    for k in range(len(u["tensor"])):
        ti = int(u["tensor"][k])
        if u["partial"][k]:
            partial.append(
                (ti, int(u["step"][k]), bool(u["read"][k]), bool(u["write"][k]), int(u["bytes"][k]))
            )
        else:
            uses[ti].append(_Use(int(u["step"][k]), bool(u["read"][k]), bool(u["write"][k])))
    steps = net.steps
    return Tiny(
        n=int(s.num_steps),
        size=[int(b) for b in t["bytes"]],
        must_end=[bool(m) for m in t["must_end_offchip"]],
        uses=uses,
        partial=partial,
        compute=[float(f) / throughput for f in steps["flops"]],
        load_s=[int(b) / bandwidth for b in t["bytes"]],
        store_s=[int(b) / bandwidth for b in t["bytes"]],
    )


def _needed_after(us: list[_Use], j: int, must_end: bool) -> bool:
    """Does a later use (or the end) need the value the tensor holds after its use j?"""
    if j + 1 < len(us):
        return us[j + 1].read
    return must_end


def walk(p: Tiny, kept: set[tuple[int, int]], born: set[tuple[int, int]]):
    """Traffic of a plan, and its transfers as (seconds, due step or -1, release step)."""
    traffic = 0
    transfers: list[tuple[float, int, int]] = []
    for tensor, step, r, w, b in p.partial:
        traffic += b * r + b * w
        if r:
            transfers.append((b / p.size[tensor] * p.load_s[tensor], step, step))
        if w:
            transfers.append((b / p.size[tensor] * p.store_s[tensor], step, step))
    for t, us in enumerate(p.uses):
        size = p.size[t]
        on_chip = False
        dirty = False
        written_at = -1
        for j, use in enumerate(us):
            kept_in = j > 0 and (t, j - 1) in kept
            kept_out = (t, j) in kept
            if not kept_in:
                on_chip = False
            if use.read and not on_chip:
                traffic += size
                release = us[j - 1].step + 1 if j > 0 else 0
                transfers.append((p.load_s[t], use.step, release))
            here = kept_in or kept_out or (t, j) in born
            if use.write:
                dirty = True
                written_at = use.step
                if not here:  # streamed out during its step
                    traffic += size
                    transfers.append((p.store_s[t], -1, use.step))
                    dirty = False
            on_chip = here
            leaves = not kept_out
            if leaves and on_chip and dirty and _needed_after(us, j, p.must_end[t]):
                traffic += size  # offloaded
                transfers.append((p.store_s[t], -1, written_at))
                dirty = False
            if leaves:
                on_chip = False
    return traffic, transfers


def fits(p: Tiny, kept: set[tuple[int, int]], born: set[tuple[int, int]], capacity: int) -> bool:
    resident = [set() for _ in range(p.n)]
    for t, j in kept:
        for s in range(p.uses[t][j].step, p.uses[t][j + 1].step + 1):
            resident[s].add(t)
    for t, j in born:
        resident[p.uses[t][j].step].add(t)
    return all(sum(p.size[t] for t in r) <= capacity for r in resident)


def least_time(p: Tiny, transfers: list[tuple[float, int, int]]) -> float:
    """The page's time problem for one plan: E_s = max(E_{s-1} + c_s, channel seconds due by
    s); T = max(E_{n-1}, max_s E_{s-1} + seconds released at s or later)."""
    due = [0.0] * p.n
    rel = [0.0] * (p.n + 1)
    for sec, d, r in transfers:
        if d >= 0:
            due[d] += sec
        rel[r] += sec
    for s in range(p.n - 1, -1, -1):
        rel[s] += rel[s + 1]
    e_prev = 0.0
    prefix = 0.0
    best = 0.0
    for s in range(p.n):
        best = max(best, e_prev + rel[s])
        prefix += due[s]
        e_prev = max(e_prev + p.compute[s], prefix)
    return max(best, e_prev)


def intervals(p: Tiny) -> list[tuple[int, int]]:
    return [(t, j) for t, us in enumerate(p.uses) for j in range(len(us) - 1)]


def dead_writes(p: Tiny) -> list[tuple[int, int]]:
    out = []
    for t, us in enumerate(p.uses):
        for j, use in enumerate(us):
            if use.write and not _needed_after(us, j, p.must_end[t]):
                out.append((t, j))
    return out


def optimum(p: Tiny, capacity: int, limit: int = 16) -> tuple[int, float]:
    """(least traffic, least time) over every plan that fits."""
    cands = intervals(p)
    dead = dead_writes(p)
    if len(cands) + len(dead) > limit:
        raise ValueError(f"{len(cands) + len(dead)} choices: too many to enumerate")
    best_traffic = None
    best_time = None
    for k in range(len(cands) + 1):
        for kept_t in itertools.combinations(cands, k):
            kept = set(kept_t)
            for bits in itertools.product([False, True], repeat=len(dead)):
                born = {d for d, b in zip(dead, bits) if b}
                if not fits(p, kept, born, capacity):
                    continue
                traffic, transfers = walk(p, kept, born)
                t = least_time(p, transfers)
                best_traffic = traffic if best_traffic is None else min(best_traffic, traffic)
                best_time = t if best_time is None else min(best_time, t)
    assert best_traffic is not None and best_time is not None
    return best_traffic, best_time


def kept_flags(p: Tiny, kept: set[tuple[int, int]]) -> np.ndarray:
    """The per-full-use flags of dnnmem.optimal (tensor by tensor, uses in step order)."""
    flags = []
    for t, us in enumerate(p.uses):
        flags.extend(1 if (t, j) in kept else 0 for j in range(len(us)))
    return np.array(flags, dtype=np.uint8)
