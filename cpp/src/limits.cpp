// The limits that keep every count of the pipeline exact (docs/estimator.md, "Limits"): those of
// the schedule, checked once when it is built, and those of time, checked per design point.
// Kept apart from the scheduler: the proof below is about what every later stage may sum,
// whatever scheduler made the steps.
#include "limits.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnnmem {
namespace {

__extension__ typedef __int128 Wide;  // exact sums of int64 counts (no overflow below 2^127)

std::string at(std::int64_t batch) { return "at batch " + std::to_string(batch); }

std::string approx_double(double v) {  // "1.2e+20": the size of a count that does not fit, for messages
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}
std::string approx(Wide v) { return approx_double(static_cast<double>(v)); }

}  // namespace

// The bounds that keep every count of the pipeline exact (docs/estimator.md, "Limits"). One
// check here instead of one at every sum of the later stages: each of their sums is bounded by
// one of these totals, so none can wrap.
//
// (a) Per layer (before building): each step's byte count (activation, gradient, gathered
//     rows: batch · elements · element size <= batch · elements · 16) and its FLOPs (forward,
//     loss, backward with one dX per input) are <= 2^62, so the int64 products the builder
//     computes fit. The same walk bounds the number of accesses: a layer makes at most
//     (|inputs| + 3) forward, 2 loss and (2 |inputs| + 3) backward accesses.
// (b) Per iteration (after building): A = the bytes of every access, T = the bytes of every
//     tensor, both <= kMaxIterationBytes = 2^58; F = the FLOPs of every step (2 per MAC, the
//     larger of the two conventions) <= kMaxIterationFlops = 2^62; and at most
//     kMaxIterationAccesses = 2^28 accesses, so int indices of steps, accesses and transfers fit.
// What the later stages sum, and why it fits (every transfer moves one access's bytes or one
// tensor's, which for a full access are the same; a full use is a non-partial access):
//   - traffic (timeline, any policy) <= 4 A <= 2^60: streamed loads and stores are at most one
//     each per access (2 A), prefetches at most one per full read (A), offloads / evictions at
//     most one per full use (A: a thesis planner offloads a use at most once, rules 3 and 7
//     and rule 6's born outputs being exclusive; lru writes a tensor out at most once per time
//     it is cached, and caching it takes a full access; no-lookahead writes exactly
//     lookahead's offloads). The per-step and per-role byte counts are parts of it.
//   - occupancy (thesis planners' range tree, resident bytes) <= 4 A: each full use adds its
//     bytes at most once as a kept interval, a prefetch, a born output and an offload
//     reservation; lru's cached bytes <= A; the timeline's resident + in flight <= 5 A; with a
//     tensor's bytes added for a "does it fit" test, still <= 6 A < 2^61.
//   - peak_alive_bytes() <= T; total_ops() <= F.
//   - time in ticks (__int128): check_time_limits, below, for each design point. Every tick count
//     is a step's compute (work · bandwidth <= 2^62 · 2^62 = 2^124, work summed <= 2^62 by
//     prepare_policy; raised to its scratchpad floor, saturated at 2^126 when wider) or a
//     transfer's link time; the timeline's clock is at most their sum (at every instant before
//     the end it computes or serves a transfer), and a planner's sums (rule 4's windows, a
//     pinning manager's saved ticks) at most a few times it. The check bounds C = Σ compute and
//     T = the link time of transfers moving 4 A bytes in 4 N transfers (N accesses), whatever
//     their tensors, and refuses the point unless C + T <= kMaxTicks = 2^125, so every such
//     sum stays below 2^127. With the raw link and no scratchpad floor it always holds
//     (C <= 2^124, T <= 2^60 · 2^62), and is skipped. Plans beyond the 4 A argument (the tile
//     model's walks, re-executed steps) are checked once made, with their own bytes
//     (check_plan_limits).
// The limits are far above any real network (256 PiB moved, 4.6 EFLOP per iteration).

