// Scheduler `default`: the thesis's training iteration (SPEC §3), one step per layer and pass.
#include "dnnmem/compose.hpp"
#include "steps.hpp"

namespace dnnmem {

extern const SchedulerPart scheduler_default{
    "default",
    "training iteration, one step per layer: forward (depth-first with joins), loss, backward",
    detail::order_options(),
    [](const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out) {
      detail::StepRules rules;
      detail::read_order(own, rules);
      detail::build_steps(net, options, rules, out);
    }};

}  // namespace dnnmem
