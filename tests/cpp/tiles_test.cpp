// The tile walk (tiles.hpp, docs/model/interleaved.md) on the cases computed by hand in
// tests/python/test_tiles_oracle.py; the Python tests also compare it with the reference walk
// on random shapes.
#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "../../cpp/src/tile_trace.hpp"
#include "catch.hpp"
#include "dnnmem/tiles.hpp"

using namespace dnnmem;

TEST_CASE("tile walk: a share that holds every operand moves each once", "[tiles]") {
  for (BackwardOrder order : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                              BackwardOrder::DxMajor, BackwardOrder::DwMajor}) {
    // M = K = N = 4, 2 x 2 tiles of 1-byte elements: 20 tiles of 4 bytes fit in 80.
    const TileTraffic t = tile_walk(4, 4, 4, order, {2, 80, 1, 1, "ijk", "jik"});
    CHECK(t.read[0] == 16);  // dY
    CHECK(t.read[1] == 16);  // W
    CHECK(t.read[2] == 16);  // X
    CHECK(t.written[3] == 16);  // dX
    CHECK(t.written[4] == 16);  // dW
    CHECK(t.total() == 80);
    CHECK(t.operations == (order == BackwardOrder::Seq || order == BackwardOrder::SeqDwFirst ? 16 : 8));
  }
}

TEST_CASE("tile walk: dx-major on a share of one fused operation, by hand", "[tiles]") {
  // M = 2, K = 1, N = 2, tile 1, 1-byte elements, 5 bytes (the walk is spelled out in
  // tests/python/test_tiles_oracle.py): W is read twice, dW spills and reloads 2 partial sums.
  const TileTraffic t = tile_walk(2, 1, 2, BackwardOrder::DxMajor, {1, 5, 1, 1, "ijk", "jik"});
  CHECK(t.read[0] == 4);
  CHECK(t.read[1] == 4);
  CHECK(t.read[2] == 2);
  CHECK(t.written[3] == 2);
  CHECK(t.written[4] == 2);
  CHECK(t.psum_written[4] == 2);
  CHECK(t.psum_read[4] == 2);
  // seq on a share of one sequential operation reads dY twice.
  CHECK(tile_walk(2, 1, 2, BackwardOrder::Seq, {1, 3, 1, 1, "ijk", "jik"}).read[0] == 8);
}

TEST_CASE("tile walk: bad input is an invalid_argument naming the quantity", "[tiles]") {
  CHECK_THROWS_AS(tile_walk(0, 1, 1, BackwardOrder::Seq, {}), std::invalid_argument);
  CHECK_THROWS_AS(tile_walk(1, 1, 1, BackwardOrder::Seq, {1, 8, 1, 1, "jik", "jik"}), std::invalid_argument);
  CHECK_THROWS_AS(tile_walk(1 << 20, 1, 1 << 20, BackwardOrder::Seq, {1, 8, 1, 1, "ijk", "jik"}),
                  std::invalid_argument);
  CHECK(backward_order_from_name("dw-major") == BackwardOrder::DwMajor);
  CHECK_FALSE(backward_order_from_name("sideways").has_value());
}

TEST_CASE("closed form: equal to the walk where everything fits and where nothing does", "[tiles]") {
  for (BackwardOrder order : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                              BackwardOrder::DxMajor, BackwardOrder::DwMajor}) {
    TileWalkOptions fits{2, 80, 1, 1, "ijk", "jik"};
    CHECK(tile_estimate(4, 4, 4, order, fits).total() == tile_walk(4, 4, 4, order, fits).total());
    TileWalkOptions none{2, 11, 1, 1, "ijk", "jik"};  // below one operation (3 tiles of 4 bytes)
    const TileTraffic e = tile_estimate(4, 4, 4, order, none), w = tile_walk(4, 4, 4, order, none);
    CHECK(e.read == w.read);
    CHECK(e.psum_written == w.psum_written);
    CHECK(e.psum_read == w.psum_read);
    CHECK(e.dy_read_by_dw == w.dy_read_by_dw);
  }
  TileWalkOptions part{1, 7, 1, 1, "ijk", "jik"};
  part.partition = 0;
  CHECK_THROWS_AS(tile_estimate(2, 1, 1, BackwardOrder::DxMajor, part), std::invalid_argument);
}

