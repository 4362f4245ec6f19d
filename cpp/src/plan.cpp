#include "dnnmem/plan.hpp"

#include "dnnmem/compose.hpp"

namespace dnnmem {

PlanInput make_plan_input(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy,
                          std::vector<Ticks>&& compute) {
  PlanInput in{s, hw.capacity, time_base(hw), policy.ops_per_mac, std::move(compute),
               &policy.link, &policy.cache_options};
  in.compute.clear();
  in.compute.reserve(s.steps.size());
  for (const std::int64_t work : policy.compute.work) in.compute.push_back(in.time.compute(work));
  return in;
}

void stream_everything(const Schedule& s, Plan& plan) {
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (a.read) plan.transfers.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
    }
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (a.write) plan.transfers.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
    }
  }
}

}  // namespace dnnmem
