// The tile walk of docs/model/interleaved.md ("The tile walk (reference)", rules 1-5). The Python
// reference tests/python/oracle_tiles.py implements the same page; the tests compare the two.
#include "dnnmem/tiles.hpp"
#include "dnnmem/interrupt.hpp"

#include "tile_key.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace dnnmem {
namespace {

constexpr std::int64_t kMaxTileOperations = std::int64_t{1} << 22;

struct Touch {
  int tensor = 0;          // TileTensor
  std::int64_t tile = 0;   // global tile id: offset of its tensor + row * columns + column
  bool accumulate = false;
  bool by_dw = false;      // a dW-op's touch
};

// A set of integers in [0, size) as bits, with a summary level per 64 words, so that the
// largest member at most i is a few count-leading-zeros away (the walk's victim search).
class Bitmap {
 public:
  // Empties the set and sizes it for [0, size), keeping the storage (the levels in one array).
  void reset(std::int64_t size) {
    levels_ = 0;
    std::int64_t n = std::max<std::int64_t>(size, 1), total = 0;
    do {
      n = (n + 63) / 64;
      start_[levels_++] = total;
      total += n;
    } while (n > 1);
    words_.assign(static_cast<std::size_t>(total), 0);
  }
  void insert(std::int64_t i) {
    for (int level = 0; level < levels_; ++level) {
      std::uint64_t& w = word(level, i >> 6);
      const bool was_empty = w == 0;
      w |= std::uint64_t{1} << (i & 63);
      if (!was_empty) return;
      i >>= 6;
    }
  }
  void erase(std::int64_t i) {
    for (int level = 0; level < levels_; ++level) {
      std::uint64_t& w = word(level, i >> 6);
      w &= ~(std::uint64_t{1} << (i & 63));
      if (w != 0) return;
      i >>= 6;
    }
  }
  // The largest member <= i, or -1: up the levels to the first with a member at most i's
  // summary bit below it, then down through the largest bits.
  std::int64_t prev(std::int64_t i) const {
    int level = 0;
    for (;; ++level) {
      if (i < 0) return -1;
      const std::int64_t w = i >> 6;
      const std::uint64_t m = word(level, w) & (~std::uint64_t{0} >> (63 - (i & 63)));
      if (m != 0) {
        i = (w << 6) | (63 - __builtin_clzll(m));
        break;
      }
      if (level + 1 == levels_) return -1;
      i = w - 1;  // the last non-empty word before w, one level up
    }
    while (level-- > 0) i = (i << 6) | (63 - __builtin_clzll(word(level, i)));
    return i;
  }
  // The largest member, or -1: down from the top level's word, one leading-zero count a level.
  std::int64_t max() const {
    std::int64_t w = 0;
    for (int level = levels_; level-- > 0;) {
      const std::uint64_t x = word(level, w);
      if (x == 0) return -1;  // (only the top level's word can be empty)
      w = (w << 6) | (63 - __builtin_clzll(x));
    }
    return w;
  }

 private:
  std::vector<std::uint64_t> words_;
  std::array<std::int64_t, 8> start_{};  // each level's first word (2^48 members at most)
  int levels_ = 0;
  std::uint64_t& word(int level, std::int64_t w) { return words_[static_cast<std::size_t>(start_[static_cast<std::size_t>(level)] + w)]; }
  std::uint64_t word(int level, std::int64_t w) const { return words_[static_cast<std::size_t>(start_[static_cast<std::size_t>(level)] + w)]; }
};

struct Grid {
  std::int64_t m, k, n, tile, ni, nj, nk;
  // Rows and columns of each tensor's tile grid, and its element dimensions.
  std::int64_t rows(int t) const { return t == 0 || t == 2 || t == 3 ? ni : nk; }
  std::int64_t cols(int t) const { return t == 0 || t == 1 || t == 4 ? nj : nk; }
  std::int64_t row_elems(int t) const { return t == 0 || t == 2 || t == 3 ? m : k; }
  std::int64_t col_elems(int t) const { return t == 0 || t == 1 || t == 4 ? n : k; }
};

void check_nest(std::string_view nest, bool row_major, const char* what) {
  const auto has = [&](char c) { return nest.find(c) != std::string_view::npos; };
  if (nest.size() != 3 || !has('i') || !has('j') || !has('k'))  // not a permutation of "ijk"
    throw std::invalid_argument(std::string(what) + ": '" + std::string(nest) +
                                "' is not a loop nest over i, j, k");
  const bool i_before_j = nest.find('i') < nest.find('j');
  if (i_before_j != row_major)
    throw std::invalid_argument(std::string(what) + ": '" + std::string(nest) + "' must be " +
                                (row_major ? "row-major in dY (i outside j: ijk, ikj, kij)"
                                           : "column-major in dY (j outside i: jik, jki, kji)"));
}

using Pos = std::array<std::int64_t, 3>;  // (i, j, k)

// The grid positions of one product's tile operations over tiles [lo, hi) of each dimension
// (i, j, k), in the order of `nest`.
void product(std::string_view nest, const Pos& lo, const Pos& hi, std::vector<Pos>& ops) {
  const auto dim = [](char d) { return d == 'i' ? 0 : d == 'j' ? 1 : 2; };
  const int d0 = dim(nest[0]), d1 = dim(nest[1]), d2 = dim(nest[2]);
  Pos pos{};
  for (pos[d0] = lo[d0]; pos[d0] < hi[d0]; ++pos[d0])
    for (pos[d1] = lo[d1]; pos[d1] < hi[d1]; ++pos[d1])
      for (pos[d2] = lo[d2]; pos[d2] < hi[d2]; ++pos[d2]) ops.push_back(pos);
}

// One operation of an order: a dX-op at x and / or a dW-op at w.
struct Unit {
  Pos x{}, w{};
  bool dx = false, dw = false;
};

}  // namespace

