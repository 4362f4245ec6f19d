// Occupancy per step for the planners: range add, range max, and "last step in [a, b] above a
// level" in O(log steps) (SPEC §6 note: one pass over the intervals with a range tree).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dnnmem::detail {

class RangeTree {
 public:
  explicit RangeTree(std::size_t n) : n_(std::max<std::size_t>(n, 1)), max_(4 * n_, 0), add_(4 * n_, 0) {}

  void add(int lo, int hi, std::int64_t v) {
    if (lo <= hi) add(1, 0, static_cast<int>(n_) - 1, lo, hi, v);
  }
  std::int64_t max(int lo, int hi) const {
    return lo <= hi ? max(1, 0, static_cast<int>(n_) - 1, lo, hi) : 0;
  }
  // The first index in [lo, hi] whose value is > level, or -1.
  int first_above(int lo, int hi, std::int64_t level) const {
    return lo <= hi ? first_above(1, 0, static_cast<int>(n_) - 1, lo, hi, level, 0) : -1;
  }
  // The last index in [lo, hi] whose value is > level, or -1.
  int last_above(int lo, int hi, std::int64_t level) const {
    return lo <= hi ? last_above(1, 0, static_cast<int>(n_) - 1, lo, hi, level, 0) : -1;
  }

 private:
  std::size_t n_;
  std::vector<std::int64_t> max_, add_;  // max_ includes add_ of the node itself

  void add(std::size_t node, int l, int r, int lo, int hi, std::int64_t v) {
    if (hi < l || r < lo) return;
    if (lo <= l && r <= hi) {
      max_[node] += v;
      add_[node] += v;
      return;
    }
    const int m = (l + r) / 2;
    add(2 * node, l, m, lo, hi, v);
    add(2 * node + 1, m + 1, r, lo, hi, v);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }
  std::int64_t max(std::size_t node, int l, int r, int lo, int hi) const {
    if (lo <= l && r <= hi) return max_[node];
    const int m = (l + r) / 2;
    std::int64_t best = INT64_MIN;
    if (lo <= m) best = std::max(best, max(2 * node, l, m, lo, hi));
    if (hi > m) best = std::max(best, max(2 * node + 1, m + 1, r, lo, hi));
    return best + add_[node];
  }
  int first_above(std::size_t node, int l, int r, int lo, int hi, std::int64_t level,
                  std::int64_t above) const {
    if (hi < l || r < lo || max_[node] + above <= level) return -1;
    if (l == r) return l;
    const int m = (l + r) / 2;
    const std::int64_t a = above + add_[node];
    const int left = first_above(2 * node, l, m, lo, hi, level, a);
    return left >= 0 ? left : first_above(2 * node + 1, m + 1, r, lo, hi, level, a);
  }
  // `above` = the sum of add_ on the path above this node.
  int last_above(std::size_t node, int l, int r, int lo, int hi, std::int64_t level,
                 std::int64_t above) const {
    if (hi < l || r < lo || max_[node] + above <= level) return -1;
    if (l == r) return l;
    const int m = (l + r) / 2;
    const std::int64_t a = above + add_[node];
    const int right = last_above(2 * node + 1, m + 1, r, lo, hi, level, a);
    return right >= 0 ? right : last_above(2 * node, l, m, lo, hi, level, a);
  }
};

}  // namespace dnnmem::detail
