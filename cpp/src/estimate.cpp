#include "dnnmem/estimate.hpp"

#include <stdexcept>

#include "dnnmem/policies.hpp"
#include "point.hpp"

namespace dnnmem {

PointTotals totals(const TimeBase& time, const Timeline& tl, const PlanCounts& counts) {
  Ticks compute = 0, capacity_stall = 0;
  for (const auto& st : tl.steps) {
    compute += st.compute;
    capacity_stall += st.capacity_stall;
  }
  PointTotals t;
  t.seconds = time.seconds(tl.total);
  t.steps_seconds = time.seconds(tl.steps_end);
  t.drain_seconds = time.seconds(tl.total - tl.steps_end);
  t.compute_seconds = time.seconds(compute);
  t.stall_seconds = time.seconds(tl.steps_end - compute);
  t.capacity_stall_seconds = time.seconds(capacity_stall);
  t.traffic_in = tl.traffic_in;
  t.traffic_out = tl.traffic_out;
  t.counts = counts;
  return t;
}

PointTotals evaluate_point(const Schedule& s, const Hardware& hw, const Policy& policy,
                           int ops_per_mac, PointWorkspace& ws) {
  const PlanInput in = make_plan_input(s, hw, ops_per_mac);
  ws.plan = policy.plan(in);
  const Timeline tl = simulate(in, ws.plan);
  return totals(in.time, tl, ws.plan.counts);
}

Estimate estimate(const Schedule& s, const Hardware& hw, const EstimateOptions& options) {
  if (options.ops_per_mac != 1 && options.ops_per_mac != 2)
    throw std::invalid_argument("ops_per_mac: must be 1 or 2, got " + std::to_string(options.ops_per_mac));
  const Policy& policy = find_policy(options.policy);
  const PlanInput in = make_plan_input(s, hw, options.ops_per_mac);
  Estimate e;
  e.time = in.time;
  e.plan = policy.plan(in);
  e.timeline = simulate(in, e.plan);
  const PointTotals t = totals(in.time, e.timeline, e.plan.counts);
  e.seconds = t.seconds;
  e.steps_seconds = t.steps_seconds;
  e.drain_seconds = t.drain_seconds;
  e.compute_seconds = t.compute_seconds;
  e.stall_seconds = t.stall_seconds;
  e.capacity_stall_seconds = t.capacity_stall_seconds;
  e.traffic_in = t.traffic_in;
  e.traffic_out = t.traffic_out;
  return e;
}

}  // namespace dnnmem
