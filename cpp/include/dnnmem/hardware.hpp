// A design point's hardware (SPEC §4): on-chip capacity, off-chip bandwidth (one channel shared
// by loads and stores), compute throughput.
#pragma once

#include <cstdint>
#include <string>

namespace dnnmem {

struct Hardware {
  std::int64_t capacity = 0;  // bytes
  double bandwidth = 0.0;     // bytes/s
  double throughput = 0.0;    // FLOP/s
};

// Throws std::invalid_argument naming the field: negative capacity, bandwidth or throughput not
// finite and > 0, or too large to count time exactly (> 2^62).
void validate(const Hardware& hw);

// Time in the core is an exact integer: 1 tick = 1 / (throughput · bandwidth) s, with both
// rounded to whole FLOP/s and bytes/s. A step of F FLOPs computes for F · bandwidth ticks; b
// bytes move in b · throughput ticks. Every comparison of SPEC §5 is then exact.
__extension__ typedef __int128 Ticks;

struct TimeBase {
  std::int64_t bandwidth = 1;   // bytes/s, whole
  std::int64_t throughput = 1;  // FLOP/s, whole
  Ticks compute(std::int64_t flops) const { return static_cast<Ticks>(flops) * bandwidth; }
  Ticks transfer(std::int64_t bytes) const { return static_cast<Ticks>(bytes) * throughput; }
  double seconds(Ticks t) const {
    return static_cast<double>(t) / (static_cast<double>(bandwidth) * static_cast<double>(throughput));
  }
};

TimeBase time_base(const Hardware& hw);

}  // namespace dnnmem
