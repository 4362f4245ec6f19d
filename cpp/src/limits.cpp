// The limits that keep every count of the pipeline exact (docs/estimator.md, "Limits"), checked
// once when a schedule is built. Kept apart from the scheduler: the proof below is about what
// every later stage may sum, whatever scheduler made the steps.
#include "limits.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace dnnmem {
namespace {

__extension__ typedef __int128 Wide;  // exact sums of int64 counts (no overflow below 2^127)

std::string at(std::int64_t batch) { return "at batch " + std::to_string(batch); }

std::string approx(Wide v) {  // "1.2e+20": the size of a count that does not fit, for messages
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", static_cast<double>(v));
  return text;
}

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
//   - time in ticks (__int128): F · bandwidth + 4 A · throughput <= 2^62 · 2^62 + 2^60 · 2^62
//     < 2^125, with both rates <= 2^62 (validate(Hardware)).
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
}

}  // namespace dnnmem
