// Stage 5 of the pipeline (SPEC §7). For now: the workload characterisation that needs no
// hardware — reuse frequency per step (thesis Eq. 3.3 / 3.4) and attainable performance (Eq. 5.1).
#pragma once

#include <vector>

#include "dnnmem/schedule.hpp"

namespace dnnmem {

// rf(step) = FLOPs(step) / Σ bytes its accesses move (a partial access counts the rows it
// moves). FLOP/byte; NaN for a step with no access (B of an add).
std::vector<double> reuse_frequency(const Schedule& s, int ops_per_mac = 2);

// Eq. 5.1: min(throughput, rf · bandwidth), FLOP/s.
double attainable_performance(double reuse_frequency, double bandwidth, double throughput);

}  // namespace dnnmem
