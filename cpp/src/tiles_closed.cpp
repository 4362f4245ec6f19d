// The closed form of the tile model (docs/model/interleaved.md, "The closed form (fast path)"):
// the traffic of a backward GEMM step under an order from its loop nests' reuse distances. Exact
// in the two regimes the tests pin (every operand fits in the share; no operation fits, so nothing
// is reused); in between an estimate, checked against the walk (tests/python/test_tiles_closed.py)
// and used to rank the loop nests of an order family before the walk runs.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "dnnmem/tiles.hpp"

namespace dnnmem {
namespace {

// Tensors dY, W, X, dX, dW: their grid dimensions (0 = i, 1 = j, 2 = k) and the one they do not
// carry (the dimension a tile is reused across).
constexpr std::array<std::array<int, 2>, kTileTensors> kDims{{{0, 1}, {2, 1}, {0, 2}, {0, 2}, {2, 1}}};
constexpr std::array<int, kTileTensors> kReuse{2, 0, 1, 1, 0};

struct GridShape {
  std::array<std::int64_t, 3> size{}, count{}, edge{};  // per dimension i, j, k
  std::int64_t elem = 2, psum = 2, tile = 1;
  bool output(int t) const { return t >= 3; }
  std::int64_t elements(int t) const { return size[kDims[t][0]] * size[kDims[t][1]]; }
  std::int64_t on_chip(int t) const { return elements(t) * (output(t) ? psum : elem); }
  std::int64_t tile_bytes(int t, bool smallest) const {
    const auto ext = [&](int d) { return smallest ? edge[d] : std::min(tile, size[d]); };
    return ext(kDims[t][0]) * ext(kDims[t][1]) * (output(t) ? psum : elem);
  }
};

int dim_of(char c) { return c == 'i' ? 0 : c == 'j' ? 1 : 2; }

// One loop nest over the tensors in `mask`, with `c` bytes: adds its traffic to `out`.
// `dy_touches`: dY touches per operation (2 for a fused nest, whose second touch hits unless
// nothing fits). Returns the dY bytes it reads.
std::int64_t stream(const GridShape& g, std::string_view nest, unsigned mask, std::int64_t c,
                    int dy_touches, TileTraffic& out) {
  std::int64_t op_bytes = 0, all_bytes = 0;
  for (int t = 0; t < kTileTensors; ++t)
    if ((mask >> t) & 1U) {
      op_bytes += g.tile_bytes(t, false);
      all_bytes += g.on_chip(t);
    }
  std::array<double, kTileTensors> v{};  // fetches (passes) of each tensor
  if (c < op_bytes) {                     // no reuse: every touch fetches
    for (int t = 0; t < kTileTensors; ++t) v[t] = static_cast<double>(g.count[kReuse[t]]);
    v[0] *= dy_touches;
  } else if (c >= all_bytes) {  // everything fits: each tensor once
    v.fill(1.0);
  } else {
    // Pin, greedily by bytes saved per byte pinned, what each tensor needs to be reused across
    // the dimension it does not carry (nothing / a panel / all of it).
    struct Want {
      int t;
      std::int64_t need;
      double rate;
    };
    std::array<Want, kTileTensors> wants{};
    std::size_t n_wants = 0;
    for (int t = 0; t < kTileTensors; ++t) {
      v[t] = 1.0;
      if (!((mask >> t) & 1U)) continue;
      const auto pos = static_cast<int>(nest.find("ijk"[kReuse[t]]));
      const std::int64_t n_r = g.count[kReuse[t]];
      if (pos == 2 || n_r == 1) continue;
      const std::int64_t outer = g.count[dim_of(nest[0])];
      const std::int64_t need = pos == 0 ? g.on_chip(t) : (g.on_chip(t) + outer - 1) / outer;
      const double saved = static_cast<double>(n_r - 1) *
                           static_cast<double>(g.output(t) ? 2 * g.elements(t) * g.psum : g.elements(t) * g.elem);
      wants[n_wants++] = {t, need, saved / static_cast<double>(need)};
    }
    // By rate, descending, ties in tensor order (a stable insertion sort of at most five).
    for (std::size_t a = 1; a < n_wants; ++a)
      for (std::size_t b = a; b > 0 && wants[b].rate > wants[b - 1].rate; --b) std::swap(wants[b], wants[b - 1]);
    std::int64_t budget = c - op_bytes;
    for (std::size_t x = 0; x < n_wants; ++x) {
      const Want& w = wants[x];
      const std::int64_t pinned = std::min(budget, w.need);
      budget -= pinned;
      const double miss = 1.0 - static_cast<double>(pinned) / static_cast<double>(w.need);
      v[w.t] = 1.0 + static_cast<double>(g.count[kReuse[w.t]] - 1) * miss;
    }
  }
  std::int64_t dy = 0;
  for (int t = 0; t < kTileTensors; ++t) {
    if (!((mask >> t) & 1U)) continue;
    const auto u = static_cast<std::size_t>(t);
    if (g.output(t)) {
      const auto extra = std::llround(static_cast<double>(g.elements(t) * g.psum) * (v[u] - 1.0));
      out.written[u] += g.elements(t) * g.elem;
      out.psum_written[u] += extra;
      out.psum_read[u] += extra;
    } else {
      const auto bytes = std::llround(static_cast<double>(g.elements(t) * g.elem) * v[u]);
      out.read[u] += bytes;
      if (t == 0) dy = bytes;
    }
  }
  return dy;
}

// The position of the first operation touching dY tile (i, j) in a nest (k = 0 comes first) is
// linear in i and j: a[0] * i + a[1] * j, a[d] the product of the counts of the dimensions inside d.
std::array<std::int64_t, 2> first_use(const GridShape& g, std::string_view nest) {
  std::array<std::int64_t, 2> a{0, 0};
  std::int64_t stride = 1;
  for (std::size_t p = nest.size(); p-- > 0;) {
    const int d = dim_of(nest[p]);
    if (d < 2) a[static_cast<std::size_t>(d)] = stride;
    stride *= g.count[d];
  }
  return a;
}

std::int64_t floor_div(std::int64_t a, std::int64_t c) { return a >= 0 ? a / c : -((-a + c - 1) / c); }  // c > 0

// The bytes of the dY tiles (i, j) whose first uses by the two nests lie at most `window`
// operations apart: the (i, j) with |ci i + cj j| <= window. Along the dimension with fewer tiles
// (u), the others (v) with |a + c v| <= window form one run. (The same pairs summed by rows or by
// columns: the same integer.)
std::int64_t within_window(const GridShape& g, std::string_view nest_x, std::string_view nest_w, std::int64_t window) {
  const auto ax = first_use(g, nest_x), aw = first_use(g, nest_w);
  const std::array<std::int64_t, 2> coef{ax[0] - aw[0], ax[1] - aw[1]};
  const int du = g.count[0] <= g.count[1] ? 0 : 1, dv = 1 - du;
  const std::int64_t nu = g.count[du], nv = g.count[dv];
  std::int64_t bytes = 0;
  for (std::int64_t u = 0; u < nu; ++u) {
    std::int64_t a = coef[du] * u, c = coef[dv];
    if (c < 0) {  // |a + c v| = |-a - c v|
      a = -a;
      c = -c;
    }
    std::int64_t v0 = 0, v1 = nv - 1;
    if (c == 0) {
      if ((a < 0 ? -a : a) > window) continue;
    } else {
      v0 = std::max<std::int64_t>(v0, -floor_div(window + a, c));  // ceil((-window - a) / c)
      v1 = std::min(v1, floor_div(window - a, c));
    }
    if (v0 > v1) continue;
    const std::int64_t run = (v1 - v0 + 1) * g.tile - (v1 == nv - 1 ? g.tile - g.edge[dv] : 0);
    bytes += (u == nu - 1 ? g.edge[du] : g.tile) * run * g.elem;
  }
  return bytes;
}

GridShape grid_shape_of(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o) {
  GridShape g;
  g.size = {m, n, k};
  g.tile = o.tile;
  g.elem = o.elem_bytes;
  g.psum = o.psum_bytes;
  for (int d = 0; d < 3; ++d) {
    g.count[d] = (g.size[d] + o.tile - 1) / o.tile;
    g.edge[d] = g.size[d] - (g.count[d] - 1) * o.tile;
  }
  return g;
}

constexpr unsigned kClosedMaskX = 1U | 2U | 8U, kClosedMaskW = 4U | 1U | 16U;  // dX-ops: dY, W, dX; dW-ops: X, dY, dW

// What the closed form and the nest ranking both start from: the grid, the streams' tensor masks
// (the skip masks applied), and whether everything fits (then every nest streams the compulsory
// traffic); fused: one fused operation's tiles.
struct ClosedSetup {
  GridShape g;
  unsigned mx = 0, mw = 0, all = 0;
  std::int64_t fused = 0;
  bool fits = false;
};

ClosedSetup closed_setup(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o) {
  ClosedSetup c;
  c.g = grid_shape_of(m, k, n, o);
  c.mx = kClosedMaskX & ~o.skip_x;
  c.mw = kClosedMaskW & ~o.skip_w;
  c.all = c.mx | c.mw;
  std::int64_t all_bytes = 0;
  for (int t = 0; t < kTileTensors; ++t)
    if ((c.all >> t) & 1U) {
      all_bytes += c.g.on_chip(t);
      c.fused += c.g.tile_bytes(t, false);
    }
  c.fits = o.c_eff >= all_bytes && (c.mx & 1U) == (c.mw & 1U);
  return c;
}

}  // namespace

TileTraffic tile_estimate(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                          const TileWalkOptions& o) {
  detail::check_tile_input(m, k, n, o, false);
  return detail::tile_estimate_checked(m, k, n, order, o);
}

TileTraffic detail::tile_estimate_checked(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                          const TileWalkOptions& o) {
  const ClosedSetup setup = closed_setup(m, k, n, o);
  const GridShape& g = setup.g;
  const unsigned mx = setup.mx, mw = setup.mw, all = setup.all;
  const std::int64_t fused = setup.fused;
  TileTraffic out;
  out.operations = g.count[0] * g.count[1] * g.count[2] *
                   (order == BackwardOrder::Seq || order == BackwardOrder::SeqDwFirst ? 2 : 1);
  if (setup.fits) {  // everything fits: compulsory traffic
    stream(g, o.nest_x, all, o.c_eff, 1, out);
    return out;
  }
  switch (order) {
    case BackwardOrder::Seq:
    case BackwardOrder::SeqDwFirst:
      stream(g, o.nest_x, mx, o.c_eff, 1, out);
      out.dy_read_by_dw = stream(g, o.nest_w, mw, o.c_eff, 1, out);
      break;
    case BackwardOrder::DxMajor:
    case BackwardOrder::DwMajor: {
      TileTraffic one;
      const auto dy = stream(g, order == BackwardOrder::DxMajor ? o.nest_x : o.nest_w, all, o.c_eff,
                             (mx & mw & 1U) ? 2 : 1, one);
      // Half of a fused operation's dY fetches are the dW-op's when nothing is reused.
      one.dy_read_by_dw = (mx & mw & 1U) && o.c_eff < fused ? dy / 2 : 0;
      out = one;
      out.operations = g.count[0] * g.count[1] * g.count[2];
      break;
    }
    case BackwardOrder::Interleave: {
      const bool reuse = o.c_eff >= fused;
      const std::int64_t half = reuse ? o.c_eff / 2 : 0;
      stream(g, o.nest_x, mx, half, 1, out);
      TileTraffic w;
      std::int64_t dy_w = stream(g, o.nest_w, mw, half, 1, w);
      if (reuse && (mx & mw & 1U)) {
        // dY tiles whose first uses by the two streams lie within the window D: the second is a hit.
        const std::int64_t bytes = within_window(g, o.nest_x, o.nest_w, o.c_eff / fused);
        w.read[0] -= std::min(bytes, w.read[0]);
        dy_w = w.read[0];
      }
      for (int t = 0; t < kTileTensors; ++t) {
        const auto u = static_cast<std::size_t>(t);
        out.read[u] += w.read[u];
        out.written[u] += w.written[u];
        out.psum_read[u] += w.psum_read[u];
        out.psum_written[u] += w.psum_written[u];
      }
      out.dy_read_by_dw = dy_w;
      break;
    }
  }
  return out;
}

// The totals of tile_estimate_checked, pair by pair, from parts computed once per nest (integer
// sums: the order of the terms does not change them). Where everything fits, every pair's total
// is the compulsory one (stream() pins nothing, whatever the nest), so the first pair wins.
// Sequential and interleaved orders: the dX-ops' stream depends on nest_x alone, the dW-ops' on
// nest_w alone; the interleaved order then subtracts the dY bytes its window finds (per pair).
// The fused orders stream one nest: the pairs they use differ in that nest only.
std::int64_t detail::rank_nests(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                const TileWalkOptions& o, const std::array<std::string_view, 3>& rows,
                                const std::array<std::string_view, 3>& cols, int* x, int* w) {
  const ClosedSetup setup = closed_setup(m, k, n, o);
  const GridShape& g = setup.g;
  const unsigned mx = setup.mx, mw = setup.mw, all = setup.all;
  const std::int64_t fused = setup.fused;
  *x = 0;
  *w = 0;
  if (setup.fits) {
    TileTraffic out;
    stream(g, rows[0], all, o.c_eff, 1, out);
    return out.total();
  }
  std::array<std::int64_t, 3> part_x{}, part_w{}, dy_w{};  // each nest's stream total; the dW stream's dY
  bool window = false;
  std::int64_t reach = 0;  // the interleaved order's window (operations)
  switch (order) {
    case BackwardOrder::Seq:
    case BackwardOrder::SeqDwFirst:
    case BackwardOrder::Interleave: {
      const bool reuse = order != BackwardOrder::Interleave || o.c_eff >= fused;
      const std::int64_t c = order != BackwardOrder::Interleave ? o.c_eff : (reuse ? o.c_eff / 2 : 0);
      window = order == BackwardOrder::Interleave && reuse && (mx & mw & 1U);
      if (window) reach = o.c_eff / fused;  // (fused > 0: dY is streamed)
      for (std::size_t i = 0; i < 3; ++i) {
        TileTraffic tx, tw;
        stream(g, rows[i], mx, c, 1, tx);
        stream(g, cols[i], mw, c, 1, tw);
        part_x[i] = tx.total();
        part_w[i] = tw.total();
        dy_w[i] = tw.read[0];
      }
      break;
    }
    case BackwardOrder::DxMajor:
    case BackwardOrder::DwMajor: {
      const bool dx = order == BackwardOrder::DxMajor;
      for (std::size_t i = 0; i < 3; ++i) {
        TileTraffic one;
        stream(g, dx ? rows[i] : cols[i], all, o.c_eff, (mx & mw & 1U) ? 2 : 1, one);
        (dx ? part_x : part_w)[i] = one.total();
      }
      break;
    }
  }
  std::int64_t best = -1;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      if (order == BackwardOrder::DxMajor && j != 0) continue;
      if (order == BackwardOrder::DwMajor && i != 0) continue;
      std::int64_t total = part_x[i] + part_w[j];
      if (window) total -= std::min(within_window(g, rows[i], cols[j], reach), dy_w[j]);
      if (best < 0 || total < best) {
        best = total;
        *x = static_cast<int>(i);
        *w = static_cast<int>(j);
      }
    }
  return best;
}

}  // namespace dnnmem
