// Occupancy per step for the planners: range add, range max, "last step in [a, b] above a
// level" and "add unless a step of the range is above a level" (SPEC §6 note: one pass over the
// intervals with a range tree). The planners only ever add bytes (onsram-eager alone removes
// some, see add()), and
// most reuse intervals are short (ResNet-50: 57 % span at most one step; GNMT: 69 % at most 16
// steps), so the structure has two levels:
//
// - the steps in blocks of kBlock, each step's value held flat (`leaf_`): an add or a query
//   within one block touches only the steps it covers, plus the block's total (below);
// - over the blocks, a power-of-two segment tree (node p has children 2p, 2p+1; leaves at
//   size + j for block j): max(p) is the maximum of p's subtree including every add applied at p
//   or below, add(p) what was added to p's whole subtree. Adds over whole blocks go to this
//   tree and are never pushed down: an add updates the covering nodes and the two boundary paths
//   bottom-up, and a query adds the adds of the ancestors of the nodes it reads. A node's max and
//   add sit side by side (t_[2p], t_[2p + 1]): every visit reads both.
//
// A step's value is leaf_[i] + the adds on the path from its block's tree leaf to the root
// (the block's offset, kept flat beside the block's own maximum: blk_, below). So a block's
// maximum is two adjacent loads, which also answer queries over a few whole blocks without
// the tree (kLinear).
// Because values only grow, raising a block's maximum after an add inside it only ever
// raises its ancestors' maxima, and stops at the first that does not change. With 32-step
// blocks the tree over GNMT's 26,409 steps has 826 leaves (26 KiB), where a tree over the steps
// themselves had 2^15 (1 MiB, beyond the L2 cache).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace dnnmem::detail {

class RangeTree {
 public:
  static constexpr int kShift = 5;  // (callgrind: 16 or 64 steps within 2 %, 8 or 128 2–5 % more)
  static constexpr int kBlock = 1 << kShift;
  static constexpr int kMask = kBlock - 1;

  // Everything lives in `nodes` (resized and zeroed here): a buffer a sweep reuses. Values
  // start at 0; only add() with v >= 0 may change them.
  RangeTree(std::size_t n, std::vector<std::int64_t>& nodes) {
    const std::size_t blocks = std::max<std::size_t>((n + kMask) >> kShift, 1);
    while (size_ < blocks) size_ *= 2;
    nodes.assign(blocks * kBlock + 4 * size_ + 2 * blocks, 0);
    leaf_ = nodes.data();
    t_ = leaf_ + blocks * kBlock;
    blk_ = t_ + 4 * size_;
  }

  // Adds v to every index of [lo, hi]. The planners add v >= 0; a v < 0 (onsram-eager gives a
  // pinned tensor's bytes back when it dies early) keeps add, max and max_all exact, but
  // any_above and add_unless_above stop early on partial sums that are lower bounds only
  // while every add is >= 0: a tree that has had a v < 0 must not use them. Values must stay
  // >= 0 (occupancy): the last block's padding steps past n hold 0 and count in its maximum.
  void add(int lo, int hi, std::int64_t v) {
    if (lo > hi) return;
    const int bl = lo >> kShift, bh = hi >> kShift;
    if (bl == bh) {
      settle(bl, add_leaves(lo, hi, v), v);
      return;
    }
    int fl = bl, fh = bh;  // the blocks covered whole
    if (lo & kMask) {
      settle(bl, add_leaves(lo, (bl << kShift) + kMask, v), v);
      ++fl;
    }
    if ((hi & kMask) != kMask) {
      settle(bh, add_leaves(bh << kShift, hi, v), v);
      --fh;
    }
    if (fl <= fh) tree_add(fl, fh, v);
  }

  // add(lo, hi, v) for a v >= 0 (the planners'), the range within one block inline.
  void add_up(int lo, int hi, std::int64_t v) {
    if (lo > hi) return;
    if ((lo >> kShift) == (hi >> kShift))
      raise(lo >> kShift, add_leaves(lo, hi, v));
    else
      add_up_blocks(lo, hi, v);
  }