TEST_CASE("closed form: the nest ranking takes the first pair with the least estimate", "[tiles]") {
  // detail::rank_nests computes each stream's part once per nest: its choice and total must be
  // those of tile_estimate_checked pair by pair (pick_nests' former loop), ties to the first.
  constexpr std::array<std::string_view, 3> rows{"ijk", "ikj", "kij"}, cols{"jik", "jki", "kji"};
  const std::array<std::array<std::int64_t, 3>, 4> shapes{{{5, 7, 3}, {9, 2, 6}, {4, 4, 4}, {12, 3, 8}}};
  int ties = 0, windows = 0, cases = 0;
  for (const auto& shape : shapes)
    for (BackwardOrder order : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                                BackwardOrder::DxMajor, BackwardOrder::DwMajor})
      for (unsigned skip_x : {0U, 1U, 2U, 9U})
        for (unsigned skip_w : {0U, 1U, 4U, 20U})
          for (std::int64_t psum : {2, 4})
            for (std::int64_t c = 0; c <= 400; c += 3) {
              TileWalkOptions o{2, c, 2, psum, rows[0], cols[0]};
              o.skip_x = skip_x;
              o.skip_w = skip_w;
              std::int64_t best = -1;
              int bx = -1, bw = -1, at_best = 0;
              for (int x = 0; x < 3; ++x)
                for (int w = 0; w < 3; ++w) {
                  if (order == BackwardOrder::DxMajor && w != 0) continue;
                  if (order == BackwardOrder::DwMajor && x != 0) continue;
                  TileWalkOptions t = o;
                  t.nest_x = rows[static_cast<std::size_t>(x)];
                  t.nest_w = cols[static_cast<std::size_t>(w)];
                  const std::int64_t total = detail::tile_estimate_checked(shape[0], shape[1], shape[2], order, t).total();
                  if (best < 0 || total < best) {
                    best = total;
                    bx = x;
                    bw = w;
                    at_best = 0;
                  }
                  at_best += total == best;
                }
              int x = -1, w = -1;
              const std::int64_t total = detail::rank_nests(shape[0], shape[1], shape[2], order, o, rows, cols, &x, &w);
              INFO("m k n " << shape[0] << " " << shape[1] << " " << shape[2] << ", order "
                            << static_cast<int>(order) << ", skips " << skip_x << " " << skip_w << ", c_eff " << c);
              CHECK(total == best);
              CHECK(x == bx);
              CHECK(w == bw);
              ties += at_best > 1;
              ++cases;
              if (order == BackwardOrder::Interleave && !(skip_x & 1U) && !(skip_w & 1U) && bw != 0) ++windows;
            }
  CHECK(cases > 10000);
  CHECK(ties > 100);    // first-least matters
  CHECK(windows > 10);  // the interleaved order's dY window picks a nest of its own
}

TEST_CASE("partitioning: two cores in lock step need both parts on chip, by hand", "[tiles]") {
  // tests/python/test_tiles_closed.py spells the case out: M = 2 cut into two parts.
  TileWalkOptions o{1, 7, 1, 1, "ijk", "jik"};
  o.partition = 0;
  o.parts = 2;
  CHECK(tile_walk(2, 1, 1, BackwardOrder::DxMajor, o).read[0] == 2);
  o.lockstep = true;
  const TileTraffic t = tile_walk(2, 1, 1, BackwardOrder::DxMajor, o);
  CHECK(t.read[0] == 4);
  CHECK(t.read[1] == 2);
  CHECK(t.psum_written[4] == 1);
  CHECK(t.operations == 1);
}

TEST_CASE("LRU replacement: seq reads dY twice where Bélády reads it once, by hand", "[tiles]") {
  // tests/python/test_tiles_closed.py spells the case out: M = K = 1, N = 3, a share of 5 tiles.
  TileWalkOptions o{1, 5, 1, 1, "ijk", "jik"};
  const TileTraffic belady = tile_walk(1, 1, 3, BackwardOrder::Seq, o);
  o.lru = true;
  const TileTraffic lru = tile_walk(1, 1, 3, BackwardOrder::Seq, o);
  CHECK(belady.read[0] == 3);
  CHECK(lru.read[0] == 6);
  CHECK(belady.total() == 11);
  CHECK(lru.total() == 14);
  CHECK_THROWS_AS(tile_estimate(1, 1, 3, BackwardOrder::Seq, o), std::invalid_argument);
}