namespace detail {

void check_tile_input(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o,
                      bool walk) {
  if (m < 1 || k < 1 || n < 1)
    throw std::invalid_argument("tile walk: GEMM dimensions must be >= 1 (got M = " + std::to_string(m) +
                                ", K = " + std::to_string(k) + ", N = " + std::to_string(n) + ")");
  if (o.tile < 1) throw std::invalid_argument("tile walk: tile must be >= 1");
  if (o.c_eff < 0) throw std::invalid_argument("tile walk: c_eff must be >= 0");
  if (o.elem_bytes < 1 || o.psum_bytes < 1)
    throw std::invalid_argument("tile walk: element and partial-sum bytes must be >= 1");
  check_nest(o.nest_x, true, "nest_x");
  check_nest(o.nest_w, false, "nest_w");
  if (o.partition < -1 || o.partition > 2)
    throw std::invalid_argument("tile walk: partition must be -1 (none), 0 (M), 1 (N) or 2 (K)");
  if (o.parts < 1) throw std::invalid_argument("tile walk: parts must be >= 1");
  if (!walk && (o.partition >= 0 || o.lockstep))
    throw std::invalid_argument("tile walk: the closed form has no partitioning (use the walk)");
  if (!walk && o.lru)
    throw std::invalid_argument("tile walk: the closed form has no LRU replacement (use the walk)");
  if (!walk && o.no_reuse)
    throw std::invalid_argument("tile walk: the closed form has no no-reuse mode (use the walk)");
  if (!walk && o.keep_psum)
    throw std::invalid_argument("tile walk: the closed form has no priority for partial sums (use the walk)");
  const std::int64_t ni = (m + o.tile - 1) / o.tile, nj = (n + o.tile - 1) / o.tile,
                     nk = (k + o.tile - 1) / o.tile;
  const std::int64_t cap = walk ? kMaxTileOperations : std::int64_t{1} << 40;
  if (ni > cap || nj > cap || nk > cap || ni * nj > cap || (walk && ni * nj * nk > cap))
    throw std::invalid_argument("tile walk: more than 2^22 tile operations (" + std::to_string(ni) +
                                " x " + std::to_string(nj) + " x " + std::to_string(nk) +
                                "): use a larger tile");
}

}  // namespace detail

std::int64_t TileTraffic::total() const {
  std::int64_t t = 0;
  for (int x = 0; x < kTileTensors; ++x) t += read[x] + written[x] + psum_read[x] + psum_written[x];
  return t;
}

TileTraffic tile_walk(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                      const TileWalkOptions& o) {
  std::int64_t lo = 0, hi = 0;
  return detail::tile_walk_range(m, k, n, order, o, &lo, &hi);
}

