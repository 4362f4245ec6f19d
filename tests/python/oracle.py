"""A small, plain pure-Python implementation of stages 3–5 of dnnmem's model (plan, timeline,
report), written from the model's specification alone, without looking at the C++, to serve as
a test oracle for the C++ estimator. The model is docs/model/ (index.md: the pipeline and units;
policies-thesis.md: rules 1–7 and the ablations; timeline.md; report.md); every reading listed
below is stated there too, with its reason, on the page where it applies. (Comments below cite
the model's first written form as "SPEC §n"; docs/model/index.md maps each section to its page.)

    import dnnmem, oracle
    net = dnnmem.network("resnet50", batch=32)
    r = oracle.estimate(net, capacity=128 * 2**20, bandwidth=616 * 10**9,
                        throughput=1345 * 10**10, policy="lookahead")
    r["time"], r["traffic_in"], r["traffic_out"], r["kept"], ...

Readability beats speed: per-step lists and plain loops, O(steps × intervals) at worst; one
point takes 0.01–0.1 s on the reference networks.

It reproduces every reference point exactly — values of an independent implementation of the
model, pinned in tests/python/test_reference_estimate.py (ResNet-50 N=32 and Transformer
N=128; lookahead, belady, prefetch-next, none at 0 / 24 / 128 / 500 MiB / inf; lookahead with
ops_per_mac = 1): traffic to the byte, the time as the same rounded ms, the diagnostics (kept,
prefetched, born, offloads, capacity stall) — and the five times of the capacity-wait
alternatives listed in docs/model/timeline.md, Reading R8 (``capacity_wait`` below).

Units (docs/model/index.md, "Units")
------------------------------------
All time is an exact integer in units of 1/(throughput × bandwidth) seconds: a step with F
FLOPs computes for F × bandwidth units, b bytes move in b × throughput units. Every comparison
of the plan (rule 3's deadline w, rule 4's look-ahead k) and every event of the timeline is
exact on these integers; the result is converted to a ``Fraction`` of seconds at the end.

What comes out
--------------
``estimate`` returns a dict: ``time`` (Fraction, s; end of the last step plus drain),
``traffic_in`` / ``traffic_out`` (bytes), the plan diagnostics of
docs/model/policies-thesis.md: ``kept`` (intervals kept by rule 2), ``prefetched`` (rule 4
windows), ``born`` (rule 6), ``offloads`` (rule 3, final write-outs included);
``capacity_stall`` (Fraction, s), ``drain`` (Fraction, s), ``same_tensor_blocks`` (service
decisions in which the timeline's same-tensor ordering held a transfer back), and ``steps``: one
dict per step with ``start``, ``end``, ``compute`` (Fraction, s), ``bytes_in``, ``bytes_out``
(docs/model/timeline.md: bytes belong to the step at whose start — streamed, prefetch — or end
— offload — they are issued) and ``onchip`` (bytes planned on-chip during the step, R7).

Readings
--------
Points on which the model's first written form could be read two ways, the reading taken here
(now stated in docs/model/), and what decided it. "ref" = the reference values of
tests/python/test_reference_estimate.py; "decided by" lists the reference values that the
other reading gets wrong (checked by running this file with the other reading patched in); "not
decided" means the other reading gives the same numbers at every reference point.

R1. Intervals are consecutive *full* uses (partial embedding-row accesses are not uses for
    residency, SPEC §2); "previous use u" of rule 4 is likewise the previous full use (−1 if
    none). Decided by the interval counts of ref (627 / 1004); the rule-4 part is not decided
    (the shared table's look-ahead k is a few steps, far from its partial uses).
R2. A kept interval [u, v] occupies u … v, but when the interval into u is also kept the tensor
    is already there at u ("consecutive kept intervals share their endpoint"): only u+1 … v is
    fit-checked and added. A tensor's residency is a set of steps, never counted twice at one
    step; a rule-3 reservation is a separate amount added on top. Decided by 128 MiB, both
    networks, all three policies (checking u as well: +0.1 to +0.6 ms, other traffic).
R3. Rule 3 at rule-2 time: a rejected dirty interval [u, v] gets its offload and reservation
    there only when the tensor is known resident at u, i.e. the interval into u was kept.
    A dirty rejected interval whose u is an output or a not-resident read-modify-write is
    offloaded only if rule 6 (born) or rule 4 (prefetched read-modify-write) makes it resident
    (SPEC rule 3's last sentences). Decided by every 24 and 128 MiB point (reserving for every
    dirty rejection: +6 to +31 ms).
R4. Rule 3's w: the smallest w in u+1 … n−1 with compute(u+1 … w−1) ≥ write time, else w = n
    (reservation through n−1). Rule 4's k: the smallest k ≥ 1 with compute(v−k … v−1) ≥ load
    time, else k = v. Counting w itself in the sum is wrong at 20 points; ≥ versus > is not
    decided (no exact ties occur).
R5. Rule 4 candidates: every full read use v (read-modify-writes included) whose interval into
    v was not kept, first uses included (u = −1); in order of v, then rule 2's tie-breaks on
    [u, v] (dirty first — rule 2's definition, a first use is clean —, later u, smaller size,
    tensor order). Dropping the dirty tie-break is wrong at Transformer lookahead 128 MiB
    (−0.096 ms); v-then-tensor order likewise (−0.273 ms). The window is [p, v], or [p, v−1] when
    [v, ·] is kept — fit-checked on that range only (checking v too changes the prefetch counts
    at 10 points). Deferral: the smallest p in p*+1 … v−1 whose window fits at every step;
    none → streamed (a rule-5 demand load if [v, ·] is kept). Not deferring is wrong at 7 points.
    A prefetched read-modify-write whose next interval is rejected is offloaded after v: never
    happens at the reference points (the 2 / 11 prefetched read-modify-writes all stay), so
    not decided.
R6. Rule 6 candidates: every full write at step s (outputs, read-modify-writes) whose tensor is
    not resident at s after rules 2–4. An output resident through a kept interval [s, ·] is not
    "born" (counting it changes ``born`` at every point); fit check at step s only (checking
    s … w−1 is wrong at 18 points); a must-end-off-chip output with no later full use is born
    only if w ≤ n−1 (bearing it anyway is wrong at all 28 non-zero-capacity points: born,
    offloads, and the time by +0.00006 ms of drain). Step order, then tensor order (access
    order: not decided).
R7. Timeline capacity at the start of step s: bytes planned on-chip at s (kept intervals,
    prefetch windows, born outputs — not reservations) + every offload issued and not yet
    complete ≤ capacity; streaming needs none. Without the wait every 24/128/500 MiB point is
    wrong (capacity stalls of ref).
R8. Channel: fluid preemptive EDF, key (deadline, loads before stores, issue order); a global
    issue counter follows SPEC §6 (start of s: s's streamed loads in access-list order, s's
    streamed stores, prefetches beginning at s in rule-4 order; end of s: offloads after s in
    tensor order). Arrivals only happen at step starts and ends, so between them the fluid
    server is simply "serve the most urgent pending transfer to completion". Plain issue order
    at equal deadline is wrong at 10 points; prefetches issued in tensor order and offloads in
    deadline order are not decided. Capacity wait: all pending offloads, in (deadline, issue
    order), before everything else — reproduces ref's five "if the pending offloads kept their
    own deadlines" / "in issue order alone" values exactly (``capacity_wait``). Same-tensor
    ordering: a transfer behind a pending earlier offload of its tensor is held back and lends
    its key to that offload; never acts at the reference points (``same_tensor_blocks`` = 0), as
    ref says.
R9. A step's end: max(start + compute, completion of its streamed transfers and of all
    prefetches for it); a prefetch done before the start ends before start + compute anyway.
R10. ``none`` = the plan at capacity 0 (every use streamed, SPEC §8 P2). ``belady`` = rules 1–3,
     5–7, no rule-4 prefetch at all (a first use, or a read whose interval into it was
     rejected, is streamed at use; with [v, ·] kept it is a rule-5 demand load).
     ``prefetch-next`` = rule 4 with k = 1.
R11. A must-end-off-chip tensor whose last interval is kept is offloaded after its last use
     when that interval is accepted (rule 7). Never happens here (every dW has one full use).

Ablations with no reference values (readings are this file's own; treat disagreements with
the C++ code as questions for docs/model/, not as C++ bugs)
-----------------------------------------------------------------------------------------
``no-lookahead`` (SPEC §5, Fig. 4.2a):
N1. The plan (rules 1–7, reservations included) is lookahead's; only when the writes happen
    changes. Every dirty tensor lookahead would offload after u (rule 3, born outputs, final
    dW write-outs) instead stays on-chip after u, "lingering", counting against capacity.
N2. At each step s, before its capacity wait, the oldest lingering tensors (left earliest, then
    tensor order) are written out — deadline s, issued as s wants to start — until the step's
    planned data + the lingering data fit; the step then waits for the writes (capacity stall).
N3. A lingering tensor that is transferred again at s (streamed, demand or partial access, or a
    prefetch beginning at s) is written out first, at s (the same-tensor ordering then holds the
    load behind it). Traffic is therefore exactly lookahead's.
N4. Whatever still lingers after the last step (dW) is written out then (drain).
``streaming=through-cache`` (the thesis planners' option, docs/policies.md; off by default):
T1. Every tensor a step accesses (full and partial accesses) passes through the cache during
    the step: the step reserves its working set, the sum of its accesses' bytes, capped at the
    capacity. A step whose working set exceeds the capacity is "over".
T2. A reuse interval [u, v] is kept only if neither u nor v is over, and it fits over
    u+1 … v−1 on top of the working sets (its ends are counted in theirs). A rule-4 prefetch
    for v is made only if v is not over, and its window [p, v−1] must fit. What is resident
    (for the timeline's capacity wait) is as without the option.
T3. An output is born on-chip iff its step is not over (it is in that step's working set).
``lru`` (an online LRU cache with demand loads):
L1. The cache holds whole tensors; accesses are processed step by step in access-list order.
L2. A full read of a tensor not cached is a demand load (streamed with the step, rule 5) and
    the data stays; a write allocates the tensor (dirty).
L3. To make room, evict least-recently-used tensors not used at this step (ties: tensor
    order); a dirty victim is written out (deadline s, issued as s wants to start, so s waits
    for it). If it still does not fit, the access is streamed and the tensor not cached.
L4. After its last full use a tensor is freed (liveness is known from the graph): at no cost,
    or, for a dirty must-end-off-chip tensor (dW), by writing it out then (an offload issued
    after the step, deadline n). (An earlier reading kept the dead dW dirty until evicted; it
    failed SPEC §8 P1 at capacity = peak alive bytes.)
L5. Partial accesses are streamed and leave a cached copy alone, as in every other policy.
    (An earlier reading wrote a cached dirty copy out first and dropped it; with a tied
    embedding that reloaded dW even at unlimited capacity, failing P1.)
L6. Dirty dW still cached after the last step are written out then (drain).
    Diagnostics: ``kept`` = cache hits, ``born`` = write-only allocations, ``offloads`` = dirty
    write-outs, ``prefetched`` = 0.

The OnSRAM family (docs/model/onsram.md, written from that page): ``fifo`` is ``lru`` with the
victim cached earliest (O8); ``infinite-spm``, ``one-step`` and ``onsram-static`` pin candidate
tensors for their whole live interval and stream every other access (O2-O7); ``cache_options``
passes their ``reserve`` and ``alpha``. ``cache_options={"hardware": "on", "line": b}`` makes
``lru`` / ``fifo`` the hardware cache of lines of rule O11 (H1–H6): ``capacity // b`` lines, each
tensor cut into lines of b bytes (the last holds the rest); a read line hits or is loaded, a
written line is allocated dirty without a fetch; the least recently used (fifo: the oldest)
line of any tensor and step is the victim, a dirty one written back as a streamed store of that
step (summed per tensor, after the step's own stores); no liveness, no bypass; partial accesses
streamed; the dirty lines left are written back as streamed stores of the last step.

Links (docs/policies.md, written from that page alone)
------------------------------------------------------
``link=None`` is the thesis's link: b bytes cross it as b bytes in b × throughput units.
``link={"ratio": {role: r, ...}, "cap": c}`` is the ``ratio`` link: a transfer of b bytes of a
tensor of role ρ puts ceil(b / r_ρ) bytes on the wire (r_ρ = 1 for a role not given; exact, as
a Fraction of the float given) and takes max(wire × throughput, ceil(b × bandwidth × throughput
/ c)) units (no second term when c = 0). Rules 3 and 4 use that time for "write time" and
"load time"; the timeline serves it; ``link_in`` / ``link_out`` add up the wire bytes.
``traffic_in`` / ``traffic_out`` stay the bytes leaving and entering the cache.
``link={"zvc": [s_t per tensor], "window": w, "mask": True, "cap": c, "efficiency": e}`` is the
``zvc`` link (docs/model/cdma.md C1–C7, written from that page alone): an activation of N
elements of b bytes with sparsity s puts round-half-up(N (1 - s)) b + ceil(N / w) w / 8 bytes on
the wire (no second term without the mask); other roles cross as they are; a partial transfer of
x bytes puts ceil(x · wire / size). The time is max(ceil(wire × throughput / e'), the cap term),
e' = round(e · 10^4) / 10^4; ``"throttle": "offload"`` drops the cap term for loads (C6's
other reading). ``"efficiency"`` applies to ``ratio`` links too.

Cache managers of docs/model/cdma.md (V1–V6, written from that page alone)
------------------------------------------------------------------------------
``vdnn-all`` / ``vdnn-conv``: weights, states and weight gradients make no transfers, W and S
on-chip all iteration, dW from its first to its last use. An activation read (full use) in a
forward step by a selected layer (all / conv2d or depthwise_conv2d) with a later use v after its
last forward use u, v - 1 > u: a streamed store of the whole tensor at u (the offload), a
prefetch issued at v - 1, deadline v; on-chip at [first use, u] and [v - 1, last use]. Other
tensors on-chip from first to last use. ``oracle``: no transfers, every tensor on-chip from
first to last use (W, S all iteration).

Compute models
--------------
``compute=None`` is the thesis's: a step computes for its FLOPs × bandwidth units.
``compute={"systolic": {"rows": R, "cols": C, "dataflow": "ws"|"os"|"is", "arrays": A,
"vector": v, "waves": w, "tile": L}}`` (defaults 128, 128, "ws", 1, 1, "folds", 0) is the
``systolic`` compute model: a step's GEMMs (``schedule.gemm_table()``: m × k · k × n, ``count`` of
them) take SCALE-Sim's cycles — spatial (S_R, S_C) and temporal T dimensions (k, n, m) for ws,
(m, n, k) for os, (k, m, n) for is; ceil(count · ⌈S_R/R⌉ · ⌈S_C/C⌉ / A) folds of 2R + C + T − 2
cycles (R + C + T − 2 for os) — and one cycle is worth ops_per_mac · R · C · A FLOPs at peak; the
step's other FLOPs (all of them for a step with no GEMM, the non-MAC ones otherwise) take
ceil(FLOPs / v). With a tile L, T is cut into waves of L lines and one shorter: folds of each
length (ceil(blocks / A) of each); ``waves="pipelined"``: waves of R + t back to back over all
blocks and products, ceil(Σ / A) + R + C − 2; ``"double-buffered"``: waves of max(t, R), the
last of t, ceil(Σ max / A) − (max(t_last, R) − t_last) + R + (R + C − 2).

Schedulers
----------
The oracle reads whatever schedule ``net.schedule`` holds, so a network from
``net.with_scheduler(...)`` is estimated under that scheduler; ``expected_steps`` below derives
the ``inference`` and ``split-backward`` schedules from the default one, independently of the
C++ schedulers, for the tests to compare.
"""

