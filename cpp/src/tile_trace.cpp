// The tile walk's trace (cpp/src/tile_trace.hpp): rules 1-3 of docs/model/interleaved.md ("The
// tile walk (reference)"), what the walk's replacement loop (cpp/src/tiles.cpp) then replays at
// each c_eff, and its stats: the compulsory traffic and the floor that follow from it alone.
#include "tile_trace.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "dnnmem/interrupt.hpp"
#include "tile_key.hpp"

namespace dnnmem::detail {
namespace {

struct Grid {
  std::int64_t m, k, n, tile, ni, nj, nk;
  // Rows and columns of each tensor's tile grid, and its element dimensions.
  std::int64_t rows(int t) const { return t == 0 || t == 2 || t == 3 ? ni : nk; }
  std::int64_t cols(int t) const { return t == 0 || t == 1 || t == 4 ? nj : nk; }
  std::int64_t row_elems(int t) const { return t == 0 || t == 2 || t == 3 ? m : k; }
  std::int64_t col_elems(int t) const { return t == 0 || t == 1 || t == 4 ? n : k; }
};

using Pos = std::array<std::int64_t, 3>;  // (i, j, k)

Grid grid_of(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t tile) {
  return {m, k, n, tile, (m + tile - 1) / tile, (n + tile - 1) / tile, (k + tile - 1) / tile};
}

// The tiles of the partitioned dimension, and the parts (docs/model/interleaved.md,
// "Partitioning"; one without a partition).
std::int64_t split_tiles(const Grid& g, const TileWalkOptions& o) {
  return o.partition < 0 ? 1 : (o.partition == 0 ? g.ni : o.partition == 1 ? g.nj : g.nk);
}
std::int64_t parts_of(const Grid& g, const TileWalkOptions& o) {
  return std::min(std::max<std::int64_t>(o.parts, 1), split_tiles(g, o));
}

OffChipReduction reduction_of(const Grid& g, const TileWalkOptions& o) {
  OffChipReduction r;
  const std::int64_t parts = parts_of(g, o);
  if (!o.reduce_off_chip || parts < 2 || (o.partition != 0 && o.partition != 1)) return r;
  // A cut of M gives each part its own dW, a cut of N its own dX (the output reduced over the
  // cut dimension), unless the cache keeps it whole.
  const int cut = o.partition == 0 ? 4 : 3;
  if (((cut == 4 ? o.skip_w : o.skip_x) >> cut) & 1U) return r;
  r.cut = cut;
  r.copies = parts;
  r.cut_elems = g.row_elems(cut) * g.col_elems(cut);
  return r;
}

// One product's tile operations over tiles [lo, hi) of each dimension (i, j, k), in the order of
// `nest`, one after another: `pos` is the current one, `next()` steps to the following one (the
// innermost dimension first, an odometer).
struct NestWalk {
  std::array<int, 3> dim{};  // outer to inner
  Pos lo{}, hi{}, pos{};
  NestWalk() = default;
  NestWalk(std::string_view nest, const Pos& l, const Pos& h) : lo(l), hi(h), pos(l) {
    for (std::size_t p = 0; p < 3; ++p) dim[p] = nest[p] == 'i' ? 0 : nest[p] == 'j' ? 1 : 2;
  }
  std::int64_t size() const { return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
  [[gnu::always_inline]] void next() {
    for (std::size_t level = 3; level-- > 0;) {
      const auto d = static_cast<std::size_t>(dim[level]);
      if (++pos[d] < hi[d]) return;
      pos[d] = lo[d];
    }
  }
};

// One part's operations in the order (docs/model/interleaved.md, "Orders"), one after another:
// a dX-op and / or a dW-op each (`units` of them).
struct PartWalk {
  BackwardOrder order;
  NestWalk x, w;  // the row-major stream's (or dx-major's) nest, the column-major stream's
  std::int64_t units = 0, done = 0;
  PartWalk(BackwardOrder ord, const TileWalkOptions& o, const Pos& lo, const Pos& hi) : order(ord) {
    const bool major_w = ord == BackwardOrder::DwMajor;
    x = NestWalk(major_w ? o.nest_w : o.nest_x, lo, hi);
    w = NestWalk(o.nest_w, lo, hi);
    units = x.size() * (ord == BackwardOrder::Seq || ord == BackwardOrder::SeqDwFirst ? 2 : 1);
  }
  // The next operation: emit(dx, dx_pos, dw, dw_pos).
  template <class Emit>
  [[gnu::always_inline]] void next(Emit&& emit) {
    switch (order) {
      case BackwardOrder::Seq:
      case BackwardOrder::SeqDwFirst: {
        const bool dw = (done < units / 2) == (order == BackwardOrder::SeqDwFirst);
        NestWalk& walk = dw ? w : x;
        emit(!dw, walk.pos, dw, walk.pos);
        walk.next();
        break;
      }
      case BackwardOrder::Interleave:
        emit(true, x.pos, true, w.pos);
        x.next();
        w.next();
        break;
      case BackwardOrder::DxMajor:
      case BackwardOrder::DwMajor:
        emit(true, x.pos, true, x.pos);
        x.next();
        break;
    }
    ++done;
  }
};

// Whether some product touches tensor t (the skip masks leave it in).
bool touched(const TileWalkOptions& o, int t) {
  const auto in = [](unsigned skip, int x) { return ((skip >> x) & 1U) == 0; };
  switch (t) {
    case 0: return in(o.skip_x, 0) || in(o.skip_w, 0);  // dY: by both products
    case 1: return in(o.skip_x, 1);                     // W, dX: by the dX product
    case 3: return in(o.skip_x, 3);
    default: return in(o.skip_w, t);  // X, dW: by the dW product
  }
}

// The tile grid of an input: each touched tensor's tiles numbered after the previous one's
// (global tile ids; a tensor no product touches has none), then the off-chip reduction's copies
// of its cut output, part 1's, part 2's, ... (part 0 keeps the output's own tiles); and each
// tile's tensor, elements and on-chip bytes. The walk orders the tiles it never touches again by
// id, i.e. by (tensor, tile) whichever tensors have ids.
struct Layout {
  Grid g;
  OffChipReduction reduction;
  std::array<std::int64_t, kTileTensors + 1> offset{};
  std::array<bool, kTileTensors> has{};
  std::int64_t copy_tiles = 0;  // the tiles of one copy
  Layout(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o)
      : g(grid_of(m, k, n, o.tile)), reduction(reduction_of(g, o)) {
    for (int t = 0; t < kTileTensors; ++t) {
      has[static_cast<std::size_t>(t)] = touched(o, t);
      offset[t + 1] = offset[t] + (has[static_cast<std::size_t>(t)] ? g.rows(t) * g.cols(t) : 0);
    }
    // (A cut output the cache keeps whole has no copies: reduction_of.)
    if (reduction.cut >= 0) copy_tiles = g.rows(reduction.cut) * g.cols(reduction.cut);
  }
  std::int64_t tiles() const { return offset[kTileTensors] + (reduction.copies - 1) * copy_tiles; }
  // The first tile id of tensor t's tiles as part `part` touches them.
  std::int64_t first(int t, std::int64_t part) const {
    return t == reduction.cut && part > 0 ? offset[kTileTensors] + (part - 1) * copy_tiles : offset[t];
  }
  // Filled in tile id order (each touched tensor's tiles, then the copies), without zeroing first.
  void sizes(const TileWalkOptions& o, RawVector<std::uint8_t>& tensor_of, RawVector<std::int64_t>& elems,
             RawVector<std::int64_t>& chip) const {
    const auto n = static_cast<std::size_t>(tiles());
    tensor_of.resize(n);
    elems.resize(n);
    chip.resize(n);
    std::size_t x = 0;
    const auto tensor = [&](int t) {
      const std::int64_t per = t >= 3 ? o.psum_bytes : o.elem_bytes;
      const std::int64_t rows = g.rows(t), cols = g.cols(t), row_elems = g.row_elems(t);
      const std::int64_t last_width = g.col_elems(t) - (cols - 1) * g.tile;  // (the others: tile)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t height = std::min(g.tile, row_elems - r * g.tile);
        for (std::int64_t c = 0; c < cols; ++c, ++x) {
          const std::int64_t e = height * (c + 1 < cols ? g.tile : last_width);
          tensor_of[x] = static_cast<std::uint8_t>(t);
          elems[x] = e;
          chip[x] = e * per;
        }
      }
    };
    for (int t = 0; t < kTileTensors; ++t)
      if (has[static_cast<std::size_t>(t)]) tensor(t);  // ids offset[t], ...
    for (std::int64_t part = 1; part < reduction.copies; ++part) tensor(reduction.cut);  // ids first(cut, part), ...
  }
};

// Rules 1-3's touches in walk order, written from `touches` on (their keys not set), and from `ops`
// on each operation's first touch (and the end of the last): returns the ends of both. (Local
// pointers, not callbacks: a store through one held by reference reloaded it at every touch.)
std::pair<Trace::Hit*, std::uint32_t*> write_touches(const Layout& l, BackwardOrder order, const TileWalkOptions& o,
                                                     Trace::Hit* const touches, std::uint32_t* const ops) {
  Trace::Hit* out = touches;
  std::uint32_t* op = ops;
  const auto begin_op = [&] { *op++ = static_cast<std::uint32_t>(out - touches); };
  const auto touch = [&](const Trace::Hit& h) { *out++ = h; };
  const Grid& g = l.g;
  const auto& offset = l.offset;
  std::int64_t part_now = 0;  // the part whose operation is emitted (its copy of the cut output)
  // Whether each product's touches of each tensor are in the trace (the skip masks).
  const auto kept = [&](unsigned skip, int t) { return ((skip >> t) & 1U) == 0; };
  const bool x_dy = kept(o.skip_x, 0), x_w = kept(o.skip_x, 1), x_dx = kept(o.skip_x, 3);
  const bool w_x = kept(o.skip_w, 2), w_dy = kept(o.skip_w, 0), w_dw = kept(o.skip_w, 4);
  const auto hit = [](int t, std::int64_t tile, bool acc, bool dw) {
    return Trace::Hit{static_cast<std::int32_t>(tile), 0, static_cast<std::uint8_t>(t), acc, dw};
  };
  const auto emit = [&](bool dx, const Pos& px, bool dw, const Pos& pw) __attribute__((always_inline)) {
    if (dx) {
      if (x_dy) touch(hit(0, offset[0] + px[0] * g.nj + px[1], false, false));  // dY(i, j)
      if (x_w) touch(hit(1, offset[1] + px[2] * g.nj + px[1], false, false));   // W(k, j)
      if (x_dx) touch(hit(3, l.first(3, part_now) + px[0] * g.nk + px[2], true, false));  // dX(i, k)
    }
    if (dw) {
      if (w_x) touch(hit(2, offset[2] + pw[0] * g.nk + pw[2], false, true));   // X(i, k)
      if (w_dy) touch(hit(0, offset[0] + pw[0] * g.nj + pw[1], false, true));  // dY(i, j)
      if (w_dw) touch(hit(4, l.first(4, part_now) + pw[2] * g.nj + pw[1], true, true));  // dW(k, j)
    }
  };
  // Each part's operations (docs/model/interleaved.md, "Partitioning"): the order over its
  // sub-grid; one part without a partition.
  const std::int64_t n_split = split_tiles(g, o);
  const std::int64_t parts = parts_of(g, o);
  std::vector<PartWalk> part;
  part.reserve(static_cast<std::size_t>(parts));
  std::int64_t longest = 0;
  for (std::int64_t p = 0; p < parts; ++p) {
    Pos lo{0, 0, 0}, hi{g.ni, g.nj, g.nk};
    if (o.partition >= 0) {
      lo[static_cast<std::size_t>(o.partition)] = p * n_split / parts;
      hi[static_cast<std::size_t>(o.partition)] = (p + 1) * n_split / parts;
    }
    part.emplace_back(order, o, lo, hi);
    longest = std::max(longest, part.back().units);
  }
  // One core runs the parts one after another; several (lockstep) run operation t of every part
  // as one operation.
  if (o.lockstep) {
    for (std::int64_t t = 0; t < longest; ++t) {
      begin_op();
      for (part_now = 0; part_now < parts; ++part_now)
        if (PartWalk& w = part[static_cast<std::size_t>(part_now)]; t < w.units) w.next(emit);
    }
  } else {
    for (part_now = 0; part_now < parts; ++part_now) {
      PartWalk& w = part[static_cast<std::size_t>(part_now)];
      for (std::int64_t t = 0; t < w.units; ++t) {
        begin_op();
        w.next(emit);
      }
    }
  }
  begin_op();
  return {out, op};
}

// Upper bounds of an input's operations and touches (every order runs both products over the
// whole grid, 3 touches each).
std::int64_t operations_at_most(const Layout& l, BackwardOrder order) {
  return l.g.ni * l.g.nj * l.g.nk * (order == BackwardOrder::Seq || order == BackwardOrder::SeqDwFirst ? 2 : 1);
}
std::int64_t touches_at_most(const Layout& l) { return 6 * l.g.ni * l.g.nj * l.g.nk; }

Trace build_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o) {
  const Layout l(m, k, n, o);
  Trace tr;
  // Written through pointers into arrays of the largest size, not zeroed (RawVector), then cut
  // to what was written.
  tr.touches.resize(static_cast<std::size_t>(touches_at_most(l)));
  tr.op_begin.resize(static_cast<std::size_t>(operations_at_most(l, order)) + 1);
  const auto [touches_end, ops_end] = write_touches(l, order, o, tr.touches.data(), tr.op_begin.data());
  tr.touches.resize(static_cast<std::size_t>(touches_end - tr.touches.data()));
  tr.op_begin.resize(static_cast<std::size_t>(ops_end - tr.op_begin.data()));
  // Per tile: its tensor, size, next touch after each touch, contributions.
  tr.tiles = l.tiles();
  const auto tiles = static_cast<std::size_t>(tr.tiles);
  l.sizes(o, tr.tensor_of, tr.elems, tr.chip);
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
  // One pass forward: each operation's need (the bytes of its distinct tiles) and the stats
  // (docs/performance.md, "A walk's floor from its trace"), following a walk that keeps every live
  // tile: a tile is resident from its first touch, live until its last (`live`: those tiles'
  // bytes), then dead; `dead_here`: the bytes of this operation's tiles that are dead already (the
  // walk cannot evict them before the operation ends); the compulsory traffic (each tile's first
  // touch). The pass above left in `last` each tile's first touch; a tile counts toward its
  // operation's need at its last touch there (its next touch, its key, lies past the operation).
  const std::size_t ops = tr.op_begin.size() - 1;
  tr.need.resize(ops);
  TraceStats& st = tr.stats;
  std::int64_t live = 0;
  for (std::size_t op = 0; op < ops; ++op) {
    check_interrupt_every(op);
    std::int64_t need = 0, dead_here = 0;
    const std::uint32_t end = tr.op_begin[op + 1];
    for (std::uint32_t q = tr.op_begin[op]; q < end; ++q) {
      const Trace::Hit& h = tr.touches[q];
      const auto x = static_cast<std::size_t>(h.tile);
      const std::int64_t bytes = tr.chip[x];
      const bool first = last[x] == static_cast<std::int32_t>(q), dead_after = h.key >= never;
      if (static_cast<std::int64_t>(h.key) >= static_cast<std::int64_t>(end)) need += bytes;
      if (first) {
        st.live_max = std::max(st.live_max, live + dead_here + bytes);
        (dead_after ? dead_here : live) += bytes;
        const std::int64_t moved = tr.elems[x] * o.elem_bytes;
        if (h.accumulate) {
          st.compulsory.written[h.tensor] += moved;  // (it has a contribution: this one)
        } else {
          st.compulsory.read[h.tensor] += moved;
          if (h.by_dw && h.tensor == 0) st.compulsory.dy_read_by_dw += moved;
        }
      } else if (dead_after) {
        live -= bytes;
        dead_here += bytes;
      }
    }
    tr.need[op] = need;
    st.need_max = std::max(st.need_max, need);
  }
  st.compulsory.operations = static_cast<std::int64_t>(ops);
  st.floor = std::max(st.need_max, st.live_max);
  st.compulsory_total = st.compulsory.total();
  return tr;
}

// The per-thread traces (a sweep's threads share nothing), forgotten together when their bytes
// pass the budget, and when a sweep's thread is done (detail::forget_tile_traces), so that the
// threads of a pool do not hold them after the sweep. The stats likewise (a few hundred bytes
// each, forgotten together past 2^16).
constexpr std::size_t kTraceBudget = std::size_t{64} << 20;
thread_local std::unordered_map<WalkKey, std::shared_ptr<const Trace>, WalkKeyHash> traces;
thread_local std::size_t stored = 0;
thread_local std::unordered_map<WalkKey, TraceStats, WalkKeyHash> stats;

WalkKey trace_key(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o) {
  WalkKey key = walk_key(m, k, n, order, o);
  key.lru = false;  // the trace does not depend on the replacement rule
  key.keep_psum = false;
  key.no_reuse = false;
  return key;
}

}  // namespace

