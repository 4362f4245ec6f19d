// The intra-layer tile model of the interleaved-gradient-order system (docs/model/interleaved.md):
// the bytes one backward GEMM step moves under an order of its tile operations, over a scratchpad
// share of c_eff bytes with farthest-next-use (Bélády) replacement at tile granularity (or, as an
// option, least recently used).
//
// The GEMM is the paper's forward X(M, K) . W(K, N) -> Y(M, N); its backward products dX = dY . W^T
// and dW = X^T . dY share one grid of tiles (i, j, k) of size tile x tile:
//   dX-op(i, j, k): reads dY(i, j), W(k, j); accumulates into dX(i, k)
//   dW-op(i, j, k): reads X(i, k), dY(i, j); accumulates into dW(k, j)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dnnmem {

// In the tie-break order of the walk's rule 4 (a later tensor is evicted first).
enum class TileTensor : std::uint8_t { dY, W, X, dX, dW };
inline constexpr int kTileTensors = 5;

enum class BackwardOrder : std::uint8_t {
  Seq,         // every dX-op (row-major nest), then every dW-op (column-major nest)
  SeqDwFirst,  // the dW-ops first
  Interleave,  // the two native streams in lock step: dX-op t, then dW-op t
  DxMajor,     // one row-major nest; at each (i, j, k) the dX-op then the dW-op
  DwMajor,     // one column-major nest, likewise
};

// A loop nest, outer to inner, over the grid dimensions 'i' (M), 'j' (N), 'k' (K): "ijk", ...
// Row-major in dY (i outside j): ijk, ikj, kij. Column-major: jik, jki, kji.
struct TileWalkOptions {
  std::int64_t tile = 128;
  std::int64_t c_eff = 0;       // bytes of scratchpad the step's tiles may use
  std::int64_t elem_bytes = 2;  // an input tile's and a final output's bytes per element
  std::int64_t psum_bytes = 2;  // a partial sum's bytes per element (on chip and spilled)
  std::string_view nest_x = "ijk";  // the row-major stream's nest (seq, interleave, dx-major)
  std::string_view nest_w = "jik";  // the column-major stream's nest (seq, interleave, dw-major)
  // Bit (1 << TileTensor) set: that tensor's touches by the dX-ops (skip_x) or the dW-ops
  // (skip_w) are left out of the trace — free, taking no space: an operand the inter-layer cache
  // keeps whole during the step, or (dy-oracle) the dW-ops' dY reads.
  unsigned skip_x = 0, skip_w = 0;
  // Partitioning (docs/model/interleaved.md, "Partitioning"): split dimension `partition`
  // (-1: none; 0: M (i), 1: N (j), 2: K (k)) into `parts` contiguous runs of tiles (at most one
  // per tile), each walked in the order over its sub-grid; one after another on one core, or
  // (`lockstep`, one part per core sharing the scratchpad) operation t of every part at once.
  int partition = -1;
  std::int64_t parts = 1;
  bool lockstep = false;
  // Replacement (docs/model/interleaved.md, "Reading (replacement)"): false, farthest next use
  // (Bélády, rule 4); true, least recently used (the simpler baseline tiler's reading). The walk
  // only: the closed form models compiler pinning and refuses it.
  bool lru = false;
  // No reuse (docs/model/interleaved.md, "Reading (no reuse)", `replace = none`): the share keeps
  // nothing between operations (a GPU kernel that stages only the current input slices, the paper's
  // §6.6 baseline [5]): each operation loads its distinct read tiles (a dY tile its dX-op and dW-op
  // share, once); the outputs accumulate apart from the share and are written once, final; c_eff is
  // not read. Overrides lru and keep_psum. The walk only.
  bool no_reuse = false;
  // Intermediate results (docs/model/interleaved.md, "Reading (intermediate results)"): false,
  // a partial sum is a victim like any tile; true, "stored in the SPM to the extent possible"
  // (the paper's §4.3): rule 4 evicts a partial sum only when no other tile can go.
  bool keep_psum = false;
  // The reduction of a partition (docs/model/interleaved.md, "Reading (off-chip reduction)"):
  // false, the parts' contributions to an output add into one tile on chip; true (`reduction =
  // dram`, the paper's §5), a partition that cuts an output's reduced dimension (M: dW, N: dX)
  // gives each part its own copy of that output, written off chip as a partial sum (psum_bytes)
  // and read back to be summed, the output then written once (elem_bytes). The walk only.
  bool reduce_off_chip = false;
};

