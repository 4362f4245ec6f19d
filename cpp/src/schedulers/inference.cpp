// Scheduler `inference`: forward steps only — no loss, no backward, no gradients. Inputs and
// weights start off-chip (as in training) and the network's outputs must end off-chip, since
// they are what the inference computes.
#include "dnnmem/compose.hpp"
#include "steps.hpp"

namespace dnnmem {

extern const SchedulerPart scheduler_inference{
    "inference",
    "forward pass only (no loss, no backward); the outputs must end off-chip",
    detail::order_options(),
    [](const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out) {
      detail::StepRules rules;
      rules.training = false;
      detail::read_order(own, rules);
      detail::build_steps(net, options, rules, out);
    }};

}  // namespace dnnmem
