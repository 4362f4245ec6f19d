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
  Plan (*plan)(const PlanInput&);
};

const std::vector<Policy>& policies();
// Throws std::invalid_argument listing the valid names.
const Policy& find_policy(std::string_view name);

// The cache managers, one per file under cpp/src/policies/.
Plan plan_none(const PlanInput& in);
Plan plan_lookahead(const PlanInput& in);
Plan plan_belady(const PlanInput& in);
Plan plan_prefetch_next(const PlanInput& in);
Plan plan_no_lookahead(const PlanInput& in);
Plan plan_lru(const PlanInput& in);

}  // namespace dnnmem