struct TileTraffic {
  // Per TileTensor: bytes read (inputs), written final (outputs), partial sums read and written.
  std::array<std::int64_t, kTileTensors> read{}, written{}, psum_read{}, psum_written{};
  std::int64_t operations = 0;  // tile operations walked (a fused one counts once)
  std::int64_t dy_read_by_dw = 0;  // the part of read[dY] read by the dW-ops' touches
  std::int64_t total() const;
};

// Throws std::invalid_argument naming the quantity for m, k or n < 1, tile < 1, c_eff < 0,
// element or partial-sum bytes < 1, a nest that is not a permutation of "ijk" or of the wrong
// family, or a grid beyond 2^26 tile operations.
TileTraffic tile_walk(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                      const TileWalkOptions& options);

// The closed form of the page ("The closed form (fast path)", cpp/src/tiles_closed.cpp): the same
// quantities from the loop nests' reuse distances, without walking. Equal to the walk when every
// operand fits in c_eff and when no operation fits (no reuse); otherwise an estimate whose
// measured gap the page states. Same checks as tile_walk.
TileTraffic tile_estimate(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                          const TileWalkOptions& options);

namespace detail {
// tile_walk's input checks (walk = false: the closed form, which has no grid limit but n_i·n_j).
void check_tile_input(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o,
                      bool walk);
// tile_walk, also giving c_eff values [*lo, *hi) for which its result is the same (the tile model
// memoises walks by it): those for which every comparison the walk makes with c_eff comes out
// the same, and, when the walk never evicts a live tile nor meets an operation that does not fit
// (Bélády), every c_eff from the least that keeps its live tiles on (docs/performance.md, "Walks
// that never evict a live tile").
TileTraffic tile_walk_range(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                            const TileWalkOptions& options, std::int64_t* lo, std::int64_t* hi);
// tile_walk_range that gives up, returning nothing, as soon as it knows that its total is above
// `bound`: the bytes it has moved beyond the compulsory ones (reloads, partial sums) plus the
// compulsory ones pass it (*lower: that lower bound of the total; [*lo, *hi): the c_eff values for
// which it holds, those for which the walk up to there is the same, or every c_eff when the
// compulsory bytes alone pass the bound). The tile model's searches drop a candidate that can no
// longer win by it. Same result otherwise (*lower: the total).
std::optional<TileTraffic> tile_walk_bounded(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                             const TileWalkOptions& options, std::int64_t bound, std::int64_t* lo,
                                             std::int64_t* hi, std::int64_t* lower);
// tile_walk_range replaying every touch at every c_eff: the same result and range, without the
// trace's floor (docs/performance.md, "A walk's floor from its trace"); the tests' reference.
TileTraffic tile_walk_replayed(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                               const TileWalkOptions& options, std::int64_t* lo, std::int64_t* hi);
// tile_estimate of an input check_tile_input(..., false) has passed (the tile model checks it once
// and ranks several loop nests).
TileTraffic tile_estimate_checked(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                  const TileWalkOptions& options);
// The closed form's ranking of loop nests for `order` (input checked as above): over the pairs
// (rows[x], cols[w]), x outer and w inner, those the order uses (dx-major: w = 0 only; dw-major:
// x = 0 only), the first pair with the least tile_estimate_checked(...).total() with
// options.nest_x = rows[x], options.nest_w = cols[w]; its indices in *x, *w; returns that total.
// The same integers as those calls: each stream's part of a total is computed once per nest.
std::int64_t rank_nests(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                        const TileWalkOptions& options, const std::array<std::string_view, 3>& rows,
                        const std::array<std::string_view, 3>& cols, int* x, int* w);
// Frees this thread's cached walk traces (the sweep's threads call it when they are done).
void forget_tile_traces();
}  // namespace detail

std::string_view backward_order_name(BackwardOrder o);  // "seq", "seq-dw-first", "interleave", ...
std::optional<BackwardOrder> backward_order_from_name(std::string_view name);
std::string_view tile_tensor_name(TileTensor t);  // "dY", "W", "X", "dX", "dW"

}  // namespace dnnmem
