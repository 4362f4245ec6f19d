// Many design points of one schedule at once (the sweep engine behind dnnmem.sweep): each point
// is (capacity, bandwidth, throughput, policy) — a policy being one of the prepared compositions
// of cache manager, link and compute model (compose.hpp) that the caller passes alongside, each
// prepared once for the schedule — and is independent of every other, so the points
// run in parallel (OpenMP, when built with it) and the results do not depend on the thread
// count or on the order of the points. Only totals are kept, in caller-owned column arrays.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>

#include "dnnmem/compose.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem {

struct SweepPoint {
  std::int64_t capacity = 0;  // bytes
  double bandwidth = 0.0;     // bytes/s
  double throughput = 0.0;    // FLOP/s
  int policy = 0;             // index into the prepared policies
};

// One array per total, one element per point, allocated by the caller. A null pointer means
// "not wanted". Points the sweep did not evaluate (cancelled) keep done = 0 and NaN seconds;
// their other entries are left as the caller set them.
struct SweepColumns {
  double* seconds = nullptr;                 // the iteration, drain included (Estimate::seconds)
  double* compute_seconds = nullptr;
  double* stall_seconds = nullptr;
  double* capacity_stall_seconds = nullptr;
  double* drain_seconds = nullptr;
  std::int64_t* traffic_in = nullptr;        // bytes
  std::int64_t* traffic_out = nullptr;
  std::int64_t* kept = nullptr;              // PlanCounts
  std::int64_t* prefetched = nullptr;
  std::int64_t* born = nullptr;
  std::int64_t* offloads = nullptr;
  std::uint8_t* done = nullptr;              // 1 once the point's totals are written
  std::int64_t* wire_in = nullptr;           // bytes on the link (after `done`: added later)
  std::int64_t* wire_out = nullptr;
  // Bytes by the role of the tensor moved (index: Role), loads / stores; they add up to
  // traffic_in / traffic_out. Each null entry is not computed.
  std::array<std::int64_t*, 5> traffic_in_by_role{};
  std::array<std::int64_t*, 5> traffic_out_by_role{};
  // The pinning managers' report (PinTotals, docs/model/report.md "Pinning").
  std::int64_t* pinned = nullptr;            // tensors
  std::int64_t* pinned_bytes = nullptr;      // bytes
  double* recompute_seconds = nullptr;       // s
};

struct SweepOptions {
  // Threads; 0 = the OpenMP default (OMP_NUM_THREADS, else one per processor). Capped by
  // sweep_threads(). Ignored (1) without OpenMP.
  int threads = 0;
  // Guided scheduling: a thread takes 1/(2·threads) of the points left while that is at least
  // `chunk`, then one point at a time.
  int chunk = 4;
  int ops_per_mac = 2;   // SPEC §2: 2 or 1 (only for the overload that prepares the policies)
  // Polled by the caller: set *cancel to stop early (points not yet started are skipped);
  // *done counts the points finished so far.
  std::atomic<bool>* cancel = nullptr;
  std::atomic<std::int64_t>* done = nullptr;
  // Called with a point's index once its totals are written, on the thread that evaluated it
  // (so it must be thread-safe). An exception it throws stops the sweep and is rethrown.
  std::function<void(std::int64_t)> after_point;
};

// Throws std::invalid_argument naming the point and the field: a policy index out of range
// (0 .. num_policies - 1) or bad hardware (see validate(Hardware)).
void validate_sweep(std::span<const SweepPoint> points, int num_policies);

// The most threads a sweep starts: 4 per processor the process may use (without OpenMP a
// sweep runs on one thread whatever the request).
int max_sweep_threads();
// The threads a sweep of `points` points starts when asked for `requested` (0: the OpenMP
// default): at least 1, at most the number of points and max_sweep_threads().
int sweep_threads(int requested, std::int64_t points);

// Evaluates every point (after validate_sweep) and returns how many were evaluated: all of
// them unless cancelled. Point i's totals equal estimate() at that point, bit for bit. An
// exception thrown while evaluating is rethrown after every thread has stopped; so is a thread
// that cannot be started (std::runtime_error naming `threads`), the process carrying on.
std::int64_t sweep(const Schedule& s, std::span<const PreparedPolicy> policies,
                   std::span<const SweepPoint> points, const SweepColumns& out,
                   const SweepOptions& options);
// The same with each point's policy an index into cache_parts(), with the raw link and the
// peak compute model, and options.ops_per_mac (the thesis's six policies).
std::int64_t sweep(const Schedule& s, std::span<const SweepPoint> points, const SweepColumns& out,
                   const SweepOptions& options);

}  // namespace dnnmem