TEST_CASE("no reuse: each operation loads its tiles, a fused one its dY tile once, by hand", "[tiles]") {
  // tests/python/test_tiles_no_reuse.py spells the cases out: M = K = N = 2, tile 1, 1-byte
  // elements, output-stationary nests. seq: dY 16, W 8, X 8 read, dX 4 and dW 4 written at any
  // share; dx-major: dY 8 (one load per fused operation).
  TileWalkOptions o{1, 0, 1, 1, "ikj", "kji"};
  o.no_reuse = true;
  for (std::int64_t c : {0, 3, 1000}) {
    o.c_eff = c;
    const TileTraffic seq = tile_walk(2, 2, 2, BackwardOrder::Seq, o);
    CHECK(seq.read == std::array<std::int64_t, kTileTensors>{16, 8, 8, 0, 0});
    CHECK(seq.written == std::array<std::int64_t, kTileTensors>{0, 0, 0, 4, 4});
    CHECK(seq.psum_read == std::array<std::int64_t, kTileTensors>{});
    CHECK(seq.psum_written == std::array<std::int64_t, kTileTensors>{});
    CHECK(seq.dy_read_by_dw == 8);
  }
  const TileTraffic fused = tile_walk(2, 2, 2, BackwardOrder::DxMajor, o);
  CHECK(fused.read == std::array<std::int64_t, kTileTensors>{8, 8, 8, 0, 0});
  CHECK(fused.total() == 32);
  CHECK_THROWS_AS(tile_estimate(2, 2, 2, BackwardOrder::Seq, o), std::invalid_argument);
}

namespace {
bool same(const TileTraffic& a, const TileTraffic& b) {
  return a.read == b.read && a.written == b.written && a.psum_read == b.psum_read &&
         a.psum_written == b.psum_written && a.operations == b.operations && a.dy_read_by_dw == b.dy_read_by_dw;
}
}  // namespace

TEST_CASE("tile walk: its per-thread trace is never reused for another input", "[tiles]") {
  // One GEMM shape, inputs differing in all but the shape (skip masks, order, nests, element
  // sizes, partition, lock step, replacement, c_eff, give-up bound), walked one after another
  // on this thread (each leaves its trace behind) and each also on a fresh thread, with an
  // empty cache: the same traffic.
  struct Case {
    BackwardOrder order;
    TileWalkOptions o;
  };
  std::vector<Case> cases;
  const TileWalkOptions base{2, 40, 2, 2, "ijk", "jik"};
  for (int v = 0; v < 13; ++v) {
    Case c{BackwardOrder::Interleave, base};
    if (v == 1) c.o.skip_x = 1U << 1;                 // W kept whole
    if (v == 2) c.o.skip_w = 1U;                      // dy-oracle
    if (v == 3) c.order = BackwardOrder::DxMajor;
    if (v == 4) c.o.nest_x = "kij";
    if (v == 5) c.o.nest_w = "kji";
    if (v == 6) c.o.psum_bytes = 4;
    if (v == 7) c.o.partition = 0, c.o.parts = 2;
    if (v == 8) c.o.partition = 0, c.o.parts = 2, c.o.lockstep = true;
    if (v == 9) c.o.lru = true;
    if (v == 10) c.o.c_eff = 64;
    if (v == 11) c.order = BackwardOrder::Seq;
    if (v == 12) c.o.no_reuse = true;
    cases.push_back(c);
  }
  std::vector<TileTraffic> here, fresh(cases.size());
  for (int round = 0; round < 2; ++round)  // the second round finds every trace cached
    for (const Case& c : cases) {
      const TileTraffic t = tile_walk(6, 5, 7, c.order, c.o);
      if (round == 0) here.push_back(t);
      CHECK(same(t, here[&c - cases.data()]));
    }
  for (std::size_t i = 0; i < cases.size(); ++i)
    std::thread([&] { fresh[i] = tile_walk(6, 5, 7, cases[i].order, cases[i].o); }).join();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CHECK(same(here[i], fresh[i]));
    if (i > 0) CHECK_FALSE(same(here[i], here[0]));  // every variation changes the walk here
  }
  // A walk given up under a bound below its total (checked after each operation: here after the
  // first); the same walk in full under its total.
  std::int64_t lo = 0, hi = 0, moved = 0;
  CHECK_FALSE(detail::tile_walk_bounded(6, 5, 7, BackwardOrder::Interleave, base, 0, &lo, &hi, &moved));
  CHECK(moved > 0);
  CHECK(moved < here[0].total());
  CHECK(lo <= base.c_eff);
  CHECK(base.c_eff < hi);
  const auto full = detail::tile_walk_bounded(6, 5, 7, BackwardOrder::Interleave, base, here[0].total(), &lo, &hi, &moved);
  REQUIRE(full);
  CHECK(same(*full, here[0]));
  CHECK(moved == here[0].total());
}

