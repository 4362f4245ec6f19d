// The tile model's plan pass (docs/model/interleaved.md, "The scratchpad share", "Orders",
// "Timing"): after the cache manager has planned, each backward GEMM layer's streamed operands go
// through the tile walk (or its closed form) over the share of the scratchpad the plan leaves
// free at that step, and the step's streamed transfers carry the bytes that walk moves.
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnmem/plan.hpp"
#include "dnnmem/tiles.hpp"
#include "tile_key.hpp"

namespace dnnmem {
namespace {

constexpr int kDY = 0, kW = 1, kX = 2, kDX = 3, kDW = 4;
constexpr std::array<std::string_view, 3> kRowNests{"ijk", "ikj", "kij"}, kColNests{"jik", "jki", "kji"};

using Unit = TileUnit;

std::int64_t scale(std::int64_t walked, std::int64_t tensor_bytes, std::int64_t gemm_bytes) {
  // The walk counts GEMM-matrix bytes; the tensor may be smaller (im2col) or hold `count`
  // products: |P| · walked / (the GEMM matrix's bytes), rounded to the nearest byte.
  const Ticks q = static_cast<Ticks>(walked) * tensor_bytes;  // (Ticks: 128-bit)
  const Ticks bytes = (q + gemm_bytes / 2) / gemm_bytes;
  // A transfer carries at most two of these and a partial-sum reload (< 2^62 in all); the
  // plan's total is bounded by check_plan_limits (limits.cpp).
  if (bytes > (Ticks{1} << 60))
    throw std::invalid_argument("an operand would move more than 2^60 bytes, too many to count exactly "
                                "(option 'tile': use a larger tile)");
  return static_cast<std::int64_t>(bytes);
}

// The tile walk is a pure function of its input, and the points of a sweep walk the same GEMMs
// again and again (repeated layers; every capacity). It reports a range of c_eff values for
// which its result is the same (detail::tile_walk_range): those that compare alike, or all
// above a floor when it never evicts a live tile. Results are memoised per thread (a sweep's threads
// share nothing) by the rest of the input, each with its range: a later c_eff inside one hits.
// The table is forgotten when it grows large.
// `bound`: a walk whose total would be above it gives up (nothing): a candidate of a search that
// can no longer win. A walk that gave up is memoised too, with the lower bound of its total that
// passed the bound and the range of c_eff for which that bound holds: a later call with a bound
// below it gives up at once.
struct WalkRange {
  std::int64_t lo, hi;     // c_eff in [lo, hi)
  std::int64_t gave_up;    // -1: `traffic` is the walk's; else a lower bound of its total (> the bound it had)
  TileTraffic traffic;
};

std::optional<TileTraffic> memo_walk(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                     const TileWalkOptions& o, std::int64_t bound) {
  if (o.nest_x.size() != 3 || o.nest_w.size() != 3) return tile_walk(m, k, n, order, o);  // (it throws)
  const detail::WalkKey key = detail::walk_key(m, k, n, order, o);
  thread_local std::unordered_map<detail::WalkKey, std::vector<WalkRange>, detail::WalkKeyHash> memo;
  thread_local std::size_t stored = 0;
  std::vector<WalkRange>& ranges = memo[key];
  for (const WalkRange& r : ranges)
    if (r.lo <= o.c_eff && o.c_eff < r.hi) {
      if (r.gave_up < 0) return r.traffic;
      if (r.gave_up > bound) return std::nullopt;
    }
  std::int64_t lo = 0, hi = 0, lower = 0;
  const std::optional<TileTraffic> t = detail::tile_walk_bounded(m, k, n, order, o, bound, &lo, &hi, &lower);  // (throws first)
  if (stored >= 4096) {
    memo.clear();
    stored = 0;
  }
  memo[key].push_back({lo, hi, t ? -1 : lower, t ? *t : TileTraffic{}});  // (`ranges` may be gone after a clear)
  ++stored;
  return t;
}

constexpr std::int64_t kNoBound = std::numeric_limits<std::int64_t>::max();

// `bound`: as memo_walk's (the closed form ignores it).
std::optional<TileTraffic> run(const TileModelOptions& t, std::int64_t m, std::int64_t k, std::int64_t n,
                               BackwardOrder order, const TileWalkOptions& o, std::int64_t bound) {
  // The closed form has no partitions, no LRU and no priority for partial sums.
  const bool walk = t.exact || o.partition >= 0 || o.lockstep || o.lru || o.keep_psum || o.no_reuse;
  return walk ? memo_walk(m, k, n, order, o, bound) : tile_estimate(m, k, n, order, o);
}

// A search's candidate wins only with a total below `least` (the first, with least < 0, always):
// one that has moved least bytes already cannot.
std::int64_t bound_for(std::int64_t least) { return least < 0 ? kNoBound : least - 1; }

// The order's loop nests: the closed form's best within each family (the page: "which nest").
// `fixed` (the simpler baseline tiler): output-stationary nests, the reduced dimension innermost
// (dX: ikj, dW: kji), unranked.
// Returns the closed form's total for the nests picked (0 for `fixed`).
std::int64_t pick_nests(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, TileWalkOptions& o,
                        bool fixed) {
  if (fixed) {
    o.nest_x = kRowNests[1];
    o.nest_w = kColNests[2];
    return 0;
  }
  TileWalkOptions trial = o;
  trial.partition = -1;  // the closed form ranks the unpartitioned nests (under its own pinning)
  trial.lockstep = false;
  trial.lru = false;
  trial.keep_psum = false;
  trial.no_reuse = false;
  trial.nest_x = kRowNests[0];
  trial.nest_w = kColNests[0];
  detail::check_tile_input(m, k, n, trial, false);  // (the nests below are valid)
  int x = 0, w = 0;
  const std::int64_t best = detail::rank_nests(m, k, n, order, trial, kRowNests, kColNests, &x, &w);
  o.nest_x = kRowNests[static_cast<std::size_t>(x)];
  o.nest_w = kColNests[static_cast<std::size_t>(w)];
  return best;
}

// partition=joint's memory of each GEMM's last winning candidate (per thread; only the order in
// which the candidates are walked depends on it, never the result).
std::uint64_t joint_key(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o, std::size_t candidates) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::int64_t v : {m, k, n, o.tile, o.elem_bytes, o.psum_bytes, static_cast<std::int64_t>(o.skip_x),
                         static_cast<std::int64_t>(o.skip_w), static_cast<std::int64_t>(o.lru) + 2 * static_cast<std::int64_t>(o.keep_psum) + 4 * static_cast<std::int64_t>(o.no_reuse) + 8 * static_cast<std::int64_t>(o.reduce_off_chip),
                         static_cast<std::int64_t>(candidates)})
    h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
  return h;
}
int& joint_winners(std::uint64_t key) {
  thread_local std::unordered_map<std::uint64_t, int> winners;
  if (winners.size() >= 4096) winners.clear();
  return winners[key];  // (0 when new: the first candidate, walked first anyway)
}

