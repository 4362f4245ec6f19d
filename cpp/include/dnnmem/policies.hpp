// The policy registry. A policy = a scheduler (how the iteration is ordered into steps) + a
// cache manager (what stays on chip, when transfers happen) + transfer options. Adding one is
// one file under cpp/src/policies/ and one line in registry.cpp; the timeline never changes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dnnmem/plan.hpp"

namespace dnnmem {

struct Policy {
  std::string_view name;
  std::string_view description;
  Scheduler scheduler = Scheduler::Default;
  // Writes the plan into `out` (its storage reused), with `scratch` for working buffers.
  void (*plan)(const PlanInput&, PlanScratch& scratch, Plan& out);
};

const std::vector<Policy>& policies();
// Throws std::invalid_argument listing the valid names.
const Policy& find_policy(std::string_view name);

// The cache managers, one per file under cpp/src/policies/: each writes its plan into `out`
// (cleared first), using `scratch`'s buffers.
void plan_none(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_lookahead(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_belady(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_prefetch_next(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_no_lookahead(const PlanInput& in, PlanScratch& scratch, Plan& out);
void plan_lru(const PlanInput& in, PlanScratch& scratch, Plan& out);

// A plan made with fresh buffers (estimate(), tests).
Plan make_plan(const Policy& policy, const PlanInput& in);

}  // namespace dnnmem
