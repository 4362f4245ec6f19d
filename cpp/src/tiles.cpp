// The tile walk of docs/model/interleaved.md ("The tile walk (reference)", rules 1-5). The Python
// reference tests/python/oracle_tiles.py implements the same page; the tests compare the two.
#include "dnnmem/tiles.hpp"
#include "dnnmem/interrupt.hpp"

#include "tile_trace.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dnnmem {
namespace {

constexpr std::int64_t kMaxTileOperations = std::int64_t{1} << 22;

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

using detail::Trace;

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

// Rules 4 and 5 over the trace at o.c_eff (Bélády or LRU), giving up once its total is known to
// pass `bound` (*lower_out: a lower bound of that total; otherwise the total).
std::optional<TileTraffic> replacement_walk(const Trace& tr, std::int64_t compulsory_total, const TileWalkOptions& o,
                                            std::int64_t bound, std::int64_t* range_lo, std::int64_t* range_hi,
                                            std::int64_t* lower_out) {
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
  // The total is the compulsory bytes (each input tile's first read, each output tile's final
  // write: compulsory_total) and `extra`, the rest (reloads, partial sums), which only grows:
  // the walk gives up once compulsory + extra passes `bound`.
  std::int64_t used = 0, extra = 0;
  // Until a live tile is evicted or an operation does not fit (never under LRU, whose victims
  // are not the dead tiles first), the walk's traffic is the same at every c_eff >= live_floor.
  bool live_floor_holds = !o.lru;
  std::int64_t live_floor = 0;
  const auto add_extra = [&](std::int64_t& field, std::int64_t bytes) {
    field += bytes;
    extra += bytes;
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
        add_extra(out.psum_written[static_cast<std::size_t>(tr.tensor_of[x])], elem_bytes(tile, o.psum_bytes));
      else
        out.written[static_cast<std::size_t>(tr.tensor_of[x])] += elem_bytes(tile, o.elem_bytes);
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
          const std::int64_t bytes = elem_bytes(tc.tile, o.elem_bytes);
          out.read[t] += bytes;
          if (st[x].seen) extra += bytes;  // a reload (the first read is compulsory)
          st[x].seen = 1;
          if (tc.by_dw && tc.tensor == 0) out.dy_read_by_dw += bytes;
        } else if (st[x].seen) {
          add_extra(out.psum_read[t], elem_bytes(tc.tile, o.psum_bytes));
        }
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
          add_extra(out.psum_written[t], elem_bytes(tc.tile, o.psum_bytes));
        else
          out.written[t] += elem_bytes(tc.tile, o.elem_bytes);
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
    if (compulsory_total + extra > bound) {
      widen();
      *range_lo = c_lo;
      *range_hi = c_hi;
      *lower_out = compulsory_total + extra;
      return std::nullopt;
    }
  }
  for (std::int64_t tile = 0; tile < tiles; ++tile)
    if (st[static_cast<std::size_t>(tile)].dirty)
      out.written[static_cast<std::size_t>(tr.tensor_of[static_cast<std::size_t>(tile)])] += elem_bytes(tile, o.elem_bytes);
  widen();
  *range_lo = c_lo;
  *range_hi = c_hi;
  *lower_out = compulsory_total + extra;  // (the total)
  return out;
}

}  // namespace

TileTraffic detail::tile_walk_range(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                    const TileWalkOptions& o, std::int64_t* range_lo, std::int64_t* range_hi) {
  std::int64_t lower = 0;
  return *tile_walk_bounded(m, k, n, order, o, std::numeric_limits<std::int64_t>::max(), range_lo, range_hi, &lower);
}

