// `fifo` (docs/model/onsram.md, rule O8): the `lru` cache of whole tensors (readings L1-L6,
// cpp/src/policies/lru.cpp) with the victim chosen first-in first-out: the tensor cached
// earliest (ties: tensor order) among those not used at this step; a hit does not move a tensor
// in the order. The OnSRAM paper's other "cache-based" comparison.
#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

namespace dnnmem {
namespace {

void plan_fifo(const PlanInput& in, PlanScratch& w, Plan& plan) {
  if (in.options->choice("hardware") == "on")
    plan_hardware_cache(in, plan, true);
  else
    plan_whole_tensor_cache(in, w, plan, true);
}

}  // namespace

extern const CachePart cache_fifo{"fifo", "online FIFO cache of whole tensors with demand loads (lru's cache, first-in first-out victims)",
                                  whole_tensor_cache_options(), 0, &plan_fifo};

}  // namespace dnnmem
