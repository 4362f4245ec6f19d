// Compute model `peak`: a step computes for FLOPs / throughput (the thesis). With `vector` < 1,
// FLOPs that are not a GEMM's multiply-accumulates (a non-GEMM step's, and a GEMM step's bias
// adds) run on a vector unit at that share of the peak instead, as on an accelerator whose
// matrix engine is the peak (the OnSRAM paper's 3 TFLOP array beside a 375 GFLOP SIMD unit:
// vector = 0.125).
#include "../exact.hpp"
#include "dnnmem/compose.hpp"

namespace dnnmem {
namespace {

ComputeModel prepare(const Schedule& s, const Options& own, int ops_per_mac) {
  const double vector = own.number("vector");
  ComputeModel m;
  m.work.reserve(s.steps.size());
  for (const Step& st : s.steps) {
    if (vector == 1.0) {
      m.work.push_back(st.ops.total(ops_per_mac));
    } else {
      const std::int64_t matrix = st.num_gemms > 0 ? ops_per_mac * st.ops.macs : 0;
      m.work.push_back(matrix + detail::ceil_div_ratio(st.ops.total(ops_per_mac) - matrix, vector));
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
    &prepare};

}  // namespace dnnmem