  // add(lo, hi, v) unless some index in [lo, hi] is above `level`; whether it added. Rule 2
  // asks and then adds the same range, mostly within one block: one visit of the block.
  [[gnu::always_inline]] bool add_unless_above(int lo, int hi, std::int64_t level, std::int64_t v) {
    if (lo > hi) return true;
    const int j = lo >> kShift;
    if (j != hi >> kShift) {
      if (max_all() > level) {
        if (witness_ >= lo && witness_ <= hi && at(witness_) > level) return false;
        const int r = find_above(lo, hi, level);
        if (r != -1) {
          if (r >= 0) witness_ = r;
          return false;
        }
      }
      add_up_blocks(lo, hi, v);
      return true;
    }
    const std::int64_t above = offset(j);
    if (blk_[2 * j + 1] + above > level) {
      const std::int64_t rest = level - above;
      for (int i = hi; i >= lo; --i)
        if (leaf_[i] > rest) return false;
    }
    raise(j, add_leaves(lo, hi, v));
    return true;
  }

  // The maximum over [lo, hi] (0 if empty).
  std::int64_t max(int lo, int hi) const {
    if (lo > hi) return 0;
    const int bl = lo >> kShift, bh = hi >> kShift;
    if (bl == bh) return max_leaves(lo, hi) + offset(bl);
    std::int64_t m = std::numeric_limits<std::int64_t>::min();
    int fl = bl, fh = bh;
    if (lo & kMask) {
      m = max_leaves(lo, (bl << kShift) + kMask) + offset(bl);
      ++fl;
    }
    if ((hi & kMask) != kMask) {
      m = std::max(m, max_leaves(bh << kShift, hi) + offset(bh));
      --fh;
    }
    if (fl <= fh) m = std::max(m, tree_max(fl, fh));
    return m;
  }

  // The maximum over every index.
  std::int64_t max_all() const { return max_at(1); }

  // Whether some index in [lo, hi] has a value > level: max(lo, hi) > level, but cheaper (a
  // partial block whose maximum, or that of a node above it, is at most `level` is passed over
  // without reading its steps).
  bool any_above(int lo, int hi, std::int64_t level) const {
    if (lo > hi) return false;
    const int bl = lo >> kShift, bh = hi >> kShift;
    if (bl == bh) return last_in_block(bl, lo, hi, level) >= 0;
    int fl = bl, fh = bh;
    if ((hi & kMask) != kMask) {
      if (last_in_block(bh, bh << kShift, hi, level) >= 0) return true;
      --fh;
    }
    if (lo & kMask) {
      if (last_in_block(bl, lo, (bl << kShift) + kMask, level) >= 0) return true;
      ++fl;
    }
    return fl <= fh && tree_any_above(fl, fh, level);
  }

  // The value at index i.
  std::int64_t at(int i) const { return leaf_[i] + offset(i >> kShift); }

  // out[k] = at(lo + k) for the indices of [lo, hi].
  void values(int lo, int hi, std::int64_t* out) const {
    for (int i = lo; i <= hi;) {
      const int j = i >> kShift, e = std::min(hi, (j << kShift) + kMask);
      const std::int64_t above = offset(j);
      for (; i <= e; ++i) *out++ = leaf_[i] + above;
    }
  }

  // Whether the values over [lo, hi] are before[k] + one constant c at every index lo + k
  // (then c set to it): values() compared with `before`, as a replay checks a block's region
  // (docs/performance.md "Exact replay"), but without the copy and stopping at the first
  // difference. Within block j every value is leaf_[i] + offset(j), so
  // leaf_[i] + offset(j) - before[k] == c  <=>  leaf_[i] - before[k] == c - offset(j).
  bool shifted_from(int lo, int hi, const std::int64_t* before, std::int64_t& c) const {
    c = at(lo) - before[0];
    for (int i = lo; i <= hi;) {
      const int j = i >> kShift, e = std::min(hi, (j << kShift) + kMask);
      const std::int64_t want = c - offset(j);
      for (; i <= e; ++i)
        if (leaf_[i] - *before++ != want) return false;
    }
    return true;
  }

  // Adds d[k] >= 0 to index lo + k for the indices of [lo, hi] (a replayed block's occupancy,
  // docs/performance.md "Exact replay"): each block's steps, then its maximum (raise).
  void add_values(int lo, int hi, const std::int64_t* d) {
    for (int i = lo; i <= hi;) {
      const int j = i >> kShift, e = std::min(hi, (j << kShift) + kMask);
      std::int64_t m = std::numeric_limits<std::int64_t>::min();
      for (; i <= e; ++i) {
        const std::int64_t x = leaf_[i] += *d++;
        m = x > m ? x : m;
      }
      raise(j, m);
    }
  }

