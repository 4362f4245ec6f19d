"""Cross-check of the C++ ``lru`` policy (readings L1–L6 of oracle.py) against libCacheSim's LRU
(https://github.com/1a1a11a/libCacheSim, PyPI ``libcachesim``), an independent cache simulator.

The trace is the schedule's full accesses in step / access-list order, object id = tensor index,
object size = tensor bytes (partial embedding-row accesses are not requests). A miss is a full
access that is not a cache hit; the C++ misses are read off the public result: a full read that
misses is a demand load (``bytes_in`` of its step, less the step's partial reads), a write-only
full access is always a miss (it creates the tensor, checked below), and hits = ``counts["kept"]``.

Two points of L1–L6 are not plain LRU; the trace fed to libCacheSim is transformed for them:

- L4 (frees): after its last full use a tensor leaves the cache (the graph knows it is dead; a
  dirty dW is written out then). Transformation: ``remove(tensor)`` at the end of that step.
  Without it the dead tensors stay in libCacheSim's cache and push live ones out (ResNet-50
  N=32 at 500 MiB, the plain trace: libCacheSim 759 misses, ours 715; with the frees alone: 715
  too). L5 (partial accesses are streamed and leave the cache alone) needs no transformation:
  partial accesses are simply not requests.
- L3's tie-break: our recency is per step, ties in tensor order; libCacheSim's is per request.
  Transformation: at the end of each step its surviving tensors are touched again in tensor order
  (``find(req, update_cache=True)``, not counted as requests).

With these the two agree exactly whenever the capacity is at least the largest step working set
(Σ bytes of the distinct tensors one step accesses in full). Below it one difference remains, by
design of L3: our cache never evicts a tensor the current step uses, and streams (does not cache)
an access that does not fit beside them, after evicting every older tensor; libCacheSim evicts
the step's own earlier operands (and inserts nothing, evicting nothing, for an object larger than
the whole cache). ``test_below_the_step_working_set`` shows it on a two-layer example, and
``test_lru_emulated_l3`` checks that this is the only difference: adding L3's rule around
libCacheSim's LRU gives exact agreement at every capacity.
"""

from __future__ import annotations

import pytest

lcs = pytest.importorskip("libcachesim")

from budget import examples  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_policies_oracle import random_network  # noqa: E402

import dnnmem  # noqa: E402

MiB = 2**20
HW = dict(bandwidth="616GB/s", throughput="13.45TFLOPS")


class Trace:
    """The schedule's accesses per step: (tensor, read, write, partial, bytes)."""

    def __init__(self, net: dnnmem.Network) -> None:
        sch = net.schedule
        st_, at, tt = sch.step_table(), sch.access_table(), sch.tensor_table()
        self.size = [int(b) for b in tt["bytes"]]
        self.must_end = [bool(b) for b in tt["must_end_offchip"]]
        self.steps: list[list[tuple[int, bool, bool, bool, int]]] = []
        k = 0
        for s in range(len(st_["num_accesses"])):
            acc = []
            for _ in range(int(st_["num_accesses"][s])):
                acc.append(
                    (
                        int(at["tensor"][k]),
                        bool(at["read"][k]),
                        bool(at["write"][k]),
                        bool(at["partial"][k]),
                        int(at["bytes"][k]),
                    )
                )
                k += 1
            self.steps.append(acc)
        self.last_full: dict[int, int] = {}
        seen: set[int] = set()
        for s, acc in enumerate(self.steps):
            for t, read, write, partial, _ in acc:
                if not partial:
                    self.last_full[t] = s
                    # A write-only full access creates its tensor: a miss in any cache.
                    assert read or not write or t not in seen, "write-only access of a live tensor"
                seen.add(t)
        self.working_set = max(
            (sum(self.size[t] for t in {a[0] for a in acc if not a[3]}) for acc in self.steps),
            default=0,
        )


def cpp_misses(net: dnnmem.Network, trace: Trace, capacity: int):
    """(read-miss bytes per step, miss bytes, miss count) of the C++ lru."""
    r = dnnmem.estimate(net, policy="lru", capacity=capacity, **HW)
    per_step = [
        int(b) - sum(nb for _, read, _, partial, nb in acc if partial and read)
        for b, acc in zip(r.steps["bytes_in"], trace.steps)
    ]
    write_only = sum(
        nb
        for acc in trace.steps
        for _, read, write, partial, nb in acc
        if write and not read and not partial
    )
    full = sum(1 for acc in trace.steps for a in acc if not a[3])
    return per_step, sum(per_step) + write_only, full - r.counts["kept"]


