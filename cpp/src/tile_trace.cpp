// The tile walk's trace (cpp/src/tile_trace.hpp): rules 1-3 of docs/model/interleaved.md ("The
// tile walk (reference)"), what the walk's replacement loop (cpp/src/tiles.cpp) then replays at
// each c_eff, and the compulsory traffic and floor that follow from it alone.
#include "tile_trace.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

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


Trace build_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o) {
  const Grid g{m, k, n, o.tile, (m + o.tile - 1) / o.tile, (n + o.tile - 1) / o.tile,
               (k + o.tile - 1) / o.tile};
  Trace tr;
  // Global tile ids: each tensor's tiles after the previous tensor's.
  std::array<std::int64_t, kTileTensors + 1> offset{};
  for (int t = 0; t < kTileTensors; ++t) offset[t + 1] = offset[t] + g.rows(t) * g.cols(t);
  const auto id = [&](int t, std::int64_t r, std::int64_t c) { return offset[t] + r * g.cols(t) + c; };
  const auto add = [&](Trace::Hit h) {
    if (!(((h.by_dw ? o.skip_w : o.skip_x) >> h.tensor) & 1U)) tr.touches.push_back(h);
  };
  const auto hit = [](int t, std::int64_t tile, bool acc, bool dw) {
    return Trace::Hit{static_cast<std::int32_t>(tile), 0, static_cast<std::uint8_t>(t), acc, dw};
  };
  const auto dx_op = [&](const Pos& p) {
    add(hit(0, id(0, p[0], p[1]), false, false));  // dY(i, j)
    add(hit(1, id(1, p[2], p[1]), false, false));  // W(k, j)
    add(hit(3, id(3, p[0], p[2]), true, false));   // dX(i, k)
  };
  const auto dw_op = [&](const Pos& p) {
    add(hit(2, id(2, p[0], p[2]), false, true));  // X(i, k)
    add(hit(0, id(0, p[0], p[1]), false, true));  // dY(i, j)
    add(hit(4, id(4, p[2], p[1]), true, true));   // dW(k, j)
  };

  // Each part's operations (docs/model/interleaved.md, "Partitioning"): the order over its
  // sub-grid; one part without a partition.
  const std::int64_t n_split = o.partition < 0 ? 1 : (o.partition == 0 ? g.ni : o.partition == 1 ? g.nj : g.nk);
  const std::int64_t parts = std::min(std::max<std::int64_t>(o.parts, 1), n_split);
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
  const auto emit = [&](const Unit& u) {
    if (u.dx) dx_op(u.x);
    if (u.dw) dw_op(u.w);
  };
  const auto begin_op = [&] { tr.op_begin.push_back(static_cast<std::uint32_t>(tr.touches.size())); };
  if (o.lockstep) {
    std::size_t longest = 0;
    for (const auto& units : part_units) longest = std::max(longest, units.size());
    for (std::size_t t = 0; t < longest; ++t) {
      begin_op();
      for (const auto& units : part_units)
        if (t < units.size()) emit(units[t]);
    }
  } else {
    for (const auto& units : part_units)
      for (const Unit& u : units) {
        begin_op();
        emit(u);
      }
  }
  begin_op();

  // Per tile: its tensor, size, next touch after each touch, contributions.
  tr.tiles = offset[kTileTensors];
  const auto tiles = static_cast<std::size_t>(tr.tiles);
  tr.tensor_of.resize(tiles);
  tr.elems.resize(tiles);
  tr.chip.resize(tiles);
  for (int t = 0; t < kTileTensors; ++t)
    for (std::int64_t r = 0; r < g.rows(t); ++r)
      for (std::int64_t c = 0; c < g.cols(t); ++c) {
        const auto x = static_cast<std::size_t>(id(t, r, c));
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
  // The compulsory traffic and the floor (docs/performance.md, "A walk's floor from its trace"), in
  // one pass that follows a walk that keeps every live tile: a tile is resident from its first
  // touch, live until its last (`live`: those tiles' bytes), then dead; `dead_here`: the bytes of
  // this operation's tiles that are dead already (the walk cannot evict them before it ends).
  // (`last` marks a tile touched already.)
  std::fill(last.begin(), last.end(), -1);
  tr.compulsory.operations = static_cast<std::int64_t>(ops);
  std::int64_t live = 0;
  for (std::size_t op = 0; op < ops; ++op) {
    tr.floor = std::max(tr.floor, tr.need[op]);
    std::int64_t dead_here = 0;
    for (std::uint32_t q = tr.op_begin[op]; q < tr.op_begin[op + 1]; ++q) {
      const Trace::Hit& h = tr.touches[q];
      const auto x = static_cast<std::size_t>(h.tile);
      const std::int64_t bytes = tr.chip[x];
      const bool dead_after = h.key >= never;
      if (last[x] < 0) {
        last[x] = 0;
        tr.floor = std::max(tr.floor, live + dead_here + bytes);
        (dead_after ? dead_here : live) += bytes;
        const std::int64_t moved = tr.elems[x] * o.elem_bytes;
        if (h.accumulate) {
          tr.compulsory.written[h.tensor] += moved;  // (it has a contribution: this one)
        } else {
          tr.compulsory.read[h.tensor] += moved;
          if (h.by_dw && h.tensor == 0) tr.compulsory.dy_read_by_dw += moved;
        }
      } else if (dead_after) {
        live -= bytes;
        dead_here += bytes;
      }
    }
  }
  tr.compulsory_total = tr.compulsory.total();
  return tr;
}

// The per-thread traces (a sweep's threads share nothing), forgotten together when their bytes
// pass the budget, and when a sweep's thread is done (detail::forget_tile_traces), so that the
// threads of a pool do not hold them after the sweep.
constexpr std::size_t kTraceBudget = std::size_t{64} << 20;
thread_local std::unordered_map<WalkKey, std::shared_ptr<const Trace>, WalkKeyHash> traces;
thread_local std::size_t stored = 0;

}  // namespace

std::shared_ptr<const Trace> cached_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                          const TileWalkOptions& o) {
  WalkKey key = walk_key(m, k, n, order, o);
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
  return elements * o.elem_bytes;
}

void forget_tile_traces() {
  traces = {};  // (clear() would keep the table's buckets)
  stored = 0;
}

}  // namespace dnnmem::detail

