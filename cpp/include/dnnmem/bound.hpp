// Lower bounds on the least traffic (docs/model/optimal.md, "A Lagrangian bound"): the traffic
// problem's LP relaxation with its capacity rows moved into the objective at a price per step.
// For any prices λ ≥ 0 the problem falls apart into one small problem per tensor (a chain of
// its full uses), solved exactly by a dynamic program; its value L(λ) is a lower bound on the
// LP's optimum, hence on every plan's traffic, and max over λ of L(λ) is the LP's optimum (each
// chain's polytope is integral). The model (which bytes a kept interval saves, which steps it
// occupies) is built by dnnmem.optimal in Python and handed here as a ChainProblem.
#pragma once

#include <cstdint>
#include <vector>

namespace dnnmem {

// Flags of an interval (a node that has a next node in its chain) in a store group: a value
// read by several later uses, whose store is paid unless every interval from its write to its
// last read is kept.
enum GroupFlag : std::uint8_t {
  kGroupInside = 1,  // the interval belongs to a group
  kGroupFirst = 2,   // ... and is its first interval
  kGroupLast = 4,    // ... and is its last (group_cost holds the store)
};

// The traffic problem chain by chain, in the LP's units (bytes / the largest tensor's bytes).
// Node g is a full use; chains are runs of nodes [chain_start[c], chain_start[c + 1]); the
// interval of node g runs to node g + 1 of the same chain.
struct ChainProblem {
  int num_steps = 0;
  double capacity = 0;                     // per step, in units
  std::vector<std::int64_t> chain_start;   // chains + 1 entries, from 0 to the node count
  std::vector<std::int32_t> step;          // per node: its step
  std::vector<double> size;                // per node: the tensor's size, in units
  std::vector<double> keep_cost;           // per node: the cost of keeping its interval (< 0: saves)
  std::vector<std::int32_t> keep_lo;       // per node: the steps its kept interval occupies,
  std::vector<std::int32_t> keep_hi;       //   lo … hi (none when lo > hi)
  std::vector<std::uint8_t> has_y;         // per node: its step is occupied when an interval
                                           //   next to it is kept (y ≥ both), or by choice
  std::vector<double> y_cost;              // per node with y: the cost of occupying its step
  std::vector<std::uint8_t> group;         // per node: GroupFlag bits of its interval
  std::vector<double> group_cost;          // per node with kGroupLast: the group's store
  std::vector<std::uint8_t> chain_grouped; // per chain: has a store group (set by prepare)

  std::size_t nodes() const { return step.size(); }
  // Checks the fields (std::invalid_argument naming the first that is inconsistent) and
  // derives chain_grouped. Call once after filling the fields.
  void prepare();
};

// L(λ) and what it is made of, for prices `price` (one per step, ≥ 0).
struct LagrangianPoint {
  double value = 0;                   // L(λ), in units: a lower bound on the LP's optimum
  std::vector<std::uint8_t> kept;     // per node: the minimiser keeps its interval
  std::vector<double> occupancy;      // per step: the minimiser's occupancy, in units
  // Scratch of the evaluation, kept for the next call.
  std::vector<std::uint8_t> from;     // per node: the state each of the four states came from
  std::vector<double> keep;           // per node: keep_cost + the price of the steps it occupies
  std::vector<double> wy;             // per node: y_cost + the price of its step
  std::vector<double> prefix;         // prefix sums of the prices
};

// Evaluates L(λ) exactly (each chain's dynamic program). `out` is reused between calls; `p`
// must be prepared.
void lagrangian(const ChainProblem& p, const std::vector<double>& price, LagrangianPoint& out);

struct LagrangianOptions {
  int max_iterations = 1000;   // evaluations of L
  double time_limit = 0;       // seconds; 0: none
  // Stop once the target margin δ falls to this (units): the ascent gains no more than that.
  double tolerance = 0;
  double initial_delta = 0;    // the first δ (units); 0: a twentieth of |L(start)|
  int patience = 40;           // iterations without a gain of δ / 2 before δ halves
  double step_factor = 0.2;    // the first multiple of Polyak's step
  double averaging = 0.03;     // the most weight a new occupancy gets in the average
  int restarts = 3;            // times to start again once δ falls to the tolerance
  double restart_delta = 0.01; // δ of a restart, as a share of |best L|
  std::vector<double> start;   // initial prices (empty: 0)
};

struct LagrangianResult {
  double value = 0;                // the best L(λ) seen: a valid lower bound, in units
  std::vector<double> price;       // the prices that gave `value`
  std::vector<std::uint8_t> kept;  // their minimiser
  int iterations = 0;
};

// Raises L(λ) by the volume algorithm, a subgradient method (docs/model/optimal.md); every
// iterate's L(λ) is a valid bound and the best is returned.
LagrangianResult maximize_lagrangian(const ChainProblem& p, const LagrangianOptions& options);

}  // namespace dnnmem
