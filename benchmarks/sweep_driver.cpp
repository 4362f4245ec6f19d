// A small C++ driver for profiling the sweep engine without Python (valgrind --tool=callgrind,
// perf): sweep_driver NETWORK.json BATCH POLICY POINTS [THREADS]. Capacities cycle over
// 24–1000 MiB (step 2 MiB) at 616 GB/s and 13.45 TFLOPS. Prints µs per point and a checksum of
// the totals (to compare builds: an optimisation must not change it).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dnnmem/network_json.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/sweep.hpp"

int main(int argc, char** argv) {
  using namespace dnnmem;
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s NETWORK.json BATCH POLICY POINTS [THREADS]\n", argv[0]);
    return 2;
  }
  const Network net = load_network_file(argv[1]);
  ScheduleOptions so;
  so.batch = std::atoll(argv[2]);
  const Schedule s = build_schedule(net, so);
  int policy = -1;
  for (std::size_t i = 0; i < cache_parts().size(); ++i)
    if (cache_parts()[i]->name == argv[3]) policy = static_cast<int>(i);
  if (policy < 0) {
    std::fprintf(stderr, "unknown policy %s\n", argv[3]);
    return 2;
  }
  const auto n = static_cast<std::size_t>(std::atoll(argv[4]));
  std::vector<SweepPoint> pts(n);
  for (std::size_t i = 0; i < n; ++i)
    pts[i] = {static_cast<std::int64_t>(24 + 2 * (i % 489)) << 20, 616e9, 13.45e12, policy};
  std::vector<double> sec(n);
  std::vector<std::int64_t> tin(n), tout(n);
  SweepColumns out;
  out.seconds = sec.data();
  out.traffic_in = tin.data();
  out.traffic_out = tout.data();
  SweepOptions o;
  o.threads = argc > 5 ? std::atoi(argv[5]) : 1;
  const auto t0 = std::chrono::steady_clock::now();
  sweep(s, pts, out, o);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double check = 0;
  for (std::size_t i = 0; i < n; ++i) check += sec[i] * 1e3 + static_cast<double>(tin[i] + tout[i]) * 1e-9;
  std::printf("%s %s: %.2f us/point (%zu points, %d threads), checksum %.17g\n", argv[1], argv[3],
              dt / static_cast<double>(n) * 1e6, n, o.threads, check);
  return 0;
}
