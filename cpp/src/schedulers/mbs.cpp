// Scheduler `mbs`: mini-batch serialization (docs/model/mbs.md). The mini-batch is split into
// sub-batches per group of layers so that a group's inter-layer data for one sub-batch fits the
// buffer it plans for; each step is a default step run on one sub-batch, over slice tensors.
#include "dnnmem/compose.hpp"
#include "mbs_builder.hpp"
#include "steps.hpp"

namespace dnnmem {

extern const SchedulerPart scheduler_mbs{
    "mbs",
    "mini-batch serialization: sub-batches per layer group sized to a buffer, steps over slices",
    {choice_option("variant", "fs: one sub-batch size for all layers; mbs1: per group, layer by layer "
                              "footprints; mbs2: per group, footprints that keep branch data on chip",
                   "mbs2", {"fs", "mbs1", "mbs2"}),
     number_option("buffer", "bytes", "on-chip buffer the grouping plans for", 10.0 * (1 << 20), 1,
                   1e18),
     choice_option("grouping", "greedy: the paper's merging; dp: the cheapest grouping (exact)",
                   "greedy", {"greedy", "dp"}),
     choice_option("footprint", "forward: size sub-batches on the forward pass (the paper); training: "
                                "on the forward and the backward pass",
                   "forward", {"forward", "training"}),
     detail::fusion_option()},
    [](const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out) {
      detail::MbsRules rules;
      const std::string& v = own.choice("variant");
      rules.variant = v == "fs"     ? detail::MbsVariant::FixedSize
                      : v == "mbs1" ? detail::MbsVariant::Greedy
                                    : detail::MbsVariant::Branch;
      rules.grouping = own.choice("grouping") == "dp" ? detail::MbsGrouping::Exact : detail::MbsGrouping::Greedy;
      rules.buffer = static_cast<std::int64_t>(own.number("buffer"));
      rules.training_footprint = own.choice("footprint") == "training";
      rules.fusion = *fusion_level_from_name(own.choice("fusion"));
      detail::build_mbs(net, options, rules, out);
    }};

}  // namespace dnnmem
