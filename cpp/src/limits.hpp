// The checks behind the limits of schedule.hpp (kMaxIteration*): build_schedule calls the first
// before building the steps and the second after. The bounds and why they suffice: limits.cpp.
#pragma once

#include "dnnmem/schedule.hpp"

namespace dnnmem {

// Throws std::invalid_argument naming the layer if one of its steps exceeds 2^62 bytes or
// FLOPs at this batch, or if the network could make more than kMaxIterationAccesses accesses.
void check_layer_limits(const Network& net, const ScheduleOptions& options);

// Throws std::invalid_argument naming the quantity and the batch if the bytes of all accesses
// or of all tensors exceed kMaxIterationBytes, or the FLOPs of all steps kMaxIterationFlops.
void check_iteration_limits(const Schedule& s);

}  // namespace dnnmem