  // any_above(), naming a witness: -1 if no index in [lo, hi] is above level, else one that is
  // (found in a partial block at either end), or -2 (found above the whole blocks between).
  int find_above(int lo, int hi, std::int64_t level) const {
    const int bl = lo >> kShift, bh = hi >> kShift;
    int fl = bl, fh = bh;
    if ((hi & kMask) != kMask) {
      const int r = last_in_block(bh, bh << kShift, hi, level);
      if (r >= 0) return r;
      --fh;
    }
    if (lo & kMask) {
      const int r = last_in_block(bl, lo, (bl << kShift) + kMask, level);
      if (r >= 0) return r;
      ++fl;
    }
    return fl <= fh && tree_any_above(fl, fh, level) ? -2 : -1;
  }

  // The last index in [lo, hi] whose value is > level, or -1.
  [[gnu::always_inline]] int last_above(int lo, int hi, std::int64_t level) const {
    if (lo > hi) return -1;
    const int bl = lo >> kShift, bh = hi >> kShift;
    if (bl == bh) return last_in_block(bl, lo, hi, level);
    int fl = bl, fh = bh;
    if ((hi & kMask) != kMask) {
      const int r = last_in_block(bh, bh << kShift, hi, level);
      if (r >= 0) return r;
      --fh;
    }
    const bool left_part = (lo & kMask) != 0;
    if (left_part) ++fl;
    if (fl <= fh) {
      int j = -1;
      if (fh - fl < kLinear) {  // a few blocks: their flat maxima, last first
        for (int k = fh; k >= fl; --k)
          if (block_max(k) > level) {
            j = k;
            break;
          }
      } else {
        j = find_last(1, 0, static_cast<int>(size_) - 1, fl, fh, level, 0);
      }
      if (j >= 0) return last_in_block(j, j << kShift, (j << kShift) + kMask, level);
    }
    return left_part ? last_in_block(bl, lo, (bl << kShift) + kMask, level) : -1;
  }

 private:
  int witness_ = -1;  // add_unless_above's last step found above its level (values only grow)
  std::size_t size_ = 1;        // tree leaves (blocks, rounded up to a power of two)
  std::int64_t* leaf_ = nullptr;  // per step, without the adds held by the tree
  std::int64_t* t_ = nullptr;     // the tree over the blocks: (max, add) per node
  // Every block's offset (the adds on the path from its tree leaf to the root) kept flat in
  // blk_[2j], so that reading it costs one load instead of a walk up the tree (GNMT: 11
  // levels, a tenth of a point). An add over whole blocks updates it for every block it
  // covers; those adds are few (GNMT lookahead: ~3,000 per point, each a few blocks; a second
  // level of offsets per kBlock blocks, which capped that work, cost more in the reads than it
  // saved: callgrind, GNMT 2 %, ResNet-50 1.8 %). Beside it, blk_[2j + 1]: the
  // maximum of block j's leaf_ values (no adds of the tree; the tree leaf's maximum is it plus
  // the leaf's add), so that "is block j above a level" reads one cache line and the tree's
  // adds never touch it.
  std::int64_t* blk_ = nullptr;

  std::int64_t max_at(std::size_t p) const { return t_[2 * p]; }
  std::int64_t add_at(std::size_t p) const { return t_[2 * p + 1]; }

  // The adds that apply to every step of block j (its tree leaf and that leaf's ancestors).
  std::int64_t offset(int j) const { return blk_[2 * j]; }
  // Block j's maximum, every add included.
  std::int64_t block_max(int j) const { return blk_[2 * j + 1] + blk_[2 * j]; }
  // Ranges of fewer blocks than this read the blocks' flat maxima instead of walking the tree
  // (callgrind, GNMT lookahead: 4 blocks 0.01 % more, 16 or 32 the same as 8).
  static constexpr int kLinear = 8;
  // Adds v to the offsets of blocks [lo, hi].
  void add_offsets(int lo, int hi, std::int64_t v) {
    for (int j = lo; j <= hi; ++j) blk_[2 * j] += v;
  }