std::vector<Unit> find_units(const Schedule& s, bool fused) {
  std::vector<Unit> units;
  const auto acc = [&](const Step& st, int i) { return s.accesses[static_cast<std::size_t>(st.first_access + i)]; };
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    if (st.phase != Phase::Backward || st.num_gemms == 0) continue;
    Unit u;
    u.layer = st.layer;
    u.gemm = s.gemms[static_cast<std::size_t>(st.first_gemm)];
    if (!fused && st.part != StepPart::Whole) {
      // A split pair: [dY, W, dX] and [dY, X, dW], one after the other.
      if (i + 1 >= s.steps.size() || s.steps[i + 1].layer != st.layer) continue;
      const Step& nx = s.steps[i + 1];
      const Step& dx = st.part == StepPart::Data ? st : nx;
      const Step& dw = st.part == StepPart::Data ? nx : st;
      if (dx.num_accesses != 3 || dw.num_accesses != 3) continue;
      u.first = static_cast<int>(i);
      u.second = static_cast<int>(i + 1);
      u.weight_first = st.part == StepPart::Weight;
      u.gemm = s.gemms[static_cast<std::size_t>(dx.first_gemm)];
      u.tensor = {acc(dx, 0).tensor, acc(dx, 1).tensor, acc(dw, 1).tensor, acc(dx, 2).tensor, acc(dw, 2).tensor};
      ++i;
    } else if (fused && st.part == StepPart::Whole && st.num_gemms == 2 && st.num_accesses == 5) {
      u.first = static_cast<int>(i);
      // The default step's accesses: dY, X, W, dX, dW (a matmul: dY, A, B, dA, dB).
      u.tensor = {acc(st, 0).tensor, acc(st, 2).tensor, acc(st, 1).tensor, acc(st, 3).tensor, acc(st, 4).tensor};
    } else {
      continue;
    }
    bool distinct = u.gemm.count > 0;
    for (int a = 0; a < 5; ++a)
      for (int b = a + 1; b < 5; ++b) distinct = distinct && u.tensor[a] != u.tensor[b];
    if (distinct) units.push_back(u);
  }
  return units;
}

}  // namespace