namespace {

// The trace: everything the walk derives before its replacement loop (rules 1-3: the operations,
// their touches, each tile's next touch, size and contributions, each operation's bytes). None of
// it reads c_eff or the replacement rule, so the walks of one GEMM at other capacities (the tile
// model's memo misses) share it: it is kept per thread by the rest of the input (WalkKey with
// lru = false).

struct Trace {
  struct Hit {
    std::int32_t tile;      // global tile id
    std::int32_t key;       // the tile's Bélády key after it (see the walk): its next touch, or
                            // touches + 1 + the tile when never touched again
    std::uint8_t tensor;    // TileTensor
    bool accumulate, by_dw;
  };
  std::vector<Hit> touches;
  std::vector<std::uint32_t> op_begin;  // operation op's touches: [op_begin[op], op_begin[op + 1])
  std::vector<std::int64_t> need;       // per operation: the on-chip bytes of its distinct tiles
  std::vector<std::uint8_t> tensor_of;  // per tile
  std::vector<std::int64_t> elems, chip;  // per tile: elements; on-chip bytes
  std::vector<std::int32_t> contributions;  // per tile: its accumulating touches
  std::int64_t tiles = 0;
  // `reduce_off_chip`: the output each part keeps a copy of (TileTensor; -1: none), the copies
  // (the parts), and the elements of one copy (the output's GEMM matrix).
  int cut = -1;
  std::int64_t copies = 1, cut_elems = 0;
  std::size_t bytes() const {
    return touches.size() * sizeof(Hit) + op_begin.size() * 4 + need.size() * 8 + tensor_of.size() +
           elems.size() * 16 + contributions.size() * 4 + sizeof(Trace);
  }
};

Trace build_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o) {
  const Grid g{m, k, n, o.tile, (m + o.tile - 1) / o.tile, (n + o.tile - 1) / o.tile,
               (k + o.tile - 1) / o.tile};
  Trace tr;
  const std::int64_t n_split = o.partition < 0 ? 1 : (o.partition == 0 ? g.ni : o.partition == 1 ? g.nj : g.nk);
  const std::int64_t parts = std::min(std::max<std::int64_t>(o.parts, 1), n_split);
  // An off-chip reduction (reduce_off_chip): a cut of M gives each part its own dW, a cut of N
  // its own dX (the output reduced over the cut dimension), unless the cache keeps it whole.
  if (o.reduce_off_chip && parts > 1 && (o.partition == 0 || o.partition == 1)) {
    tr.cut = o.partition == 0 ? 4 : 3;
    if (((tr.cut == 4 ? o.skip_w : o.skip_x) >> tr.cut) & 1U) tr.cut = -1;
  }
  // Global tile ids: each tensor's tiles after the previous tensor's; the copies of the cut
  // output of parts 1, 2, ... after them (part 0 keeps the output's own tiles).
  std::array<std::int64_t, kTileTensors + 1> offset{};
  for (int t = 0; t < kTileTensors; ++t) offset[t + 1] = offset[t] + g.rows(t) * g.cols(t);
  const std::int64_t copy_tiles = tr.cut < 0 ? 0 : g.rows(tr.cut) * g.cols(tr.cut);
  if (tr.cut >= 0) {
    tr.copies = parts;
    tr.cut_elems = g.row_elems(tr.cut) * g.col_elems(tr.cut);
  }
  const auto id = [&](int t, std::int64_t r, std::int64_t c, std::int64_t part = 0) {
    if (t == tr.cut && part > 0) return offset[kTileTensors] + (part - 1) * copy_tiles + r * g.cols(t) + c;
    return offset[t] + r * g.cols(t) + c;
  };
  const auto add = [&](Trace::Hit h) {
    if (!(((h.by_dw ? o.skip_w : o.skip_x) >> h.tensor) & 1U)) tr.touches.push_back(h);
  };
  const auto hit = [](int t, std::int64_t tile, bool acc, bool dw) {
    return Trace::Hit{static_cast<std::int32_t>(tile), 0, static_cast<std::uint8_t>(t), acc, dw};
  };
  const auto dx_op = [&](const Pos& p, std::int64_t part) {
    add(hit(0, id(0, p[0], p[1]), false, false));        // dY(i, j)
    add(hit(1, id(1, p[2], p[1]), false, false));        // W(k, j)
    add(hit(3, id(3, p[0], p[2], part), true, false));   // dX(i, k)
  };
  const auto dw_op = [&](const Pos& p, std::int64_t part) {
    add(hit(2, id(2, p[0], p[2]), false, true));        // X(i, k)
    add(hit(0, id(0, p[0], p[1]), false, true));        // dY(i, j)
    add(hit(4, id(4, p[2], p[1], part), true, true));   // dW(k, j)
  };

  // Each part's operations (docs/model/interleaved.md, "Partitioning"): the order over its
  // sub-grid; one part without a partition.
  std::vector<std::vector<Unit>> part_units(static_cast<std::size_t>(parts));
  std::vector<Pos> xs, ws;
  for (std::int64_t p = 0; p < parts; ++p) {
    Pos lo{0, 0, 0}, hi{g.ni, g.nj, g.nk};
    if (o.partition >= 0) {
      lo[static_cast<std::size_t>(o.partition)] = p * n_split / parts;
      hi[static_cast<std::size_t>(o.partition)] = (p + 1) * n_split / parts;
    }
    auto& units = part_units[static_cast<std::size_t>(p)];
    xs.clear();
    ws.clear();
    switch (order) {
      case BackwardOrder::Seq:
      case BackwardOrder::SeqDwFirst: {
        product(o.nest_x, lo, hi, xs);
        product(o.nest_w, lo, hi, ws);
        const bool dw_first = order == BackwardOrder::SeqDwFirst;
        for (int half = 0; half < 2; ++half) {
          const bool dw = (half == 0) == dw_first;
          for (const auto& q : dw ? ws : xs) units.push_back({q, q, !dw, dw});
        }
        break;
      }
      case BackwardOrder::Interleave:
        product(o.nest_x, lo, hi, xs);
        product(o.nest_w, lo, hi, ws);
        for (std::size_t t = 0; t < xs.size(); ++t) units.push_back({xs[t], ws[t], true, true});
        break;
      case BackwardOrder::DxMajor:
      case BackwardOrder::DwMajor:
        product(order == BackwardOrder::DxMajor ? o.nest_x : o.nest_w, lo, hi, xs);
        for (const auto& q : xs) units.push_back({q, q, true, true});
        break;
    }
  }
  // The touches, and where each operation's touches begin. One core runs the parts one after
  // another; several (lockstep) run operation t of every part as one operation.
  {  // at most 3 touches per product, 2 products per unit: no reallocation while emitting
    std::size_t all = 0;
    for (const auto& units : part_units) all += units.size();
    tr.touches.reserve(6 * all);
    tr.op_begin.reserve(all + 1);
  }
  const auto emit = [&](const Unit& u, std::int64_t part) {
    if (u.dx) dx_op(u.x, part);
    if (u.dw) dw_op(u.w, part);
  };
  const auto begin_op = [&] { tr.op_begin.push_back(static_cast<std::uint32_t>(tr.touches.size())); };
  if (o.lockstep) {
    std::size_t longest = 0;
    for (const auto& units : part_units) longest = std::max(longest, units.size());
    for (std::size_t t = 0; t < longest; ++t) {
      begin_op();
      for (std::size_t p = 0; p < part_units.size(); ++p)
        if (t < part_units[p].size()) emit(part_units[p][t], static_cast<std::int64_t>(p));
    }
  } else {
    for (std::size_t p = 0; p < part_units.size(); ++p)
      for (const Unit& u : part_units[p]) {
        begin_op();
        emit(u, static_cast<std::int64_t>(p));
      }
  }
  begin_op();

  // Per tile: its tensor, size, next touch after each touch, contributions.
  tr.tiles = offset[kTileTensors] + (tr.copies - 1) * copy_tiles;
  const auto tiles = static_cast<std::size_t>(tr.tiles);
  tr.tensor_of.resize(tiles);
  tr.elems.resize(tiles);
  tr.chip.resize(tiles);
  for (int t = 0; t < kTileTensors; ++t)
    for (std::int64_t part = 0; part < (t == tr.cut ? tr.copies : 1); ++part)
      for (std::int64_t r = 0; r < g.rows(t); ++r)
        for (std::int64_t c = 0; c < g.cols(t); ++c) {
          const auto x = static_cast<std::size_t>(id(t, r, c, part));
          tr.tensor_of[x] = static_cast<std::uint8_t>(t);
          tr.elems[x] = std::min(g.tile, g.row_elems(t) - r * g.tile) * std::min(g.tile, g.col_elems(t) - c * g.tile);
          tr.chip[x] = tr.elems[x] * (t >= 3 ? o.psum_bytes : o.elem_bytes);
        }
  std::vector<std::int32_t> last(tiles, -1);
  tr.contributions.assign(tiles, 0);
  const auto never = static_cast<std::int64_t>(tr.touches.size()) + 1;
  for (std::size_t p = tr.touches.size(); p-- > 0;) {
    auto& h = tr.touches[p];
    const auto x = static_cast<std::size_t>(h.tile);
    h.key = last[x] >= 0 ? last[x] : static_cast<std::int32_t>(never + h.tile);
    last[x] = static_cast<std::int32_t>(p);
    if (h.accumulate) ++tr.contributions[x];
  }
  // Each operation's need: the bytes of its distinct tiles (`last` marks a tile seen by op + 1).
  std::fill(last.begin(), last.end(), -1);
  const std::size_t ops = tr.op_begin.size() - 1;
  tr.need.resize(ops);
  for (std::size_t op = 0; op < ops; ++op) {
    check_interrupt_every(op);
    std::int64_t need = 0;
    for (std::uint32_t q = tr.op_begin[op]; q < tr.op_begin[op + 1]; ++q) {
      const auto x = static_cast<std::size_t>(tr.touches[q].tile);
      if (last[x] == static_cast<std::int32_t>(op)) continue;
      last[x] = static_cast<std::int32_t>(op);
      need += tr.chip[x];
    }
    tr.need[op] = need;
  }
  return tr;
}


