// Measurement for docs/performance.md ("Third round"): where along its sequence of decisions
// does the `lookahead` planner at one capacity first disagree with the planner at the next
// capacity of a grid? Incremental planning along the capacity axis (checkpoint the occupancy,
// replay from the first disagreeing decision) saves at most the agreeing prefix, so this
// distribution says whether it pays.
//
//   decision_trace NETWORK.json BATCH [POLICY]
//
// Built only in a build configured with -DCMAKE_CXX_FLAGS=-DDNNMEM_DECISION_TRACE (the library
// then records every decision of the thesis planners; see cpp/src/policies/thesis.cpp). For
// capacities 24 + 2i MiB (i < 489, the thesis grid; 616 GB/s, 13.45 TFLOPS) it prints, for
// spacings of 2, 8, 32 and 128 MiB, the quantiles of the first differing decision's position
// as a share of the sequence, and how many neighbouring pairs decide identically.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dnnmem/compose.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/sweep.hpp"

namespace dnnmem::detail {
extern thread_local std::vector<int>* decision_trace;
}

int main(int argc, char** argv) {
  using namespace dnnmem;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s NETWORK.json BATCH [POLICY]\n", argv[0]);
    return 2;
  }
  const Network net = load_network_file(argv[1]);
  ScheduleOptions so;
  so.batch = std::atoll(argv[2]);
  const Schedule s = build_schedule(net, so);
  PolicySpec spec;
  spec.cache.name = argc > 3 ? argv[3] : "lookahead";
  const std::vector<PreparedPolicy> policies{prepare_policy(s, spec, 2)};
  constexpr int kCaps = 489;
  std::vector<std::vector<int>> traces(kCaps);
  for (int i = 0; i < kCaps; ++i) {
    const SweepPoint p{static_cast<std::int64_t>(24 + 2 * i) << 20, 616e9, 13.45e12, 0};
    double sec = 0;
    SweepColumns out;
    out.seconds = &sec;
    SweepOptions o;
    o.threads = 1;
    detail::decision_trace = &traces[static_cast<std::size_t>(i)];
    sweep(s, policies, {&p, 1}, out, o);
    detail::decision_trace = nullptr;
  }
  std::printf("%s %s: %zu decisions per point (at 24 MiB)\n", argv[1], spec.cache.name.c_str(),
              traces[0].size());
  for (const int gap : {1, 4, 16, 64}) {
    std::vector<double> share;  // first differing decision / length of the shorter sequence
    int same = 0;
    for (int i = 0; i + gap < kCaps; i += gap) {
      const auto& a = traces[static_cast<std::size_t>(i)];
      const auto& b = traces[static_cast<std::size_t>(i + gap)];
      const std::size_t m = std::min(a.size(), b.size());
      std::size_t k = 0;
      while (k < m && a[k] == b[k]) ++k;
      if (k == m && a.size() == b.size()) {
        ++same;
        share.push_back(1.0);
      } else {
        share.push_back(static_cast<double>(k) / static_cast<double>(m));
      }
    }
    std::sort(share.begin(), share.end());
    const auto q = [&](double x) { return share[static_cast<std::size_t>(x * static_cast<double>(share.size() - 1))]; };
    double mean = 0;
    for (double v : share) mean += v;
    mean /= static_cast<double>(share.size());
    std::printf("  spacing %3d MiB, %3zu pairs: identical %3d; first difference at (share of the sequence) "
                "min %.3f p10 %.3f p25 %.3f median %.3f p75 %.3f p90 %.3f; mean %.3f\n",
                2 * gap, share.size(), same, q(0), q(0.1), q(0.25), q(0.5), q(0.75), q(0.9), mean);
  }
  return 0;
}
