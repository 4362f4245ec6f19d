// One design point's totals, shared by estimate() and sweep() so that both compute them with
// the same code (a sweep's row equals estimate() at that point, bit for bit).
#pragma once

#include "dnnmem/compose.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/timeline.hpp"

namespace dnnmem {

struct PointTotals {
  double seconds = 0, steps_seconds = 0, drain_seconds = 0, stall_seconds = 0,
         capacity_stall_seconds = 0, compute_seconds = 0;
  std::int64_t traffic_in = 0, traffic_out = 0, wire_in = 0, wire_out = 0;
  PlanCounts counts;
  PinTotals pins;
};

// Scratch reused from point to point by one thread (sweep): the plan and the buffers of the
// planners and of the timeline keep their capacity, so a point allocates nothing once warm.
struct PointWorkspace {
  std::vector<Ticks> compute;
  Plan plan;
  PlanScratch planner;
  TimelineScratch timeline;
  // The previous point's input apart from its capacity: when the next point shares it, its
  // compute times are reused and the planner told so (PlanScratch::same_input).
  const PreparedPolicy* last_policy = nullptr;
  TimeBase last_time;
  // The previous point's plan and timeline totals, valid when last_policy is set. A point of
  // the same input whose plan equals it, at a capacity in [last_totals.same_from,
  // last_totals.same_below), has the same timeline (only the capacity wait reads the capacity,
  // and every wait comes out the same there): its totals are reused
  // instead of simulated. Across a sweep's capacities this skips the timeline wherever the
  // plan does not change (e.g. `none`, and the capacities where the thesis planners keep the
  // same intervals).
  Plan last_plan;
  TimelineTotals last_totals;
  // The capacities [reuse_lo, reuse_hi] at which the last plan (in `plan`) is known to be the
  // plan (PlanScratch::probe_capacity); empty when reuse_lo > reuse_hi.
  std::int64_t reuse_lo = 1, reuse_hi = 0;
  // The tile model's layers of the sweep's schedule (apply_tile_model).
  TileUnitCache tile_units;
};

// Throws std::invalid_argument unless ops_per_mac is 1 or 2 (estimate() and sweep() alike).
void validate_ops_per_mac(int ops_per_mac);

// Seconds from the exact tick totals of a timeline (SPEC §7).
PointTotals totals(const TimeBase& time, const TimelineTotals& tl, const PlanCounts& counts);

// Throws std::invalid_argument for bad hardware. `next_capacity`: the capacity of the point
// this workspace evaluates next if it shares this one's input and is larger (a sweep's next
// point on the capacity axis), else -1; the planner then checks whether its plan holds there.
PointTotals evaluate_point(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy,
                           PointWorkspace& ws, std::int64_t next_capacity = -1);

}  // namespace dnnmem