// The per-thread traces (a sweep's threads share nothing), forgotten together when their bytes
// pass the budget, and when a sweep's thread is done (detail::forget_tile_traces), so that the
// threads of a pool do not hold them after the sweep.
constexpr std::size_t kTraceBudget = std::size_t{64} << 20;
thread_local std::unordered_map<detail::WalkKey, std::shared_ptr<const Trace>, detail::WalkKeyHash> traces;
thread_local std::size_t stored = 0;

std::shared_ptr<const Trace> cached_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                          const TileWalkOptions& o) {
  detail::WalkKey key = detail::walk_key(m, k, n, order, o);
  key.lru = false;  // the trace does not depend on the replacement rule
  key.keep_psum = false;
  key.no_reuse = false;
  if (auto it = traces.find(key); it != traces.end()) return it->second;
  auto tr = std::make_shared<const Trace>(build_trace(m, k, n, order, o));
  const std::size_t bytes = tr->bytes();
  if (bytes > kTraceBudget / 4) return tr;  // too large to keep
  if (stored + bytes > kTraceBudget) {
    traces.clear();
    stored = 0;
  }
  stored += bytes;
  traces.emplace(key, tr);
  return tr;
}

// The replacement loop's state, kept per thread between walks (no allocation per walk).
struct Scratch {
  struct Tile {  // one tile's state, together
    std::int32_t key = -1;    // its slot; -1: not resident
    std::int32_t done = 0;    // its contributions so far
    std::int32_t stamp = 0;   // == the operation's stamp: touched by it
    std::uint8_t dirty = 0, seen = 0;
  };
  std::vector<Tile> tile;
  std::vector<std::int32_t> tile_at;
  Bitmap resident;
};

