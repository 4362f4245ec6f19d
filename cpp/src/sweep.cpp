#include "dnnmem/sweep.hpp"

#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include "dnnmem/estimate.hpp"
#include "point.hpp"

#ifdef DNNMEM_HAVE_OPENMP
#include <omp.h>
#endif

namespace dnnmem {

void validate_sweep(std::span<const SweepPoint> points, int num_policies) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    const std::string where = "point " + std::to_string(i) + ": ";
    if (p.policy < 0 || p.policy >= num_policies)
      throw std::invalid_argument(where + "policy: index " + std::to_string(p.policy) +
                                  " out of range (0.." + std::to_string(num_policies - 1) + ")");
    try {
      validate(Hardware{p.capacity, p.bandwidth, p.throughput});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
  }
}

std::int64_t sweep(const Schedule& s, std::span<const SweepPoint> points, const SweepColumns& out,
                   const SweepOptions& options) {
  validate_ops_per_mac(options.ops_per_mac);
  std::vector<PreparedPolicy> policies;
  for (const CachePart* cache : cache_parts()) {
    PolicySpec spec;
    spec.cache.name = std::string(cache->name);
    policies.push_back(prepare_policy(s, spec, options.ops_per_mac));
  }
  return sweep(s, policies, points, out, options);
}

std::int64_t sweep(const Schedule& s, std::span<const PreparedPolicy> policies,
                   std::span<const SweepPoint> points, const SweepColumns& out,
                   const SweepOptions& options) {
  validate_sweep(points, static_cast<int>(policies.size()));
  const auto n = static_cast<std::int64_t>(points.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t i = 0; i < n; ++i) {  // what a point not evaluated shows
    if (out.seconds) out.seconds[i] = nan;
    if (out.done) out.done[i] = 0;
  }
  std::exception_ptr error;  // the first exception of any thread, rethrown after the region
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  std::atomic<std::int64_t> evaluated{0};
  const auto stop = [&] {
    return failed.load(std::memory_order_relaxed) ||
           (options.cancel && options.cancel->load(std::memory_order_relaxed));
  };

#ifdef DNNMEM_HAVE_OPENMP
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
  const int chunk = options.chunk > 0 ? options.chunk : 1;
#pragma omp parallel num_threads(threads)
#endif
  {
    // Per-thread scratch, reused from point to point: nothing mutable is shared.
    PointWorkspace ws;
#ifdef DNNMEM_HAVE_OPENMP
#pragma omp for schedule(dynamic, chunk)
#endif
    for (std::int64_t i = 0; i < n; ++i) {
      if (stop()) continue;  // OpenMP loops cannot break: skip the rest
      try {
        const SweepPoint& p = points[static_cast<std::size_t>(i)];
        const PointTotals t = evaluate_point(s, {p.capacity, p.bandwidth, p.throughput},
                                             policies[static_cast<std::size_t>(p.policy)], ws);
        if (out.seconds) out.seconds[i] = t.seconds;
        if (out.compute_seconds) out.compute_seconds[i] = t.compute_seconds;
        if (out.stall_seconds) out.stall_seconds[i] = t.stall_seconds;
        if (out.capacity_stall_seconds) out.capacity_stall_seconds[i] = t.capacity_stall_seconds;
        if (out.drain_seconds) out.drain_seconds[i] = t.drain_seconds;
        if (out.traffic_in) out.traffic_in[i] = t.traffic_in;
        if (out.traffic_out) out.traffic_out[i] = t.traffic_out;
        if (out.wire_in) out.wire_in[i] = t.wire_in;
        if (out.wire_out) out.wire_out[i] = t.wire_out;
        if (out.kept) out.kept[i] = t.counts.kept;
        if (out.prefetched) out.prefetched[i] = t.counts.prefetched;
        if (out.born) out.born[i] = t.counts.born;
        if (out.offloads) out.offloads[i] = t.counts.offloads;
        if (out.done) out.done[i] = 1;
        evaluated.fetch_add(1, std::memory_order_relaxed);
        if (options.done) options.done->fetch_add(1, std::memory_order_relaxed);
        if (options.after_point) options.after_point(i);
      } catch (...) {  // an exception must not leave the parallel region (std::terminate)
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  }
  if (error) std::rethrow_exception(error);
  return evaluated.load();
}

}  // namespace dnnmem
