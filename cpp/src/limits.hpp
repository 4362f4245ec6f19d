// The checks behind the limits of schedule.hpp (kMaxIteration*) and of time (kMaxTicks):
// build_schedule calls the first two before and after building the steps; make_plan_input calls
// check_time_limits for every new design point (rates and policy), and estimate() / sweep()
// call check_plan_limits on every new plan. The bounds and why they suffice: limits.cpp.
#pragma once

#include "dnnmem/compose.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem {

// Throws std::invalid_argument naming the layer if one of its steps exceeds 2^62 bytes or
// FLOPs at this batch, or if the network could make more than kMaxIterationAccesses accesses.
void check_layer_limits(const Network& net, const ScheduleOptions& options);

// Throws std::invalid_argument naming the quantity and the batch if the bytes of all accesses
// or of all tensors exceed kMaxIterationBytes, or the FLOPs of all steps kMaxIterationFlops.
void check_iteration_limits(const Schedule& s);

// The most ticks an iteration may last: every time the core computes (the timeline's clock, a
// planner's sums of compute and transfer ticks) stays below 4 · kMaxTicks < 2^127.
inline constexpr Ticks kMaxTicks = Ticks{1} << 125;

// Ticks above kMaxTicks, saturated (no overflow): what a step's scratchpad floor is set to when
// it would not fit 128 bits; check_time_limits then refuses the point.
inline constexpr Ticks kSaturatedTicks = Ticks{1} << 126;

// Throws std::invalid_argument naming the part and the option (spm_bandwidth, cap, efficiency,
// the link's ratios) or the rates when the compute ticks of `in` (set from `policy`) plus a
// bound on the ticks of any plan's transfers (4 per access, each of at most its bytes) exceed
// kMaxTicks, or when that plan's bytes on the link could exceed 2^62.
void check_time_limits(const PlanInput& in, const PreparedPolicy& policy);

// The same for a plan that may move more than that bound or compute more than the steps: the
// tile model's walks (a tiled operand may be re-read per tile operation) and re-executed steps
// (onsram-eager-spec). Its traffic must stay <= 2^60 bytes. Returns at once for other plans.
void check_plan_limits(const PlanInput& in, const PreparedPolicy& policy, const Plan& plan);

}  // namespace dnnmem
