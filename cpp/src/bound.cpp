// The Lagrangian bound of the traffic problem (docs/model/optimal.md): each chain's dynamic
// program, and the ascent on the prices.
#include "dnnmem/bound.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace dnnmem {

void ChainProblem::prepare() {
  const std::size_t n = nodes();
  const auto bad = [](const std::string& what) {
    throw std::invalid_argument("ChainProblem: " + what);
  };
  if (num_steps < 0) bad("num_steps < 0");
  if (!(capacity >= 0)) bad("capacity must be >= 0");
  if (size.size() != n || keep_cost.size() != n || keep_lo.size() != n || keep_hi.size() != n ||
      has_y.size() != n || y_cost.size() != n || group.size() != n || group_cost.size() != n)
    bad("per-node arrays differ in length from step (" + std::to_string(n) + ")");
  if (chain_start.empty() || chain_start.front() != 0 ||
      chain_start.back() != static_cast<std::int64_t>(n))
    bad("chain_start must run from 0 to the node count");
  for (std::size_t c = 1; c < chain_start.size(); ++c)
    if (chain_start[c] <= chain_start[c - 1]) bad("chain_start must increase");
  for (std::size_t g = 0; g < n; ++g) {
    if (step[g] < 0 || step[g] >= num_steps) bad("step out of range at node " + std::to_string(g));
    if (!(size[g] >= 0) || !std::isfinite(keep_cost[g]) || !std::isfinite(y_cost[g]) ||
        !std::isfinite(group_cost[g]))
      bad("a size or cost is negative or not finite at node " + std::to_string(g));
    if (keep_lo[g] <= keep_hi[g] && (keep_lo[g] < 0 || keep_hi[g] >= num_steps))
      bad("keep_lo / keep_hi out of range at node " + std::to_string(g));
  }
  chain_grouped.assign(chain_start.size() - 1, 0);
  for (std::size_t c = 0; c + 1 < chain_start.size(); ++c)
    for (auto g = chain_start[c]; g < chain_start[c + 1]; ++g)
      if (group[static_cast<std::size_t>(g)] != 0) chain_grouped[c] = 1;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The least of (a, b) and which: branch-free (the comparisons are unpredictable).
inline double least(double a, double b, unsigned ia, unsigned ib, unsigned& which) {
  const bool second = b < a;
  which = second ? ib : ia;
  return second ? b : a;
}

// One chain [g0, g1): its least cost at the prices, its kept intervals into `kept`. The state
// after node g's interval is kept * 2 + broken (broken: an interval of the current store group
// was not kept); before a chain's first node it is 0. Not keeping leads to state 0 (1 inside a
// group that goes on); keeping to 2 (3 when a broken group goes on).
double solve_chain(const ChainProblem& p, std::size_t g0, std::size_t g1, LagrangianPoint& w,
                   std::uint8_t* kept) {
  double c0 = 0, c1 = kInf, c2 = kInf, c3 = kInf;
  for (std::size_t g = g0; g < g1; ++g) {
    const bool next = g + 1 < g1;
    const double wy = p.has_y[g] ? w.wy[g] : 0.0;
    const double y_idle = std::min(0.0, wy);  // neither neighbour kept: occupy only if it pays
    const unsigned grp = next ? p.group[g] : 0u;
    const bool inside = grp & kGroupInside, last = grp & kGroupLast;
    const bool carry = inside && !(grp & kGroupFirst);  // a broken group stays broken
    const double store = last ? p.group_cost[g] : 0.0;
    // Not keeping: from any state.
    unsigned i01, i23, inot;
    const double m01 = least(c0, c1, 0, 1, i01) + y_idle;
    const double m23 = least(c2, c3, 2, 3, i23) + wy;
    double m_not = least(m01, m23, i01, i23, inot);
    // Keeping: from the states with the group whole (0, 2) and broken (1, 3).
    const double keep = next ? w.keep[g] + wy : kInf;
    unsigned ia, ib;
    const double a = least(c0, c2, 0, 2, ia) + keep;
    const double b = least(c1, c3, 1, 3, ib) + keep;
    unsigned from = 0;
    double n0 = kInf, n1 = kInf, n2, n3 = kInf;
    if (inside && !last) {
      n1 = m_not;
      from |= inot << 2;
    } else {
      n0 = m_not + (inside ? store : 0.0);
      from |= inot;
    }
    unsigned i2 = ia;
    if (!carry) {
      n2 = least(a, b, ia, ib, i2);
    } else if (last) {
      n2 = least(a, b + store, ia, ib, i2);
    } else {
      n2 = a;
      n3 = b;
      from |= ib << 6;
    }
    from |= i2 << 4;
    w.from[g] = static_cast<std::uint8_t>(from);
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
  }
  unsigned i01, i23, best;
  const double m01 = least(c0, c1, 0, 1, i01);  // (separate statements: i01 and i23 are read
  const double m23 = least(c2, c3, 2, 3, i23);  // below, after these set them)
  const double value = least(m01, m23, i01, i23, best);
  for (std::size_t g = g1; g-- > g0;) {
    kept[g] = static_cast<std::uint8_t>(best >> 1);
    best = (w.from[g] >> (2 * best)) & 3u;
  }
  return value;
}

// A chain without store groups: the states 0 and 2 only.
double solve_plain_chain(std::size_t g0, std::size_t g1, LagrangianPoint& w, const ChainProblem& p,
                         std::uint8_t* kept) {
  double c0 = 0, c2 = kInf;
  for (std::size_t g = g0; g < g1; ++g) {
    const double wy = p.has_y[g] ? w.wy[g] : 0.0;
    const double keep = g + 1 < g1 ? w.keep[g] + wy : kInf;
    unsigned i0, i2;
    const double n0 = least(c0 + std::min(0.0, wy), c2 + wy, 0, 2, i0);
    const double n2 = least(c0, c2, 0, 2, i2) + keep;
    w.from[g] = static_cast<std::uint8_t>(i0 | (i2 << 4));
    c0 = n0, c2 = n2;
  }
  unsigned best;
  const double value = least(c0, c2, 0, 2, best);
  for (std::size_t g = g1; g-- > g0;) {
    kept[g] = static_cast<std::uint8_t>(best >> 1);
    best = (w.from[g] >> (2 * best)) & 3u;
  }
  return value;
}

}  // namespace