from __future__ import annotations

import math
from fractions import Fraction

POLICIES = (
    "lookahead",
    "belady",
    "prefetch-next",
    "none",
    "no-lookahead",
    "lru",
    "mbs-strict",
    "vdnn-all",
    "vdnn-conv",
    "oracle",
)
#: The OnSRAM family (docs/model/onsram.md, rules O2-O8), written from that page.
ONSRAM = (
    "fifo",
    "infinite-spm",
    "one-step",
    "onsram-static",
    "onsram-eager-wb",
    "onsram-eager-spec",
)
ROLES = ("activation", "weight", "state", "gradient", "weight_grad")


def zvc_size(nbytes: int, element: int, sparsity: float, window: int = 32, mask: bool = True):
    """Bytes of a ZVC-compressed tensor (docs/model/cdma.md, C2)."""
    n = -(-nbytes // element)
    x = n * (1.0 - sparsity)
    nonzero = int(x) + (1 if x - int(x) >= 0.5 else 0)
    return nonzero * element + (-(-n // window) * ((window + 7) // 8) if mask else 0)


class _Link:
    """What a transfer costs (module docstring, "Links")."""

    def __init__(
        self,
        link: dict | None,
        roles: list[str],
        bandwidth: int,
        throughput: int,
        sizes: list[int] | None = None,
        element: int = 4,
    ):
        self.throughput, self.per_second = throughput, bandwidth * throughput
        link = link or {}
        unknown = set(link) - {"ratio", "cap", "zvc", "window", "mask", "efficiency", "throttle"}
        if unknown:
            raise ValueError(f"link: unknown key(s) {sorted(unknown)}")
        ratios = {role: Fraction(r) for role, r in link.get("ratio", {}).items()}
        self.ratio = [ratios.get(role, Fraction(1)) for role in roles]
        self.cap = int(link.get("cap", 0))
        self.eff = Fraction(round(float(link.get("efficiency", 1.0)) * 10000), 10000)
        self.offload_only = link.get("throttle", "both") == "offload"
        self.zvc: list[int] | None = None
        if "zvc" in link:
            assert sizes is not None
            self.sizes = sizes
            self.zvc = [
                max(1, zvc_size(b, element, sp, link.get("window", 32), link.get("mask", True)))
                if role == "activation" and b > 0
                else b
                for b, sp, role in zip(sizes, link["zvc"], roles)
            ]

    def wire(self, tensor: int, nbytes: int) -> int:
        if self.zvc is not None:
            size = self.sizes[tensor]
            return nbytes if size == 0 else -(-nbytes * self.zvc[tensor] // size)
        return math.ceil(nbytes / self.ratio[tensor])

    def units(self, tensor: int, nbytes: int, load: bool) -> int:
        t = math.ceil(self.wire(tensor, nbytes) * self.throughput / self.eff)
        if self.cap and not (load and self.offload_only):
            t = max(t, -(-nbytes * self.per_second // self.cap))
        return t


# ---------------------------------------------------------------------------------------------
# Input: the schedule as plain Python lists
# ---------------------------------------------------------------------------------------------


class _Use:
    """One full (non-partial) use of a tensor at a step."""

    def __init__(self, step: int, read: bool, write: bool) -> None:
        self.step, self.read, self.write = step, read, write


class _Tensor:
    def __init__(
        self,
        index: int,
        name: str,
        size: int,
        starts_offchip: bool,
        must_end_offchip: bool,
        role: str = "activation",
    ) -> None:
        self.index = index  # position in the SPEC §3 tensor order
        self.name = name
        self.role = role
        self.size = size
        self.starts_offchip = starts_offchip
        self.must_end_offchip = must_end_offchip
        self.uses: list[_Use] = []  # full uses, in step order
        # Plan results per full use j (filled by _plan):
        self.kept_into: list[bool] = []  # interval [uses[j-1], uses[j]] kept by rule 2
        self.dirty_into: list[bool] = []  # that interval is dirty (rule 2's definition)
        self.prefetch_from: list[int | None] = []  # rule 4: first step p of the window for use j
        self.resident: set[int] = set()  # steps at which the tensor occupies cache (R2)


def _read_schedule(net, ops_per_mac: int):
    """Steps' FLOPs, tensors with their full uses, and the partial accesses per step."""
    sched = net.schedule
    st = sched.step_table()
    n = len(st["macs"])
    flops = [ops_per_mac * int(m) + int(f) for m, f in zip(st["macs"], st["flops"])]

    tt = sched.tensor_table()
    tensors = [
        _Tensor(
            i,
            str(tt["name"][i]),
            int(tt["bytes"][i]),
            bool(tt["starts_offchip"][i]),
            bool(tt["must_end_offchip"][i]),
            ROLES[int(tt["role"][i])],
        )
        for i in range(len(tt["name"]))
    ]

    # Accesses in step / access-list order; partial ones are kept apart (always streamed).
    at = sched.access_table()
    accesses: list[list[tuple[int, bool, bool, bool, int]]] = [[] for _ in range(n)]
    k = 0
    for s in range(n):
        for _ in range(int(st["num_accesses"][s])):
            accesses[s].append(
                (
                    int(at["tensor"][k]),
                    bool(at["read"][k]),
                    bool(at["write"][k]),
                    bool(at["partial"][k]),
                    int(at["bytes"][k]),
                )
            )
            k += 1
    for s in range(n):
        for t, read, write, partial, _ in accesses[s]:
            if not partial:
                tensors[t].uses.append(_Use(s, read, write))
    for t in tensors:
        assert all(a.step < b.step for a, b in zip(t.uses, t.uses[1:])), t.name
        m = len(t.uses)
        t.kept_into = [False] * m
        t.dirty_into = [False] * m
        t.prefetch_from = [None] * m
    return n, flops, tensors, accesses


# ---------------------------------------------------------------------------------------------
# The plan (SPEC §5, rules 1–7)
# ---------------------------------------------------------------------------------------------


class _Plan:
    def __init__(self, n: int) -> None:
        self.occ = [0] * n  # planned occupancy per step, reservations included
        self.kept = 0
        self.prefetches: list[tuple[int, int, int]] = []  # (tensor, use j, p) in rule-4 order
        self.born: list[tuple[int, int]] = []  # (tensor, step)
        self.offloads: list[tuple[int, int, int]] = []  # (after step u, tensor, deadline w)


def _plan(n, flops, tensors, capacity, bandwidth, link: _Link, policy, working_sets=None) -> _Plan:
    """``working_sets``: None (SPEC §5: a streamed access needs no capacity), or the bytes each
    step accesses (the ``streaming=through-cache`` option, T1–T3 of the module docstring)."""
    plan = _Plan(n)
    through = working_sets is not None
    over = [through and w > capacity for w in (working_sets or [0] * n)]
    if through:
        plan.occ = [min(w, capacity) for w in working_sets]  # T1
    compute = [f * bandwidth for f in flops]  # units, see module docstring
    prefix = [0]
    for c in compute:
        prefix.append(prefix[-1] + c)

    def compute_between(a: int, b: int) -> int:  # compute time of steps a … b−1
        return prefix[b] - prefix[a]

    def fits(size: int, steps) -> bool:
        return all(plan.occ[s] + size <= capacity for s in steps)

    def occupy(t: _Tensor, steps) -> None:
        for s in steps:
            if s not in t.resident:
                t.resident.add(s)
                plan.occ[s] += t.size

    def write_deadline(u: int, t: _Tensor) -> int:
        """Rule 3: the first w with compute(u+1 … w−1) ≥ write time; n if none (R4)."""
        for w in range(u + 1, n):
            if compute_between(u + 1, w) >= link.units(t.index, t.size, False):
                return w
        return n

    def offload_after(t: _Tensor, u: int) -> None:
        """Rule 3: write t out right after u, deadline w; reserve u+1 … w−1 without fit check."""
        w = write_deadline(u, t)
        for s in range(u + 1, w):
            plan.occ[s] += t.size
        plan.offloads.append((u, t.index, w))

    def interval_dirty(t: _Tensor, j: int) -> bool:
        """Rule 2: [uses[j], uses[j+1]] is dirty iff use j writes or the interval into j was
        kept and dirty."""
        return t.uses[j].write or (j > 0 and t.kept_into[j] and t.dirty_into[j])

    # --- Rules 1–3: reuse intervals in order of their end v (Bélády) ------------------------
    by_end: dict[int, list[tuple[_Tensor, int]]] = {}
    for t in tensors:
        for j in range(1, len(t.uses)):
            by_end.setdefault(t.uses[j].step, []).append((t, j))
    for v in sorted(by_end):
        # Dirty flags depend only on intervals ending before v: all decided by now.
        group = []
        for t, j in by_end[v]:
            t.dirty_into[j] = interval_dirty(t, j - 1)
            u = t.uses[j - 1].step
            group.append(((not t.dirty_into[j], -u, t.size, t.index), t, j))
        group.sort(key=lambda g: g[0])
        for _, t, j in group:
            u = t.uses[j - 1].step
            # R2: the endpoint u is shared with a kept interval into u.
            first = u + 1 if t.kept_into[j - 1] else u
            steps = range(first, v + 1)
            if through:  # T2: the ends are in their working sets; the cache holds u+1 … v−1
                keep = not over[u] and not over[v] and fits(t.size, range(u + 1, v))
            else:
                keep = fits(t.size, steps)
            if keep:
                t.kept_into[j] = True
                plan.kept += 1
                if through:
                    t.resident.update(steps)
                    for s in range(u + 1, v):
                        plan.occ[s] += t.size
                else:
                    occupy(t, steps)
                if j == len(t.uses) - 1 and t.must_end_offchip:
                    offload_after(t, v)  # rule 7 (never at the reference points)
            elif t.dirty_into[j] and t.kept_into[j - 1]:
                # Rule 3: resident and dirty at u, next interval rejected → offload after u.
                # (R3: otherwise the offload is decided by rule 4 or 6 if they make it resident.)
                offload_after(t, u)
            # a clean rejected interval: dropped after u at no cost

    # --- Rule 4: latency-aware prefetch ------------------------------------------------------
    if policy in ("lookahead", "prefetch-next"):
        cands = []
        for t in tensors:
            for j, use in enumerate(t.uses):
                if use.read and not t.kept_into[j]:
                    u = t.uses[j - 1].step if j > 0 else -1
                    dirty = j > 0 and interval_dirty(t, j - 1)
                    cands.append(((use.step, not dirty, -u, t.size, t.index), t, j))
        cands.sort(key=lambda c: c[0])
        for _, t, j in cands:
            v = t.uses[j].step
            u = t.uses[j - 1].step if j > 0 else -1
            load = link.units(t.index, t.size, True)
            if policy == "prefetch-next":
                k = 1
            else:
                k = next((k for k in range(1, v + 1) if compute_between(v - k, v) >= load), v)
            p_star = max(v - k, u + 1)
            if p_star >= v:
                continue  # streamed at v
            next_kept = j + 1 < len(t.uses) and t.kept_into[j + 1]
            last = v - 1 if next_kept else v  # R5: [p, v−1] before a kept interval
            if through and over[v]:
                continue  # T2: v's working set does not fit: streamed
            held = v - 1 if through else last  # T2: v's working set holds it at v
            p = next((p for p in range(p_star, v) if fits(t.size, range(p, held + 1))), None)
            if p is None:
                continue  # streamed at v (demand load if kept on)
            t.prefetch_from[j] = p
            if through:
                t.resident.update(range(p, last + 1))
                for s in range(p, v):
                    plan.occ[s] += t.size
            else:
                occupy(t, range(p, last + 1))
            plan.prefetches.append((t.index, j, p))
            # A prefetched read-modify-write is dirty after v: offloaded if its next interval
            # is rejected or it must end off-chip (rules 3, 7).
            if t.uses[j].write and not next_kept and (j + 1 < len(t.uses) or t.must_end_offchip):
                offload_after(t, v)

    # --- Rule 6: outputs born on-chip, in step order, then tensor order ----------------------
    writes_at: dict[int, list[tuple[_Tensor, int]]] = {}
    for t in tensors:
        for j, use in enumerate(t.uses):
            if use.write:
                writes_at.setdefault(use.step, []).append((t, j))
    for s in range(n):
        for t, j in sorted(writes_at.get(s, []), key=lambda x: x[0].index):
            if s in t.resident:
                continue  # kept or prefetched: not "born" (R6)
            has_next = j + 1 < len(t.uses)  # then [s, next] was rejected
            if not has_next and t.must_end_offchip and write_deadline(s, t) >= n:
                continue  # dW with no qualifying w: streamed
            if through:
                if over[s]:
                    continue  # T3: s's working set does not fit: streamed out
                t.resident.add(s)  # in s's working set
            elif plan.occ[s] + t.size > capacity:
                continue  # does not fit: streamed out during s
            else:
                occupy(t, [s])
            plan.born.append((t.index, s))
            if has_next or t.must_end_offchip:
                offload_after(t, s)
    return plan


def _pinned(n, compute, tensors, accesses, capacity, link: _Link, policy, options) -> tuple:
    """The OnSRAM family (docs/model/onsram.md): choose the pinned tensors (O4 infinite-spm, O5
    one-step, O6-O7 onsram-static); a pinned tensor is resident from its first to its last full
    use and none of its full uses moves; everything else is streamed (O2)."""
    room = capacity - int(options.get("reserve", 0))
    alpha = Fraction(options.get("alpha", 1))

    def candidate(t) -> bool:  # O2: made on chip, or a network input (loaded once)
        if t.role not in ("activation", "gradient") or t.must_end_offchip or not t.uses:
            return False
        first = t.uses[0]
        if t.starts_offchip:
            return t.role == "activation" and first.read and not first.write
        return first.write and not first.read

    cands = [t for t in tensors if candidate(t)]
    span = {t.index: (t.uses[0].step, t.uses[-1].step) for t in cands}
    occ = [0] * n

    def fits(t) -> bool:
        a, b = span[t.index]
        return all(occ[s] + t.size <= room for s in range(a, b + 1))

    def pin(t) -> None:
        a, b = span[t.index]
        for s in range(a, b + 1):
            occ[s] += t.size

    pinned: set[int] = set()
    if policy == "infinite-spm":  # O4
        pinned = {t.index for t in cands}
    elif policy == "one-step":  # O5
        for t in sorted(cands, key=lambda t: (span[t.index][0], t.index)):
            a, b = span[t.index]
            if b <= a + 1 and fits(t):
                pin(t)
                pinned.add(t.index)
    else:  # O6-O7
        streamed = [0] * n
        for s in range(n):
            for ti, read, write, _, nbytes in accesses[s]:
                streamed[s] += read * link.units(ti, nbytes, True) + write * link.units(
                    ti, nbytes, False
                )
        base = [max(compute[s], streamed[s]) for s in range(n)]
        ranked = []
        for t in cands:
            saved = 0
            for j, u in enumerate(t.uses):
                d = u.read * link.units(t.index, t.size, True) + u.write * link.units(
                    t.index, t.size, False
                )
                if j == 0 and t.starts_offchip:
                    d = 0  # a network input's first read moves it anyway
                saved += base[u.step] - max(compute[u.step], streamed[u.step] - d)
            if saved <= 0:
                continue
            a, b = span[t.index]
            unused = (b - a + 1) - len(t.uses)
            fom = Fraction(saved, t.size * (1 + alpha * unused)) if t.size else Fraction(10**100)
            ranked.append((-fom, a, t.index))
        for _, _, ti in sorted(ranked):
            if fits(tensors[ti]):
                pin(tensors[ti])
                pinned.add(ti)
    work = _Work(n)
    for ti in pinned:
        a, b = span[ti]
        for s in range(a, b + 1):
            work.onchip[s] += tensors[ti].size
    for s in range(n):
        for ti, read, write, partial, nbytes in accesses[s]:
            if ti in pinned and not partial:
                if not (tensors[ti].starts_offchip and s == span[ti][0]):
                    continue
            if read:
                work.streamed_loads[s].append((ti, nbytes))
            if write:
                work.streamed_stores[s].append((ti, nbytes))
    diag = {
        "kept": sum(len(tensors[ti].uses) - 1 for ti in pinned),
        "prefetched": 0,
        "born": len(pinned),
        "offloads": 0,
    }
    return work, diag


def _eager(net, n, compute, tensors, accesses, capacity, link: _Link, spec: bool, options) -> tuple:
    """OnSRAM-Eager (docs/model/onsram.md, rules E1-E7): steps seen one at a time; a history
    buffer of contexts (the signatures of the last ``window`` steps) predicts each output's
    liveness; W/B always writes back, Spec only while the prediction is not stable (and, with
    ``speculate=cost``, only where the store saves its step more time than re-executing the
    step would cost: its compute and its reads of non-candidates); a read after a dropped output's predicted end re-executes its producer. Returns the work, the
    counts and the compute added to each step."""
    window, entries = int(options.get("window", 3)), int(options.get("entries", 6))
    st = net.schedule.step_table()

    def is_candidate(t) -> bool:  # E2: O2, made on chip, only read afterwards
        return (
            t.role in ("activation", "gradient")
            and not t.starts_offchip
            and not t.must_end_offchip
            and bool(t.uses)
            and t.uses[0].write
            and not t.uses[0].read
            and not any(u.write for u in t.uses[1:])
        )

    cand = {t.index for t in tensors if is_candidate(t)}
    start = {ti: tensors[ti].uses[0].step for ti in cand}
    last = {ti: tensors[ti].uses[-1].step for ti in cand}
    outputs = [sorted(ti for ti in cand if start[ti] == s) for s in range(n)]
    by_cost = spec and options.get("speculate", "stable") == "cost"  # E6's option
    streamed = [
        sum(
            read * link.units(ti, nb, True) + write * link.units(ti, nb, False)
            for ti, read, write, _, nb in accesses[s]
        )
        for s in range(n)
    ]
    recovery = [
        compute[s]
        + sum(
            link.units(ti, nb, True)
            for ti, read, _, partial, nb in accesses[s]
            if read and (partial or ti not in cand)
        )
        for s in range(n)
    ]

    def may_speculate(ti) -> bool:
        s = start[ti]
        saved = min(link.units(ti, tensors[ti].size, False), streamed[s] - compute[s])
        return not by_cost or saved > recovery[s]

    if options.get("similar", "kind") == "shape":  # E3: the same FLOPs on the same bytes
        sigs = [
            (st["phase"][s], st["part"][s], int(st["macs"][s]), int(st["flops"][s]))
            + tuple((nb, r, w, p) for _, r, w, p, nb in accesses[s])
            for s in range(n)
        ]
    else:  # the same kind of work: a GEMM or not, the same accesses in the same directions
        sigs = [
            (st["phase"][s], st["part"][s], int(st["macs"][s]) > 0)
            + tuple((r, w, p) for _, r, w, p, _ in accesses[s])
            for s in range(n)
        ]
    contexts = [tuple(sigs[max(0, s - window + 1) : s + 1]) for s in range(n)]
    buffer: dict[tuple, dict] = {}  # context -> {"touched", "live": [...], "stable": [...]}
    pinned: dict[int, int] = {}  # tensor -> predicted end
    copy: set[int] = set()  # tensors with a valid DRAM copy
    occ = [0] * n
    extra = [0] * n
    work = _Work(n)
    diag = {"kept": 0, "prefetched": 0, "born": 0, "offloads": 0}

    def on_chip(ti, u) -> bool:
        return ti in pinned and u <= pinned[ti] and u <= last[ti]

    def reexecute(ti, u, done) -> None:  # E7
        if ti in done:
            return
        done.add(ti)
        p = start[ti]
        extra[u] += compute[p]
        for tj, read, _, partial, nb in accesses[p]:
            if not read:
                continue
            if not partial and tj in cand and on_chip(tj, u):
                continue
            if not partial and tj in cand and tj not in copy:
                reexecute(tj, u, done)
                continue
            work.streamed_loads[u].append((tj, nb))

    for s in range(n):
        ctx = contexts[s]
        if ctx not in buffer:  # E4: insert, evicting the least recently used entry
            if len(buffer) >= entries:
                del buffer[min(buffer, key=lambda c: buffer[c]["touched"])]
            k = len(outputs[s])
            buffer[ctx] = {"touched": s, "live": [-1] * k, "stable": [False] * k}
        entry = buffer[ctx]
        entry["touched"] = s
        for k, ti in enumerate(outputs[s]):
            live = entry["live"][k] if k < len(entry["live"]) else -1
            end = min(s + live, n - 1)
            size = tensors[ti].size
            if live >= 1 and all(occ[u] + size <= capacity for u in range(s, end + 1)):
                pinned[ti] = end
                for u in range(s, end + 1):
                    occ[u] += size
                if not spec or not entry["stable"][k] or not may_speculate(ti):  # E6
                    copy.add(ti)
                diag["born"] += 1
            else:
                copy.add(ti)
        done: set[int] = set()
        for ti, read, write, partial, nb in accesses[s]:  # E5
            if partial or ti not in cand:
                if read:
                    work.streamed_loads[s].append((ti, nb))
                if write:
                    work.streamed_stores[s].append((ti, nb))
            elif write:
                if ti in copy:
                    work.streamed_stores[s].append((ti, nb))
            elif on_chip(ti, s):
                diag["kept"] += 1
            elif ti in copy:
                work.streamed_loads[s].append((ti, nb))
            else:
                reexecute(ti, s, done)
        for ti in sorted(ti for ti in cand if last[ti] == s):  # E4: learning at death
            k = outputs[start[ti]].index(ti)
            e = buffer.get(contexts[start[ti]])
            if e is not None and k < len(e["live"]):
                e["stable"][k] = e["live"][k] == s - start[ti]
                e["live"][k] = s - start[ti]
            if ti in pinned:
                for u in range(s + 1, pinned[ti] + 1):
                    occ[u] -= tensors[ti].size
                for u in range(start[ti], min(s, pinned[ti]) + 1):
                    work.onchip[u] += tensors[ti].size
    return work, diag, extra


# ---------------------------------------------------------------------------------------------
# The timeline (SPEC §6)
# ---------------------------------------------------------------------------------------------


class _Transfer:
    def __init__(
        self,
        seq: int,
        tensor: int,
        nbytes: int,
        work: int,
        is_load: bool,
        is_offload: bool,
        deadline: int,
    ) -> None:
        self.seq = seq  # issue order (global counter)
        self.tensor = tensor
        self.nbytes = nbytes
        self.remaining = work  # units of channel time still to serve
        self.is_load = is_load
        self.is_offload = is_offload
        self.deadline = deadline
        self.done_at: int | None = None

    def key(self):
        """EDF: deadline, then loads before stores, then issue order."""
        return (self.deadline, 0 if self.is_load else 1, self.seq)


class _Channel:
    """One DMA channel, fluid preemptive EDF. Arrivals only happen when the caller issues
    transfers, so between calls the most urgent pending transfer is simply served to completion."""

    def __init__(self, wait_rule: str = "offloads-first") -> None:
        self.wait_rule = wait_rule
        self.clock = 0
        self.pending: list[_Transfer] = []
        self.seq = 0
        self.same_tensor_blocks = 0  # service decisions in which the same-tensor ordering (R8)
        # held a transfer back

    def issue(self, tensor, nbytes, link: _Link, is_load, is_offload, deadline) -> _Transfer:
        tr = _Transfer(
            self.seq,
            tensor,
            nbytes,
            link.units(tensor, nbytes, is_load),
            is_load,
            is_offload,
            deadline,
        )
        self.seq += 1
        self.pending.append(tr)
        return tr

    def _next(self, waiting: bool) -> _Transfer | None:
        """The transfer to serve now. waiting = a step waits for capacity (first inheritance:
        every pending offload first, in (deadline, issue order))."""
        if not self.pending:
            return None

        def base(tr):
            if not waiting or self.wait_rule == "own-deadlines":
                return tr.key()
            if self.wait_rule == "issue-order":  # offloads first, among them by issue
                return (0, tr.seq) if tr.is_offload else (1,) + tr.key()
            return ((0 if tr.is_offload else 1),) + tr.key()  # SPEC §6

        # Second inheritance: a transfer behind a pending (earlier) offload of its tensor is held
        # back and lends its key to that offload.
        eff = {id(tr): base(tr) for tr in self.pending}
        blocked = set()
        for tr in self.pending:
            for off in self.pending:
                if (
                    off.is_offload
                    and off is not tr
                    and off.tensor == tr.tensor
                    and off.seq < tr.seq
                ):
                    blocked.add(id(tr))
                    eff[id(off)] = min(eff[id(off)], eff[id(tr)])
        if blocked:
            self.same_tensor_blocks += 1
        ready = [tr for tr in self.pending if id(tr) not in blocked]
        return min(ready, key=lambda tr: eff[id(tr)])

    def serve(self, until_time: int | None = None, until=None, waiting: bool = False) -> None:
        """Serve from self.clock until until_time, or until the condition until() holds."""
        while True:
            if until is not None and until():
                return
            tr = self._next(waiting)
            if tr is None:
                assert until is None, "waiting on a condition with nothing to serve"
                self.clock = max(self.clock, until_time)
                return
            if until_time is not None and self.clock + tr.remaining > until_time:
                tr.remaining -= until_time - self.clock
                self.clock = until_time
                return
            self.clock += tr.remaining
            tr.remaining = 0
            tr.done_at = self.clock
            self.pending.remove(tr)


# ---------------------------------------------------------------------------------------------
# What the channel has to do, step by step
# ---------------------------------------------------------------------------------------------


class _Work:
    """Everything the timeline needs, per step s (lists of (tensor, bytes or deadline))."""

    def __init__(self, n: int) -> None:
        self.onchip = [0] * n  # bytes that must be on-chip during s (R7)
        self.evict_before: list[list[int]] = [[] for _ in range(n)]  # tensors written out
        # when s wants to start, deadline s (no-lookahead, lru only)
        self.streamed_loads: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.streamed_stores: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.prefetch_at: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (t, deadline v)
        self.offload_after: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (t, deadline)


def _work_from_plan(n, tensors, accesses, plan: _Plan) -> _Work:
    work = _Work(n)
    # Bytes planned resident per step (R7: reservations are not data; offloads count instead).
    for t in tensors:
        for s in t.resident:
            work.onchip[s] += t.size
    use_at = {(t.index, u.step): j for t in tensors for j, u in enumerate(t.uses)}
    for s in range(n):
        for ti, read, write, partial, nbytes in accesses[s]:
            if partial:  # SPEC §2: always streamed
                if read:
                    work.streamed_loads[s].append((ti, nbytes))
                if write:
                    work.streamed_stores[s].append((ti, nbytes))
                continue
            t = tensors[ti]
            j = use_at[(ti, s)]
            # A read needs a load unless the tensor stayed from its previous use (kept) or was
            # prefetched; the load is a streamed read, or a rule-5 demand load if [s, ·] is kept.
            if read and not t.kept_into[j] and t.prefetch_from[j] is None:
                work.streamed_loads[s].append((ti, nbytes))
            # A write not resident at s goes straight off-chip.
            if write and s not in t.resident:
                work.streamed_stores[s].append((ti, nbytes))
    for ti, j, p in plan.prefetches:  # rule-4 order = issue order
        work.prefetch_at[p].append((ti, tensors[ti].uses[j].step))
    for u, ti, w in plan.offloads:
        work.offload_after[u].append((ti, w))
    for lst in work.offload_after:
        lst.sort()  # tensor order
    return work


def _linger(n, tensors, work: _Work, capacity: int) -> None:
    """``no-lookahead`` (SPEC §5 ablation, Fig. 4.2a): the plan is lookahead's, but a dirty tensor
    is not written out right after use u; it stays on-chip (counting against capacity) and is
    written out only when a step needs its space. Readings N1–N4 in the module docstring."""
    lingering: list[tuple[int, int]] = []  # (left after step u, tensor), oldest first
    for s in range(n):
        # N3: a tensor about to be transferred again is written out first.
        touched = {ti for ti, _ in work.streamed_loads[s] + work.streamed_stores[s]}
        touched |= {ti for ti, _ in work.prefetch_at[s]}
        for item in list(lingering):
            if item[1] in touched:
                lingering.remove(item)
                work.evict_before[s].append(item[1])
        # N2: then the oldest lingering tensors, until the step's data fits.
        while (
            lingering and work.onchip[s] + sum(tensors[ti].size for _, ti in lingering) > capacity
        ):
            work.evict_before[s].append(lingering.pop(0)[1])
        work.onchip[s] += sum(tensors[ti].size for _, ti in lingering)
        lingering += [(s, ti) for ti, _ in work.offload_after[s]]
        work.offload_after[s] = []
    # N4: what still lingers after the last step is written out then (drain).
    work.offload_after[n - 1] = sorted((ti, n) for _, ti in lingering)


def _lru(n, tensors, accesses, capacity, fifo: bool = False) -> tuple[_Work, dict]:
    """``lru`` (SPEC §5 ablation): an online LRU cache of whole tensors with demand loads and no
    knowledge of the future. Readings L1–L6 in the module docstring."""
    work = _Work(n)
    last_full_use = {t.index: t.uses[-1].step for t in tensors if t.uses}
    cache: dict[int, list] = {}  # tensor → [dirty, last used step, step cached]
    diag = {"kept": 0, "prefetched": 0, "born": 0, "offloads": 0}

    def used_bytes() -> int:
        return sum(tensors[ti].size for ti in cache)

    for s in range(n):
        for ti, read, write, partial, nbytes in accesses[s]:
            t = tensors[ti]
            if partial:
                # L5: streamed; a cached copy stays.
                if read:
                    work.streamed_loads[s].append((ti, nbytes))
                if write:
                    work.streamed_stores[s].append((ti, nbytes))
                continue
            if ti in cache:  # hit
                cache[ti][1] = s
                cache[ti][0] = cache[ti][0] or write
                diag["kept"] += 1
                continue
            if read:  # L2: demand load, streamed with s
                work.streamed_loads[s].append((ti, nbytes))
            # L3: make room by evicting least recently used tensors not used at s.
            while used_bytes() + t.size > capacity:
                # O8 (fifo): the earliest cached instead of the least recently used.
                victims = [
                    (cached if fifo else last, vi)
                    for vi, (_, last, cached) in cache.items()
                    if last < s
                ]
                if not victims:
                    break
                _, vi = min(victims)
                if cache[vi][0]:
                    work.evict_before[s].append(vi)
                    diag["offloads"] += 1
                del cache[vi]
            if used_bytes() + t.size <= capacity:
                cache[ti] = [write, s, s]
                if write and not read:
                    diag["born"] += 1
            elif write:
                work.streamed_stores[s].append((ti, nbytes))  # does not fit: streamed out
        for ti in cache:
            work.onchip[s] += tensors[ti].size
        # L4: after its last full use a tensor leaves the cache; a dirty must-end-off-chip
        # tensor is written out then (deadline: the end of the iteration).
        for ti in sorted(ti for ti in cache if last_full_use[ti] == s):
            if tensors[ti].must_end_offchip and cache[ti][0]:
                work.offload_after[s].append((ti, n))
                diag["offloads"] += 1
            del cache[ti]
    # L6: dirty tensors that must end off-chip and are still cached are written out at the end.
    final = sorted(
        ti for ti, (dirty, *_) in cache.items() if dirty and tensors[ti].must_end_offchip
    )
    work.offload_after[n - 1] += [(ti, n) for ti in final]
    diag["offloads"] += len(final)
    return work, diag


def _hardware_cache(n, tensors, accesses, capacity, line, fifo) -> tuple[_Work, dict]:
    """``lru(hardware=on)`` / ``fifo(hardware=on)`` (docs/model/onsram.md, rule O11, H1–H6): a
    fully associative cache of ``capacity // line`` lines, no liveness, no bypass."""
    work = _Work(n)
    diag = {"kept": 0, "prefetched": 0, "born": 0, "offloads": 0}
    slots = capacity // line
    lines: dict[tuple[int, int], bool] = {}  # (tensor, line) → dirty, in recency (fifo: age) order

    def size(key: tuple[int, int]) -> int:  # H1: the tensor's bytes in that line
        ti, j = key
        return min(line, tensors[ti].size - j * line)

    for s in range(n):
        evicted: dict[int, int] = {}  # tensor → dirty bytes written back, in first-eviction order
        for ti, read, write, partial, nbytes in accesses[s]:
            if partial or slots == 0:  # H5
                if read:
                    work.streamed_loads[s].append((ti, nbytes))
                if write:
                    work.streamed_stores[s].append((ti, nbytes))
                continue
            missed = 0
            for j in range(-(-tensors[ti].size // line)):
                key = (ti, j)
                if key in lines:
                    if not fifo:
                        lines[key] = lines.pop(key)  # most recent
                else:
                    if read:
                        missed += size(key)  # H2: demand load (a write-only line: no fetch)
                    if len(lines) == slots:  # H3: the oldest line goes, whatever it holds
                        victim = next(iter(lines))
                        if lines.pop(victim):
                            evicted[victim[0]] = evicted.get(victim[0], 0) + size(victim)
                    lines[key] = False
                if write:
                    lines[key] = True
            if missed:
                work.streamed_loads[s].append((ti, missed))
            diag["kept"] += bool(read and not missed)
            diag["born"] += bool(write and not read)
        # H3: the write-backs stream while the step computes (O1), after its own stores.
        work.streamed_stores[s] += list(evicted.items())
        diag["offloads"] += len(evicted)
        work.onchip[s] = sum(size(key) for key in lines)
    # H6: the dirty lines left are written back with the last step, in tensor order.
    drain: dict[int, int] = {}
    for key, dirty in lines.items():
        if dirty:
            drain[key[0]] = drain.get(key[0], 0) + size(key)
    work.streamed_stores[n - 1] += sorted(drain.items())
    diag["offloads"] += len(drain)
    return work, diag


def _mbs_strict(
    net,
    n,
    tensors,
    accesses,
    capacity,
    reuse,
    backward_reuse="same",
    fits_footprint="step",
    norm_passes=1,
    dy_passes=1,
) -> tuple[_Work, dict]:
    """``mbs-strict`` (docs/model/mbs.md, "Strict accounting"): weights, dW and states always
    move; an activation or gradient stays from one use to the next inside one segment (group,
    sub-batch, pass) by ``reuse`` (in the loss + backward pass anywhere in the segment when
    ``backward_reuse`` is ``group``), the keeps admitted by first step then tensor order while
    they fit; a write is stored when a later read before the next write loads. ``reuse=fits``
    compares each step's activation and gradient bytes with the capacity, or
    (``fits_footprint=forward``) a backward step's layer's forward step's. A load by a step
    whose activation and gradient bytes exceed the capacity moves ``norm_passes`` times its
    bytes at a batch-norm step (an activation or gradient), ``dy_passes`` times at a
    convolution's or dense layer's backward step reading (only) a gradient."""
    st = net.schedule.step_table()
    gt = net.schedule.group_table()
    passes = [0 if int(p) == 0 else 1 for p in st["phase"]]
    if len(gt["step_group"]):
        seg = [
            (int(g), int(k), p) for g, k, p in zip(gt["step_group"], gt["step_sub_batch"], passes)
        ]
    else:
        seg = [(0, 0, p) for p in passes]
    data = ("activation", "gradient")
    busy = [bool(accesses[s]) for s in range(n)]
    act = [sum(b for t, _, _, _, b in accesses[s] if tensors[t].role in data) for s in range(n)]
    size = list(act)  # what reuse=fits compares with the capacity
    if fits_footprint == "forward":
        phase = [int(p) for p in st["phase"]]
        layer = [int(x) for x in st["layer"]]
        fwd: dict[tuple, int] = {}
        for s in range(n):
            if phase[s] == 0 and layer[s] >= 0:
                key = (layer[s], seg[s][:2])
                fwd[key] = max(fwd.get(key, 0), act[s])
        for s in range(n):
            if phase[s] == 2 and (layer[s], seg[s][:2]) in fwd:
                size[s] = fwd[(layer[s], seg[s][:2])]

    def keeps(a: int, b: int) -> bool:
        if seg[a] != seg[b]:
            return False
        if backward_reuse == "group" and passes[a] == 1:
            return True  # a backward keep, whatever ``reuse`` (no capacity test of ``fits``)
        if reuse == "none":
            return False
        if reuse == "group":
            return True
        if any(busy[a + 1 : b]):
            return False
        return reuse == "adjacent" or (size[a] <= capacity and size[b] <= capacity)

    candidates = [
        (t.uses[j - 1].step, t.index, j, t.uses[j].step)
        for t in tensors
        if t.role in data
        for j in range(1, len(t.uses))
        if keeps(t.uses[j - 1].step, t.uses[j].step)
    ]
    work = _Work(n)
    kept: set[tuple[int, int]] = set()
    for a, ti, j, b in sorted(candidates):
        size = tensors[ti].size
        if max(work.onchip[a : b + 1]) + size > capacity:
            continue
        for s in range(a, b + 1):
            work.onchip[s] += size
        kept.add((ti, j))
    diag = {"kept": len(kept), "prefetched": 0, "born": 0, "offloads": 0}
    use_at = {(t.index, u.step): j for t in tensors for j, u in enumerate(t.uses)}
    kinds, phases = list(net.steps["kind"]), list(net.steps["phase"])

    def passes(s: int, t, write: bool) -> int:
        if act[s] <= capacity or t.role not in data:
            return 1
        if kinds[s] == "batchnorm":
            return norm_passes
        gemm = kinds[s] in ("conv2d", "depthwise_conv2d", "dense")
        if gemm and phases[s] == "bwd" and t.role == "gradient" and not write:
            return dy_passes
        return 1

    for s in range(n):
        loads, stores = [], []
        for ti, read, write, partial, nbytes in accesses[s]:
            if partial:
                if read:
                    loads.append((ti, nbytes))
                if write:
                    stores.append((ti, nbytes))
                continue
            t, j = tensors[ti], use_at[(ti, s)]
            if read and (ti, j) not in kept:
                loads.append((ti, nbytes * passes(s, t, write)))
            if write:
                out = t.must_end_offchip
                for k in range(j + 1, len(t.uses)):
                    if t.uses[k].read and (ti, k) not in kept:
                        out = True
                        break
                    if t.uses[k].write:
                        out = False
                        break
                if out:
                    stores.append((ti, nbytes))
        work.streamed_loads[s] += loads
        work.streamed_stores[s] += stores
        diag["offloads"] += len(stores)
    return work, diag


# ---------------------------------------------------------------------------------------------
# The timeline (SPEC §6)
# ---------------------------------------------------------------------------------------------


def _vdnn(n, tensors, net, select: str) -> tuple[_Work, dict]:
    """``vdnn-all`` / ``vdnn-conv`` / ``oracle`` (module docstring; docs/model/cdma.md V1–V6)."""
    work = _Work(n)
    steps = net.steps
    phase = list(steps["phase"])
    kind = list(steps["kind"])
    diag = {"kept": 0, "prefetched": 0, "born": 0, "offloads": 0}
    for t in tensors:
        if not t.uses:
            continue
        first, last = t.uses[0].step, t.uses[-1].step
        if t.role != "activation":
            on = range(n) if t.starts_offchip else range(first, last + 1)
            for s in on:
                work.onchip[s] += t.size
            continue
        fwd = [u for u in t.uses if phase[u.step] == "fwd"]
        selected = select != "none" and any(
            u.read and (select == "all" or kind[u.step] in ("conv2d", "depthwise_conv2d"))
            for u in fwd
        )
        u = fwd[-1].step if fwd else -1
        later = [x.step for x in t.uses if x.step > u]
        if selected and later and later[0] - 1 > u:
            v = later[0]
            on = list(range(first, u + 1)) + list(range(v - 1, last + 1))
            work.streamed_stores[u].append((t.index, t.size))
            work.prefetch_at[v - 1].append((t.index, v))
            diag["offloads"] += 1
            diag["prefetched"] += 1
        else:
            on = list(range(first, last + 1))
        for s in on:
            work.onchip[s] += t.size
    for lst in work.streamed_stores + work.prefetch_at:
        lst.sort()
    return work, diag


def _simulate(n, compute, tensors, work: _Work, capacity, link: _Link, wait_rule):
    ch = _Channel(wait_rule)
    steps = []
    prev_end = 0
    capacity_stall = 0
    offloads_inflight: list[_Transfer] = []
    prefetch_for: dict[int, list[_Transfer]] = {}  # deadline step → its prefetches

    def pending_out() -> int:
        return sum(tr.nbytes for tr in offloads_inflight if tr.done_at is None)

    for s in range(n):
        bytes_in = bytes_out = wire_in = wire_out = 0
        # no-lookahead / lru: write-outs forced by this step (issued when it wants to start).
        for ti in work.evict_before[s]:
            offloads_inflight.append(ch.issue(ti, tensors[ti].size, link, False, True, s))
            bytes_out += tensors[ti].size
            wire_out += link.wire(ti, tensors[ti].size)
        # Capacity: data on-chip during s + data still being written out ≤ capacity (§6).
        if work.onchip[s] + pending_out() > capacity:
            ch.serve(until=lambda: work.onchip[s] + pending_out() <= capacity, waiting=True)
        start = ch.clock
        capacity_stall += start - prev_end

        # Issue order at the start of s: streamed loads, streamed stores, prefetches (§6).
        needed = []
        for ti, nb in work.streamed_loads[s]:
            needed.append(ch.issue(ti, nb, link, True, False, s))
            bytes_in += nb
            wire_in += link.wire(ti, nb)
        for ti, nb in work.streamed_stores[s]:
            needed.append(ch.issue(ti, nb, link, False, False, s))
            bytes_out += nb
            wire_out += link.wire(ti, nb)
        for ti, v in work.prefetch_at[s]:
            tr = ch.issue(ti, tensors[ti].size, link, True, False, v)
            bytes_in += tensors[ti].size
            wire_in += link.wire(ti, tensors[ti].size)
            prefetch_for.setdefault(v, []).append(tr)
        needed += prefetch_for.get(s, [])  # R9: a late prefetch delays the end like a stream

        # End = max(start + compute, completion of what the step needs); the channel keeps
        # serving (other transfers) until then.
        ch.serve(until=lambda: all(tr.done_at is not None for tr in needed))
        end = max(start + compute[s], ch.clock)
        ch.serve(until_time=end)
        # Issue order at the end of s: the offloads after s, in tensor order.
        for ti, w in work.offload_after[s]:
            offloads_inflight.append(ch.issue(ti, tensors[ti].size, link, False, True, w))
            bytes_out += tensors[ti].size
            wire_out += link.wire(ti, tensors[ti].size)
        steps.append(
            {
                "start": start,
                "end": end,
                "compute": compute[s],
                "bytes_in": bytes_in,
                "bytes_out": bytes_out,
                "wire_in": wire_in,
                "wire_out": wire_out,
                "onchip": work.onchip[s],
                # the step's own streamed accesses (Result.steps bytes_streamed_in/out)
                "streamed_in": sum(nb for _, nb in work.streamed_loads[s]),
                "streamed_out": sum(nb for _, nb in work.streamed_stores[s]),
            }
        )
        prev_end = end
    ch.serve(until=lambda: not ch.pending)  # rule 7: drain
    return steps, prev_end, max(prev_end, ch.clock), capacity_stall, ch.same_tensor_blocks


def _systolic_work(
    net,
    ops_per_mac: int,
    rows: int = 128,
    cols: int = 128,
    dataflow: str = "ws",
    arrays: int = 1,
    vector: float = 1.0,
    waves: str = "folds",
    tile: int = 0,
) -> list[int]:
    """Per step, peak-equivalent FLOPs under the systolic compute model (module docstring)."""
    st = net.schedule.step_table()
    gt = net.schedule.gemm_table()
    n = len(st["macs"])
    cycles = [0] * n
    has_gemm = [False] * n
    for s, m, nn, k, count in zip(gt["step"], gt["m"], gt["n"], gt["k"], gt["count"]):
        sr, sc, t = {"ws": (k, nn, m), "os": (m, nn, k), "is": (k, m, nn)}[dataflow]
        sr, sc, t = int(sr), int(sc), int(t)
        blocks = int(count) * -(-sr // rows) * -(-sc // cols)
        # The streamed dimension in waves of `tile` lines (0: all of it) and a shorter last one.
        lens = [t] if tile == 0 or tile >= t else [tile] * (t // tile) + [t % tile] * (t % tile > 0)
        if waves == "folds":  # each wave a drained fold; the arrays share the folds of each length
            fill = (rows if dataflow == "os" else 2 * rows) + cols - 2
            cycles[int(s)] += sum(-(-blocks // arrays) * (fill + n) for n in lens)
        else:
            assert dataflow != "os", "pipelined / double-buffered waves need a preloaded operand"
            if waves == "pipelined":  # each wave loads its block (R cycles), then streams
                stream = blocks * sum(rows + n for n in lens)
                cycles[int(s)] += -(-stream // arrays) + rows + cols - 2
            else:  # double-buffered: a wave lasts max(lines, R), the last one only its lines
                stream = blocks * sum(max(n, rows) for n in lens)
                last_wait = max(lens[-1], rows) - lens[-1]
                cycles[int(s)] += -(-stream // arrays) - last_wait + rows + (rows + cols - 2)
        has_gemm[int(s)] = True
    v = Fraction(vector)
    work = []
    for s in range(n):
        rest = (
            int(st["flops"][s])
            if has_gemm[s]
            else ops_per_mac * int(st["macs"][s]) + int(st["flops"][s])
        )
        work.append(cycles[s] * ops_per_mac * rows * cols * arrays + math.ceil(rest / v))
    return work


def compute_slowdown(net, throughput: int, rate: float, ops_per_mac: int = 2) -> float:
    """docs/model/cdma.md rule G1: k = max(1, B / (rate · T)), B the bytes every step reads
    plus the bytes it writes (a read-modify-write in both), T the iteration's FLOPs at
    ``throughput`` (the ``oracle`` policy: compute only)."""
    _, flops, _, accesses = _read_schedule(net, ops_per_mac)
    moved = sum(b * read + b * write for step in accesses for _, read, write, _, b in step)
    return max(1.0, moved / (rate * sum(flops) / throughput))


def estimate(
    net,
    capacity: int,
    bandwidth: int,
    throughput: int,
    policy: str = "lookahead",
    ops_per_mac: int = 2,
    *,
    capacity_wait: str = "offloads-first",
    link: dict | None = None,
    compute: dict | None = None,
    reuse: str = "group",
    cache_options: dict | None = None,
) -> dict:
    """One training iteration of ``net`` on (capacity B, bandwidth B/s, throughput FLOP/s)
    under ``policy``; see the module docstring for the result and the readings of the model (docs/model/).

    ``capacity_wait`` exists only to check the sensitivity statements of the reference values:
    "offloads-first" (SPEC §6: while a step waits for capacity, pending offloads go first, in
    deadline then issue order), "issue-order" (offloads first, among themselves in issue
    order), "own-deadlines" (no inheritance: plain EDF during the wait).
    """
    if capacity_wait not in ("offloads-first", "issue-order", "own-deadlines"):
        raise ValueError(f"capacity_wait: unknown rule {capacity_wait!r}")
    if policy not in POLICIES + ONSRAM:
        raise ValueError(f"policy must be one of {POLICIES + ONSRAM}, got {policy!r}")
    capacity, bandwidth, throughput = int(capacity), int(bandwidth), int(throughput)
    n, flops, tensors, accesses = _read_schedule(net, ops_per_mac)
    if compute:
        ((model, options),) = compute.items()
        assert model == "systolic", model
        flops = _systolic_work(net, ops_per_mac, **options)
    compute = [f * bandwidth for f in flops]  # units, see module docstring
    cost = _Link(
        link,
        [t.role for t in tensors],
        bandwidth,
        throughput,
        [int(b) for b in net.schedule.tensor_table()["bytes"]],
        net.bytes_per_element,
    )
    if policy == "none":
        capacity = 0  # R10: capacity unused
    if policy in ("vdnn-all", "vdnn-conv", "oracle"):
        select = {"vdnn-all": "all", "vdnn-conv": "conv", "oracle": "none"}[policy]
        work, diag = _vdnn(n, tensors, net, select)
        capacity = 2**62  # V5: the capacity is not looked at (no capacity waits)
    elif policy in ("lru", "fifo") and (cache_options or {}).get("hardware", "off") == "on":
        line = int((cache_options or {}).get("line", 64))
        work, diag = _hardware_cache(n, tensors, accesses, capacity, line, policy == "fifo")
    elif policy in ("lru", "fifo"):
        work, diag = _lru(n, tensors, accesses, capacity, fifo=policy == "fifo")
    elif policy == "mbs-strict":
        reuse = (cache_options or {}).get("reuse", reuse)
        backward_reuse = (cache_options or {}).get("backward_reuse", "same")
        fits_footprint = (cache_options or {}).get("fits_footprint", "step")
        norm_passes = int((cache_options or {}).get("norm_passes", 1))
        dy_passes = int((cache_options or {}).get("dy_passes", 1))
        work, diag = _mbs_strict(
            net,
            n,
            tensors,
            accesses,
            capacity,
            reuse,
            backward_reuse,
            fits_footprint,
            norm_passes,
            dy_passes,
        )
    elif policy in ("onsram-eager-wb", "onsram-eager-spec"):
        work, diag, extra = _eager(
            net,
            n,
            compute,
            tensors,
            accesses,
            capacity,
            cost,
            policy.endswith("spec"),
            cache_options or {},
        )
        compute = [c + e for c, e in zip(compute, extra)]
    elif policy in ONSRAM:
        work, diag = _pinned(
            n, compute, tensors, accesses, capacity, cost, policy, cache_options or {}
        )
        if policy == "infinite-spm":  # O4: capacity ignored (nothing is written out to wait for)
            capacity = max([capacity, *work.onchip])
    else:
        streaming = (cache_options or {}).get("streaming", "free")
        assert streaming in ("free", "through-cache"), streaming
        plan = _plan(
            n,
            flops,
            tensors,
            capacity,
            bandwidth,
            cost,
            "lookahead" if policy == "no-lookahead" else policy,
            [sum(a[4] for a in acc) for acc in accesses] if streaming == "through-cache" else None,
        )
        work = _work_from_plan(n, tensors, accesses, plan)
        diag = {
            "kept": plan.kept,
            "prefetched": len(plan.prefetches),
            "born": len(plan.born),
            "offloads": len(plan.offloads),
        }
        if policy == "no-lookahead":
            _linger(n, tensors, work, capacity)

    steps, last_end, total, stall, blocks = _simulate(
        n, compute, tensors, work, capacity, cost, capacity_wait
    )
    unit = Fraction(1, throughput * bandwidth)
    for d in steps:
        for key in ("start", "end", "compute"):
            d[key] = d[key] * unit
    return {
        "time": total * unit,
        "traffic_in": sum(d["bytes_in"] for d in steps),
        "traffic_out": sum(d["bytes_out"] for d in steps),
        "link_in": sum(d["wire_in"] for d in steps),
        "link_out": sum(d["wire_out"] for d in steps),
        **diag,
        "capacity_stall": stall * unit,
        "drain": (total - last_end) * unit,
        "same_tensor_blocks": blocks,
        "steps": steps,
    }


def fold_batchnorm_expectation(net) -> dict:
    """What docs/model/network.md, "Folding batch norms (inference)", says folding changes,
    read off the unfolded network's layer table: the batch norms that fold (one input, a
    conv2d / depthwise_conv2d / dense read by no other layer), the parameters that go (each
    folded norm's γ, β, mean and variance, less a bias of one per output channel for a product
    that had none) and the forward FLOPs that go (the folded norms'), and the batch norms left."""
    layers = net.layers
    readers: dict[str, int] = {}
    for inputs in layers["inputs"]:
        for name in inputs:
            readers[name] = readers.get(name, 0) + 1
    kind = dict(zip(layers["name"], layers["kind"]))
    use_bias = {d["name"]: d.get("use_bias", True) for d in net.to_dict()["layers"]}
    folded = params = flops = 0
    for _, row in layers[layers["kind"] == "batchnorm"].iterrows():
        (producer,) = row["inputs"] if len(row["inputs"]) == 1 else (None,)
        if kind.get(producer) in ("conv2d", "depthwise_conv2d", "dense") and readers[producer] == 1:
            folded += 1
            params += int(row["params"]) - (0 if use_bias[producer] else row["output_shape"][-1])
            flops += int(row["fwd_flops"])
    left = int((layers["kind"] == "batchnorm").sum()) - folded
    return {"folded": folded, "params_removed": params, "forward_flops_removed": flops,
            "batchnorm_left": left}  # fmt: skip


def sram_bytes(o: dict, gb_bytes: int, path: str = "through") -> int:
    """Bytes that cross the global buffer (docs/model/energy.md, "What crosses the SRAM") from
    an :func:`estimate` result ``o`` and the schedule's step bytes ``gb_bytes``: ``through``,
    every step byte and every off-chip byte once more; ``bypass``, a step's streamed accesses
    (its ``streamed_in`` / ``streamed_out``) leave both counts."""
    traffic = o["traffic_in"] + o["traffic_out"]
    if path == "through":
        return gb_bytes + traffic
    streamed = sum(d["streamed_in"] + d["streamed_out"] for d in o["steps"])
    return gb_bytes + traffic - 2 * streamed