namespace {
// The variations of the walk the range and floor cases run (each order): plain, keep_psum, 4-byte
// partial sums, a partition, lock step, a skipped operand with another nest, LRU, no reuse; then
// the off-chip reduction (reduce_off_chip: per-part copies of the cut output, whose extra bytes the
// walk's bound and shortcuts must account for) with a cut of M and wider partial sums (extra bytes
// > 0), a cut of N in lock step with narrower ones (< 0), no reuse, LRU, keep_psum, and a cut
// output the cache keeps whole (no copies).
constexpr int kVariations = 14;
TileWalkOptions variation(int v) {
  TileWalkOptions o{2, 0, 2, 2, "ijk", "jik"};
  if (v == 1) o.keep_psum = true;
  if (v == 2) o.psum_bytes = 4;
  if (v == 3) o.partition = 0, o.parts = 2;
  if (v == 4) o.partition = 2, o.parts = 2, o.lockstep = true;
  if (v == 5) o.skip_x = 1U << 1, o.nest_x = "kij";
  if (v == 6) o.lru = true;
  if (v == 7) o.no_reuse = true, o.partition = 1, o.parts = 2;
  if (v >= 8) o.reduce_off_chip = true;
  if (v == 8) o.partition = 0, o.parts = 2, o.psum_bytes = 4;
  if (v == 9) o.partition = 1, o.parts = 3, o.lockstep = true, o.elem_bytes = 4, o.psum_bytes = 1;
  if (v == 10) o.no_reuse = true, o.partition = 0, o.parts = 3;
  if (v == 11) o.lru = true, o.partition = 1, o.parts = 2;
  if (v == 12) o.keep_psum = true, o.partition = 0, o.parts = 3, o.psum_bytes = 4;
  if (v == 13) o.partition = 0, o.parts = 2, o.skip_w = 1U << 4;
  return o;
}
constexpr std::array<BackwardOrder, 5> kAllOrders{BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                                                  BackwardOrder::DxMajor, BackwardOrder::DwMajor};
}  // namespace

TEST_CASE("tile walk: the result is the same over the c_eff range each walk reports", "[tiles]") {
  // Every c_eff from 0 to past the share that holds every operand, on a shape with edge tiles of
  // three sizes, under each order and the options the walk's decisions depend on: each walk's
  // range [lo, hi) (the c_eff values that compare alike, or, when it evicts no live tile, all
  // from the floor that keeps its live tiles on) holds only c_eff values with the same traffic.
  const std::int64_t m = 7, k = 5, n = 9, top = (m * n + k * n + m * k) * 2 * 4;  // (every operand whole)
  int unbounded_below_top = 0;
  for (BackwardOrder order : kAllOrders)
    for (int v = 0; v < 8; ++v) {  // the variations before the off-chip reduction's
      TileWalkOptions o = variation(v);
      std::vector<TileTraffic> at;
      std::vector<std::int64_t> lo, hi;
      for (std::int64_t c = 0; c <= top; ++c) {
        o.c_eff = c;
        std::int64_t l = 0, h = 0;
        at.push_back(detail::tile_walk_range(m, k, n, order, o, &l, &h));
        lo.push_back(l);
        hi.push_back(h);
      }
      // run_end[d]: the last c_eff of the run of equal traffic that holds d.
      std::vector<std::int64_t> run_end(at.size());
      for (std::int64_t d = top; d >= 0; --d) {
        const auto y = static_cast<std::size_t>(d);
        run_end[y] = d < top && same(at[y], at[y + 1]) ? run_end[y + 1] : d;
      }
      for (std::int64_t c = 0; c <= top; ++c) {
        const auto x = static_cast<std::size_t>(c);
        REQUIRE(lo[x] <= c);
        REQUIRE(c < hi[x]);
        if (hi[x] == std::numeric_limits<std::int64_t>::max() && c < top / 4) ++unbounded_below_top;
        INFO("order " << static_cast<int>(order) << ", variant " << v << ", c_eff " << c << ": range [" << lo[x]
                      << ", " << hi[x] << "), same traffic from " << lo[x] << " to " << run_end[static_cast<std::size_t>(lo[x])]);
        CHECK(run_end[static_cast<std::size_t>(lo[x])] >= std::min(top, hi[x] - 1));
      }
    }
  CHECK(unbounded_below_top > 0);  // some walk's range reaches past the compare-alike one
}