void lagrangian(const ChainProblem& p, const std::vector<double>& price, LagrangianPoint& out) {
  const std::size_t n = p.nodes();
  const auto steps = static_cast<std::size_t>(p.num_steps);
  if (price.size() != steps)
    throw std::invalid_argument("lagrangian: " + std::to_string(price.size()) +
                                " prices for " + std::to_string(steps) + " steps");
  if (p.chain_grouped.size() + 1 != p.chain_start.size())
    throw std::invalid_argument("lagrangian: the ChainProblem is not prepared");
  LagrangianPoint& w = out;
  w.from.resize(n);
  w.keep.resize(n);
  w.wy.resize(n);
  w.kept.resize(n);
  w.prefix.resize(steps + 1);
  w.prefix[0] = 0;
  for (std::size_t s = 0; s < steps; ++s) w.prefix[s + 1] = w.prefix[s] + price[s];
  std::vector<double>& occ = out.occupancy;
  occ.assign(steps + 1, 0.0);
  double value = 0;
  // Chain by chain, each pass over its nodes while they are in cache: the prices folded into
  // the costs, the dynamic program, and the minimiser's occupancy (kept intervals over lo … hi,
  // each y at its step: y = 1 when an interval next to it is kept, or when occupying pays).
  for (std::size_t c = 0; c + 1 < p.chain_start.size(); ++c) {
    const auto g0 = static_cast<std::size_t>(p.chain_start[c]);
    const auto g1 = static_cast<std::size_t>(p.chain_start[c + 1]);
    for (std::size_t g = g0; g < g1; ++g) {
      const std::int32_t lo = p.keep_lo[g], hi = p.keep_hi[g];
      const double span = lo <= hi ? w.prefix[static_cast<std::size_t>(hi) + 1] -
                                         w.prefix[static_cast<std::size_t>(lo)]
                                   : 0.0;
      w.keep[g] = p.keep_cost[g] + p.size[g] * span;
      w.wy[g] = p.y_cost[g] + p.size[g] * price[static_cast<std::size_t>(p.step[g])];
      if (p.size[g] > p.capacity) {  // never resident (P4): neither kept nor born on chip
        w.keep[g] = kInf;
        w.wy[g] = std::max(0.0, w.wy[g]);
      }
    }
    value += p.chain_grouped[c] ? solve_chain(p, g0, g1, w, w.kept.data())
                                : solve_plain_chain(g0, g1, w, p, w.kept.data());
    for (std::size_t g = g0; g < g1; ++g) {
      if (w.kept[g] && p.keep_lo[g] <= p.keep_hi[g]) {
        occ[static_cast<std::size_t>(p.keep_lo[g])] += p.size[g];
        occ[static_cast<std::size_t>(p.keep_hi[g]) + 1] -= p.size[g];
      }
      if (p.has_y[g] && ((g > g0 && w.kept[g - 1]) || w.kept[g] || w.wy[g] < 0)) {
        occ[static_cast<std::size_t>(p.step[g])] += p.size[g];
        occ[static_cast<std::size_t>(p.step[g]) + 1] -= p.size[g];
      }
    }
  }
  double total_price = 0;
  for (double v : price) total_price += v;
  out.value = value - p.capacity * total_price;
  double run = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    run += occ[s];
    occ[s] = run;
  }
  occ.resize(steps);
}