// The thread's scratch, behind a call that is not inlined: with the thread_local in the walk,
// GCC rematerialised its address at each use in the loop (a call of __tls_get_addr in the
// shared module, 25 M calls and 12 % of the instructions of a cold ResNet-50 sweep under
// split-backward(order=best)); a pointer returned by a call it keeps in a register.
[[gnu::noinline]] Scratch& thread_scratch() {
  thread_local Scratch s;
  return s;
}

// `replace = none` (TileWalkOptions::no_reuse): each operation loads its distinct read tiles,
// nothing stays between operations, every output tile is written once, final, its partial sums
// held apart (the kernel's accumulators). c_eff is never read: the result holds for every c_eff.
std::optional<TileTraffic> no_reuse_walk(const Trace& tr, std::int64_t elem_bytes, std::int64_t bound, std::int64_t* range_lo,
                                         std::int64_t* range_hi, std::int64_t* moved_out) {
  TileTraffic out;
  out.operations = static_cast<std::int64_t>(tr.op_begin.size()) - 1;
  *range_lo = 0;
  *range_hi = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int32_t> loaded_by(static_cast<std::size_t>(tr.tiles), 0);  // the operation's stamp
  std::vector<std::uint8_t> written(static_cast<std::size_t>(tr.tiles), 0);
  std::int64_t moved = 0;
  for (std::size_t op = 0; op + 1 < tr.op_begin.size(); ++op) {
    check_interrupt_every(op);
    const auto stamp = static_cast<std::int32_t>(op + 1);
    for (std::size_t q = tr.op_begin[op]; q < tr.op_begin[op + 1]; ++q) {
      const Trace::Hit& tc = tr.touches[q];
      const auto x = static_cast<std::size_t>(tc.tile);
      const auto t = static_cast<std::size_t>(tc.tensor);
      if (tc.accumulate) {
        if (written[x]) continue;
        written[x] = 1;
        out.written[t] += tr.elems[x] * elem_bytes;
        moved += tr.elems[x] * elem_bytes;
      } else if (loaded_by[x] != stamp) {
        loaded_by[x] = stamp;
        const std::int64_t bytes = tr.elems[x] * elem_bytes;
        out.read[t] += bytes;
        moved += bytes;
        if (tc.by_dw && tc.tensor == 0) out.dy_read_by_dw += bytes;
      }
    }
    if (moved > bound) {
      *moved_out = moved;
      return std::nullopt;
    }
  }
  *moved_out = moved;
  return out;
}