void check_layer_limits(const Network& net, const ScheduleOptions& options) {
  const std::string at_batch = at(options.batch);
  const Wide step_limit = Wide{1} << 62;
  const Wide n = options.batch;
  Wide accesses = 0;
  for (const Layer& l : net.layers) {  // (a); every factor is < 2^45, so no product wraps
    const Wide ins = static_cast<Wide>(l.inputs.size());
    const Wide bytes = n * l.elements * 16;
    const Wide fwd = n * (2 * Wide{l.fwd.macs} + l.fwd.flops);
    const Wide bwd = n * (ins * (2 * Wide{l.bwd_dx.macs} + l.bwd_dx.flops) +
                          2 * Wide{l.bwd_dw.macs} + l.bwd_dw.flops);
    const Wide loss = 3 * n * l.elements;
    if (bytes > step_limit || fwd > step_limit || bwd > step_limit || loss > step_limit)
      throw std::invalid_argument("layer '" + l.name + "' " + at_batch +
                                  " is too large to count exactly in 64 bits (a step of more than "
                                  "2^62 bytes or FLOPs)");
    accesses += 3 * ins + 8;
  }
  if (accesses > kMaxIterationAccesses)
    throw std::invalid_argument("the network has too many layers and inputs to schedule: up to " +
                                approx(accesses) + " tensor accesses " + at_batch +
                                ", more than the 2^28 the core indexes");
}

void check_iteration_limits(const Schedule& s) {
  const std::string at_batch = at(s.batch);
  Wide access_bytes = 0, tensor_bytes = 0, flops = 0;
  for (const Access& a : s.accesses) access_bytes += a.bytes;
  for (const Tensor& t : s.tensors) tensor_bytes += t.bytes;
  for (const Step& st : s.steps) flops += st.ops.total(2);
  const auto too_large = [&](const std::string& what, Wide value, const char* limit) {
    return std::invalid_argument("the iteration is too large to count exactly " + at_batch + ": " +
                                 what + " total " + approx(value) + ", more than " + limit);
  };
  if (access_bytes > kMaxIterationBytes)
    throw too_large("the bytes of all tensor accesses (the traffic with no cache)", access_bytes,
                    "2^58 bytes");
  if (tensor_bytes > kMaxIterationBytes)
    throw too_large("the bytes of all tensors", tensor_bytes, "2^58 bytes");
  if (flops > kMaxIterationFlops)
    throw too_large("the FLOPs of all steps", flops, "2^62 FLOPs");
  // (a) bounds the default schedule's accesses; a scheduler that repeats steps (mbs: once per
  // sub-batch) checks its own before building (mbs_builder.cpp), and this is the last word.
  if (s.accesses.size() > static_cast<std::size_t>(kMaxIterationAccesses))
    throw too_large("the tensor accesses", static_cast<Wide>(s.accesses.size()), "2^28");
}

