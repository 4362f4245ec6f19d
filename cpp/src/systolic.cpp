// SCALE-Sim v2's compute-cycle model (docs/model/compute-systolic.md). SCALE-Sim builds, per fold,
// a demand matrix with one line per cycle; the line counts below are those matrices' heights
// (scalesim/compute/systolic_compute_{ws,os,is}.py), so the closed form reproduces its compute
// cycles without materialising them.
#include "dnnmem/systolic.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

namespace dnnmem {
namespace {

std::int64_t mul64(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw std::invalid_argument(std::string("systolic: ") + what + " overflows int64");
  return r;
}

std::int64_t add64(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw std::invalid_argument(std::string("systolic: ") + what + " overflows int64");
  return r;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

}  // namespace

SystolicMapping systolic_mapping(const Gemm& g, const SystolicArray& a) {
  if (a.rows < 1)
    throw std::invalid_argument("systolic array: rows must be >= 1, got " + std::to_string(a.rows));
  if (a.cols < 1)
    throw std::invalid_argument("systolic array: cols must be >= 1, got " + std::to_string(a.cols));
  const auto check = [](std::int64_t v, const char* name) {
    if (v < 0)
      throw std::invalid_argument(std::string("GEMM: ") + name + " must be >= 0, got " +
                                  std::to_string(v));
  };
  check(g.m, "m");
  check(g.n, "n");
  check(g.k, "k");
  check(g.count, "count");

  SystolicMapping mp;
  switch (a.dataflow) {
    case Dataflow::WeightStationary: mp = {g.k, g.n, g.m, 0, 0, 0}; break;
    case Dataflow::OutputStationary: mp = {g.m, g.n, g.k, 0, 0, 0}; break;
    case Dataflow::InputStationary: mp = {g.k, g.m, g.n, 0, 0, 0}; break;
  }
  if (g.count == 0 || g.m == 0 || g.n == 0 || g.k == 0) return mp;  // no work, no folds
  mp.row_folds = ceil_div(mp.spatial_rows, a.rows);
  mp.col_folds = ceil_div(mp.spatial_cols, a.cols);
  // Per fold, SCALE-Sim v2 (WS, IS): R cycles to load the stationary operand, then the streamed
  // operand enters skewed over R rows and C columns, T lines long: R + (R + C + T - 2).
  // OS: nothing to preload; the operands stream in over T + R + C - 2 cycles (skew on both
  // edges) and each output leaves as its PE finishes.
  const std::int64_t rows = a.dataflow == Dataflow::OutputStationary ? a.rows : mul64(2, a.rows, "2R");
  mp.cycles_per_fold = add64(add64(rows, a.cols, "fold cycles"), mp.temporal - 2, "fold cycles");
  return mp;
}

std::int64_t systolic_cycles(const Gemm& g, const SystolicArray& a, std::int64_t arrays) {
  if (arrays < 1) throw std::invalid_argument("systolic: arrays must be >= 1, got " + std::to_string(arrays));
  if (a.tile < 0) throw std::invalid_argument("systolic: tile must be >= 0, got " + std::to_string(a.tile));
  if (a.waves != Waves::Folds && a.dataflow == Dataflow::OutputStationary)
    throw std::invalid_argument(std::string("systolic: waves=") + std::string(waves_name(a.waves)) +
                                " needs a preloaded operand (dataflow ws or is); output stationary "
                                "preloads nothing");
  const SystolicMapping mp = systolic_mapping(g, a);
  if (mp.row_folds == 0) return 0;
  // The streamed dimension in waves: `full` waves of `len` lines and, if T is not a multiple, one
  // of `rest` lines (tile 0: one wave of all T).
  const std::int64_t len = a.tile == 0 || a.tile >= mp.temporal ? mp.temporal : a.tile;
  const std::int64_t full = mp.temporal / len, rest = mp.temporal % len;
  // Waves of each length over the `count` products: one per stationary block and line tile.
  const std::int64_t blocks = mul64(mul64(mp.row_folds, mp.col_folds, "folds"), g.count, "folds");
  const std::int64_t n_full = mul64(blocks, full, "waves"), n_rest = rest > 0 ? blocks : 0;
  const auto rounds = [arrays](std::int64_t n) { return n / arrays + (n % arrays != 0); };
  if (a.waves == Waves::Folds) {
    const std::int64_t fold = mp.cycles_per_fold - mp.temporal;  // fill + drain of one fold
    return add64(mul64(rounds(n_full), add64(fold, len, "fold cycles"), "cycles"),
                 mul64(rounds(n_rest), add64(fold, rest, "fold cycles"), "cycles"), "cycles");
  }
  // Pipelined: a wave is its block's load (R) and its lines. Double-buffered: a wave lasts until
  // the next block is loaded, max(t, R), but the last one only its lines (no block follows).
  const auto wave = [&a](std::int64_t t) {
    return a.waves == Waves::Pipelined ? t + a.rows : std::max(t, a.rows);
  };
  const std::int64_t stream =
      add64(mul64(n_full, wave(len), "cycles"), n_rest > 0 ? mul64(n_rest, wave(rest), "cycles") : 0, "cycles");
  const std::int64_t last = n_rest > 0 ? rest : len;
  const std::int64_t last_wait = a.waves == Waves::DoubleBuffered ? wave(last) - last : 0;
  // One fill and drain per GEMM (the last lines' skew over R rows and C columns) and, double-
  // buffered, the first block's load, which no earlier wave hides.
  const std::int64_t edges = a.rows + a.cols - 2 + (a.waves == Waves::DoubleBuffered ? a.rows : 0);
  return add64(rounds(stream) - last_wait, edges, "cycles");
}

double systolic_utilization(const Gemm& g, const SystolicArray& a) {
  const std::int64_t cycles = systolic_cycles(g, a, 1);
  if (cycles == 0) return 0.0;
  // In double: R * C * cycles may exceed int64 where the cycles alone do not.
  return static_cast<double>(gemm_macs(g)) /
         (static_cast<double>(a.rows) * static_cast<double>(a.cols) * static_cast<double>(cycles));
}

std::string_view waves_name(Waves w) {
  switch (w) {
    case Waves::Folds: return "folds";
    case Waves::Pipelined: return "pipelined";
    case Waves::DoubleBuffered: return "double-buffered";
  }
  return "";
}

std::optional<Waves> waves_from_name(std::string_view name) {
  std::string n;
  for (char c : name)
    if (c != '_' && c != '-' && c != ' ') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "folds") return Waves::Folds;
  if (n == "pipelined") return Waves::Pipelined;
  if (n == "doublebuffered") return Waves::DoubleBuffered;
  return std::nullopt;
}

std::string_view dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::WeightStationary: return "ws";
    case Dataflow::OutputStationary: return "os";
    case Dataflow::InputStationary: return "is";
  }
  return "";
}

std::optional<Dataflow> dataflow_from_name(std::string_view name) {
  std::string n;
  for (char c : name)
    if (c != '_' && c != '-' && c != ' ') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "ws" || n == "weightstationary") return Dataflow::WeightStationary;
  if (n == "os" || n == "outputstationary") return Dataflow::OutputStationary;
  if (n == "is" || n == "inputstationary") return Dataflow::InputStationary;
  return std::nullopt;
}

}  // namespace dnnmem
