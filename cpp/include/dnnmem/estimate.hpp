// The whole pipeline for one design point: plan (cache manager) -> timeline -> report (SPEC §1).
#pragma once

#include <string>

#include "dnnmem/compose.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/timeline.hpp"

namespace dnnmem {

// A thesis-style policy by name: the cache manager `policy` with the raw link and the peak
// compute model (the six names of the thesis's policies).
struct EstimateOptions {
  std::string policy = "lookahead";
  int ops_per_mac = 2;  // SPEC §2: FLOPs per multiply-accumulate (2, or 1)
};

// The pinning managers' report columns (docs/model/report.md, "Pinning"), apart from the thesis's
// totals: tensors with a pin, the sum of their sizes, and the re-executed compute (Plan::recompute).
struct PinTotals {
  std::int64_t pinned = 0;        // tensors
  std::int64_t pinned_bytes = 0;  // bytes
  double recompute_seconds = 0;   // s
};

// A plan's PinTotals. A tensor's pins are adjacent in Plan::pins (each manager writes them so).
PinTotals pin_totals(const Schedule& s, const TimeBase& time, const Plan& plan);

struct Estimate {
  TimeBase time;
  Plan plan;
  Timeline timeline;
  // Totals in SI units (SPEC §7).
  double seconds = 0, steps_seconds = 0, drain_seconds = 0, stall_seconds = 0,
         capacity_stall_seconds = 0, compute_seconds = 0;
  std::int64_t traffic_in = 0, traffic_out = 0;  // bytes leaving / entering the cache
  std::int64_t wire_in = 0, wire_out = 0;        // bytes on the link
  PinTotals pins;  // the pins themselves are plan.pins
};

// Throws std::invalid_argument for bad hardware (the policy was checked when prepared).
Estimate estimate(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy);
// Throws std::invalid_argument for an unknown policy, bad hardware or ops_per_mac not 1 or 2.
Estimate estimate(const Schedule& s, const Hardware& hw, const EstimateOptions& options);

}  // namespace dnnmem
