// The Lagrangian bound (bound.hpp): each chain's dynamic program against an enumeration of
// every plan of the chain, from the definitions of docs/model/optimal.md; weak duality against
// an enumeration of every plan of tiny problems; and the ascent's result, never above them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "dnnmem/bound.hpp"

using namespace dnnmem;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * (1 + std::abs(b)); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// Chains of 1–5 nodes at increasing steps, random costs (savings mostly), store groups over
// random runs of intervals, some nodes with y, some tensors larger than the capacity.
ChainProblem random_problem(std::mt19937& rng, int chains, int steps, double capacity) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ChainProblem p;
  p.num_steps = steps;
  p.capacity = capacity;
  p.chain_start.push_back(0);
  for (int c = 0; c < chains; ++c) {
    const int k = 1 + static_cast<int>(u(rng) * 5);
    std::vector<int> at;
    for (int s = 0; s < steps; ++s)
      if (u(rng) < 0.5) at.push_back(s);
    if (at.empty()) at.push_back(static_cast<int>(u(rng) * steps));
    at.resize(std::min<std::size_t>(at.size(), static_cast<std::size_t>(k)));
    const double size = u(rng) < 0.15 ? capacity * 1.5 : 0.1 + u(rng);
    const auto g0 = p.step.size();
    for (std::size_t j = 0; j < at.size(); ++j) {
      const bool next = j + 1 < at.size(), middle = j > 0 && next;
      const bool y = middle || u(rng) < 0.2;
      p.step.push_back(at[j]);
      p.size.push_back(size);
      p.keep_cost.push_back(next ? -size * 2 * u(rng) + 0.1 * u(rng) : 0.0);
      // An interval covers its interior and each end without y.
      const bool y_next = next && (j + 2 < at.size() || u(rng) < 0.2);
      p.keep_lo.push_back(next ? (y ? at[j] + 1 : at[j]) : 0);
      p.keep_hi.push_back(next ? (y_next ? at[j + 1] - 1 : at[j + 1]) : -1);
      p.has_y.push_back(y ? 1 : 0);
      p.y_cost.push_back(y && !middle ? -size * u(rng) : 0.0);
      p.group.push_back(0);
      p.group_cost.push_back(0.0);
      // The next node's y must agree with y_next: fixed up below.
    }
    // Make has_y of each node agree with how its neighbours' intervals cover it.
    for (std::size_t j = 1; j < at.size(); ++j) {
      const std::size_t g = g0 + j;
      const bool covered_by_prev = p.keep_hi[g - 1] == at[j];
      if (!covered_by_prev && !p.has_y[g]) p.has_y[g] = 1;
      if (covered_by_prev) p.has_y[g] = 0, p.y_cost[g] = 0.0;
    }
    // One store group over a random run of intervals.
    const std::size_t intervals = at.size() - 1;
    if (intervals >= 2 && u(rng) < 0.6) {
      const std::size_t a = static_cast<std::size_t>(u(rng) * static_cast<double>(intervals - 1));
      const std::size_t e = a + 2 + static_cast<std::size_t>(u(rng) * static_cast<double>(intervals - a - 1));
      for (std::size_t j = a; j < std::min(e, intervals); ++j) p.group[g0 + j] |= kGroupInside;
      p.group[g0 + a] |= kGroupFirst;
      p.group[g0 + std::min(e, intervals) - 1] |= kGroupLast;
      p.group_cost[g0 + std::min(e, intervals) - 1] = size * (0.5 + u(rng));
    }
    p.chain_start.push_back(static_cast<std::int64_t>(p.step.size()));
  }
  p.prepare();
  return p;
}

