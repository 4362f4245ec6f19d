// Compute model `peak`: a step computes for FLOPs / throughput (the thesis). With `vector` < 1,
// FLOPs that are not a GEMM's multiply-accumulates (a non-GEMM step's, and a GEMM step's bias
// adds) run on a vector unit at that share of the peak instead, as on an accelerator whose
// matrix engine is the peak (the OnSRAM paper's 3 TFLOP array beside a 375 GFLOP SIMD unit:
// vector = 0.125).
#include <stdexcept>

#include "../exact.hpp"
#include "dnnmem/compose.hpp"

namespace dnnmem {
namespace {

ComputeModel prepare_peak(const Schedule& s, const Options& own, int ops_per_mac) {
  const double vector = own.number("vector");
  ComputeModel m;
  m.work.reserve(s.steps.size());
  for (const Step& st : s.steps) {
    if (vector == 1.0) {
      m.work.push_back(st.ops.total(ops_per_mac));
    } else {
      // Up to 64 times the step's FLOPs (vector >= 1/64): counted in 128 bits, then bounded
      // as every step's work is (the iteration's, prepare_policy).
      const std::int64_t matrix = st.num_gemms > 0 ? ops_per_mac * st.ops.macs : 0;
      const Ticks work = matrix + detail::ceil_div_ratio_wide(st.ops.total(ops_per_mac) - matrix, vector);
      if (work > (Ticks{1} << 62))
        throw std::invalid_argument("compute model 'peak': option 'vector' makes a step's compute "
                                    "time too large to count exactly (more than 2^62 "
                                    "peak-equivalent FLOPs): raise vector");
      m.work.push_back(static_cast<std::int64_t>(work));
    }
  }
  set_spm_floor(m, s, own.number("spm_bandwidth"));
  return m;
}

}  // namespace

extern const ComputePart compute_peak{
    "peak", "FLOPs / peak throughput (thesis); optionally non-GEMM FLOPs on a slower vector unit",
    {number_option("vector", "", "vector unit throughput as a share of the peak (non-GEMM FLOPs)",
                   1.0, 1.0 / 64, 1.0),
     number_option("spm_bandwidth", "bytes/s",
                   "on-chip (scratchpad) bandwidth: a step lasts at least its operands' bytes / it "
                   "(0: not modelled)", 0, 0, 1e18)},
    &prepare_peak};

}  // namespace dnnmem