// The replacement loop (rules 4-5) over a trace; gives up as tile_walk_bounded.
std::optional<TileTraffic> walk_trace(const Trace& tr, const TileWalkOptions& o, std::int64_t bound,
                                      std::int64_t* range_lo, std::int64_t* range_hi, std::int64_t* moved_out);

}  // namespace

TileTraffic detail::tile_walk_range(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                    const TileWalkOptions& o, std::int64_t* range_lo, std::int64_t* range_hi) {
  std::int64_t moved = 0;
  return *tile_walk_bounded(m, k, n, order, o, std::numeric_limits<std::int64_t>::max(), range_lo, range_hi, &moved);
}

std::optional<TileTraffic> detail::tile_walk_bounded(std::int64_t m, std::int64_t k, std::int64_t n,
                                                     BackwardOrder order, const TileWalkOptions& o,
                                                     std::int64_t bound, std::int64_t* range_lo,
                                                     std::int64_t* range_hi, std::int64_t* moved_out) {
  detail::check_tile_input(m, k, n, o, true);
  const std::shared_ptr<const Trace> trace = cached_trace(m, k, n, order, o);
  const Trace& tr = *trace;
  // The off-chip reduction's bytes beyond the walk's (none without copies): each copy's final
  // write becomes a partial sum written and read back, and the summed output is written once.
  const std::int64_t copy_bytes = tr.copies * tr.cut_elems;
  const std::int64_t extra = tr.cut < 0 ? 0 : tr.cut_elems * o.elem_bytes - copy_bytes * o.elem_bytes + 2 * copy_bytes * o.psum_bytes;
  const std::int64_t walk_bound = bound == std::numeric_limits<std::int64_t>::max() ? bound : bound - extra;
  const auto reduce = [&](std::optional<TileTraffic> out) {
    *moved_out += extra;
    if (!out || tr.cut < 0) return out;
    auto& x = *out;
    const auto c = static_cast<std::size_t>(tr.cut);
    const std::int64_t finals = x.written[c] / o.elem_bytes;  // elements: every copy's, once
    x.psum_written[c] += finals * o.psum_bytes;
    x.psum_read[c] += finals * o.psum_bytes;
    x.written[c] = tr.cut_elems * o.elem_bytes;
    return out;
  };
  if (o.no_reuse) return reduce(no_reuse_walk(tr, o.elem_bytes, walk_bound, range_lo, range_hi, moved_out));
  return reduce(walk_trace(tr, o, walk_bound, range_lo, range_hi, moved_out));
}

