// SCALE-Sim v2's compute-cycle model (docs/model/compute-systolic.md). SCALE-Sim builds, per fold,
// a demand matrix with one line per cycle; the line counts below are those matrices' heights
// (scalesim/compute/systolic_compute_{ws,os,is}.py), so the closed form reproduces its compute
// cycles without materialising them.
#include "dnnmem/systolic.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

namespace dnnmem {
namespace {

std::int64_t mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw std::invalid_argument(std::string("systolic: ") + what + " overflows int64");
  return r;
}

std::int64_t add(std::int64_t a, std::int64_t b, const char* what) {
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
  const std::int64_t rows = a.dataflow == Dataflow::OutputStationary ? a.rows : mul(2, a.rows, "2R");
  mp.cycles_per_fold = add(add(rows, a.cols, "fold cycles"), mp.temporal - 2, "fold cycles");
  return mp;
}

std::int64_t systolic_cycles(const Gemm& g, const SystolicArray& a) {
  const SystolicMapping mp = systolic_mapping(g, a);
  if (mp.row_folds == 0) return 0;
  const std::int64_t folds = mul(mp.row_folds, mp.col_folds, "folds");
  return mul(mul(folds, mp.cycles_per_fold, "cycles per GEMM"), g.count, "cycles (count GEMMs)");
}

double systolic_utilization(const Gemm& g, const SystolicArray& a) {
  const std::int64_t cycles = systolic_cycles(g, a);
  if (cycles == 0) return 0.0;
  // In double: R * C * cycles may exceed int64 where the cycles alone do not.
  return static_cast<double>(gemm_macs(g)) /
         (static_cast<double>(a.rows) * static_cast<double>(a.cols) * static_cast<double>(cycles));
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
