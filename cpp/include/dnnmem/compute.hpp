// How long a step computes. A compute-model part prepares one ComputeModel per schedule: each
// step's work expressed as the FLOPs that would take exactly as long at the design point's peak
// throughput. A step then computes for work / throughput seconds, exactly as the thesis's
// FLOPs / throughput when work = FLOPs, so sweeping throughput keeps its meaning (for a
// systolic array it scales the clock).
#pragma once

#include <cstdint>
#include <vector>

namespace dnnmem {

struct ComputeModel {
  std::vector<std::int64_t> work;  // per step: peak-equivalent FLOPs
};

}  // namespace dnnmem
