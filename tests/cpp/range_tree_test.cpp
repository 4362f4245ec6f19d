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

TEST_CASE("range tree: add, add_unless_above, max, max_all, last_above and any_above match a plain array") {
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
          tree.add(lo, hi, v);
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
