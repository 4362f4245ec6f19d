// `lru` (SPEC §5 ablation): an online LRU cache of whole tensors with demand loads and no
// knowledge of the future — readings L1–L6 of tests/python/oracle.py:
//   L1  accesses are processed step by step in access-list order;
//   L2  a full read of a tensor not cached is a demand load (streamed with its step, rule 5) and
//       the data stays; a write allocates the tensor, dirty;
//   L3  to make room, the least recently used tensors not used at this step are evicted (ties:
//       tensor order); a dirty victim is written out (an Evict transfer: deadline = the step,
//       issued as the step wants to start, so it waits for the space). If the tensor still does
//       not fit, the access is streamed and the tensor not cached;
//   L4  after its last full use a tensor is freed (liveness is known from the graph): at no cost,
//       or, for a dirty tensor that must end off-chip (dW), by writing it out then (an Offload
//       issued after the step, deadline the end of the iteration) — a dead dW kept dirty would
//       only push live tensors out (SPEC §8 P1 failed at capacity = peak alive bytes);
//   L5  partial accesses are streamed and leave a cached copy alone, as in every policy (SPEC
//       §2: a partial access is not a use for residency);
//   L6  dirty dW still cached after the last step are written out then (drain).
// Counts: kept = cache hits, born = write-only allocations, offloads = dirty write-outs,
// prefetched = 0. The LRU order is an intrusive list over tensors (no allocation per access):
// tensors used at the current step join its tail, in tensor order, when the step ends, so the
// list is always ordered by (last use, tensor).
#include <algorithm>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