  // Adds v to leaf_[lo..hi] (one block) and returns their new maximum.
  std::int64_t add_leaves(int lo, int hi, std::int64_t v) {
    std::int64_t m = std::numeric_limits<std::int64_t>::min();
    for (int i = lo; i <= hi; ++i) {
      const std::int64_t x = leaf_[i] += v;
      m = x > m ? x : m;
    }
    return m;
  }
  std::int64_t max_leaves(int lo, int hi) const {
    std::int64_t m = leaf_[lo];
    for (int i = lo + 1; i <= hi; ++i) m = leaf_[i] > m ? leaf_[i] : m;
    return m;
  }
  // The last step in [lo, hi] (within block j) whose value is > level, or -1. The block's
  // maximum (its steps' own maximum, plus its offset) passes over a block at most `level` without reading its steps. (A walk from the
  // root that stopped at the first node at most `level` did more work: its early stop seldom
  // came.)
  int last_in_block(int j, int lo, int hi, std::int64_t level) const {
    const std::int64_t above = offset(j);  // the leaf's add and its ancestors'
    if (blk_[2 * j + 1] + above <= level) return -1;
    const std::int64_t rest = level - above;
    for (int i = hi; i >= lo; --i)
      if (leaf_[i] > rest) return i;
    return -1;
  }

  // Block j's steps now reach m (without the tree's adds): raises its tree leaf's maximum and
  // then its ancestors', until one does not change (values only grow).
  [[gnu::always_inline]] void raise(int j, std::int64_t m) {
    if (m <= blk_[2 * j + 1]) return;
    blk_[2 * j + 1] = m;
    std::size_t p = size_ + static_cast<std::size_t>(j);
    std::int64_t v = m + add_at(p);
    t_[2 * p] = v;
    for (p >>= 1; p >= 1; p >>= 1) {
      v += add_at(p);
      if (v <= t_[2 * p]) return;
      t_[2 * p] = v;
    }
  }

  // Block j's part-range add of v left its changed steps at most m: a v >= 0 can only raise
  // its maximum (raise); a v < 0 may lower it, so the block's maximum is recomputed from its
  // steps and its ancestors pulled until one does not change.
  void settle(int j, std::int64_t m, std::int64_t v) {
    if (v >= 0) {
      raise(j, m);
      return;
    }
    std::size_t p = size_ + static_cast<std::size_t>(j);
    blk_[2 * j + 1] = max_leaves(j << kShift, (j << kShift) + kMask);
    const std::int64_t top = blk_[2 * j + 1] + add_at(p);
    if (top == t_[2 * p]) return;
    t_[2 * p] = top;
    for (p >>= 1; p >= 1 && pull(p); p >>= 1) {
    }
  }

  void apply(std::size_t p, std::int64_t v) {
    t_[2 * p] += v;
    t_[2 * p + 1] += v;
  }
  // add(lo, hi, v) for a v >= 0 over more than one block. The partial blocks' tree leaves take
  // their new maxima without climbing (raise would), and one rebuild from the two end blocks
  // bl, bh pulls every ancestor that changed: each node the add over the whole blocks between
  // touches is a right child whose left sibling holds bl, or a left child whose right sibling
  // holds bh, so its parent lies on one of the two paths.
  [[gnu::noinline]] void add_up_blocks(int lo, int hi, std::int64_t v) {
    const int bl = lo >> kShift, bh = hi >> kShift;
    const int fl = bl + ((lo & kMask) != 0), fh = bh - ((hi & kMask) != kMask);  // whole blocks
    if (fl > fh) {  // two partial blocks side by side
      raise(bl, add_leaves(lo, (bl << kShift) + kMask, v));
      raise(bh, add_leaves(bh << kShift, hi, v));
      return;
    }
    if (fl != bl) lift(bl, add_leaves(lo, (bl << kShift) + kMask, v));
    if (fh != bh) lift(bh, add_leaves(bh << kShift, hi, v));
    add_offsets(fl, fh, v);
    std::size_t l = static_cast<std::size_t>(fl) + size_, r = static_cast<std::size_t>(fh) + size_ + 1;
    int levels = 0;  // the adds touch levels 0 … levels-1 (leaves: level 0)
    for (; l < r; l >>= 1, r >>= 1, ++levels) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    rebuild(size_ + static_cast<std::size_t>(bl), size_ + static_cast<std::size_t>(bh), levels);
  }
  // Block j's steps now reach m (without the tree's adds): its tree leaf only.
  void lift(int j, std::int64_t m) {
    if (m <= blk_[2 * j + 1]) return;
    blk_[2 * j + 1] = m;
    const std::size_t p = size_ + static_cast<std::size_t>(j);
    t_[2 * p] = m + add_at(p);
  }

