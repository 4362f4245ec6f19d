#include "dnnmem/report.hpp"

#include <algorithm>
#include <limits>

namespace dnnmem {

std::vector<double> reuse_frequency(const Schedule& s, int ops_per_mac) {
  std::vector<double> rf(s.steps.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    std::int64_t bytes = 0;
    for (int k = 0; k < st.num_accesses; ++k)
      bytes += s.accesses[static_cast<std::size_t>(st.first_access + k)].bytes;
    if (bytes > 0) rf[i] = static_cast<double>(st.ops.total(ops_per_mac)) / static_cast<double>(bytes);
  }
  return rf;
}

double attainable_performance(double rf, double bandwidth, double throughput) {
  return std::min(throughput, rf * bandwidth);
}

}  // namespace dnnmem
