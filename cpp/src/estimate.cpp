#include "dnnmem/estimate.hpp"

#include <stdexcept>

#include "dnnmem/policies.hpp"

namespace dnnmem {

Estimate estimate(const Schedule& s, const Hardware& hw, const EstimateOptions& options) {
  if (options.ops_per_mac != 1 && options.ops_per_mac != 2)
    throw std::invalid_argument("ops_per_mac: must be 1 or 2, got " + std::to_string(options.ops_per_mac));
  const Policy& policy = find_policy(options.policy);
  const PlanInput in = make_plan_input(s, hw, options.ops_per_mac);
  Estimate e;
  e.time = in.time;
  e.plan = policy.plan(in);
  e.timeline = simulate(in, e.plan);
  const Timeline& tl = e.timeline;
  Ticks compute = 0, capacity_stall = 0;
  for (const auto& st : tl.steps) {
    compute += st.compute;
    capacity_stall += st.capacity_stall;
  }
  e.seconds = in.time.seconds(tl.total);
  e.steps_seconds = in.time.seconds(tl.steps_end);
  e.drain_seconds = in.time.seconds(tl.total - tl.steps_end);
  e.compute_seconds = in.time.seconds(compute);
  e.stall_seconds = in.time.seconds(tl.steps_end - compute);
  e.capacity_stall_seconds = in.time.seconds(capacity_stall);
  e.traffic_in = tl.traffic_in;
  e.traffic_out = tl.traffic_out;
  return e;
}

}  // namespace dnnmem
