// Scheduler `split-backward`: the training iteration with each conv / depthwise / dense layer's
// backward (and a matmul's, when both operands need a gradient) as two steps, dX = dY·Wᵀ and
// dW = Xᵀ·dY, each reading dY. The baseline of the interleaved-gradient-order paper (an NPU that
// runs the two GEMMs one after the other fetches dY twice unless it stays on chip).
#include "dnnmem/compose.hpp"
#include "steps.hpp"

namespace dnnmem {

extern const SchedulerPart scheduler_split_backward{
    "split-backward",
    "training iteration with each GEMM layer's backward as a dX step and a dW step, each reading dY",
    {choice_option("first", "which gradient step runs first", "dx", {"dx", "dw"})},
    [](const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out) {
      detail::StepRules rules;
      rules.split_backward = true;
      rules.weight_first = own.choice("first") == "dw";
      detail::build_steps(net, options, rules, out);
    }};

}  // namespace dnnmem
