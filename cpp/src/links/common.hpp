// Options shared by the links that model a real channel (ratio, zvc, rle, zlib).
#pragma once

#include <cmath>

#include "dnnmem/compose.hpp"

namespace dnnmem {

inline OptionSpec efficiency_option() {
  return number_option("efficiency", "",
                       "share of the bandwidth the link delivers (0.8: vDNN's 12.8 GB/s on PCIe gen3's 16)",
                       1.0, 0.01, 1.0);
}

// The efficiency in units of 1 / LinkModel::kEfficiencyDen (rounded; at least 1).
inline std::int64_t efficiency_num(double e) {
  const auto v = static_cast<std::int64_t>(std::llround(e * LinkModel::kEfficiencyDen));
  return v < 1 ? 1 : v;
}

}  // namespace dnnmem
