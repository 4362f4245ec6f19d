// `infinite-spm` (docs/model/onsram.md, rule O4): the OnSRAM paper's infinite-sized scratchpad.
// Every candidate tensor (rule O2) is pinned for its whole live interval, whatever the capacity;
// weights, inputs and outputs still move. The bound no OnSRAM-family manager beats.
#include "dnnmem/compose.hpp"
#include "pinning.hpp"

namespace dnnmem {
namespace {

void plan_infinite_spm(const PlanInput& in, PlanScratch& w, Plan& plan) {
  const Schedule& s = in.schedule;
  w.cached.assign(s.tensors.size(), 0);
  for (std::size_t t = 0; t < s.tensors.size(); ++t) w.cached[t] = detail::pin_candidate(s, t);
  detail::plan_pinned(s, w.cached, w.resident_diff, plan);
}

}  // namespace

extern const CachePart cache_infinite_spm{
    "infinite-spm",
    "OnSRAM's infinite scratchpad: every activation / gradient pinned for its live interval, capacity ignored",
    {}, 0, &plan_infinite_spm, /*capacity_free=*/true, /*unbounded=*/true};

}  // namespace dnnmem