// The volume algorithm (Barahona, Anbil, "The volume algorithm: producing primal solutions
// with a subgradient method", Math. Programming 87, 2000), projected onto prices >= 0: steps
// leave from the best prices so far, along the excess of an average of the minimisers'
// occupancies (which, unlike one minimiser's, settles where many intervals tie), with
// Polyak's length towards a target best + δ; δ halves after `patience` iterations without a
// gain of δ / 2 (the variable target value method). Once δ falls to the tolerance it starts
// again from the best prices with a wide δ, `restarts` times: where few steps bind, the first
// run settles with prices on steps that need none, and a second one clears them. Every
// iterate's L is exact, so the best of them is a valid bound whatever the steps do.
LagrangianResult maximize_lagrangian(const ChainProblem& p, const LagrangianOptions& options) {
  const auto steps = static_cast<std::size_t>(p.num_steps);
  std::vector<double> best_price = options.start;
  if (best_price.empty()) best_price.assign(steps, 0.0);
  if (best_price.size() != steps)
    throw std::invalid_argument("maximize_lagrangian: " + std::to_string(best_price.size()) +
                                " start prices for " + std::to_string(steps) + " steps");
  for (double& v : best_price) v = std::isfinite(v) ? std::max(0.0, v) : 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  LagrangianResult best;
  LagrangianPoint at;
  lagrangian(p, best_price, at);
  best.iterations = 1;
  best.value = at.value;
  best.kept = at.kept;
  std::vector<double> average = at.occupancy;  // the averaged occupancy
  std::vector<double> dir(steps), price(steps);
  double factor = options.step_factor;
  double delta = options.initial_delta > 0 ? options.initial_delta
                                           : 0.05 * std::abs(at.value) + 1e-9;
  double ref = best.value;
  int stall = 0, misses = 0, restarts = 0;
  while (best.iterations < options.max_iterations) {
    if (delta <= options.tolerance) {  // settled: start again from the best, with a wide target
      if (restarts++ == options.restarts) break;
      delta = options.restart_delta * std::abs(best.value) + 1e-9;
      factor = options.step_factor;
      ref = best.value;
      stall = 0;
    }
    double norm = 0;
    for (std::size_t s = 0; s < steps; ++s) {
      double v = average[s] - p.capacity;
      if (best_price[s] <= 0 && v < 0) v = 0;  // the projection onto price >= 0
      dir[s] = v;
      norm += v * v;
    }
    if (norm == 0) break;  // the average fits and pays no price where it is slack: optimal
    const double t = factor * delta / norm;  // Polyak: (target - best) / |dir|², target = best + δ
    for (std::size_t s = 0; s < steps; ++s) price[s] = std::max(0.0, best_price[s] + t * dir[s]);
    lagrangian(p, price, at);
    ++best.iterations;
    // The average moves towards the new occupancy by the share that shortens it most.
    double vg = 0, dd = 0, vd = 0;
    for (std::size_t s = 0; s < steps; ++s) {
      const double g = at.occupancy[s] - p.capacity, d = g - dir[s];
      vg += dir[s] * g;
      dd += d * d;
      vd += dir[s] * d;
    }
    const double amax = options.averaging;
    const double alpha = dd > 0 ? std::clamp(-vd / dd, amax / 10, amax) : amax;
    for (std::size_t s = 0; s < steps; ++s)
      average[s] = alpha * at.occupancy[s] + (1 - alpha) * average[s];
    if (at.value > best.value) {  // a serious step: move the centre
      if (vg > 0) factor = std::min(2.0, factor * 1.1);
      best.value = at.value;
      best_price.swap(price);
      best.kept = at.kept;
      misses = 0;
    } else if (++misses >= 20) {
      factor = std::max(factor * 0.66, 1e-4);
      misses = 0;
    }
    if (best.value >= ref + 0.5 * delta) {
      ref = best.value;
      stall = 0;
    } else if (++stall >= options.patience) {
      delta *= 0.5;
      stall = 0;
      ref = best.value;
    }
    if (options.time_limit > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
            options.time_limit)
      break;
  }
  best.price = std::move(best_price);
  return best;
}

}  // namespace dnnmem
