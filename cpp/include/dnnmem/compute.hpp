// How long a step computes. A compute-model part prepares one ComputeModel per schedule: each
// step's work expressed as the FLOPs that would take exactly as long at the design point's peak
// throughput. A step then computes for work / throughput seconds, exactly as the thesis's
// FLOPs / throughput when work = FLOPs, so sweeping throughput keeps its meaning (for a
// systolic array it scales the clock).
#pragma once

#include <cstdint>
#include <vector>

namespace dnnmem {

struct Schedule;

struct ComputeModel {
  std::vector<std::int64_t> work;  // per step: peak-equivalent FLOPs
  // The on-chip (scratchpad) bandwidth floor, option `spm_bandwidth` (docs/model/onsram.md,
  // rule O1): a step computes for at least spm_bytes / spm_bandwidth seconds, its operands'
  // bytes read from and written to the scratchpad. 0 (the default): no floor, spm_bytes empty.
  std::int64_t spm_bandwidth = 0;       // bytes/s, whole
  std::vector<std::int64_t> spm_bytes;  // per step: Σ bytes of its reads and writes
};

// Fills m's scratchpad floor from the option `spm_bandwidth` (bytes/s, 0 = off).
void set_spm_floor(ComputeModel& m, const Schedule& s, double spm_bandwidth);

}  // namespace dnnmem