// One plan of chain [g0, g1): `kept` per interval, `born` per node (a y chosen though no
// interval next to it is kept). Its cost at the prices, or +inf where a node larger than the
// capacity would be resident; `occ` gets its occupancy.
double plan_cost(const ChainProblem& p, std::size_t g0, std::size_t g1,
                 const std::vector<int>& kept, const std::vector<int>& born,
                 const std::vector<double>& price, std::vector<double>& occ) {
  double cost = 0;
  for (std::size_t g = g0; g < g1; ++g) {
    const std::size_t j = g - g0;
    const bool x = g + 1 < g1 && kept[j];
    const bool y = p.has_y[g] && ((j > 0 && kept[j - 1]) || x || born[j]);
    if ((x || y) && p.size[g] > p.capacity) return kInf;
    if (x) {
      cost += p.keep_cost[g];
      for (int s = p.keep_lo[g]; s <= p.keep_hi[g]; ++s) {
        cost += p.size[g] * price[static_cast<std::size_t>(s)];
        occ[static_cast<std::size_t>(s)] += p.size[g];
      }
    }
    if (y) {
      cost += p.y_cost[g] + p.size[g] * price[static_cast<std::size_t>(p.step[g])];
      occ[static_cast<std::size_t>(p.step[g])] += p.size[g];
    }
  }
  // A store group is paid unless every one of its intervals is kept.
  bool whole = true;
  for (std::size_t g = g0; g + 1 < g1; ++g) {
    if (p.group[g] & kGroupFirst) whole = true;
    if ((p.group[g] & kGroupInside) && !kept[g - g0]) whole = false;
    if (p.group[g] & kGroupLast) {
      if (!whole) cost += p.group_cost[g];
      whole = true;
    }
  }
  return cost;
}

// The least cost of chain c at the prices, over every plan.
double chain_minimum(const ChainProblem& p, std::size_t c, const std::vector<double>& price) {
  const auto g0 = static_cast<std::size_t>(p.chain_start[c]);
  const auto g1 = static_cast<std::size_t>(p.chain_start[c + 1]);
  const std::size_t k = g1 - g0;
  double best = kInf;
  std::vector<double> occ(price.size() + 1);
  for (unsigned xm = 0; xm < (1u << (k - 1)); ++xm)
    for (unsigned ym = 0; ym < (1u << k); ++ym) {
      std::vector<int> kept(k), born(k);
      for (std::size_t j = 0; j < k; ++j) {
        kept[j] = j + 1 < k && ((xm >> j) & 1u);
        born[j] = (ym >> j) & 1u;
      }
      best = std::min(best, plan_cost(p, g0, g1, kept, born, price, occ));
    }
  return best;
}

std::vector<double> random_prices(std::mt19937& rng, int steps, double scale) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> price(static_cast<std::size_t>(steps));
  for (double& v : price) v = u(rng) < 0.4 ? 0.0 : scale * u(rng);
  return price;
}

}  // namespace

TEST_CASE("lagrangian: each chain's dynamic program equals the enumeration of its plans") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int steps = 3 + trial % 6;
    ChainProblem p = random_problem(rng, 1 + trial % 5, steps, 1.0 + 0.5 * (trial % 3));
    const std::vector<double> price = random_prices(rng, steps, trial % 2 ? 0.3 : 3.0);
    LagrangianPoint at;
    lagrangian(p, price, at);
    double expected = 0, total_price = 0;
    for (std::size_t c = 0; c + 1 < p.chain_start.size(); ++c) expected += chain_minimum(p, c, price);
    for (double v : price) total_price += v;
    expected -= p.capacity * total_price;
    REQUIRE(near(at.value, expected));
    // The minimiser: flags 0 or 1, none on a chain's last node, and its own cost is the value.
    double own = 0;
    std::vector<double> occ(static_cast<std::size_t>(steps) + 1, 0.0);
    for (std::size_t c = 0; c + 1 < p.chain_start.size(); ++c) {
      const auto g0 = static_cast<std::size_t>(p.chain_start[c]);
      const auto g1 = static_cast<std::size_t>(p.chain_start[c + 1]);
      std::vector<int> kept(g1 - g0), born(g1 - g0);
      for (std::size_t g = g0; g < g1; ++g) {
        REQUIRE(at.kept[g] <= 1);
        kept[g - g0] = at.kept[g];
        // An idle y is borne exactly when that pays (its cost at the price is negative) and
        // the tensor fits.
        born[g - g0] = p.size[g] <= p.capacity &&
                       p.y_cost[g] + p.size[g] * price[static_cast<std::size_t>(p.step[g])] < 0;
      }
      REQUIRE(at.kept[g1 - 1] == 0);
      own += plan_cost(p, g0, g1, kept, born, price, occ);
    }
    REQUIRE(near(own - p.capacity * total_price, expected));
    for (int s = 0; s < steps; ++s)
      REQUIRE(near(at.occupancy[static_cast<std::size_t>(s)], occ[static_cast<std::size_t>(s)]));
  }
}

