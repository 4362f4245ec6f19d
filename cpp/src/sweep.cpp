#include "dnnmem/sweep.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "dnnmem/estimate.hpp"
#include "dnnmem/interrupt.hpp"
#include "dnnmem/tiles.hpp"
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

int max_sweep_threads() {
#ifdef DNNMEM_HAVE_OPENMP
  const int procs = omp_get_num_procs();  // the processors this process may run on
#else
  const int procs = static_cast<int>(std::thread::hardware_concurrency());
#endif
  return 4 * std::max(1, procs);
}

int sweep_threads(int requested, std::int64_t points) {
#ifdef DNNMEM_HAVE_OPENMP
  const std::int64_t want = requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  const std::int64_t want = 1;
#endif
  return static_cast<int>(std::max<std::int64_t>(
      1, std::min({want, points, static_cast<std::int64_t>(max_sweep_threads())})));
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
  // The split by role sums the plan's transfers (the timeline's per-step split adds the same
  // integers, so a row equals estimate()'s totals of its step table). Roles are looked up in a
  // compact copy: the tensors themselves are large.
  bool by_role = false;
  for (std::size_t r = 0; r < 5; ++r)
    by_role = by_role || out.traffic_in_by_role[r] != nullptr || out.traffic_out_by_role[r] != nullptr;
  std::vector<std::uint8_t> roles;
  if (by_role) {
    roles.reserve(s.tensors.size());
    for (const Tensor& t : s.tensors) roles.push_back(static_cast<std::uint8_t>(t.role));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t i = 0; i < n; ++i) {  // what a point not evaluated shows
    if (out.seconds) out.seconds[i] = nan;
    if (out.done) out.done[i] = 0;
  }
  std::exception_ptr error;  // the first exception of any thread, rethrown after they stop
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  std::atomic<std::int64_t> evaluated{0};
  std::atomic<std::int64_t> next{0};  // the first point not yet handed out
  const std::int64_t chunk = options.chunk > 0 ? options.chunk : 1;
  const int threads = sweep_threads(options.threads, n);
  // Guided scheduling: a thread takes a 1/(2·threads) share of the points left while that is
  // at least `chunk`, then one point at a time. Early ranges are long and contiguous, so a
  // thread walks consecutive points (the capacity axis of a grid: shared input, unchanged
  // plans, no output cache line written by both threads), and the last ones single, so the
  // threads finish together. (Fixed chunks of 4 interleaved the threads' points, and with few
  // expensive points, e.g. GNMT's, left one thread idle for up to a chunk at the end.)
  const auto grab = [&](std::int64_t& end) {
    std::int64_t begin = next.load(std::memory_order_relaxed);
    for (;;) {
      if (begin >= n) return begin;
      const std::int64_t share = (n - begin) / (2 * static_cast<std::int64_t>(threads));
      const std::int64_t take = share >= chunk ? share : 1;
      end = std::min(n, begin + take);
      if (next.compare_exchange_weak(begin, end, std::memory_order_relaxed)) return begin;
    }
  };
  const auto stop = [&] {
    return failed.load(std::memory_order_relaxed) ||
           (options.cancel && options.cancel->load(std::memory_order_relaxed));
  };
  const auto fail = [&](std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(error_mutex);
    if (!error) error = e;
    failed.store(true, std::memory_order_relaxed);
  };

  // One team member: takes ranges of points until none is left (guided scheduling), with its
  // own scratch reused from point to point, so nothing mutable is shared.
  const auto work = [&] {
    // The tile model's walk traces are cached per thread (up to 64 MiB): a pool's threads must
    // not hold them after the sweep.
    struct ForgetTraces {
      ~ForgetTraces() { detail::forget_tile_traces(); }
    } forget;
    // A point in progress stops too when the sweep is cancelled (a long plan, a large schedule).
    const InterruptScope interruptible(options.cancel);
    try {
      PointWorkspace ws;
      for (;;) {
        std::int64_t end = 0;
        const std::int64_t begin = grab(end);
        if (begin >= n) return;
        for (std::int64_t i = begin; i < end; ++i) {
          if (stop()) return;
          const SweepPoint& p = points[static_cast<std::size_t>(i)];
          // The next point of this range, when only a larger capacity sets it apart: the
          // planner checks whether its plan holds there (evaluate_point).
          std::int64_t next_capacity = -1;
          if (i + 1 < end) {
            const SweepPoint& q = points[static_cast<std::size_t>(i) + 1];
            if (q.policy == p.policy && q.bandwidth == p.bandwidth && q.throughput == p.throughput &&
                q.capacity > p.capacity)
              next_capacity = q.capacity;
          }
          const PointTotals t = evaluate_point(s, {p.capacity, p.bandwidth, p.throughput},
                                               policies[static_cast<std::size_t>(p.policy)], ws,
                                               next_capacity);
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
          if (by_role) {
            std::array<std::int64_t, 5> in{}, outb{};
            for (const Transfer& x : ws.plan.transfers)
              (x.is_load() ? in : outb)[roles[static_cast<std::size_t>(x.tensor)]] += x.bytes;
            for (std::size_t r = 0; r < 5; ++r) {
              if (out.traffic_in_by_role[r]) out.traffic_in_by_role[r][i] = in[r];
              if (out.traffic_out_by_role[r]) out.traffic_out_by_role[r][i] = outb[r];
            }
          }
          if (out.pinned) out.pinned[i] = t.pins.pinned;
          if (out.pinned_bytes) out.pinned_bytes[i] = t.pins.pinned_bytes;
          if (out.recompute_seconds) out.recompute_seconds[i] = t.pins.recompute_seconds;
          if (out.done) out.done[i] = 1;
          evaluated.fetch_add(1, std::memory_order_relaxed);
          if (options.done) options.done->fetch_add(1, std::memory_order_relaxed);
          if (options.after_point) options.after_point(i);
        }
      }
    } catch (const Interrupted&) {  // cancelled: the point in progress is left not done
    } catch (...) {  // an exception must not leave a thread (std::terminate)
      fail(std::current_exception());
    }
  };

  // The team: the calling thread and threads - 1 std::threads. Not an OpenMP parallel region:
  // libgomp ends the process when it cannot create a thread, whereas std::thread throws, and
  // the sweep then stops cleanly and reports it.
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads && !stop(); ++t) {
    try {
      team.emplace_back(work);
    } catch (const std::system_error& e) {
      fail(std::make_exception_ptr(std::runtime_error(
          "threads: could not start sweep thread " + std::to_string(t + 1) + " of " +
          std::to_string(threads) + " (" + e.what() + "); pass fewer threads")));
    }
  }
  if (!stop()) work();
  for (auto& t : team) t.join();
  if (error) std::rethrow_exception(error);
  return evaluated.load();
}

}  // namespace dnnmem
