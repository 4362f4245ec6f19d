// The planners' occupancy structure (cpp/src/policies/range_tree.hpp) against a plain array:
// random adds (v >= 0, as the planners make them) and queries, sizes around the block size and
// of several levels of blocks.
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../../cpp/src/policies/range_tree.hpp"
#include "catch.hpp"

using dnnmem::detail::RangeTree;

TEST_CASE("range tree: add, add_up, add_unless_above, max, max_all, last_above, any_above, find_above and at match a plain array") {
  std::mt19937_64 rng(12345);
  for (const int n : {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 1500, 5000}) {
    std::vector<std::int64_t> nodes(7, 3);  // reused, stale contents must not matter
    RangeTree tree(static_cast<std::size_t>(n), nodes);
    std::vector<std::int64_t> ref(static_cast<std::size_t>(n), 0);
    for (int op = 0; op < 3000; ++op) {
      // Mostly short ranges, some long, as reuse intervals are.
      int lo = static_cast<int>(rng() % static_cast<unsigned>(n));
      const int span = rng() % 4 == 0 ? n : 1 + static_cast<int>(rng() % 40);
      int hi = std::min(n - 1, lo + static_cast<int>(rng() % static_cast<unsigned>(span)));
      if (rng() % 16 == 0) hi = lo - 1;  // empty
      switch (rng() % 4) {
        case 0: {
          const std::int64_t v = static_cast<std::int64_t>(rng() % 1000);
          if (rng() % 2 == 0)
            tree.add(lo, hi, v);
          else
            tree.add_up(lo, hi, v);
          for (int i = lo; i <= hi; ++i) ref[static_cast<std::size_t>(i)] += v;
          break;
        }
        case 1: {
          std::int64_t m = 0;
          if (lo <= hi) m = *std::max_element(ref.begin() + lo, ref.begin() + hi + 1);
          REQUIRE(tree.max(lo, hi) == m);
          break;
        }
        case 2: {  // a level near the range's values, so that both answers come up
          const std::int64_t level = ref[static_cast<std::size_t>(lo)] + static_cast<std::int64_t>(rng() % 2000) - 500;
          const std::int64_t v = static_cast<std::int64_t>(rng() % 1000);
          bool above = false;
          for (int i = lo; i <= hi; ++i) above = above || ref[static_cast<std::size_t>(i)] > level;
          REQUIRE(tree.add_unless_above(lo, hi, level, v) == !above);
          if (!above)
            for (int i = lo; i <= hi; ++i) ref[static_cast<std::size_t>(i)] += v;
          break;
        }
        default: {
          const std::int64_t level = lo <= hi ? ref[static_cast<std::size_t>(lo + (hi - lo) / 2)] - 1 +
                                                    static_cast<std::int64_t>(rng() % 3)
                                              : 0;
          int last = -1;
          for (int i = hi; i >= lo; --i)
            if (ref[static_cast<std::size_t>(i)] > level) {
              last = i;
              break;
            }
          REQUIRE(tree.last_above(lo, hi, level) == last);
          REQUIRE(tree.any_above(lo, hi, level) == (last >= 0));
          if (lo <= hi && (lo >> RangeTree::kShift) != (hi >> RangeTree::kShift)) {  // (spans blocks only)
            const int r = tree.find_above(lo, hi, level);  // -1, or a witness, or -2 (above, unnamed)
            REQUIRE((r == -1) == (last < 0));
            if (r >= 0) REQUIRE((r >= lo && r <= hi && ref[static_cast<std::size_t>(r)] > level));
          }
          if (lo <= hi) REQUIRE(tree.at(lo) == ref[static_cast<std::size_t>(lo)]);
          if (lo <= hi) {  // just below and at the range's maximum: yes, then no (any_above's early stop)
            const std::int64_t m = *std::max_element(ref.begin() + lo, ref.begin() + hi + 1);
            REQUIRE(tree.any_above(lo, hi, m - 1));
            REQUIRE(!tree.any_above(lo, hi, m));
          }
        }
      }
      REQUIRE(tree.max_all() == *std::max_element(ref.begin(), ref.end()));
    }
  }
}

// onsram-eager gives a pinned tensor's bytes back (an add of v < 0) when it dies early; its
// queries are max and max_all, which must stay exact (last_above too is checked here). Before settle(), a block's stored maximum
// stayed at its old height after such an add, so a later max over whole blocks came out high.
TEST_CASE("range tree: max and max_all stay exact after adds of v < 0") {
  std::mt19937_64 rng(777), levels(778);
  for (const int n : {1, 33, 64, 100, 1000, 5000}) {
    std::vector<std::int64_t> nodes;
    RangeTree tree(static_cast<std::size_t>(n), nodes);
    std::vector<std::int64_t> ref(static_cast<std::size_t>(n), 0);
    for (int op = 0; op < 3000; ++op) {
      const int lo = static_cast<int>(rng() % static_cast<unsigned>(n));
      const int span = rng() % 4 == 0 ? n : 1 + static_cast<int>(rng() % 40);
      const int hi = std::min(n - 1, lo + static_cast<int>(rng() % static_cast<unsigned>(span)));
      if (rng() % 2 == 0) {
        const std::int64_t v = static_cast<std::int64_t>(rng() % 1500) - 500;
        tree.add(lo, hi, v);
        for (int i = lo; i <= hi; ++i) ref[static_cast<std::size_t>(i)] += v;
      } else {
        REQUIRE(tree.max(lo, hi) == *std::max_element(ref.begin() + lo, ref.begin() + hi + 1));
        REQUIRE(tree.max_all() == *std::max_element(ref.begin(), ref.end()));
        // last_above reads exact block maxima (flat for a few blocks, the tree beyond): it
        // stays exact too, though no planner asks it after a removal.
        // (its own generator: the sequence above stays as it was. Values below 0 on every step
        // of a block would meet the padding steps past n, which hold 0; onsram-eager only gives
        // back what it added, so its values never go below 0, and this sequence never has all of
        // a block below 0.)
        const std::int64_t level = ref[static_cast<std::size_t>(lo)] - 1 + static_cast<std::int64_t>(levels() % 3);
        int last = -1;
        for (int i = hi; i >= lo && last < 0; --i)
          if (ref[static_cast<std::size_t>(i)] > level) last = i;
        REQUIRE(tree.last_above(lo, hi, level) == last);
      }
    }
  }
  SECTION("by hand: a removal inside one block lowers the maximum over whole blocks") {
    std::vector<std::int64_t> nodes;
    RangeTree tree(128, nodes);
    tree.add(0, 127, 10);
    tree.add(40, 40, 90);   // step 40 reaches 100
    REQUIRE(tree.max(32, 95) == 100);
    tree.add(40, 40, -90);  // and gives it back
    REQUIRE(tree.max(32, 95) == 10);
    REQUIRE(tree.max_all() == 10);
  }
}