TEST_CASE("lagrangian: no price and no ascent goes above the least cost of a plan that fits") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int steps = 4;
    ChainProblem p = random_problem(rng, 2 + trial % 2, steps, 0.8 + 0.4 * (trial % 3));
    // The integer optimum: every plan of every chain, jointly, that fits at every step.
    const std::vector<double> zero(static_cast<std::size_t>(steps), 0.0);
    std::vector<std::vector<std::pair<double, std::vector<double>>>> plans;  // per chain
    for (std::size_t c = 0; c + 1 < p.chain_start.size(); ++c) {
      const auto g0 = static_cast<std::size_t>(p.chain_start[c]);
      const auto g1 = static_cast<std::size_t>(p.chain_start[c + 1]);
      const std::size_t k = g1 - g0;
      plans.emplace_back();
      for (unsigned xm = 0; xm < (1u << (k - 1)); ++xm)
        for (unsigned ym = 0; ym < (1u << k); ++ym) {
          std::vector<int> kept(k), born(k);
          for (std::size_t j = 0; j < k; ++j) {
            kept[j] = j + 1 < k && ((xm >> j) & 1u);
            born[j] = (ym >> j) & 1u;
          }
          std::vector<double> occ(static_cast<std::size_t>(steps) + 1, 0.0);
          const double cost = plan_cost(p, g0, g1, kept, born, zero, occ);
          if (cost < kInf) plans.back().emplace_back(cost, occ);
        }
    }
    double optimum = kInf;
    std::vector<std::size_t> pick(plans.size(), 0);
    while (true) {
      double cost = 0;
      std::vector<double> occ(static_cast<std::size_t>(steps), 0.0);
      for (std::size_t c = 0; c < plans.size(); ++c) {
        cost += plans[c][pick[c]].first;
        for (int s = 0; s < steps; ++s)
          occ[static_cast<std::size_t>(s)] += plans[c][pick[c]].second[static_cast<std::size_t>(s)];
      }
      if (*std::max_element(occ.begin(), occ.end()) <= p.capacity) optimum = std::min(optimum, cost);
      std::size_t c = 0;
      while (c < plans.size() && ++pick[c] == plans[c].size()) pick[c++] = 0;
      if (c == plans.size()) break;
    }
    REQUIRE(optimum < kInf);  // keeping nothing always fits
    LagrangianPoint at;
    for (double scale : {0.1, 1.0, 10.0}) {
      lagrangian(p, random_prices(rng, steps, scale), at);
      REQUIRE(at.value <= optimum + 1e-12);
    }
    LagrangianOptions o;
    o.max_iterations = 300;
    const LagrangianResult r = maximize_lagrangian(p, o);
    REQUIRE(r.value <= optimum + 1e-12);
    lagrangian(p, zero, at);
    REQUIRE(r.value >= at.value);  // the ascent starts at 0 and keeps its best
    lagrangian(p, r.price, at);
    REQUIRE(at.value == r.value);  // the prices returned give the value returned
  }
}

TEST_CASE("lagrangian: an inconsistent problem is refused, naming the field") {
  std::mt19937 rng(3);
  ChainProblem p = random_problem(rng, 2, 4, 1.0);
  ChainProblem q = p;
  q.size.pop_back();
  CHECK(error_of([&] { q.prepare(); }).find("differ in length") != std::string::npos);
  q = p;
  q.chain_start.back() += 1;
  CHECK(error_of([&] { q.prepare(); }).find("chain_start") != std::string::npos);
  q = p;
  q.step[0] = 99;
  CHECK(error_of([&] { q.prepare(); }).find("step out of range") != std::string::npos);
  LagrangianPoint at;
  CHECK(error_of([&] { lagrangian(p, std::vector<double>(3), at); }).find("3 prices for 4 steps") !=
        std::string::npos);
}
