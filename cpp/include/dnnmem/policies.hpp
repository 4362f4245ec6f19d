// The cache managers' plan functions, one file each under cpp/src/policies/ (their registry
// entries, CachePart, are at the end of each file; the registry is cpp/src/registry.cpp).
#pragma once

#include "dnnmem/plan.hpp"

namespace dnnmem {

struct CachePart;  // compose.hpp

// Each writes its plan into `out` (cleared first), using `scratch`'s buffers.
void plan_none(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_lookahead(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_belady(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_prefetch_next(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_no_lookahead(const PlanInput& in, PlanScratch& scratch, Plan& out);
// lookahead with rule 2 replaced by the kept intervals given (in.kept_given, docs/model/optimal.md).
void plan_lp_rounded(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_lru(const PlanInput& in, PlanScratch& scratch, Plan& out);
// lru (fifo = false) and fifo (true): one cache of whole tensors, two victim orders.
void plan_whole_tensor_cache(const PlanInput& in, PlanScratch& scratch, Plan& out, bool fifo);
// lru / fifo with option hardware=on: a cache of lines with no liveness and no bypass (rule O11).
void plan_hardware_cache(const PlanInput& in, Plan& out, bool fifo);
// The options lru and fifo share (hardware, line).
std::vector<OptionSpec> whole_tensor_cache_options();
void plan_vdnn_all(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_vdnn_conv(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_oracle(const PlanInput& in, PlanScratch& scratch, Plan& out);

// A plan made with fresh buffers (estimate(), tests).
Plan make_plan(const CachePart& cache, const PlanInput& in);

}  // namespace dnnmem