namespace {

// Saturating arithmetic on non-negative tick and byte counts: a result above kSaturatedTicks is
// kSaturatedTicks, and stays so (sums of two never overflow: both are <= 2^126).
Wide sat(Wide v) { return v > kSaturatedTicks ? kSaturatedTicks : v; }
Wide mul_sat(Wide a, Wide b) {
  Wide r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kSaturatedTicks : sat(r);
}
Wide add_sat(Wide a, Wide b) { return sat(a + b); }
Wide div_up_sat(Wide a, Wide b) { return a >= kSaturatedTicks ? a : (a + b - 1) / b; }

// Upper bounds for transfers that move `bytes` in all in `count` transfers, of any tensors:
// their bytes on the wire, their time at the link's wire rate (efficiency included) and at its
// compressor cap, in ticks (saturated) and, for messages, in seconds. A transfer's time is the
// larger of the two (LinkModel::ticks), so their sum bounds it; each rounding up adds at most 1
// per transfer.
struct TransferBound {
  Wide wire = 0, wire_ticks = 0, cap_ticks = 0;
  double wire_seconds = 0, cap_seconds = 0;
};

TransferBound transfer_bound(const LinkModel& link, const TimeBase& time, Wide bytes, Wide count) {
  TransferBound b;
  const double efficiency = static_cast<double>(link.eff_num) / LinkModel::kEfficiencyDen;
  b.wire = link.num.empty() ? bytes : add_sat(div_up_sat(mul_sat(bytes, link.max_num), link.max_den), count);
  b.wire_ticks = mul_sat(b.wire, time.throughput);
  if (link.eff_num != LinkModel::kEfficiencyDen)
    b.wire_ticks = add_sat(div_up_sat(mul_sat(b.wire_ticks, LinkModel::kEfficiencyDen), link.eff_num), count);
  b.wire_seconds = static_cast<double>(bytes) * static_cast<double>(link.max_num) / static_cast<double>(link.max_den) /
                   static_cast<double>(time.bandwidth) / efficiency;
  if (link.cap > 0) {
    const Wide per_second = static_cast<Wide>(time.bandwidth) * time.throughput;  // < 2^124
    b.cap_ticks = add_sat(mul_sat(bytes, per_second / link.cap + 1), count);
    b.cap_seconds = static_cast<double>(bytes) / static_cast<double>(link.cap);
  }
  return b;
}

double seconds_of(const TimeBase& time, Wide ticks) {
  return static_cast<double>(ticks) / (static_cast<double>(time.bandwidth) * static_cast<double>(time.throughput));
}

// ", but at bandwidth B bytes/s and throughput T FLOP/s time is counted exactly only up to S s
// (2^125 ticks of 1 / (bandwidth · throughput) s)".
std::string tick_limit(const TimeBase& time) {
  return ", but at bandwidth " + approx_double(static_cast<double>(time.bandwidth)) + " bytes/s and throughput " +
         approx_double(static_cast<double>(time.throughput)) + " FLOP/s time is counted exactly only up to " +
         approx_double(seconds_of(time, kMaxTicks)) + " s (2^125 ticks of 1 / (bandwidth · throughput) s)";
}

// The steps' compute, in ticks (saturated) and in seconds: each step's work at peak
// throughput, or its operands' bytes / spm_bandwidth when longer (the scratchpad floor), and
// what re-executed steps add. `work_seconds`: the first part alone.
struct ComputeSum {
  Wide ticks = 0;
  double seconds = 0, work_seconds = 0;
};

ComputeSum sum_compute(const PlanInput& in, const PreparedPolicy& policy, const std::vector<Ticks>& recompute) {
  ComputeSum c;
  const auto throughput = static_cast<double>(in.time.throughput);
  const auto spm = static_cast<double>(policy.compute.spm_bandwidth);
  for (std::size_t i = 0; i < policy.compute.work.size(); ++i) {
    const double work = static_cast<double>(policy.compute.work[i]) / throughput;
    c.work_seconds += work;
    c.seconds += spm > 0 ? std::max(work, static_cast<double>(policy.compute.spm_bytes[i]) / spm) : work;
  }
  for (const Ticks t : in.compute) c.ticks = add_sat(c.ticks, t);
  for (const Ticks r : recompute) {
    c.ticks = add_sat(c.ticks, r);
    c.seconds += seconds_of(in.time, r);
  }
  return c;
}

// What makes the iteration too long to count, by its largest term: the compute (a scratchpad
// floor above it), the link's wire time or its cap. `extra`, `compute_extra`: what the plan adds
// to the transfers and to the compute beyond the steps' accesses ("" for check_time_limits).
[[noreturn]] void refuse_time(const PlanInput& in, const PreparedPolicy& policy, const ComputeSum& c,
                              const TransferBound& b, const std::string& extra, const std::string& compute_extra) {
  const std::string compute_part = part_label("compute model", policy.compute_name);
  const std::string link_part = part_label("link", policy.link_name);
  const double floor = c.seconds - c.work_seconds;
  const double largest = std::max({c.work_seconds, floor, b.wire_seconds, b.cap_seconds});
  const auto last = [](double seconds) { return " last up to " + approx_double(seconds) + " s"; };
  std::string why;
  if (largest == floor && policy.compute.spm_bandwidth > 0) {
    why = compute_part + ": option 'spm_bandwidth' = " + approx_double(static_cast<double>(policy.compute.spm_bandwidth)) +
          " bytes/s makes the steps" + compute_extra + last(c.seconds) +
          " (each at least its operands' bytes / spm_bandwidth)" + tick_limit(in.time) +
          ": raise spm_bandwidth, or lower bandwidth or throughput";
  } else if (largest == b.cap_seconds && policy.link.cap > 0) {
    why = link_part + ": option 'cap' = " + approx_double(static_cast<double>(policy.link.cap)) +
          " bytes/s makes the transfers" + extra + last(b.cap_seconds) + " (each at least its bytes / cap)" +
          tick_limit(in.time) + ": raise cap, or lower bandwidth or throughput";
  } else if (largest == b.wire_seconds) {
    std::string option;
    if (policy.link.eff_num != LinkModel::kEfficiencyDen)
      option = " option 'efficiency' = " +
               approx_double(static_cast<double>(policy.link.eff_num) / LinkModel::kEfficiencyDen) + " makes";
    why = link_part + ":" + option + " the transfers" + extra + last(b.wire_seconds) + tick_limit(in.time) +
          (option.empty() ? ": lower bandwidth or throughput" : ": raise efficiency, or lower bandwidth or throughput");
  } else {
    why = compute_part + ": the steps" + compute_extra + last(c.seconds) + tick_limit(in.time) +
          ": lower bandwidth or throughput";
  }
  throw std::invalid_argument("the iteration's time is too large to count exactly: " + why);
}

constexpr Wide kMaxWireBytes = Wide{1} << 62;  // the link's byte totals are int64

}  // namespace