def libcachesim_misses(
    trace: Trace,
    capacity: int,
    *,
    frees: bool = True,
    step_ties: bool = True,
    emulate_l3: bool = False,
):
    """The same as cpp_misses from libCacheSim's LRU on the (transformed) trace."""
    cache = lcs.LRU(cache_size=capacity, hashpower=12)

    def req(t: int):
        return lcs.Request(obj_size=trace.size[t], obj_id=t)

    def cached(t: int) -> bool:
        return cache.find(req(t), False) is not None

    per_step, miss_bytes, misses = [], 0, 0
    for s, acc in enumerate(trace.steps):
        used: list[int] = []
        read_miss = 0
        for t, read, _write, partial, nbytes in acc:
            if partial:  # L5
                continue
            if (
                emulate_l3
                and not cached(t)
                and sum(trace.size[u] for u in set(used) if cached(u)) + trace.size[t] > capacity
            ):
                for u in range(len(trace.size)):  # L3: flush, then stream
                    if u not in used and cached(u):
                        cache.remove(u)
                hit = False
            else:
                hit = cache.get(req(t))
                used.append(t)
            if not hit:
                misses += 1
                miss_bytes += nbytes
                read_miss += nbytes if read else 0
        per_step.append(read_miss)
        for t in sorted(set(used)):
            if not cached(t):
                continue
            if frees and trace.last_full[t] == s:
                cache.remove(t)  # L4
            elif step_ties:
                cache.find(req(t), True)  # recency per step
    return per_step, miss_bytes, misses


@pytest.fixture(scope="module")
def traces():
    out = {}
    for name, batch in (("resnet50", 32), ("transformer", 128)):
        net = dnnmem.network(name, batch=batch)
        out[name] = (net, Trace(net))
    return out


def _capacities(trace: Trace) -> list[int]:
    ws = trace.working_set
    return sorted({ws, ws + 1, 500 * MiB if 500 * MiB >= ws else 3 * ws // 2, 2 * ws, 2**40})


@pytest.mark.parametrize("name", ["resnet50", "transformer"])
def test_reference_networks_from_the_step_working_set_up(traces, name):
    net, trace = traces[name]
    for capacity in _capacities(trace):
        assert libcachesim_misses(trace, capacity) == cpp_misses(net, trace, capacity), capacity


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=random_network(), batch=st.integers(1, 4), extra=st.floats(0, 2))
def test_random_networks_from_the_step_working_set_up(doc, batch, extra):
    net = dnnmem.load_network(doc, batch=batch)
    trace = Trace(net)
    capacity = int(trace.working_set * (1 + extra))
    assert libcachesim_misses(trace, capacity) == cpp_misses(net, trace, capacity)


def test_without_frees_dead_tensors_push_live_ones_out(traces):
    net, trace = traces["resnet50"]
    ours = cpp_misses(net, trace, 500 * MiB)
    assert ours[1:] == (10_194_188_608, 715)
    raw = libcachesim_misses(trace, 500 * MiB, frees=False, step_ties=False)
    assert raw[1:] == (10_794_062_144, 759)
    assert libcachesim_misses(trace, 500 * MiB, step_ties=False) == ours


def test_below_the_step_working_set():
    """F(r) reads Y:x (192 B) and writes Y:r (192 B); the loss step reads Y:r. Capacity 235 B:
    ours caches Y:x, cannot fit Y:r beside it (it never evicts the step's own operand) and
    streams Y:r out, so the loss step misses: 3 misses. libCacheSim evicts Y:x to insert Y:r,
    and the loss step hits: 2 misses."""
    doc = {
        "name": "two",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4, 3, 1]},
            {"name": "r", "kind": "relu", "inputs": ["x"]},
        ],
    }
    net = dnnmem.load_network(doc, batch=4)
    trace = Trace(net)
    assert trace.size == [192, 192] and trace.working_set == 384
    assert cpp_misses(net, trace, 235) == ([192, 192], 576, 3)
    assert libcachesim_misses(trace, 235) == ([192, 0], 384, 2)
    assert libcachesim_misses(trace, 235, emulate_l3=True) == cpp_misses(net, trace, 235)


@pytest.mark.parametrize("name", ["resnet50", "transformer"])
def test_lru_emulated_l3(traces, name):
    """L3's rule added around libCacheSim's LRU: exact at every capacity."""
    net, trace = traces[name]
    for capacity in (24 * MiB, 128 * MiB, 500 * MiB):
        assert libcachesim_misses(trace, capacity, emulate_l3=True) == cpp_misses(
            net, trace, capacity
        ), capacity


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=random_network(), batch=st.integers(1, 4), frac=st.floats(0.01, 1))
def test_random_networks_emulated_l3(doc, batch, frac):
    net = dnnmem.load_network(doc, batch=batch)
    trace = Trace(net)
    capacity = int(trace.working_set * frac)
    assert libcachesim_misses(trace, capacity, emulate_l3=True) == cpp_misses(net, trace, capacity)