  // Adds v to blocks [lo, hi] of the tree.
  void tree_add(int lo, int hi, std::int64_t v) {
    add_offsets(lo, hi, v);
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    const std::size_t l0 = l, r0 = r - 1;
    int levels = 0;  // the adds touch levels 0 … levels-1 (leaves: level 0)
    for (; l < r; l >>= 1, r >>= 1, ++levels) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    rebuild(l0, r0, levels);
  }
  // Recomputes node p from its children; true if its maximum changed.
  bool pull(std::size_t p) {
    const std::int64_t m = std::max(max_at(2 * p), max_at(2 * p + 1)) + add_at(p);
    const bool changed = m != t_[2 * p];
    t_[2 * p] = m;
    return changed;
  }
  // Recomputes the ancestors of tree leaves l <= r, level by level (the two paths join at the
  // top). Every node an add touched is a child of one of these ancestors, so from level
  // `levels` up all changes lie on the two paths: once neither changes, nothing above does.
  void rebuild(std::size_t l, std::size_t r, int levels) {
    int level = 1;
    for (l >>= 1, r >>= 1; l >= 1; l >>= 1, r >>= 1, ++level) {
      bool changed = pull(l);
      if (r != l) changed = pull(r) || changed;
      if (!changed && level >= levels) return;
    }
  }

  // The maximum over blocks [lo, hi]. The nodes read on the left all lie under node l - 1 of
  // the current level, those on the right under node r: after each step up, their running
  // maxima take that node's add, then every add above it.
  std::int64_t tree_max(int lo, int hi) const {
    if (hi - lo < kLinear) {  // a few blocks: their flat maxima
      std::int64_t m = block_max(lo);
      for (int j = lo + 1; j <= hi; ++j) m = std::max(m, block_max(j));
      return m;
    }
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

  // tree_max(lo, hi) > level, stopping at the first node that proves it. Adds are >= 0, so a
  // node's maximum plus only some of its ancestors' adds is a lower bound of its value: once
  // that exceeds `level`, the answer is yes without climbing to the root. (GNMT: of the queries
  // that get this far, two thirds are answered yes.)
  bool tree_any_above(int lo, int hi, std::int64_t level) const {
    if (hi - lo < kLinear) {  // a few blocks: their flat maxima, last first
      for (int j = hi; j >= lo; --j)
        if (block_max(j) > level) return true;
      return false;
    }
    std::size_t l = static_cast<std::size_t>(lo) + size_, r = static_cast<std::size_t>(hi) + size_ + 1;
    std::int64_t ml = std::numeric_limits<std::int64_t>::min(), mr = ml;
    bool left = false, right = false;
    while (l < r) {
      if (l & 1) {
        ml = std::max(ml, max_at(l++));
        left = true;
      }
      if (r & 1) {
        mr = std::max(mr, max_at(--r));
        right = true;
      }
      if (ml > level || mr > level) return true;
      l >>= 1;
      r >>= 1;
      if (left) ml += add_at(l - 1);
      if (right) mr += add_at(r);
    }
    // Above the last nodes read only their common ancestors' adds remain (see tree_max).
    if (left && right) {
      std::size_t a = (l - 1) >> 1, b = r >> 1;
      for (; a != b; a >>= 1, b >>= 1) {
        ml += add_at(a);
        mr += add_at(b);
        if (ml > level || mr > level) return true;
      }
      std::int64_t m = std::max(ml, mr);
      for (; a >= 1 && m <= level; a >>= 1) m += add_at(a);
      return m > level;
    }
    std::int64_t m = left ? ml : mr;
    for (std::size_t a = left ? (l - 1) >> 1 : r >> 1; a >= 1 && m <= level; a >>= 1) m += add_at(a);
    return m > level;
  }

  // The last block in [lo, hi] whose maximum is > level, or -1. `above` = the adds of the
  // ancestors of `node`. Right child first, so the first hit is the last block.
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
