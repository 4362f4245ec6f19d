// The step builder the schedulers share (cpp/src/schedule.cpp): each scheduler part picks its
// rules and lets it build the steps, the tensors and their use lists.
#pragma once

#include "dnnmem/schedule.hpp"

namespace dnnmem::detail {

struct StepRules {
  bool training = true;         // a loss step per output and the backward pass; else forward
                                // only, and the outputs must end off-chip
  bool split_backward = false;  // a GEMM layer's backward as a dX step and a dW step
  bool weight_first = false;    // with split_backward: the dW step before the dX step
};

// Fills `out` (empty) with steps, accesses, tensors and uses, and sets its capabilities.
void build_steps(const Network& net, const ScheduleOptions& options, const StepRules& rules,
                 Schedule& out);

// Drops the tensors nobody uses, orders the rest as SPEC §3 says (first full use, role, position
// in that step) and builds the use lists, renumbering the accesses. For a scheduler that fills
// steps, accesses and tensors itself (mbs_builder.cpp).
void finish_tensors(Schedule& s);

}  // namespace dnnmem::detail
