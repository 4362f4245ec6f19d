// Occupancy per step for the planners: range add, range max, and "first / last step in [a, b]
// above a level", O(log steps) each (SPEC §6 note: one pass over the intervals with a range
// tree). A power-of-two segment tree in an array (node p has children 2p, 2p+1; leaves at
// size + i): max_[p] is the maximum of p's subtree including every add applied at p or below,
// add_[p] what was added to p's whole subtree. Adds are applied bottom-up without recursion
// (the planners' hottest operation); queries push pending adds off their boundary paths first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dnnmem::detail {

class RangeTree {
 public:
  // The tree lives in `max` and `add` (resized and zeroed here): buffers a sweep reuses.
  RangeTree(std::size_t n, std::vector<std::int64_t>& max, std::vector<std::int64_t>& add)
      : max_(max), add_(add) {
    while (size_ < std::max<std::size_t>(n, 1)) size_ *= 2, ++height_;
    max_.assign(2 * size_, 0);
    add_.assign(2 * size_, 0);
  }

  void add(int lo, int hi, std::int64_t v) {
    if (lo > hi) return;
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    const std::size_t l0 = l, r0 = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    rebuild(l0);
    rebuild(r0);
  }

  std::int64_t max(int lo, int hi) {
    if (lo > hi) return 0;
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    push(l);
    push(r - 1);
    std::int64_t m = INT64_MIN;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) m = std::max(m, max_[l++]);
      if (r & 1) m = std::max(m, max_[--r]);
    }
    return m;
  }

  // The first / last index in [lo, hi] whose value is > level, or -1.
  int first_above(int lo, int hi, std::int64_t level) const {
    return lo <= hi ? find(1, 0, static_cast<int>(size_) - 1, lo, hi, level, 0, false) : -1;
  }
  int last_above(int lo, int hi, std::int64_t level) const {
    return lo <= hi ? find(1, 0, static_cast<int>(size_) - 1, lo, hi, level, 0, true) : -1;
  }

 private:
  std::size_t size_ = 1;
  int height_ = 0;
  std::vector<std::int64_t>& max_;
  std::vector<std::int64_t>& add_;

  void apply(std::size_t p, std::int64_t v) {
    max_[p] += v;
    add_[p] += v;
  }
  void rebuild(std::size_t p) {
    while (p > 1) {
      p >>= 1;
      max_[p] = std::max(max_[2 * p], max_[2 * p + 1]) + add_[p];
    }
  }
  void push(std::size_t leaf) {
    for (int s = height_; s > 0; --s) {
      const std::size_t i = leaf >> s;
      if (add_[i] != 0) {
        apply(2 * i, add_[i]);
        apply(2 * i + 1, add_[i]);
        add_[i] = 0;
      }
    }
  }
  // `above` = the adds of the ancestors of `node`.
  int find(std::size_t node, int l, int r, int lo, int hi, std::int64_t level, std::int64_t above,
           bool last) const {
    if (hi < l || r < lo || max_[node] + above <= level) return -1;
    if (l == r) return l;
    const int m = (l + r) / 2;
    const std::int64_t a = above + add_[node];
    const int first = last ? find(2 * node + 1, m + 1, r, lo, hi, level, a, last)
                           : find(2 * node, l, m, lo, hi, level, a, last);
    if (first >= 0) return first;
    return last ? find(2 * node, l, m, lo, hi, level, a, last)
                : find(2 * node + 1, m + 1, r, lo, hi, level, a, last);
  }
};

}  // namespace dnnmem::detail