namespace {

// A walk under the off-chip reduction (TileWalkOptions::reduce_off_chip; none: every bound and
// total as they are): the walk itself moves the trace's bytes, copies included, and the reduction
// adds extra() to its total, so its walk gives up past bound - extra and its results (the traffic,
// the lower bound) are the reduction's.
struct Reduced {
  detail::OffChipReduction r;
  const TileWalkOptions& o;
  std::int64_t extra;
  Reduced(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& opt)
      : r(detail::off_chip_reduction(m, k, n, opt)), o(opt), extra(r.extra(opt)) {}
  std::int64_t walk_bound(std::int64_t bound) const {  // (saturating: no bound stays none)
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    if (bound == kMax || (extra < 0 && bound > kMax + extra)) return kMax;
    return bound - extra;
  }
  std::optional<TileTraffic> operator()(std::optional<TileTraffic> walked, std::int64_t* lower_out) const {
    *lower_out += extra;
    if (walked) r.apply(*walked, o);
    return walked;
  }
};

std::optional<TileTraffic> walk_bounded(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                        const TileWalkOptions& o, std::int64_t bound, std::int64_t* range_lo,
                                        std::int64_t* range_hi, std::int64_t* lower_out) {
  // Every walk moves the compulsory bytes at least, at every c_eff and under every replacement:
  // one whose bound is below them gives up before its trace is built.
  if (const std::int64_t least = detail::compulsory_bytes(m, k, n, o); least > bound) {
    *range_lo = 0;
    *range_hi = std::numeric_limits<std::int64_t>::max();
    *lower_out = least;
    return std::nullopt;
  }
  if (o.no_reuse) return no_reuse_walk(*detail::cached_trace(m, k, n, order, o), o.elem_bytes, bound, range_lo, range_hi, lower_out);
  const detail::TraceStats st = detail::cached_stats(m, k, n, order, o);
  // A walk that moves nothing beyond the compulsory bytes keeps each live tile from its first
  // touch to its last, so every first touch in an operation that fits finds room for the live
  // tiles, the operation's dead ones and itself: where every operation fits and some first
  // touch's set does not, the total is above the compulsory bytes (docs/performance.md, "A walk's
  // floor from its trace"). A bound of the compulsory bytes gives up there without walking.
  if (bound <= st.compulsory_total && st.need_max <= o.c_eff && o.c_eff < st.live_max) {
    *range_lo = st.need_max;
    *range_hi = st.live_max;
    *lower_out = st.compulsory_total + 1;
    return std::nullopt;
  }
  if (!o.lru && o.c_eff >= st.floor) {
    // docs/performance.md, "A walk's floor from its trace": the walk would evict no live tile and
    // fit every operation, and its live floor would be st.floor.
    *range_lo = st.floor;
    *range_hi = std::numeric_limits<std::int64_t>::max();
    *lower_out = st.compulsory_total;
    return st.compulsory;
  }
  return replacement_walk(*detail::cached_trace(m, k, n, order, o), st.compulsory_total, o, bound, range_lo, range_hi, lower_out);
}

}  // namespace

std::optional<TileTraffic> detail::tile_walk_bounded(std::int64_t m, std::int64_t k, std::int64_t n,
                                                     BackwardOrder order, const TileWalkOptions& o,
                                                     std::int64_t bound, std::int64_t* range_lo,
                                                     std::int64_t* range_hi, std::int64_t* lower_out) {
  detail::check_tile_input(m, k, n, o, true);
  // The walk's shortcuts compare its own bytes (the compulsory ones, copies included, and the
  // rest) with the bound less the reduction's extra bytes.
  const Reduced reduced(m, k, n, o);
  return reduced(walk_bounded(m, k, n, order, o, reduced.walk_bound(bound), range_lo, range_hi, lower_out), lower_out);
}

TileTraffic detail::tile_walk_replayed(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                       const TileWalkOptions& o, std::int64_t* range_lo, std::int64_t* range_hi) {
  detail::check_tile_input(m, k, n, o, true);
  const std::shared_ptr<const Trace> trace = cached_trace(m, k, n, order, o);
  constexpr std::int64_t kNoBound = std::numeric_limits<std::int64_t>::max();
  std::int64_t lower = 0;
  const Reduced reduced(m, k, n, o);
  if (o.no_reuse) return *reduced(no_reuse_walk(*trace, o.elem_bytes, kNoBound, range_lo, range_hi, &lower), &lower);
  return *reduced(replacement_walk(*trace, detail::compulsory_bytes(m, k, n, o), o, kNoBound, range_lo, range_hi, &lower), &lower);
}

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

}  // namespace dnnmem
