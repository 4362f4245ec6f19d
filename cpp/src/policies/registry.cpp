#include <stdexcept>

#include "dnnmem/policies.hpp"

namespace dnnmem {

const std::vector<Policy>& policies() {
  static const std::vector<Policy> all = {
      {"lookahead", "Bélády reuse intervals + look-ahead offload + latency-aware prefetch (thesis)",
       Scheduler::Default, &plan_lookahead},
      {"belady", "as lookahead, without any prefetch: every load streamed at its use",
       Scheduler::Default, &plan_belady},
      {"prefetch-next", "as lookahead, prefetching one step ahead (thesis Fig. 4.1a)",
       Scheduler::Default, &plan_prefetch_next},
      {"no-lookahead", "as lookahead, writing a dirty tensor out only when its space is needed "
       "(thesis Fig. 4.2a)", Scheduler::Default, &plan_no_lookahead},
      {"lru", "online LRU cache of whole tensors with demand loads, no knowledge of the future",
       Scheduler::Default, &plan_lru},
      {"none", "no cache: every access streamed", Scheduler::Default, &plan_none},
  };
  return all;
}

Plan make_plan(const Policy& policy, const PlanInput& in) {
  PlanScratch scratch;
  Plan p;
  policy.plan(in, scratch, p);
  return p;
}

const Policy& find_policy(std::string_view name) {
  std::string names;
  for (const auto& p : policies()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  throw std::invalid_argument("policy: unknown policy '" + std::string(name) + "' (valid: " + names + ")");
}

}  // namespace dnnmem