std::shared_ptr<const Trace> cached_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                          const TileWalkOptions& o) {
  const WalkKey key = trace_key(m, k, n, order, o);
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

TraceStats cached_stats(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o) {
  const WalkKey key = trace_key(m, k, n, order, o);
  if (auto it = stats.find(key); it != stats.end()) return it->second;
  if (stats.size() >= (std::size_t{1} << 16)) stats.clear();
  return stats.emplace(key, cached_trace(m, k, n, order, o)->stats).first->second;
}

std::int64_t compulsory_bytes(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o) {
  // Every order runs both products over the whole grid (a partition's parts cover it), each
  // product touching every tile of its tensors but those its skip mask leaves out.
  const auto in = [&](unsigned mask, int t) { return ((mask >> t) & 1U) == 0; };
  std::int64_t elements = 0;
  if (in(o.skip_x, 0) || in(o.skip_w, 0)) elements += m * n;  // dY
  if (in(o.skip_x, 1)) elements += k * n;                     // W
  if (in(o.skip_w, 2)) elements += m * k;                     // X
  if (in(o.skip_x, 3)) elements += m * k;                     // dX
  if (in(o.skip_w, 4)) elements += k * n;                     // dW
  const OffChipReduction r = off_chip_reduction(m, k, n, o);
  elements += (r.copies - 1) * r.cut_elems;  // (the copies of parts 1, 2, ...: 0 without)
  return elements * o.elem_bytes;
}

OffChipReduction off_chip_reduction(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o) {
  return reduction_of(grid_of(m, k, n, o.tile), o);
}

void forget_tile_traces() {
  traces = {};  // (clear() would keep the table's buckets)
  stored = 0;
  stats = {};
}

}  // namespace dnnmem::detail

