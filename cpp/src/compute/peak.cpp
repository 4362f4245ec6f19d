// Compute model `peak`: a step computes for FLOPs / throughput (the thesis).
#include "dnnmem/compose.hpp"

namespace dnnmem {

extern const ComputePart compute_peak{
    "peak", "FLOPs / peak throughput (thesis)", {},
    [](const Schedule& s, const Options&, int ops_per_mac) {
      ComputeModel m;
      m.work.reserve(s.steps.size());
      for (const Step& st : s.steps) m.work.push_back(st.ops.total(ops_per_mac));
      return m;
    }};

}  // namespace dnnmem