namespace {

std::optional<TileTraffic> walk_trace(const Trace& tr, const TileWalkOptions& o, std::int64_t bound,
                                      std::int64_t* range_lo, std::int64_t* range_hi, std::int64_t* moved_out) {
  // Every comparison with c_eff below narrows [c_lo, c_hi): the c_eff values that decide alike.
  std::int64_t c_lo = 0, c_hi = std::numeric_limits<std::int64_t>::max();
  const auto at_most_c_eff = [&](std::int64_t x) {  // x <= c_eff, recording the range
    if (x <= o.c_eff) {
      c_lo = std::max(c_lo, x);
      return true;
    }
    c_hi = std::min(c_hi, x);
    return false;
  };
  const auto& touches = tr.touches;
  const std::int64_t tiles = tr.tiles;
  const auto n_touches = static_cast<std::int64_t>(touches.size());

  TileTraffic out;
  out.operations = static_cast<std::int64_t>(tr.op_begin.size()) - 1;
  // Resident tiles keyed by (priority, tensor, tile) so that the largest is rule 4's victim. The
  // priority after touch q: its tile's next touch (Bélády), or touches - q, the larger the less
  // recently used (LRU; unique, so the tie-break never decides). The set is one bitmap over
  // slots: the priorities other than "never" are distinct touch positions in [1, touches] (a
  // tile's next touch, or touches - its last); the tiles never touched again tie on the
  // priority, above every position, and are ordered by (tensor, tile), the tile id's order (ids
  // are offset by tensor), so slot touches + 1 + tile orders them. The largest slot is the
  // victim. (A std::set of tuples was 60-70 % of a walk.)
  const auto slots = n_touches + 1 + tiles;
  const auto slot = [&](std::size_t q) -> std::int64_t {
    return o.lru ? n_touches - static_cast<std::int64_t>(q) : touches[q].key;
  };
  Scratch& s = thread_scratch();
  struct Release {  // a large walk's state is not kept
    Scratch& s;
    bool large;
    ~Release() {
      if (large) s = Scratch{};
    }
  } release{s, slots > (std::int64_t{1} << 21)};
  const auto nt = static_cast<std::size_t>(tiles);
  s.tile.assign(nt, Scratch::Tile{});
  s.tile_at.resize(static_cast<std::size_t>(slots));
  s.resident.reset(slots);
  auto& tile_at = s.tile_at;
  auto& st = s.tile;
  // Dead tiles (never touched again: a slot above n_touches) cost nothing to keep or to drop
  // (docs/performance.md, "Walks that never evict a live tile"): `dead` counts the resident ones'
  // bytes, `dead_here` those of them this operation touched (stamped: not victims yet).
  std::int64_t dead = 0, dead_here = 0;
  const auto place = [&](std::size_t x, std::int64_t key) {
    if (key > n_touches) dead += tr.chip[x];
    st[x].key = static_cast<std::int32_t>(key);
    s.resident.insert(key);
    tile_at[static_cast<std::size_t>(key)] = static_cast<std::int32_t>(x);
  };
  const auto unplace = [&](std::size_t x) {
    if (st[x].key > n_touches) dead -= tr.chip[x];
    s.resident.erase(st[x].key);
    st[x].key = -1;
  };
  std::int64_t used = 0, moved = 0;  // moved: out's total so far
  // Until a live tile is evicted or an operation does not fit (never under LRU, whose victims
  // are not the dead tiles first), the walk's traffic is the same at every c_eff >= live_floor.
  bool live_floor_holds = !o.lru;
  std::int64_t live_floor = 0;
  const auto add = [&](std::int64_t& field, std::int64_t bytes) {
    field += bytes;
    moved += bytes;
  };
  const auto elem_bytes = [&](std::int64_t tile, std::int64_t per) { return tr.elems[static_cast<std::size_t>(tile)] * per; };
  const auto evict = [&](std::int64_t tile) {
    const auto x = static_cast<std::size_t>(tile);
    if (st[x].key <= n_touches) live_floor_holds = false;
    unplace(x);
    used -= tr.chip[x];
    if (st[x].dirty) {
      st[x].dirty = 0;
      if (st[x].done < tr.contributions[x])
        add(out.psum_written[static_cast<std::size_t>(tr.tensor_of[x])], elem_bytes(tile, o.psum_bytes));
      else
        add(out.written[static_cast<std::size_t>(tr.tensor_of[x])], elem_bytes(tile, o.elem_bytes));
    }
  };
  const auto widen = [&] {  // the walk so far is the same above live_floor: [c_lo, c_hi) grows
    if (!live_floor_holds) return;
    c_lo = std::min(c_lo, live_floor);
    c_hi = std::numeric_limits<std::int64_t>::max();
  };
  for (std::size_t op = 0; op + 1 < tr.op_begin.size(); ++op) {
    check_interrupt_every(op);
    const std::size_t b = tr.op_begin[op], e = tr.op_begin[op + 1];
    const auto stamp = static_cast<std::int32_t>(op + 1);  // st[x].stamp == stamp: this operation's tile
    bool marked = false;
    const bool fits = at_most_c_eff(tr.need[op]);
    if (!fits) live_floor_holds = false;
    live_floor = std::max(live_floor, tr.need[op]);
    dead_here = 0;
    for (std::size_t q = b; q < e; ++q) {
      const Trace::Hit& tc = touches[q];
      const auto x = static_cast<std::size_t>(tc.tile);
      const auto t = static_cast<std::size_t>(tc.tensor);
      if (st[x].key < 0) {
        if (!tc.accumulate) {
          add(out.read[t], elem_bytes(tc.tile, o.elem_bytes));
          if (tc.by_dw && tc.tensor == 0) out.dy_read_by_dw += elem_bytes(tc.tile, o.elem_bytes);
        }
        else if (st[x].seen)
          add(out.psum_read[t], elem_bytes(tc.tile, o.psum_bytes));
        if (fits) {
          const std::int64_t bytes = tr.chip[x];
          // What must stay: the resident live tiles, this operation's, and the new one.
          live_floor = std::max(live_floor, used - dead + dead_here + bytes);
          while (!at_most_c_eff(used + bytes)) {
            if (!marked) {  // this operation's tiles, which are not victims
              for (std::size_t r = b; r < e; ++r) st[static_cast<std::size_t>(touches[r].tile)].stamp = stamp;
              marked = true;
            }
            // Rule 4's victim: the largest key whose tile this operation does not touch; with
            // keep_psum, one that is not a partial sum (an output tile with contributions to
            // come) while there is one.
            std::int64_t victim = -1;
            const auto psum = [&](std::size_t v) { return st[v].dirty && st[v].done < tr.contributions[v]; };
            for (int pass = o.keep_psum ? 0 : 1; pass < 2 && victim < 0; ++pass)
              for (std::int64_t p = s.resident.max(); p >= 0 && victim < 0; p = s.resident.prev(p - 1))
                if (const auto v = static_cast<std::size_t>(tile_at[static_cast<std::size_t>(p)]);
                    st[v].stamp != stamp && (pass == 1 || !psum(v)))
                  victim = static_cast<std::int64_t>(v);
            if (victim < 0) throw std::logic_error("tile walk: no tile to evict");
            evict(victim);
          }
          used += bytes;
          place(x, slot(q));
          if (st[x].key > n_touches) dead_here += bytes;
        }
      } else {
        const bool was_dead = st[x].key > n_touches;  // (not: a later touch is this one)
        unplace(x);
        place(x, slot(q));
        if (!was_dead && st[x].key > n_touches) dead_here += tr.chip[x];
      }
      if (tc.accumulate) {
        st[x].seen = 1;
        ++st[x].done;
        if (fits)
          st[x].dirty = 1;
        else if (st[x].done < tr.contributions[x])
          add(out.psum_written[t], elem_bytes(tc.tile, o.psum_bytes));
        else
          add(out.written[t], elem_bytes(tc.tile, o.elem_bytes));
      }
    }
    if (!fits)
      for (std::size_t q = b; q < e; ++q) {
        const auto x = static_cast<std::size_t>(touches[q].tile);
        if (st[x].key >= 0) {
          st[x].dirty = 0;  // its bytes were counted when it was touched
          evict(touches[q].tile);
        }
      }
    if (moved > bound) {
      widen();
      *range_lo = c_lo;
      *range_hi = c_hi;
      *moved_out = moved;
      return std::nullopt;
    }
  }
  for (std::int64_t tile = 0; tile < tiles; ++tile)
    if (st[static_cast<std::size_t>(tile)].dirty)
      add(out.written[static_cast<std::size_t>(tr.tensor_of[static_cast<std::size_t>(tile)])], elem_bytes(tile, o.elem_bytes));
  widen();
  *range_lo = c_lo;
  *range_hi = c_hi;
  *moved_out = moved;
  return out;
}

}  // namespace

std::string_view backward_order_name(BackwardOrder o) {
  switch (o) {
    case BackwardOrder::Seq: return "seq";
    case BackwardOrder::SeqDwFirst: return "seq-dw-first";
    case BackwardOrder::Interleave: return "interleave";
    case BackwardOrder::DxMajor: return "dx-major";
    case BackwardOrder::DwMajor: return "dw-major";
  }
  return "?";
}

std::optional<BackwardOrder> backward_order_from_name(std::string_view name) {
  for (BackwardOrder o : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                          BackwardOrder::DxMajor, BackwardOrder::DwMajor})
    if (backward_order_name(o) == name) return o;
  return std::nullopt;
}

std::string_view tile_tensor_name(TileTensor t) {
  static constexpr std::string_view names[] = {"dY", "W", "X", "dX", "dW"};
  return names[static_cast<int>(t)];
}

void detail::forget_tile_traces() {
  traces = {};  // (clear() would keep the table's buckets)
  stored = 0;
}

}  // namespace dnnmem
