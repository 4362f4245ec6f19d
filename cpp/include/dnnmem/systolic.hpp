// Compute cycles of a GEMM on an R x C systolic array (docs/model/compute-systolic.md): SCALE-Sim
// v2's compute-cycle model. Per dataflow two GEMM dimensions are spatial (S_R laid along the
// array's rows, S_C along its columns) and one is temporal (T, streamed through); the array runs
// ceil(S_R / R) * ceil(S_C / C) folds one after another, each costing fill + stream + drain:
//   weight / input stationary: 2R + C + T - 2 cycles per fold,
//   output stationary:          R + C + T - 2 cycles per fold.
// Two options describe arrays that do better than SCALE-Sim's drained folds (the MBS paper's
// WaveCore, §4.1): `tile` cuts the streamed dimension into waves of at most that many lines, and
// `waves` says how consecutive waves meet (drained folds, pipelined behind an exposed weight load,
// or double-buffered weights: no gap at all). Cycles only: the clock, and the vector unit that
// runs every non-GEMM step, belong to the compute model that uses this.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "dnnmem/gemm.hpp"

namespace dnnmem {

enum class Dataflow : std::uint8_t { WeightStationary, OutputStationary, InputStationary };

// How one wave (a stationary block and the lines streamed through it) follows the previous one
// (docs/model/compute-systolic.md, "Waves"):
//   Folds          — SCALE-Sim: every wave is a fold that loads, fills, streams and drains,
//                    2R + C + t - 2 cycles (R + C + t - 2 for output stationary);
//   Pipelined      — the next wave's stationary block is loaded (R cycles, nothing computes)
//                    right behind the current wave's lines, no drain in between: R + t per wave;
//   DoubleBuffered — the next block loads into a second register during the current wave:
//                    max(t, R) per wave (a wave shorter than the load waits for it), the last
//                    wave t (no block follows it).
// Pipelined and DoubleBuffered pay one fill and drain per GEMM, R + C - 2, and DoubleBuffered
// the first block's load, R: with one wave, all three are SCALE-Sim's fold. They need a preloaded
// operand: weight or input stationary.
enum class Waves : std::uint8_t { Folds, Pipelined, DoubleBuffered };

struct SystolicArray {
  std::int64_t rows = 0, cols = 0;  // R (array height) x C (array width) MAC units
  Dataflow dataflow = Dataflow::WeightStationary;
  Waves waves = Waves::Folds;
  std::int64_t tile = 0;  // lines of the streamed dimension per wave; 0: all of T (SCALE-Sim)
};

// How one of the GEMM's `count` products is laid on the array (SCALE-Sim's Sr, Sc, T):
//   weight stationary: S_R = k, S_C = n, T = m (W [k x n] held in the PEs, X rows stream),
//   output stationary: S_R = m, S_C = n, T = k (each PE accumulates one output),
//   input stationary:  S_R = k, S_C = m, T = n (X^T [k x m] held, W columns stream).
struct SystolicMapping {
  std::int64_t spatial_rows = 0, spatial_cols = 0, temporal = 0;  // S_R, S_C, T
  std::int64_t row_folds = 0, col_folds = 0;                      // ceil(S_R/R), ceil(S_C/C)
  std::int64_t cycles_per_fold = 0;
};

// Throws std::invalid_argument (naming the quantity) for an array with rows or cols < 1, a GEMM
// with a negative dimension, or a product that overflows int64. A GEMM with a zero dimension or
// count 0 (not a GEMM) maps to zero folds and zero cycles.
SystolicMapping systolic_mapping(const Gemm& g, const SystolicArray& a);

// Compute cycles of the `count` GEMMs run one after another. Folds with tile 0 (SCALE-Sim):
// count * row_folds * col_folds * cycles_per_fold. With a tile, T is cut into waves of `tile`
// lines and a last shorter one; Pipelined and DoubleBuffered stream every wave of the `count`
// products back to back. `arrays` arrays share the waves: ceil(waves / arrays) rounds of each
// wave length (Folds), or ceil(stream cycles / arrays) and one fill and drain (the others: the
// waves shared evenly).
std::int64_t systolic_cycles(const Gemm& g, const SystolicArray& a, std::int64_t arrays = 1);

// MACs / (R * C * cycles): the fraction of MAC-slots doing useful work, below 1 whenever the
// shape leaves PEs idle (partial folds) or fill / drain is not negligible; 0 for a non-GEMM.
double systolic_utilization(const Gemm& g, const SystolicArray& a);

std::string_view waves_name(Waves w);  // "folds", "pipelined", "double-buffered"
std::optional<Waves> waves_from_name(std::string_view name);
std::string_view dataflow_name(Dataflow d);  // "ws", "os", "is" (SCALE-Sim's spellings)
// "ws" / "os" / "is" or "weight_stationary" / "output-stationary" / ... (case-insensitive).
std::optional<Dataflow> dataflow_from_name(std::string_view name);

}  // namespace dnnmem