void apply_tile_model(const PlanInput& in, Plan& plan, bool unbounded, TileUnitCache* cache) {
  plan.tiles.clear();
  const Schedule& s = in.schedule;
  const TileModelOptions& tm = s.tile_model;
  if (tm.order.empty()) return;
  // The two dY oracles (§3.3) walk the sequential order: `dy-oracle` frees the dW-ops' dY reads,
  // `dy-once` also caps the dX-ops' at one read of dY (the text: "dY is read only once").
  const bool dy_once = tm.order == "dy-once";
  const bool fused = tm.order != "seq" && tm.order != "dy-oracle" && !dy_once;
  const bool joint = tm.partition == "joint";
  // find_units reads the schedule alone: a sweep's points share one schedule object, unchanged
  // while it runs, so its workspace keeps the layers found at its first point.
  if (cache && (cache->schedule != &s || cache->fused != fused)) {
    cache->schedule = nullptr;  // (until found: find_units may throw)
    cache->units = find_units(s, fused);
    cache->schedule = &s;
    cache->fused = fused;
  }
  std::vector<Unit> found;
  if (!cache) found = find_units(s, fused);
  const std::vector<Unit>& units = cache ? cache->units : found;
  if (units.empty()) return;

  // Each step's transfers: [begin[step], begin[step + 1]) (the plan is in issue order).
  const std::size_t nsteps = s.steps.size();
  std::vector<std::size_t> begin(nsteps + 1, plan.transfers.size());
  for (std::size_t x = plan.transfers.size(); x-- > 0;)
    begin[static_cast<std::size_t>(plan.transfers[x].issue_step)] = x;
  for (std::size_t st = nsteps; st-- > 0;) begin[st] = std::min(begin[st], begin[st + 1]);
  // Whether a step has any streamed transfer: a layer whose steps have none has nothing to tile
  // (every find() below would fail), so it is passed over before its record is built.
  std::vector<unsigned char> streams(nsteps, 0);
  for (const Transfer& x : plan.transfers)
    if (x.kind == TransferKind::StreamLoad || x.kind == TransferKind::StreamStore)
      streams[static_cast<std::size_t>(x.issue_step)] = 1;
  const auto find = [&](int step, int tensor, TransferKind kind) -> Transfer* {
    for (std::size_t x = begin[static_cast<std::size_t>(step)]; x < begin[static_cast<std::size_t>(step) + 1]; ++x)
      if (plan.transfers[x].tensor == tensor && plan.transfers[x].kind == kind) return &plan.transfers[x];
    return nullptr;
  };

  const std::int64_t e = s.bytes_per_element;
  std::vector<Transfer> extra;  // partial-sum reloads of outputs without a streamed load
  for (const Unit& u : units) {
    check_interrupt();  // (a unit's walks may take a while: up to 2^22 tile operations each)
    const int dx_step = u.second < 0 || !u.weight_first ? u.first : u.second;
    const int dw_step = u.second < 0 ? u.first : (u.weight_first ? u.first : u.second);
    if (!streams[static_cast<std::size_t>(dx_step)] && !streams[static_cast<std::size_t>(dw_step)]) continue;
    const int step_of[5] = {dx_step, dx_step, dw_step, dx_step, dw_step};
    const std::int64_t m = u.gemm.m, k = u.gemm.n, n = u.gemm.k;  // BackwardData: M x N . N x K
    const std::int64_t elements[5] = {m * n, k * n, m * k, m * k, k * n};
    TileRecord rec;
    rec.layer = u.layer;
    rec.step = u.first;
    rec.step2 = u.second;
    rec.m = m;
    rec.k = k;
    rec.n = n;
    rec.count = u.gemm.count;
    // Streamed operands go through the walk; the rest the cache keeps whole: free.
    TileWalkOptions o;
    o.tile = tm.tile;
    o.elem_bytes = e;
    o.psum_bytes = tm.psum_bytes > 0 ? tm.psum_bytes : e;
    o.lru = tm.lru;
    o.keep_psum = tm.keep_psum;
    o.reduce_off_chip = tm.reduce_off_chip;
    o.no_reuse = tm.no_reuse;
    for (int t = 0; t < 5; ++t) {
      rec.size[static_cast<std::size_t>(t)] = s.tensors[static_cast<std::size_t>(u.tensor[t])].bytes;
      const TransferKind kind = t < 3 ? TransferKind::StreamLoad : TransferKind::StreamStore;
      // dY is read by both products: by the dX step's and the dW step's loads of a pair.
      const bool by_x = t != kX && t != kDW && find(dx_step, u.tensor[t], kind);
      const bool by_w = t != kW && t != kDX && find(dw_step, u.tensor[t], kind);
      if (by_x || by_w) rec.streamed |= 1U << t;
      if (t != kX && t != kDW && !by_x) o.skip_x |= 1U << t;
      if (t != kW && t != kDX && !by_w) o.skip_w |= 1U << t;
    }
    if (tm.order == "dy-oracle" || dy_once) o.skip_w |= 1U;
    if (rec.streamed == 0) continue;
    std::int64_t avail = in.capacity - plan.resident[static_cast<std::size_t>(u.first)];
    if (u.second >= 0) avail = std::min(avail, in.capacity - plan.resident[static_cast<std::size_t>(u.second)]);
    o.c_eff = static_cast<std::int64_t>(static_cast<double>(std::max<std::int64_t>(avail, 0)) * tm.buffer_fraction);
    if (unbounded) {
      // An unlimited scratchpad (infinite-spm): what the plan pins leaves the tiles all the room
      // they can use, a share that holds every operand whole (each read once, each output
      // written once: no tile is reloaded, no partial sum spills).
      o.c_eff = 0;
      for (int t = 0; t < 5; ++t) o.c_eff += elements[t] * std::max(o.elem_bytes, o.psum_bytes);
    }
    rec.c_eff = o.c_eff;

    BackwardOrder order = BackwardOrder::Seq;
    std::optional<TileTraffic> best;  // `best`: the winner's traffic, already walked
    std::array<std::string_view, 2> best_nests{};
    try {
      if (!fused) {
        order = u.weight_first ? BackwardOrder::SeqDwFirst : BackwardOrder::Seq;
      } else if (tm.order == "alg1" || tm.order == "alg1-size") {
        const std::int64_t hi = std::max({m, n, k}), lo = std::min({m, n, k});
        if (hi < 4 * lo) {
          order = BackwardOrder::Interleave;
          rec.reason = "max/min(M,N,K) < 4";
        } else if (tm.order == "alg1") {
          order = k > n && k > m ? BackwardOrder::DwMajor : BackwardOrder::DxMajor;
          rec.reason = k > n && k > m ? "K largest" : "K not largest";
        } else {
          order = m > n ? BackwardOrder::DxMajor : BackwardOrder::DwMajor;
          rec.reason = m > n ? "|dX| > |dW|" : "|dX| <= |dW|";
        }
      } else if (tm.order == "best" && joint) {
        order = BackwardOrder::Interleave;  // searched with the partition below
      } else if (tm.order == "best") {
        // The least-traffic order, ties to the earlier of the three. Walked in the order of the
        // closed form's estimates, so that the likely winner comes first and the others give up
        // early (a candidate before the best so far in the three wins a tie: its bound is one more).
        constexpr std::array<BackwardOrder, 3> kOrders{BackwardOrder::Interleave, BackwardOrder::DxMajor,
                                                       BackwardOrder::DwMajor};
        std::array<TileWalkOptions, 3> trials{o, o, o};
        std::array<std::int64_t, 3> estimate{};
        std::array<int, 3> visit{0, 1, 2};
        for (int i = 0; i < 3; ++i) estimate[i] = pick_nests(m, k, n, kOrders[i], trials[i], tm.fixed_nests);
        std::stable_sort(visit.begin(), visit.end(), [&](int a, int b) { return estimate[a] < estimate[b]; });
        std::int64_t least = -1;
        int winner = -1;
        for (const int i : visit) {
          const std::int64_t bound = least < 0 ? kNoBound : (i < winner ? least : least - 1);
          const std::optional<TileTraffic> t = run(tm, m, k, n, kOrders[i], trials[i], bound);
          if (t && (least < 0 || t->total() < least || (t->total() == least && i < winner))) {
            least = t->total();
            winner = i;
            order = kOrders[i];
            best = t;
            best_nests = {trials[i].nest_x, trials[i].nest_w};
          }
        }
        rec.reason = "least traffic";
      } else {
        order = *backward_order_from_name(tm.order);
      }
      if (best) {
        o.nest_x = best_nests[0];
        o.nest_w = best_nests[1];
      } else {
        pick_nests(m, k, n, order, o, tm.fixed_nests);
      }
      rec.order = std::string(backward_order_name(order));
      rec.nest_x = std::string(o.nest_x);
      rec.nest_w = std::string(o.nest_w);
      if (joint) {
        // `partition=joint` (the page's "Partitioning", joint search): the least-traffic pair
        // of order (the three fused orders under `best`, else the order's own pick) and
        // partition (unpartitioned, or M, N or K in `parts` parts; on several cores one part
        // each, so never unpartitioned), each with its family's nests.
        const int parts = tm.cores > 1 ? tm.cores : static_cast<int>(tm.parts);
        std::vector<BackwardOrder> orders{order};
        if (tm.order == "best") orders = {BackwardOrder::Interleave, BackwardOrder::DxMajor, BackwardOrder::DwMajor};
        struct Candidate {
          BackwardOrder order;
          TileWalkOptions options;
        };
        std::vector<Candidate> candidates;
        for (BackwardOrder c : orders) {
          TileWalkOptions base = o;
          pick_nests(m, k, n, c, base, tm.fixed_nests);
          for (int d = tm.cores > 1 ? 0 : -1; d < 3; ++d) {
            if (d >= 0 && parts <= 1) break;
            TileWalkOptions trial = base;
            trial.partition = d;
            trial.parts = d < 0 ? 1 : parts;
            trial.lockstep = d >= 0 && tm.cores > 1;
            candidates.push_back({c, trial});
          }
        }
        // The least total, ties to the earlier candidate. The one that won last time for this
        // GEMM (this thread's earlier points) is walked first, so that the others give up early
        // (one before the best so far wins a tie: its bound is one more).
        const std::uint64_t layer_key = joint_key(m, k, n, o, candidates.size());
        int& last_winner = joint_winners(layer_key);
        std::vector<int> visit(candidates.size());
        for (std::size_t i = 0; i < visit.size(); ++i) visit[i] = static_cast<int>(i);
        if (last_winner > 0 && last_winner < static_cast<int>(visit.size()))
          std::rotate(visit.begin(), visit.begin() + last_winner, visit.begin() + last_winner + 1);
        std::int64_t least = -1;
        int winner = -1;
        best.reset();
        for (const int i : visit) {
          const Candidate& cand = candidates[static_cast<std::size_t>(i)];
          const std::int64_t bound = least < 0 ? kNoBound : (i < winner ? least : least - 1);
          const std::optional<TileTraffic> t = run(tm, m, k, n, cand.order, cand.options, bound);
          if (t && (least < 0 || t->total() < least || (t->total() == least && i < winner))) {
            least = t->total();
            winner = i;
            order = cand.order;
            best = t;
            o = cand.options;
          }
        }
        last_winner = winner;
        if (tm.order == "best") rec.reason = "least traffic (order x partition)";
        rec.order = std::string(backward_order_name(order));
        rec.nest_x = std::string(o.nest_x);
        rec.nest_w = std::string(o.nest_w);
        if (o.partition >= 0) {
          rec.partition = std::string(1, "mnk"[o.partition]);
          rec.parts = o.parts;
        }
      } else if (tm.partition != "none" && (tm.parts > 1 || tm.cores > 1)) {
        // Partitioning (the page's "Partitioning"): one dimension cut into parts, one after
        // another on one core or one per core in lock step.
        o.parts = tm.cores > 1 ? tm.cores : tm.parts;
        o.lockstep = tm.cores > 1;
        best.reset();
        if (tm.partition == "best") {
          std::int64_t least = -1;
          for (int d = 0; d < 3; ++d) {
            TileWalkOptions trial = o;
            trial.partition = d;
            const std::optional<TileTraffic> t = run(tm, m, k, n, order, trial, bound_for(least));
            if (t && (least < 0 || t->total() < least)) {
              least = t->total();
              o.partition = d;
              best = t;
            }
          }
        } else if (tm.partition == "rule") {
          o.partition = m >= tm.tile && m >= n && m >= k ? 0 : (n >= k ? 1 : 2);
        } else {
          o.partition = tm.partition == "m" ? 0 : tm.partition == "n" ? 1 : 2;
        }
        rec.partition = std::string(1, "mnk"[o.partition]);
        rec.parts = o.parts;
      }
      const TileTraffic w = best ? *best : *run(tm, m, k, n, order, o, kNoBound);
      for (std::size_t t = 0; t < 5; ++t) {
        const std::int64_t gemm_bytes = elements[t] * e;
        // im2col = expanded: X and dX move as their GEMM matrices (`count` of them), the patches
        // expanded off chip; raw: as the tensors (the expansion happens on chip).
        const bool expanded = tm.im2col_expanded && (static_cast<int>(t) == kX || static_cast<int>(t) == kDX);
        const std::int64_t as_bytes = expanded ? gemm_bytes * u.gemm.count : rec.size[t];
        rec.read[t] = scale(w.read[t], as_bytes, gemm_bytes);
        rec.written[t] = scale(w.written[t], as_bytes, gemm_bytes);
        rec.psum_read[t] = scale(w.psum_read[t], as_bytes, gemm_bytes);
        rec.psum_written[t] = scale(w.psum_written[t], as_bytes, gemm_bytes);
      }
      if (dy_once) rec.read[kDY] = std::min(rec.read[kDY], rec.size[kDY]);
      // dY's reads by the dW-ops belong to the dW step of a sequential pair.
      const std::int64_t dy_w = scale(w.dy_read_by_dw, rec.size[0], elements[0] * e);
      for (int t = 0; t < 5; ++t) {
        if (!((rec.streamed >> t) & 1U)) continue;
        const auto u_t = static_cast<std::size_t>(t);
        if (t < 3) {
          if (t == kDY && u.second >= 0) {
            if (Transfer* x = find(dx_step, u.tensor[t], TransferKind::StreamLoad)) x->bytes = rec.read[0] - dy_w;
            if (Transfer* x = find(dw_step, u.tensor[t], TransferKind::StreamLoad)) x->bytes = dy_w;
          } else {
            find(step_of[t], u.tensor[t], TransferKind::StreamLoad)->bytes = rec.read[u_t];
          }
          continue;
        }
        find(step_of[t], u.tensor[t], TransferKind::StreamStore)->bytes = rec.written[u_t] + rec.psum_written[u_t];
        if (rec.psum_read[u_t] == 0) continue;
        if (Transfer* x = find(step_of[t], u.tensor[t], TransferKind::StreamLoad))
          x->bytes += rec.psum_read[u_t];
        else
          extra.push_back({u.tensor[t], TransferKind::StreamLoad, rec.psum_read[u_t], step_of[t], step_of[t]});
      }
    } catch (const std::invalid_argument& err) {
      std::string name = s.tensors[static_cast<std::size_t>(u.tensor[kDY])].name;  // "dY:<layer>"
      name = name.substr(name.find(':') + 1);
      throw std::invalid_argument("tile model, layer '" + name + "': " + err.what());
    }
    plan.tiles.push_back(std::move(rec));
  }
  if (extra.empty()) return;
  // Each partial-sum reload joins its step's streamed loads (before its streamed stores).
  std::sort(extra.begin(), extra.end(), [](const Transfer& a, const Transfer& b) { return a.issue_step < b.issue_step; });
  std::vector<Transfer> merged;
  merged.reserve(plan.transfers.size() + extra.size());
  std::size_t next = 0;
  for (std::size_t st = 0; st < nsteps; ++st) {
    std::size_t x = begin[st];
    const std::size_t end = begin[st + 1];
    for (; x < end && (plan.transfers[x].kind == TransferKind::Evict || plan.transfers[x].kind == TransferKind::StreamLoad); ++x)
      merged.push_back(plan.transfers[x]);
    for (; next < extra.size() && extra[next].issue_step == static_cast<int>(st); ++next) merged.push_back(extra[next]);
    for (; x < end; ++x) merged.push_back(plan.transfers[x]);
  }
  plan.transfers = std::move(merged);
}

}  // namespace dnnmem