TEST_CASE("tile walk: from the trace's floor up, the compulsory traffic equals the walk replayed", "[tiles]") {
  // docs/performance.md, "A walk's floor from its trace": at a c_eff from the floor the trace
  // computes, the walk answers the compulsory traffic without replaying; at every c_eff, result
  // and range equal the walk replayed touch by touch (which finds its floor as it goes).
  const std::int64_t m = 7, k = 5, n = 9, top = (m * n + k * n + m * k) * 2 * 4;  // (every operand whole)
  int from_floor = 0;
  for (BackwardOrder order : kAllOrders)
    for (int v = 0; v < kVariations; ++v) {
      TileWalkOptions o = variation(v);
      for (std::int64_t c = 0; c <= top; ++c) {
        o.c_eff = c;
        std::int64_t lo = 0, hi = 0, replayed_lo = 0, replayed_hi = 0;
        const TileTraffic t = detail::tile_walk_range(m, k, n, order, o, &lo, &hi);
        const TileTraffic r = detail::tile_walk_replayed(m, k, n, order, o, &replayed_lo, &replayed_hi);
        INFO("order " << static_cast<int>(order) << ", variant " << v << ", c_eff " << c);
        REQUIRE(same(t, r));
        REQUIRE(lo == replayed_lo);
        REQUIRE(hi == replayed_hi);
        if (hi == std::numeric_limits<std::int64_t>::max() && !o.lru && !o.no_reuse) ++from_floor;
      }
    }
  CHECK(from_floor > 1000);  // most c_eff values above the floors
}

TEST_CASE("tile walk: a bounded walk gives up exactly when its total passes the bound", "[tiles]") {
  // Under every bound around the compulsory bytes and the total: the walk returns its traffic
  // when the total is within the bound; when it gives up, the lower bound it reports lies above
  // the bound and at most the total (a bound one below the total always gives up: the lower bound
  // reaches the total by the last operation). Below the compulsory bytes it gives up at every c_eff.
  const std::int64_t m = 7, k = 5, n = 9, top = (m * n + k * n + m * k) * 2 * 4;
  int early = 0;
  for (BackwardOrder order : kAllOrders)
    for (int v = 0; v < kVariations; ++v) {
      TileWalkOptions o = variation(v);
      o.c_eff = top;
      const std::int64_t compulsory = tile_walk(m, k, n, order, o).total();  // (everything fits)
      for (std::int64_t c : {std::int64_t{0}, std::int64_t{9}, std::int64_t{40}, std::int64_t{100}, top / 3, top}) {
        o.c_eff = c;
        const TileTraffic full = tile_walk(m, k, n, order, o);
        const std::int64_t total = full.total();
        for (std::int64_t bound : {std::int64_t{0}, compulsory - 1, compulsory, (compulsory + total) / 2, total - 1, total}) {
          std::int64_t lo = 0, hi = 0, lower = 0;
          const auto t = detail::tile_walk_bounded(m, k, n, order, o, bound, &lo, &hi, &lower);
          INFO("order " << static_cast<int>(order) << ", variant " << v << ", c_eff " << c << ", bound " << bound
                        << " (compulsory " << compulsory << ", total " << total << "): lower " << lower);
          CHECK(lo <= c);
          CHECK(c < hi);
          CHECK(lower <= total);
          if (total <= bound) {
            REQUIRE(t);
            CHECK(same(*t, full));
            CHECK(lower == total);
          } else {
            CHECK_FALSE(t);
            CHECK(lower > bound);
            if (lower < total) ++early;
          }
          if (bound < compulsory) {
            CHECK(lo == 0);
            CHECK(hi == std::numeric_limits<std::int64_t>::max());
          }
        }
      }
      // A bound of the compulsory bytes at every c_eff: the walk gives up exactly where it moves
      // more, over a range where it does.
      for (std::int64_t c = 0; c <= top; ++c) {
        o.c_eff = c;
        const std::int64_t total = tile_walk(m, k, n, order, o).total();
        std::int64_t lo = 0, hi = 0, lower = 0;
        const auto t = detail::tile_walk_bounded(m, k, n, order, o, compulsory, &lo, &hi, &lower);
        INFO("order " << static_cast<int>(order) << ", variant " << v << ", c_eff " << c << ": total " << total
                      << ", compulsory " << compulsory << ", lower " << lower << " over [" << lo << ", " << hi << ")");
        REQUIRE(static_cast<bool>(t) == (total == compulsory));
        REQUIRE(lower <= total);
        REQUIRE(lo <= c);
        REQUIRE(c < hi);
        for (std::int64_t d : {lo, std::min(hi - 1, top)}) {  // the range's ends give up alike
          o.c_eff = d;
          CHECK((tile_walk(m, k, n, order, o).total() > compulsory) == !t);
        }
      }
    }
  CHECK(early > 0);  // some walk gave up before its end
}

