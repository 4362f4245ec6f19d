// `one-step` (docs/model/onsram.md, rule O5): the OnSRAM paper's 1-Step. A candidate (rule O2)
// whose last full use is at most one step after its first is pinned if it fits at both steps
// (capacity less `reserve`), in order of first use, then tensor order; the rest is streamed.
#include <algorithm>

#include "dnnmem/compose.hpp"
#include "pinning.hpp"

namespace dnnmem {
namespace {

void plan_one_step(const PlanInput& in, PlanScratch& w, Plan& plan) {
  const Schedule& s = in.schedule;
  const std::size_t nt = s.tensors.size();
  const std::int64_t room = in.capacity - static_cast<std::int64_t>(in.options->number("reserve"));
  std::vector<int>& order = w.entries;
  order.clear();
  for (std::size_t t = 0; t < nt; ++t)
    if (detail::pin_candidate(s, t) && detail::pin_end(s, t) <= detail::pin_start(s, t) + 1)
      order.push_back(static_cast<int>(t));
  std::stable_sort(order.begin(), order.end(), [&s](int a, int b) {
    return detail::pin_start(s, static_cast<std::size_t>(a)) < detail::pin_start(s, static_cast<std::size_t>(b));
  });
  std::vector<std::int64_t>& occ = w.tree;
  occ.assign(s.steps.size(), 0);
  w.cached.assign(nt, 0);
  // Probing (PlanScratch::probe_capacity), as in onsram-static: the plan at a larger capacity
  // is this one unless a rejected candidate would fit there.
  bool probe = w.probe_capacity > in.capacity;
  const std::int64_t probe_room = room + (w.probe_capacity - in.capacity);
  for (int ti : order) {
    const auto t = static_cast<std::size_t>(ti);
    const auto a = static_cast<std::size_t>(detail::pin_start(s, t));
    const auto b = static_cast<std::size_t>(detail::pin_end(s, t));
    const std::int64_t size = s.tensors[t].bytes;
    if (occ[a] + size > room || occ[b] + size > room) {
      if (probe && occ[a] + size <= probe_room && occ[b] + size <= probe_room) probe = false;
      continue;
    }
    occ[a] += size;
    if (b != a) occ[b] += size;
    w.cached[t] = 1;
  }
  detail::plan_pinned(s, w.cached, w.resident_diff, plan);
  w.probe_same = probe;
}

}  // namespace

extern const CachePart cache_one_step{
    "one-step",
    "OnSRAM's 1-Step: pin each activation whose reuse ends with the next step, if it fits",
    {number_option("reserve", "bytes", "capacity held back at every step (staging buffers)", 0, 0,
                   1e18)},
    0, &plan_one_step};

}  // namespace dnnmem
