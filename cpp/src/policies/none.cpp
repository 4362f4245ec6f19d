// Policy `none`: the capacity is unused and every access is streamed (SPEC §5, §8 P2).
#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

namespace dnnmem {

void plan_none(const PlanInput& in, PlanScratch&, Plan& p) {
  p.transfers.clear();
  p.counts = {};
  p.resident.assign(in.schedule.steps.size(), 0);
  stream_everything(in.schedule, p);
}

extern const CachePart cache_none{"none", "no cache: every access streamed", {}, 0, &plan_none,
                                  /*capacity_free=*/true};

}  // namespace dnnmem
