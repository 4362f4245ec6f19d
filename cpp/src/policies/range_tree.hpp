// Occupancy per step for the planners: range add, range max, and "first / last step in [a, b]
// above a level", O(log steps) each (SPEC §6 note: one pass over the intervals with a range
// tree). A power-of-two segment tree in an array (node p has children 2p, 2p+1; leaves at
// size + i): max(p) is the maximum of p's subtree including every add applied at p or below,
// add(p) what was added to p's whole subtree. Adds are never pushed down: an add updates the
// covering nodes and the two boundary paths bottom-up, and a query adds the adds of the
// ancestors of the nodes it reads (the planners' hottest operations, so no recursion there).
// A node's max and add sit side by side in one array (t_[2p], t_[2p + 1]): every visit reads
// both, and with 2^15 leaves (GNMT) the tree is far larger than the L1/L2 caches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dnnmem::detail {

class RangeTree {
 public:
  // The tree lives in `nodes` (resized and zeroed here): a buffer a sweep reuses.
  RangeTree(std::size_t n, std::vector<std::int64_t>& nodes) : t_(nodes) {
    while (size_ < std::max<std::size_t>(n, 1)) size_ *= 2;
    t_.assign(4 * size_, 0);
  }

  void add(int lo, int hi, std::int64_t v) {
    if (lo > hi) return;
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    const std::size_t l0 = l, r0 = r - 1;
    int levels = 0;  // the adds touch levels 0 … levels-1 (leaves: level 0)
    for (; l < r; l >>= 1, r >>= 1, ++levels) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    rebuild(l0, r0, levels);
  }

  // The maximum over [lo, hi] (0 if empty). The nodes read on the left all lie under node
  // l - 1 of the current level, those on the right under node r: after each step up, their
  // running maxima take that node's add, then every add above it.
  std::int64_t max(int lo, int hi) const {
    if (lo > hi) return 0;
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    std::int64_t ml = 0, mr = 0;
    bool left = false, right = false;
    while (l < r) {
      if (l & 1) {
        ml = left ? std::max(ml, max_at(l)) : max_at(l);
        left = true;
        ++l;
      }
      if (r & 1) {
        --r;
        mr = right ? std::max(mr, max_at(r)) : max_at(r);
        right = true;
      }
      l >>= 1;
      r >>= 1;
      if (left) ml += add_at(l - 1);
      if (right) mr += add_at(r);
    }
    if (left && right) {  // the two ancestor chains join: add their common part once, to the max
      std::size_t a = (l - 1) >> 1, b = r >> 1;
      for (; a != b; a >>= 1, b >>= 1) {
        ml += add_at(a);
        mr += add_at(b);
      }
      std::int64_t m = std::max(ml, mr);
      for (; a >= 1; a >>= 1) m += add_at(a);
      return m;
    }
    if (left)
      for (std::size_t a = (l - 1) >> 1; a >= 1; a >>= 1) ml += add_at(a);
    if (right)
      for (std::size_t a = r >> 1; a >= 1; a >>= 1) mr += add_at(a);
    return left ? ml : mr;
  }

  // The maximum over every index.
  std::int64_t max_all() const { return max_at(1); }

  // The last index in [lo, hi] whose value is > level, or -1.
  int last_above(int lo, int hi, std::int64_t level) const {
    return lo <= hi ? find_last(1, 0, static_cast<int>(size_) - 1, lo, hi, level, 0) : -1;
  }

 private:
  std::size_t size_ = 1;
  std::vector<std::int64_t>& t_;

  std::int64_t max_at(std::size_t p) const { return t_[2 * p]; }
  std::int64_t add_at(std::size_t p) const { return t_[2 * p + 1]; }
  void apply(std::size_t p, std::int64_t v) {
    t_[2 * p] += v;
    t_[2 * p + 1] += v;
  }
  // Recomputes node p from its children; true if its maximum changed.
  bool pull(std::size_t p) {
    const std::int64_t m = std::max(max_at(2 * p), max_at(2 * p + 1)) + add_at(p);
    const bool changed = m != t_[2 * p];
    t_[2 * p] = m;
    return changed;
  }
  // Recomputes the ancestors of leaves l <= r, level by level (the two paths join at the top).
  // Every node an add touched is a child of one of these ancestors, so from level `levels` up
  // all changes lie on the two paths: once neither changes, nothing above does either.
  void rebuild(std::size_t l, std::size_t r, int levels) {
    int level = 1;
    for (l >>= 1, r >>= 1; l >= 1; l >>= 1, r >>= 1, ++level) {
      bool changed = pull(l);
      if (r != l) changed = pull(r) || changed;
      if (!changed && level >= levels) return;
    }
  }
  // `above` = the adds of the ancestors of `node`.
  // Right child first, so the first hit is the last index.
  int find_last(std::size_t node, int l, int r, int lo, int hi, std::int64_t level,
                std::int64_t above) const {
    if (hi < l || r < lo || max_at(node) + above <= level) return -1;
    if (l == r) return l;
    const int m = (l + r) / 2;
    const std::int64_t a = above + add_at(node);
    const int right = find_last(2 * node + 1, m + 1, r, lo, hi, level, a);
    return right >= 0 ? right : find_last(2 * node, l, m, lo, hi, level, a);
  }
};

}  // namespace dnnmem::detail