namespace dnnmem {

void plan_whole_tensor_cache(const PlanInput& in, PlanScratch& w, Plan& plan, bool fifo) {
  const Schedule& s = in.schedule;
  const UseIndex& x = s.index;
  const std::size_t nt = s.tensors.size();
  const int n = static_cast<int>(s.steps.size());
  const std::int64_t capacity = in.capacity;
  plan.transfers.clear();
  plan.counts = {};
  plan.resident.assign(s.steps.size(), 0);
  plan.transfers.reserve(s.accesses.size() + 16);

  std::vector<int>& last_full = w.last_full;  // step of the last full use
  last_full.assign(nt, -1);
  for (std::size_t t = 0; t < nt; ++t)
    if (x.full_begin[t] < x.full_begin[t + 1])
      last_full[t] = x.full_step[static_cast<std::size_t>(x.full_begin[t + 1] - 1)];

  std::vector<std::uint8_t>& cached = w.cached;
  std::vector<std::uint8_t>& dirty = w.dirty_now;
  std::vector<std::uint8_t>& listed = w.listed;
  cached.assign(nt, 0);
  dirty.assign(nt, 0);
  listed.assign(nt, 0);
  std::vector<int>& last = w.last_access;  // step of the last access while cached
  last.assign(nt, -1);
  std::vector<int>& prev = w.prev;         // the LRU list: cached, last use < this step
  std::vector<int>& next = w.next;
  prev.assign(nt, -1);
  next.assign(nt, -1);
  int head = -1, tail = -1;
  std::int64_t used = 0;
  auto bytes = [&](int t) { return s.tensors[static_cast<std::size_t>(t)].bytes; };
  auto unlink = [&](int t) {
    const auto i = static_cast<std::size_t>(t);
    (prev[i] < 0 ? head : next[static_cast<std::size_t>(prev[i])]) = next[i];
    (next[i] < 0 ? tail : prev[static_cast<std::size_t>(next[i])]) = prev[i];
    prev[i] = next[i] = -1;
    listed[i] = 0;
  };
  auto append = [&](int t) {
    const auto i = static_cast<std::size_t>(t);
    prev[i] = tail;
    next[i] = -1;
    (tail < 0 ? head : next[static_cast<std::size_t>(tail)]) = t;
    tail = t;
    listed[i] = 1;
  };
  auto uncache = [&](int t) {
    const auto i = static_cast<std::size_t>(t);
    if (listed[i]) unlink(t);
    cached[i] = 0;
    used -= bytes(t);
  };

  int max_accesses = 0;
  for (const Step& st : s.steps) max_accesses = std::max(max_accesses, st.num_accesses);
  std::vector<int>& touched = w.used_now;  // tensors cached by an access of this step
  std::vector<Transfer>& evicts = w.evicts;
  std::vector<Transfer>& loads = w.loads;
  std::vector<Transfer>& stores = w.stores;
  std::vector<Transfer>& offloads = w.offloads;
  touched.clear();
  touched.reserve(static_cast<std::size_t>(max_accesses));
  loads.reserve(static_cast<std::size_t>(max_accesses));
  stores.reserve(static_cast<std::size_t>(max_accesses));
  evicts.reserve(nt);

  for (int step = 0; step < n; ++step) {
    check_interrupt_every(static_cast<std::size_t>(step));
    const Step& st = s.steps[static_cast<std::size_t>(step)];
    touched.clear();
    evicts.clear();
    loads.clear();
    stores.clear();
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const int t = a.tensor;
      const auto i = static_cast<std::size_t>(t);
      if (a.partial) {  // L5
        if (a.read) loads.push_back({t, TransferKind::StreamLoad, a.bytes, step, step});
        if (a.write) stores.push_back({t, TransferKind::StreamStore, a.bytes, step, step});
        continue;
      }
      if (cached[i]) {  // a hit (fifo: the tensor keeps its place in the order)
        if (listed[i] && !fifo) unlink(t);
        if (last[i] != step) touched.push_back(t);
        last[i] = step;
        dirty[i] = dirty[i] || a.write;
        ++plan.counts.kept;
        continue;
      }
      if (a.read) loads.push_back({t, TransferKind::StreamLoad, a.bytes, step, step});  // L2
      const std::int64_t size = bytes(t);
      while (used + size > capacity) {  // L3
        // The first listed tensor not used at this step (lru: the head; fifo skips hits).
        int victim = head;
        while (victim >= 0 && last[static_cast<std::size_t>(victim)] == step)
          victim = next[static_cast<std::size_t>(victim)];
        if (victim < 0) break;
        if (dirty[static_cast<std::size_t>(victim)]) {
          evicts.push_back({victim, TransferKind::Evict, bytes(victim), step, step});
          ++plan.counts.offloads;
        }
        uncache(victim);
      }
      if (used + size <= capacity) {
        cached[i] = 1;
        dirty[i] = a.write;
        used += size;
        if (last[i] != step) touched.push_back(t);
        last[i] = step;
        if (a.write && !a.read) ++plan.counts.born;
      } else if (a.write) {
        stores.push_back({t, TransferKind::StreamStore, a.bytes, step, step});
      }
    }
    plan.resident[static_cast<std::size_t>(step)] = used;
    // L4, then the survivors join the LRU list's tail in tensor order.
    std::sort(touched.begin(), touched.end());
    offloads.clear();
    for (int t : touched) {
      const auto i = static_cast<std::size_t>(t);
      if (!cached[i]) continue;
      if (last_full[i] != step) {
        if (!listed[i]) append(t);
        continue;
      }
      if (s.tensors[i].must_end_offchip && dirty[i]) {
        offloads.push_back({t, TransferKind::Offload, bytes(t), step, n});
        ++plan.counts.offloads;
      }
      uncache(t);
    }
    plan.transfers.insert(plan.transfers.end(), evicts.begin(), evicts.end());
    plan.transfers.insert(plan.transfers.end(), loads.begin(), loads.end());
    plan.transfers.insert(plan.transfers.end(), stores.begin(), stores.end());
    plan.transfers.insert(plan.transfers.end(), offloads.begin(), offloads.end());
  }
  // L6
  for (std::size_t i = 0; i < nt; ++i) {
    if (cached[i] && dirty[i] && s.tensors[i].must_end_offchip) {
      const int t = static_cast<int>(i);
      plan.transfers.push_back({t, TransferKind::Offload, bytes(t), n - 1, n});
      ++plan.counts.offloads;
    }
  }
}

void plan_lru(const PlanInput& in, PlanScratch& w, Plan& plan) {
  if (in.options->choice("hardware") == "on")
    plan_hardware_cache(in, plan, false);
  else
    plan_whole_tensor_cache(in, w, plan, false);
}

std::vector<OptionSpec> whole_tensor_cache_options() {
  return {choice_option("hardware", "off: whole tensors, liveness known, bypass when they do not fit (L1-L6); on: a "
                        "hardware cache of lines, no liveness, no bypass (docs/model/onsram.md, rule O11)", "off",
                        {"off", "on"}),
          number_option("line", "bytes", "line size of the hardware cache (hardware=on)", 64, 1, 1 << 30)};
}

extern const CachePart cache_lru{"lru", "online LRU cache of whole tensors with demand loads, no knowledge of the future",
                                 whole_tensor_cache_options(), 0, &plan_lru};

}  // namespace dnnmem
