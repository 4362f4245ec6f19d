#include "dnnmem/link.hpp"

#include <stdexcept>
#include <string>

namespace dnnmem {

const LinkModel& identity_link() {
  static const LinkModel link;
  return link;
}

void LinkModel::finish(const std::vector<std::int64_t>& tensor_bytes) {
  size.clear();
  size_wire.clear();
  max_num = max_den = 1;
  if (num.empty()) return;
  size = tensor_bytes;
  size_wire.resize(size.size());
  for (std::size_t t = 0; t < size.size(); ++t) {
    const Ticks q = static_cast<Ticks>(size[t]) * num[t];
    size_wire[t] = static_cast<std::int64_t>((q + den[t] - 1) / den[t]);
    // num / den > max_num / max_den, on integers (each side < 2^60: the products fit)
    if (static_cast<Ticks>(num[t]) * max_den > static_cast<Ticks>(max_num) * den[t]) {
      max_num = num[t];
      max_den = den[t];
    }
  }
}

Ticks LinkModel::cap_ticks(const TimeBase& time, std::int64_t bytes) const {
  // ceil(bytes · P / cap) with P = bandwidth · throughput (< 2^124): split P = q · cap + r so
  // that no product exceeds 128 bits for realistic rates; refuse the rest.
  const Ticks per_second = static_cast<Ticks>(time.bandwidth) * time.throughput;
  const Ticks q = per_second / cap, r = per_second % cap;
  Ticks whole = 0;
  // (Unreachable after check_time_limits, which bounds every transfer's time: kept so that no
  // path can return a wrapped number.)
  if (__builtin_mul_overflow(static_cast<Ticks>(bytes), q, &whole) || whole > (Ticks{1} << 125))
    throw std::invalid_argument("link: option 'cap' = " + std::to_string(cap) +
                                " bytes/s makes a transfer's time too large to count exactly");
  return whole + (static_cast<Ticks>(bytes) * r + cap - 1) / cap;
}

}  // namespace dnnmem
