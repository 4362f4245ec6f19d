// Mini-batch serialization (docs/model/mbs.md): the layer grouping and the expansion of the
// default training iteration into steps over sub-batch slices. Used by scheduler `mbs`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dnnmem/fusion.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem::detail {

enum class MbsVariant : std::uint8_t { FixedSize, Greedy, Branch };  // fs, mbs1, mbs2
enum class MbsGrouping : std::uint8_t { Greedy, Exact };              // greedy, dp

struct MbsRules {
  MbsVariant variant = MbsVariant::Branch;
  MbsGrouping grouping = MbsGrouping::Greedy;
  std::int64_t buffer = 0;  // bytes of on-chip buffer the grouping plans for
  bool training_footprint = false;  // footprints include the backward pass (footprint=training)
  FusionLevel fusion = FusionLevel::None;  // the steps serialized are those of this fusion level
};

// A unit: a run of forward positions with exactly one tensor crossing each of its two ends, the
// smallest thing a group boundary may not cut (a layer, or a whole multi-branch block).
struct MbsUnit {
  int first = 0, last = 0;        // forward positions [first, last]
  std::int64_t footprint = 0;     // bytes per sample (rule F of docs/model/mbs.md)
  int worst_layer = -1;           // the layer where the footprint peaks
  std::int64_t iterations = 1;    // n_min: the fewest sub-batches that fit the buffer
  std::int64_t weight_slope = 0;  // grouping cost of its weights: slope * n + offset bytes
  std::int64_t weight_offset = 0;
  std::int64_t boundary = 0;      // grouping cost of cutting after it (0 for the last unit)
};

// The units of the default schedule `base` of `net` for this variant and buffer; throws
// std::invalid_argument naming the layer when one sample of it does not fit the buffer.
std::vector<MbsUnit> mbs_units(const Network& net, const Schedule& base, const MbsRules& rules);

// The grouping cost of units [i, j] as one group (docs/model/mbs.md, "Grouping").
std::int64_t mbs_group_cost(const std::vector<MbsUnit>& units, std::size_t i, std::size_t j);

// Groups as runs of units: the index of each group's first unit.
std::vector<std::size_t> mbs_group_units(const std::vector<MbsUnit>& units, const MbsRules& rules);

// The most tensor accesses a serialized iteration may make (each step once per sub-batch of its
// group): a schedule holds about 180 bytes per access (steps, accesses, tensors, uses and their
// index), 6 GB at this limit, before any plan. ResNet-50 at batch 16,384 makes 10 M (2^23.3).
inline constexpr std::int64_t kMaxSerializedAccesses = std::int64_t{1} << 25;

// Fills `out` (empty) with the serialized iteration (steps, accesses, tensors, uses, groups);
// throws std::invalid_argument, before building, when it would make more than
// kMaxSerializedAccesses accesses.
void build_mbs(const Network& net, const ScheduleOptions& options, const MbsRules& rules,
               Schedule& out);

}  // namespace dnnmem::detail
