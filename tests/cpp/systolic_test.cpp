// The systolic-array compute-cycle model (cpp/include/dnnmem/systolic.hpp), against hand arithmetic
// written next to each check: per fold 2R + C + T - 2 cycles (weight / input stationary) or
// R + C + T - 2 (output stationary), times ceil(S_R/R) * ceil(S_C/C) folds, times count.
// tests/python/test_systolic_scalesim.py runs SCALE-Sim itself on layer shapes when installed.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "helpers.hpp"
#include "dnnmem/systolic.hpp"

using namespace dnnmem;

namespace {

constexpr auto WS = Dataflow::WeightStationary;
constexpr auto OS = Dataflow::OutputStationary;
constexpr auto IS = Dataflow::InputStationary;

std::string message_of(const Gemm& g, const SystolicArray& a) {
  try {
    systolic_cycles(g, a);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// Equal up to rounding (the utilisation is a ratio computed in double).
bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::fabs(b); }

using dnnmem::test::contains;

}  // namespace

TEST_CASE("a GEMM that fills the array exactly: one fold per dataflow", "[systolic]") {
  // 4x4 array. WS holds W [k x n] = [4 x 4]: S_R = k = 4, S_C = n = 4, T = m = 10; one fold of
  // 2*4 + 4 + 10 - 2 = 20 cycles. MACs 10*4*4 = 160; utilisation 160 / (16 * 20) = 0.5.
  const Gemm ws{10, 4, 4, 1};
  CHECK(systolic_cycles(ws, {4, 4, WS}) == 20);
  CHECK(close(systolic_utilization(ws, {4, 4, WS}), 0.5));
  const SystolicMapping mp = systolic_mapping(ws, {4, 4, WS});
  CHECK(mp.spatial_rows == 4);
  CHECK(mp.spatial_cols == 4);
  CHECK(mp.temporal == 10);
  CHECK(mp.row_folds == 1);
  CHECK(mp.col_folds == 1);
  CHECK(mp.cycles_per_fold == 20);
  // OS holds the outputs [m x n] = [4 x 4]: T = k = 10; 4 + 4 + 10 - 2 = 16 cycles;
  // utilisation 160 / (16 * 16) = 0.625.
  const Gemm os{4, 4, 10, 1};
  CHECK(systolic_cycles(os, {4, 4, OS}) == 16);
  CHECK(close(systolic_utilization(os, {4, 4, OS}), 0.625));
  // IS holds X^T [k x m] = [4 x 4]: T = n = 10; 2*4 + 4 + 10 - 2 = 20 cycles.
  const Gemm is{4, 10, 4, 1};
  CHECK(systolic_cycles(is, {4, 4, IS}) == 20);
  // A 128x128 array (TPU-like) with a 1024-row batch: 256 + 128 + 1024 - 2 = 1406 cycles;
  // utilisation 1024*128*128 / (128*128*1406) = 1024 / 1406.
  CHECK(systolic_cycles({1024, 128, 128, 1}, {128, 128, WS}) == 1406);
  CHECK(close(systolic_utilization({1024, 128, 128, 1}, {128, 128, WS}), 1024.0 / 1406.0));
  // Fill and drain vanish as T grows: 10^6 rows, 10^6 / (10^6 + 382) of the peak.
  CHECK(systolic_cycles({1000000, 128, 128, 1}, {128, 128, WS}) == 1000382);
  CHECK(systolic_utilization({1000000, 128, 128, 1}, {128, 128, WS}) > 0.9996);
}

TEST_CASE("a GEMM that does not fill the array: partial folds, utilisation below 1", "[systolic]") {
  // m = 10, n = 5, k = 6 on 4x4; MACs 300.
  const Gemm g{10, 5, 6, 1};
  // WS: S_R = k = 6 -> 2 folds, S_C = n = 5 -> 2 folds, T = 10: 4 * (8 + 4 + 10 - 2) = 80;
  // utilisation 300 / (16 * 80) = 0.234375.
  CHECK(systolic_cycles(g, {4, 4, WS}) == 80);
  CHECK(close(systolic_utilization(g, {4, 4, WS}), 0.234375));
  // OS: S_R = m = 10 -> 3, S_C = n = 5 -> 2, T = k = 6: 6 * (4 + 4 + 6 - 2) = 72;
  // utilisation 300 / (16 * 72).
  CHECK(systolic_cycles(g, {4, 4, OS}) == 72);
  CHECK(close(systolic_utilization(g, {4, 4, OS}), 300.0 / (16.0 * 72.0)));
  // IS: S_R = k = 6 -> 2, S_C = m = 10 -> 3, T = n = 5: 6 * (8 + 4 + 5 - 2) = 90.
  CHECK(systolic_cycles(g, {4, 4, IS}) == 90);
  const SystolicMapping mp = systolic_mapping(g, {4, 4, IS});
  CHECK(mp.row_folds == 2);
  CHECK(mp.col_folds == 3);
  CHECK(mp.cycles_per_fold == 15);
}

TEST_CASE("rows and columns of a non-square array are not interchangeable", "[systolic]") {
  // WS, m = 3, n = 3, k = 9. 8 rows x 2 cols: S_R = 9 -> 2, S_C = 3 -> 2, fold 16 + 2 + 3 - 2
  // = 19: 76 cycles. 2 rows x 8 cols: S_R = 9 -> 5, S_C = 3 -> 1, fold 4 + 8 + 3 - 2 = 13: 65.
  const Gemm g{3, 3, 9, 1};
  CHECK(systolic_cycles(g, {8, 2, WS}) == 76);
  CHECK(systolic_cycles(g, {2, 8, WS}) == 65);
}

TEST_CASE("count GEMMs run one after another", "[systolic]") {
  // Depthwise-like: 3 channels of (36 x 9) . (9 x 2) on 4x4 WS: S_R = 9 -> 3, S_C = 2 -> 1,
  // fold 8 + 4 + 36 - 2 = 46; per GEMM 138; 3 GEMMs 414.
  CHECK(systolic_cycles({36, 2, 9, 1}, {4, 4, WS}) == 138);
  CHECK(systolic_cycles({36, 2, 9, 3}, {4, 4, WS}) == 414);
  // Utilisation does not depend on count: 36*2*9 / (16 * 138).
  CHECK(close(systolic_utilization({36, 2, 9, 3}, {4, 4, WS}), 648.0 / (16.0 * 138.0)));
}

TEST_CASE("SCALE-Sim v2's compute cycles, transcribed", "[systolic]") {
  // SCALE-Sim 2.0.2 (GEMM topology M, N, K; CALC bandwidth mode, no stalls) reports the index of
  // the last cycle, one less than the count: WS 37, OS 43, IS 59 for M = 16, N = 8, K = 8 on
  // 8x8; WS 83, OS 80, IS 161 for M = 20, N = 5, K = 13 on 8x8; WS 303, OS 151, IS 335 for
  // M = 7, N = 9, K = 30 on 4 rows x 6 cols.
  CHECK(systolic_cycles({16, 8, 8, 1}, {8, 8, WS}) == 37 + 1);
  CHECK(systolic_cycles({16, 8, 8, 1}, {8, 8, OS}) == 43 + 1);
  CHECK(systolic_cycles({16, 8, 8, 1}, {8, 8, IS}) == 59 + 1);
  CHECK(systolic_cycles({20, 5, 13, 1}, {8, 8, WS}) == 83 + 1);
  CHECK(systolic_cycles({20, 5, 13, 1}, {8, 8, OS}) == 80 + 1);
  CHECK(systolic_cycles({20, 5, 13, 1}, {8, 8, IS}) == 161 + 1);
  CHECK(systolic_cycles({7, 9, 30, 1}, {4, 6, WS}) == 303 + 1);
  CHECK(systolic_cycles({7, 9, 30, 1}, {4, 6, OS}) == 151 + 1);
  CHECK(systolic_cycles({7, 9, 30, 1}, {4, 6, IS}) == 335 + 1);
}

TEST_CASE("no work, no cycles", "[systolic]") {
  CHECK(systolic_cycles(Gemm{}, {4, 4, WS}) == 0);
  CHECK(systolic_utilization(Gemm{}, {4, 4, OS}) == 0.0);
  CHECK(systolic_cycles({0, 5, 5, 3}, {4, 4, IS}) == 0);
}

TEST_CASE("systolic_cycles rejects bad arrays, negative dimensions and overflow", "[systolic]") {
  CHECK(contains(message_of({1, 1, 1, 1}, {0, 4, WS}), "rows must be >= 1"));
  CHECK(contains(message_of({1, 1, 1, 1}, {4, -1, WS}), "cols must be >= 1"));
  CHECK(contains(message_of({-1, 1, 1, 1}, {4, 4, WS}), "m must be >= 0"));
  CHECK(contains(message_of({1, 1, 1, -2}, {4, 4, WS}), "count must be >= 0"));
  // 2^62 GEMMs of 12 cycles each.
  const std::string big = message_of({1, 1, 1, std::int64_t{1} << 62}, {4, 4, WS});
  CHECK(contains(big, "cycles"));
  CHECK(contains(big, "overflows"));
  // A fold longer than int64: T = 2^63 - 1 plus 2R + C - 2.
  CHECK(contains(message_of({INT64_MAX, 1, 1, 1}, {4, 4, WS}), "overflows"));
}

TEST_CASE("dataflow names", "[systolic]") {
  for (Dataflow d : {WS, OS, IS}) CHECK(dataflow_from_name(dataflow_name(d)) == d);
  CHECK(dataflow_from_name("Weight-Stationary") == WS);
  CHECK(dataflow_from_name("output_stationary") == OS);
  CHECK(!dataflow_from_name("row-stationary"));
}

TEST_CASE("waves: tiles of the streamed dimension, pipelined and double-buffered", "[systolic]") {
  // 4x4 weight-stationary array, m = 10, n = 4, k = 12: 3 row folds (k / 4), 1 column fold.
  const Gemm g{10, 4, 12, 1};
  SystolicArray a{4, 4, WS};
  // Folds (SCALE-Sim): 3 folds of 2*4 + 4 + 10 - 2 = 20 cycles = 60.
  CHECK(systolic_cycles(g, a) == 60);
  // Pipelined: each wave waits R = 4 cycles for its block, then streams its 10 lines, no drain
  // between waves: 3 * (4 + 10) + one fill / drain 4 + 4 - 2 = 42 + 6 = 48.
  a.waves = Waves::Pipelined;
  CHECK(systolic_cycles(g, a) == 48);
  // Double-buffered: the first block's load 4, waves of max(10, 4) = 10 (the next block loads
  // meanwhile), the last 10, fill / drain 6: 4 + 30 + 6 = 40; utilisation 480 / (16 * 40).
  a.waves = Waves::DoubleBuffered;
  CHECK(systolic_cycles(g, a) == 40);
  CHECK(close(systolic_utilization(g, a), 480.0 / 640.0));
  // Tiles of 3 lines: per block waves of 3, 3, 3 and 1 lines (12 waves). Each but the last lasts
  // max(t, 4) = 4 (it waits for the next block's load), the last 1: 4 + 11 * 4 + 1 + 6 = 55.
  a.tile = 3;
  CHECK(systolic_cycles(g, a) == 55);
  // Pipelined with tiles: 9 waves of 4 + 3, 3 of 4 + 1, and 6: 63 + 15 + 6 = 84.
  a.waves = Waves::Pipelined;
  CHECK(systolic_cycles(g, a) == 84);
  // Folds with tiles: SCALE-Sim on each tile as a GEMM: 3 blocks x (3 x (8 + 4 + 3 - 2) +
  // (8 + 4 + 1 - 2)) = 3 x (39 + 11) = 150.
  a.waves = Waves::Folds;
  CHECK(systolic_cycles(g, a) == 150);
  // A tile as long as the streamed dimension, or longer, is no tile.
  a.tile = 10;
  CHECK(systolic_cycles(g, a) == 60);
  a.tile = 1000;
  CHECK(systolic_cycles(g, a) == 60);
}

TEST_CASE("waves: one wave is SCALE-Sim's fold; two arrays share the waves", "[systolic]") {
  // One wave (k <= R, n <= C, no tile), even a short one (t = 2 < R): all three give the fold
  // 2*4 + 4 + 2 - 2 = 12.
  const Gemm one{2, 4, 4, 1};
  for (const Waves w : {Waves::Folds, Waves::Pipelined, Waves::DoubleBuffered})
    CHECK(systolic_cycles(one, {4, 4, WS, w, 0}) == 12);
  // Input stationary preloads X^T [k x m]: S_R = k = 12 (3 blocks), T = n = 10, as WS above.
  CHECK(systolic_cycles({4, 10, 12, 1}, {4, 4, IS, Waves::DoubleBuffered, 0}) == 40);
  // Two arrays: the 3 double-buffered waves of 10 lines share out as ceil(30 / 2) = 15 cycles,
  // then the first load 4, the fill / drain 6 (the last wave's wait is 0): 25.
  CHECK(systolic_cycles({10, 4, 12, 1}, {4, 4, WS, Waves::DoubleBuffered, 0}, 2) == 25);
  // count products stream as one: 2 products of 3 waves each, double-buffered: 4 + 60 + 6 = 70.
  CHECK(systolic_cycles({10, 4, 12, 2}, {4, 4, WS, Waves::DoubleBuffered, 0}) == 70);
  // Pipelined and double-buffered need a preloaded operand.
  const SystolicArray os{4, 4, OS, Waves::DoubleBuffered, 0};
  CHECK(contains(message_of({10, 4, 12, 1}, os), "output stationary preloads nothing"));
  CHECK(waves_from_name("double_buffered") == Waves::DoubleBuffered);
  CHECK(waves_from_name("Pipelined") == Waves::Pipelined);
  CHECK(!waves_from_name("gapless"));
  CHECK(waves_name(Waves::DoubleBuffered) == "double-buffered");
}
