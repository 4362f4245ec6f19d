// Exact arithmetic with a ratio given as a double: r is m · 2^e exactly, so ceil(b / r) can be
// computed on integers (no rounding of b / r in floating point, which would make a result
// depend on the platform's division).
#pragma once

#include <cmath>
#include <cstdint>

#include "dnnmem/hardware.hpp"

namespace dnnmem::detail {

// r (in [2^-6, 2^20]) as num / den with den its odd-reduced 53-bit mantissa and num a power of
// two: then ceil(b / r) = ceil(b · num / den), exact in 128 bits for b < 2^62.
inline void ratio_as_fraction(double r, std::int64_t& num, std::int64_t& den) {
  int e = 0;
  const double m = std::frexp(r, &e);                                // r = m · 2^e, m in [0.5, 1)
  std::int64_t mant = static_cast<std::int64_t>(std::ldexp(m, 53));  // r = mant · 2^(e-53)
  int shift = 53 - e;                                                // b / r = b · 2^shift / mant
  while ((mant & 1) == 0 && shift > 0) {  // lowest terms keep the numbers small
    mant >>= 1;
    --shift;
  }
  num = std::int64_t{1} << shift;  // shift <= 59 for r >= 2^-6
  den = mant;
}

// ceil(b / r) for r in [2^-6, 2^20], exactly, in 128 bits (up to 64 · b for b < 2^62).
inline Ticks ceil_div_ratio_wide(std::int64_t b, double r) {
  std::int64_t num = 1, den = 1;
  ratio_as_fraction(r, num, den);
  const Ticks q = static_cast<Ticks>(b) * num;
  return (q + den - 1) / den;
}

// The same where the result is known to fit 64 bits (r >= 1, or b small).
inline std::int64_t ceil_div_ratio(std::int64_t b, double r) {
  return static_cast<std::int64_t>(ceil_div_ratio_wide(b, r));
}

}  // namespace dnnmem::detail
