#include "dnnmem/estimate.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "dnnmem/policies.hpp"
#include "limits.hpp"
#include "point.hpp"

namespace dnnmem {

void validate_ops_per_mac(int ops_per_mac) {
  if (ops_per_mac != 1 && ops_per_mac != 2)
    throw std::invalid_argument("ops_per_mac: must be 1 or 2, got " + std::to_string(ops_per_mac));
}

PointTotals totals(const TimeBase& time, const TimelineTotals& tl, const PlanCounts& counts) {
  PointTotals t;
  t.seconds = time.seconds(tl.total);
  t.steps_seconds = time.seconds(tl.steps_end);
  t.drain_seconds = time.seconds(tl.total - tl.steps_end);
  t.compute_seconds = time.seconds(tl.compute);
  t.stall_seconds = time.seconds(tl.steps_end - tl.compute);
  t.capacity_stall_seconds = time.seconds(tl.capacity_stall);
  t.traffic_in = tl.traffic_in;
  t.traffic_out = tl.traffic_out;
  t.wire_in = tl.wire_in;
  t.wire_out = tl.wire_out;
  t.counts = counts;
  return t;
}

PinTotals pin_totals(const Schedule& s, const TimeBase& time, const Plan& plan) {
  PinTotals p;
  int last = -1;
  for (const Pin& x : plan.pins) {
    if (x.tensor == last) continue;
    last = x.tensor;
    ++p.pinned;
    p.pinned_bytes += s.tensors[static_cast<std::size_t>(x.tensor)].bytes;
  }
  Ticks recompute = 0;
  for (const Ticks r : plan.recompute) recompute += r;
  p.recompute_seconds = time.seconds(recompute);
  return p;
}

PointTotals evaluate_point(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy,
                           PointWorkspace& ws, std::int64_t next_capacity) {
  // Points of a sweep that differ only in capacity share everything derived from the rest.
  const TimeBase time = time_base(hw);
  const bool same = ws.last_policy == &policy && ws.last_time.bandwidth == time.bandwidth &&
                    ws.last_time.throughput == time.throughput && ws.compute.size() == s.steps.size();
  PlanInput in = same ? PlanInput{s, hw.capacity, time, policy.ops_per_mac, std::move(ws.compute),
                                  &policy.link, &policy.cache_options}
                      : make_plan_input(s, hw, policy, std::move(ws.compute));
  in.kept_given = &policy.kept_given;
  ws.planner.same_input = same;
  ws.last_policy = nullptr;  // (until this point is done: a throw leaves nothing to reuse)
  // The previous point's plan holds here when its planner probed this capacity.
  const bool reuse_plan = same && ws.reuse_lo <= hw.capacity && hw.capacity <= ws.reuse_hi;
  if (!reuse_plan) {
    std::swap(ws.plan, ws.last_plan);  // the previous plan is kept to compare (its buffers reused)
    ws.plan.recompute.clear();  // only the managers that re-execute steps fill it
    ws.plan.pins.clear();       // only the pinning managers fill it
    // The tile model reads the capacity: no probing under it.
    ws.planner.probe_capacity = s.tile_model.order.empty() ? next_capacity : -1;
    ws.planner.probe_same = false;
    ws.planner.probe_holds_to = -1;
    ws.reuse_lo = 1;
    ws.reuse_hi = 0;
    policy.cache->plan(in, ws.planner, ws.plan);
    apply_tile_model(in, ws.plan, policy.cache->unbounded, &ws.tile_units);
    check_plan_limits(in, policy, ws.plan);
    if (policy.cache->capacity_free && s.tile_model.order.empty()) {  // the plan at any capacity
      ws.reuse_lo = std::numeric_limits<std::int64_t>::min();
      ws.reuse_hi = std::numeric_limits<std::int64_t>::max();
    } else if (ws.planner.probe_same && next_capacity > hw.capacity) {
      ws.reuse_lo = hw.capacity;
      ws.reuse_hi = std::max(next_capacity, ws.planner.probe_holds_to);
    }
  }
  if (!(same && ws.last_totals.same_from <= hw.capacity && hw.capacity < ws.last_totals.same_below &&
        (reuse_plan || same_timeline_input(ws.plan, ws.last_plan))))
    ws.last_totals = simulate(in, ws.plan, ws.timeline, nullptr);
  const TimelineTotals& tl = ws.last_totals;
  PointTotals t = totals(in.time, tl, ws.plan.counts);
  t.pins = pin_totals(s, in.time, ws.plan);
  ws.compute = std::move(in.compute);  // keep the buffer for the next point
  ws.last_policy = &policy;
  ws.last_time = time;
  return t;
}

Estimate estimate(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy) {
  const PlanInput in = make_plan_input(s, hw, policy);
  Estimate e;
  e.time = in.time;
  e.plan = make_plan(*policy.cache, in);
  check_plan_limits(in, policy, e.plan);
  TimelineScratch timeline_scratch;
  const TimelineTotals tl = simulate(in, e.plan, timeline_scratch, &e.timeline);
  const PointTotals t = totals(in.time, tl, e.plan.counts);
  e.seconds = t.seconds;
  e.steps_seconds = t.steps_seconds;
  e.drain_seconds = t.drain_seconds;
  e.compute_seconds = t.compute_seconds;
  e.stall_seconds = t.stall_seconds;
  e.capacity_stall_seconds = t.capacity_stall_seconds;
  e.traffic_in = t.traffic_in;
  e.traffic_out = t.traffic_out;
  e.wire_in = t.wire_in;
  e.wire_out = t.wire_out;
  e.pins = pin_totals(s, in.time, e.plan);
  return e;
}

Estimate estimate(const Schedule& s, const Hardware& hw, const EstimateOptions& options) {
  validate_ops_per_mac(options.ops_per_mac);
  PolicySpec spec;
  spec.cache.name = options.policy;
  validate(hw);
  const PreparedPolicy policy = prepare_policy(s, spec, options.ops_per_mac);
  return estimate(s, hw, policy);
}

}  // namespace dnnmem
