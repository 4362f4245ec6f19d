#include "dnnmem/hardware.hpp"

#include <cmath>
#include <stdexcept>

namespace dnnmem {

void validate(const Hardware& hw) {
  if (hw.capacity < 0)
    throw std::invalid_argument("capacity: must be >= 0 bytes, got " + std::to_string(hw.capacity));
  auto rate = [](double v, const char* name, const char* unit) {
    if (!std::isfinite(v) || v < 1.0)
      throw std::invalid_argument(std::string(name) + ": must be a finite number >= 1 " + unit +
                                  ", got " + std::to_string(v));
    if (v > 0x1p62) throw std::invalid_argument(std::string(name) + ": too large");
  };
  rate(hw.bandwidth, "bandwidth", "byte/s");
  rate(hw.throughput, "throughput", "FLOP/s");
}

TimeBase time_base(const Hardware& hw) {
  validate(hw);
  return {static_cast<std::int64_t>(std::llround(hw.bandwidth)),
          static_cast<std::int64_t>(std::llround(hw.throughput))};
}

}  // namespace dnnmem