void check_time_limits(const PlanInput& in, const PreparedPolicy& policy) {
  // The raw link with no scratchpad floor: C <= 2^124 and T <= 4 A · throughput <= 2^122.
  if (policy.link.identity() && policy.compute.spm_bandwidth <= 0) return;
  const Schedule& s = in.schedule;
  Wide access_bytes = 0;
  for (const Access& a : s.accesses) access_bytes += a.bytes;
  const Wide accesses = static_cast<Wide>(s.accesses.size());
  const TransferBound b = transfer_bound(policy.link, in.time, 4 * access_bytes, 4 * accesses);
  if (b.wire > kMaxWireBytes)
    throw std::invalid_argument(part_label("link", policy.link_name) + ": its ratios (up to " +
                                approx_double(static_cast<double>(policy.link.max_num) / static_cast<double>(policy.link.max_den)) +
                                " wire bytes per byte) could put " + approx(b.wire) +
                                " bytes on the wire, more than the 2^62 counted exactly " + at(s.batch));
  const ComputeSum c = sum_compute(in, policy, {});
  if (add_sat(c.ticks, add_sat(b.wire_ticks, b.cap_ticks)) > kMaxTicks) refuse_time(in, policy, c, b, "", "");
}

void check_plan_limits(const PlanInput& in, const PreparedPolicy& policy, const Plan& plan) {
  if (plan.tiles.empty() && plan.recompute.empty()) return;
  const Schedule& s = in.schedule;
  Wide bytes = 0;
  for (const Transfer& x : plan.transfers) bytes += x.bytes;  // each < 2^62 (tile_pass.cpp): no overflow
  const std::string extra = plan.tiles.empty() ? " (with the steps the cache manager re-executes)"
                                               : " (with the tile model's re-reads)";
  if (bytes > (Wide{1} << 60))
    throw std::invalid_argument("the iteration's traffic is too large to count exactly " + at(s.batch) + ": " +
                                approx(bytes) + " bytes" + extra + ", more than 2^60" +
                                (plan.tiles.empty() ? "" : " (option 'tile' of the scheduler: use a larger tile)"));
  const TransferBound b =
      transfer_bound(policy.link, in.time, bytes, static_cast<Wide>(plan.transfers.size()));
  if (b.wire > kMaxWireBytes)
    throw std::invalid_argument(part_label("link", policy.link_name) + ": the iteration could put " + approx(b.wire) +
                                " bytes on the wire" + extra + ", more than the 2^62 counted exactly " + at(s.batch));
  const ComputeSum c = sum_compute(in, policy, plan.recompute);
  if (add_sat(c.ticks, add_sat(b.wire_ticks, b.cap_ticks)) > kMaxTicks)
    refuse_time(in, policy, c, b, extra, plan.recompute.empty() ? "" : extra);
}

}  // namespace dnnmem