TEST_CASE("tile walk: the off-chip reduction's variations add each copy's partial sum, written and read", "[tiles]") {
  // Where everything fits (c_eff = top), a walk moves only compulsory bytes; the off-chip
  // reduction's copies then add 2 x copies x (the cut output's elements) x psum_bytes, the
  // partial sums written and read back (the output itself written once either way): M cut
  // (dW, 5 x 9 = 45 elements), N cut (dX, 7 x 5 = 35). Variation 13's cut output is kept whole.
  const std::int64_t m = 7, k = 5, n = 9, top = (m * n + k * n + m * k) * 2 * 4;
  const std::array<std::int64_t, 6> added{2 * 2 * 45 * 4, 2 * 3 * 35 * 1, 2 * 3 * 45 * 2,
                                          2 * 2 * 35 * 2, 2 * 3 * 45 * 4, 0};
  for (BackwardOrder order : kAllOrders)
    for (int v = 8; v < kVariations; ++v) {
      TileWalkOptions o = variation(v);
      o.c_eff = top;
      const TileTraffic reduced = tile_walk(m, k, n, order, o);
      o.reduce_off_chip = false;
      const TileTraffic summed = tile_walk(m, k, n, order, o);
      INFO("order " << static_cast<int>(order) << ", variant " << v);
      CHECK(reduced.total() - summed.total() == added[static_cast<std::size_t>(v - 8)]);
      const auto cut = static_cast<std::size_t>(o.partition == 0 ? 4 : 3);
      CHECK(reduced.written[cut] == summed.written[cut]);
      CHECK(reduced.psum_written[cut] - summed.psum_written[cut] == added[static_cast<std::size_t>(v - 8)] / 2);
      CHECK(reduced.psum_read[cut] - summed.psum_read[cut] == added[static_cast<std::size_t>(v - 8)] / 2);
    }
}

