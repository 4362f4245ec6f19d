// A tile walk's input but c_eff, as the tile model's per-thread caches key it: the memoised
// walks (tile_pass.cpp, by the whole key) and the walks' traces (tiles.cpp, with lru = false:
// the trace does not depend on the replacement rule).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dnnmem/tiles.hpp"

namespace dnnmem::detail {

struct WalkKey {
  std::int64_t m, k, n, tile, elem_bytes, psum_bytes, parts;
  int order, partition;
  unsigned skip_x, skip_w;
  bool lockstep, lru, keep_psum, no_reuse, reduce_off_chip;
  std::array<char, 3> nest_x, nest_w;
  bool operator==(const WalkKey&) const = default;
};

inline std::array<char, 3> nest_chars(std::string_view nest) {
  std::array<char, 3> c{};
  for (std::size_t i = 0; i < c.size() && i < nest.size(); ++i) c[i] = nest[i];
  return c;
}

inline WalkKey walk_key(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                        const TileWalkOptions& o) {
  return {m, k, n, o.tile, o.elem_bytes, o.psum_bytes, o.parts, static_cast<int>(order), o.partition,
          o.skip_x, o.skip_w, o.lockstep, o.lru, o.keep_psum, o.no_reuse, o.reduce_off_chip, nest_chars(o.nest_x), nest_chars(o.nest_w)};
}

struct WalkKeyHash {
  std::size_t operator()(const WalkKey& w) const {
    std::uint64_t h = 1469598103934665603ULL;
    for (std::int64_t v : {w.m, w.k, w.n, w.tile, w.elem_bytes, w.psum_bytes, w.parts,
                           static_cast<std::int64_t>(w.order), static_cast<std::int64_t>(w.partition),
                           static_cast<std::int64_t>(w.skip_x), static_cast<std::int64_t>(w.skip_w),
                           static_cast<std::int64_t>(w.reduce_off_chip) * 16 + static_cast<std::int64_t>(w.no_reuse) * 8 + static_cast<std::int64_t>(w.lockstep) * 4 +
                               static_cast<std::int64_t>(w.keep_psum) * 2 + w.lru,
                           static_cast<std::int64_t>(w.nest_x[0] + 256 * (w.nest_x[1] + 256 * w.nest_x[2])),
                           static_cast<std::int64_t>(w.nest_w[0] + 256 * (w.nest_w[1] + 256 * w.nest_w[2]))})
      h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
    return static_cast<std::size_t>(h);
  }
};

}  // namespace dnnmem::detail
