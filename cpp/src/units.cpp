#include "dnnmem/units.hpp"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace dnnmem {

std::string format_bytes(std::int64_t bytes) {
  static constexpr struct {
    double factor;
    const char* unit;
  } kSteps[] = {{0x1p50, "PiB"}, {0x1p40, "TiB"}, {0x1p30, "GiB"},
                {0x1p20, "MiB"}, {0x1p10, "KiB"}, {1, "B"}};
  const double v = static_cast<double>(bytes);
  auto step = kSteps[std::size(kSteps) - 1];  // below 1 byte (0): bytes
  for (const auto& s : kSteps)
    if (std::fabs(v) >= s.factor) {
      step = s;
      break;
    }
  char text[48];
  std::snprintf(text, sizeof text, "%.4g %s", v / step.factor, step.unit);
  return text;
}

std::string format_bytes_exactly(std::int64_t bytes) {
  const std::string rounded = format_bytes(bytes);
  if (bytes > -1024 && bytes < 1024) return rounded;
  return rounded + " (" + std::to_string(bytes) + " bytes)";
}

}  // namespace dnnmem