TEST_CASE("tile walk: the trace numbers the touched tiles only, and its needs and stats by brute force", "[tiles]") {
  // docs/performance.md, "The trace built without zeroing, over the touched tensors only": a
  // tensor no product touches (its skip masks) has no tile ids, and the others keep their order
  // (by tensor, then tile), which is the walk's order of the tiles never touched again. Each
  // operation's need (counted at a tile's last touch in it) and the stats (first touches from
  // the backward pass) against a recount by brute force.
  const std::int64_t m = 7, k = 5, n = 9;
  int with_skips = 0;
  for (BackwardOrder order : kAllOrders)
    for (int v = 0; v < kVariations; ++v)
      for (unsigned skips = 0; skips < 16; ++skips) {
        TileWalkOptions o = variation(v);
        // (dY by one product, W, X, dW)
        if (skips & 1U) o.skip_x |= 1U << 0;
        if (skips & 2U) o.skip_x |= 1U << 1;
        if (skips & 4U) o.skip_w |= 1U << 2;
        if (skips & 8U) o.skip_w |= 1U << 4;
        const std::shared_ptr<const detail::Trace> tr = detail::cached_trace(m, k, n, order, o);
        INFO("order " << static_cast<int>(order) << ", variant " << v << ", skips " << skips);
        // Every tile id is touched, the ids of each tensor are consecutive, by tensor (copies last).
        std::vector<int> touches_of(static_cast<std::size_t>(tr->tiles), 0);
        for (const detail::Trace::Hit& h : tr->touches) {
          REQUIRE(h.tile >= 0);
          REQUIRE(h.tile < tr->tiles);
          REQUIRE(tr->tensor_of[static_cast<std::size_t>(h.tile)] == h.tensor);
          ++touches_of[static_cast<std::size_t>(h.tile)];
        }
        for (int c : touches_of) REQUIRE(c > 0);
        const detail::OffChipReduction r = detail::off_chip_reduction(m, k, n, o);
        for (std::int64_t x = 1; x < tr->tiles; ++x) {
          const int a = tr->tensor_of[static_cast<std::size_t>(x - 1)], b = tr->tensor_of[static_cast<std::size_t>(x)];
          REQUIRE((a <= b || b == r.cut));
        }
        if (o.skip_x != 0 || o.skip_w != 0) ++with_skips;
        // The needs and stats by brute force.
        detail::TraceStats st;
        std::vector<bool> seen(static_cast<std::size_t>(tr->tiles), false);
        std::vector<std::int64_t> last_touch(static_cast<std::size_t>(tr->tiles), -1);
        for (std::size_t q = 0; q < tr->touches.size(); ++q) last_touch[static_cast<std::size_t>(tr->touches[q].tile)] = static_cast<std::int64_t>(q);
        std::vector<bool> live(static_cast<std::size_t>(tr->tiles), false);
        for (std::size_t op = 0; op + 1 < tr->op_begin.size(); ++op) {
          std::vector<std::int32_t> distinct;
          std::vector<std::int32_t> dead_here;  // this operation's tiles, dead already
          for (std::uint32_t q = tr->op_begin[op]; q < tr->op_begin[op + 1]; ++q) {
            const detail::Trace::Hit& h = tr->touches[q];
            const auto x = static_cast<std::size_t>(h.tile);
            if (std::find(distinct.begin(), distinct.end(), h.tile) == distinct.end()) distinct.push_back(h.tile);
            const bool dead_after = last_touch[x] == static_cast<std::int64_t>(q);
            if (!seen[x]) {
              std::int64_t must_stay = tr->chip[x];
              for (std::size_t y = 0; y < live.size(); ++y)
                if (live[y]) must_stay += tr->chip[y];
              for (std::int32_t y : dead_here) must_stay += tr->chip[static_cast<std::size_t>(y)];
              st.live_max = std::max(st.live_max, must_stay);
              seen[x] = true;
              const std::int64_t moved = tr->elems[x] * o.elem_bytes;
              if (h.accumulate) {
                st.compulsory.written[h.tensor] += moved;
              } else {
                st.compulsory.read[h.tensor] += moved;
                if (h.by_dw && h.tensor == 0) st.compulsory.dy_read_by_dw += moved;
              }
            }
            live[x] = !dead_after;
            if (dead_after) dead_here.push_back(h.tile);
          }
          std::int64_t need = 0;
          for (std::int32_t y : distinct) need += tr->chip[static_cast<std::size_t>(y)];
          REQUIRE(tr->need[op] == need);
          st.need_max = std::max(st.need_max, need);
        }
        CHECK(tr->stats.live_max == st.live_max);
        CHECK(tr->stats.need_max == st.need_max);
        CHECK(tr->stats.floor == std::max(st.need_max, st.live_max));
        CHECK(tr->stats.compulsory.read == st.compulsory.read);
        CHECK(tr->stats.compulsory.written == st.compulsory.written);
        CHECK(tr->stats.compulsory.dy_read_by_dw == st.compulsory.dy_read_by_dw);
        CHECK(tr->stats.compulsory_total == detail::compulsory_bytes(m, k, n, o));
      }
  CHECK(with_skips > 0);
}
