// The step builder the schedulers share (cpp/src/schedule.cpp): each scheduler part picks its
// rules and lets it build the steps, the tensors and their use lists.
#pragma once

#include <cstdint>
#include <string_view>

#include "dnnmem/fusion.hpp"
#include "dnnmem/options.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem::detail {

struct StepRules {
  bool training = true;         // a loss step per output and the backward pass; else forward
                                // only, and the outputs must end off-chip
  bool split_backward = false;  // a GEMM layer's backward as a dX step and a dW step
  bool weight_first = false;    // with split_backward: the dW step before the dX step
  // The forward order (docs/model/onsram.md, rule O9): the thesis's depth-first order, OnSRAM's
  // hybrid BFS-DFS, plain breadth-first (the hybrid without its depth-first part), or a random
  // topological order drawn from `seed`.
  enum class Order : std::uint8_t { Thesis, Hybrid, Bfs, Random };
  Order order = Order::Thesis;
  std::uint64_t seed = 0;
  // Which layers run as one step (docs/model/fusion.md): none keeps one step per layer and pass.
  FusionLevel fusion = FusionLevel::None;
  // Batch norms normalise with statistics over the whole batch (the fusion stage's statistics
  // cut); false where they are per sample (mbs runs them as group norm).
  bool batch_statistics = true;
};

// The option `fusion` every scheduler takes (the fusion stage, docs/model/fusion.md).
inline OptionSpec fusion_option() {
  return choice_option("fusion", "operator fusion: none (one step per layer), pointwise (point-wise "
                       "layers fused, as Inductor / XLA in training), accelerator (also each "
                       "convolution or matrix product with its point-wise consumers)",
                       "none", {"none", "pointwise", "accelerator"});
}
inline void read_fusion(const Options& own, StepRules& rules) {
  rules.fusion = *fusion_level_from_name(own.choice("fusion"));
}

// The scheduler options `order` and `seed` (rule O9), and reading them into the rules.
inline std::vector<OptionSpec> order_options() {
  return {choice_option("order", "forward node order: thesis (depth-first with joins), hybrid "
                        "(OnSRAM's BFS-DFS), bfs (breadth-first: ready layers in release order), "
                        "random (a topological order from seed)",
                        "thesis", {"thesis", "hybrid", "bfs", "random"}),
          integer_option("seed", "random order: the seed", 0, 0, 9007199254740992.0),
          fusion_option()};
}
inline void read_order(const Options& own, StepRules& rules) {
  const std::string& o = own.choice("order");
  rules.order = o == "hybrid"   ? StepRules::Order::Hybrid
                : o == "bfs"    ? StepRules::Order::Bfs
                : o == "random" ? StepRules::Order::Random
                                : StepRules::Order::Thesis;
  rules.seed = static_cast<std::uint64_t>(own.integer("seed"));
  read_fusion(own, rules);
}

// Fills `out` (empty) with steps, accesses, tensors and uses, and sets its capabilities.
void build_steps(const Network& net, const ScheduleOptions& options, const StepRules& rules,
                 Schedule& out);

// Merges each fusion group's steps of `s`, an unfused iteration whose tensors are not finished
// yet, into one step (cpp/src/fusion_steps.cpp); y[l] is layer l's output tensor.
void fuse_steps(const Network& net, const FusionGroups& groups, const std::vector<int>& y, Schedule& s);

// Drops the tensors nobody uses, orders the rest as SPEC §3 says (first full use, role, position
// in that step) and builds the use lists, renumbering the accesses. For a scheduler that fills
// steps, accesses and tensors itself (mbs_builder.cpp).
void finish_tensors(Schedule& s);

// The index of full uses of a finished schedule (schedule_uses.cpp): what build_schedule stores
// in Schedule::index.
UseIndex index_uses(const Schedule& s);
// Cuts the steps into blocks that repeat earlier ones (UseIndex::blocks; schedule_repeats.cpp).
void find_repeats(const Schedule& s, UseIndex& x);

}  // namespace dnnmem::detail
