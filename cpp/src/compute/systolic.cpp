// Compute model `systolic`: an R x C array of MAC units (or several) at a clock, with a dataflow
// (docs/model/compute-systolic.md). A step's GEMMs (Schedule::gemms) run on the array for SCALE-
// Sim's compute cycles, or a pipelined / double-buffered array's (options waves, tile); the rest
// of its FLOPs (bias adds, and every FLOP of a step that is not a GEMM: activations, norms,
// pooling, the loss) run on a vector unit at `vector` × the peak.
// The clock is not an option: the design point's throughput is the array's peak,
// ops_per_mac · R · C · arrays · clock, so sweeping throughput scales the clock.
#include <stdexcept>
#include <string>

#include "../exact.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/systolic.hpp"

namespace dnnmem {
namespace {

ComputeModel prepare_systolic(const Schedule& s, const Options& own, int ops_per_mac) {
  SystolicArray array;
  array.rows = own.integer("rows");
  array.cols = own.integer("cols");
  array.dataflow = *dataflow_from_name(own.choice("dataflow"));
  array.waves = *waves_from_name(own.choice("waves"));
  array.tile = own.integer("tile");
  const std::int64_t arrays = own.integer("arrays");
  if (array.waves != Waves::Folds && array.dataflow == Dataflow::OutputStationary)
    throw std::invalid_argument("compute model 'systolic': waves=" + std::string(own.choice("waves")) +
                                " needs a preloaded operand (dataflow=ws or is); output stationary "
                                "preloads nothing");
  const double vector = own.number("vector");
  // One array cycle is worth ops_per_mac · R · C · arrays FLOPs at peak (< 2^62 by the ranges).
  const std::int64_t per_cycle = ops_per_mac * array.rows * array.cols * arrays;
  ComputeModel m;
  m.work.reserve(s.steps.size());
  for (const Step& st : s.steps) {
    std::int64_t cycles = 0;
    for (int g = st.first_gemm; g < st.first_gemm + st.num_gemms; ++g) {
      // The arrays share the waves of each of the step's GEMMs (systolic.hpp).
      cycles += systolic_cycles(s.gemms[static_cast<std::size_t>(g)], array, arrays);
    }
    // FLOPs outside the GEMMs: all of a non-GEMM step's, the non-MAC ones of a GEMM step.
    const std::int64_t vector_flops = st.num_gemms > 0 ? st.ops.flops : st.ops.total(ops_per_mac);
    const Ticks work = static_cast<Ticks>(cycles) * per_cycle + detail::ceil_div_ratio_wide(vector_flops, vector);
    if (work > (Ticks{1} << 62))
      throw std::invalid_argument("compute model 'systolic': a step's compute time is too large to "
                                  "count exactly");
    m.work.push_back(static_cast<std::int64_t>(work));
  }
  set_spm_floor(m, s, own.number("spm_bandwidth"));
  return m;
}

}  // namespace

extern const ComputePart compute_systolic{
    "systolic",
    "R x C systolic array(s) with a dataflow for GEMMs (SCALE-Sim cycles), a vector unit for the "
    "rest; throughput = the arrays' peak",
    {integer_option("rows", "array height R (MAC units)", 128, 1, 1 << 16),
     integer_option("cols", "array width C (MAC units)", 128, 1, 1 << 16),
     choice_option("dataflow", "ws (weight stationary), os (output stationary), is (input stationary)",
                   "ws", {"ws", "os", "is"}),
     choice_option("waves",
                   "how consecutive waves meet: folds (SCALE-Sim: each drains), pipelined (no drain, "
                   "each waits R cycles for its weights), double-buffered (no gap: the next weights "
                   "load during the current wave; WaveCore's ArchOpt)",
                   "folds", {"folds", "pipelined", "double-buffered"}),
     integer_option("tile", "lines of the streamed dimension per wave (WaveCore: 256); 0: all of it",
                    0, 0, 1099511627776.0),
     integer_option("arrays", "arrays sharing each step's folds (e.g. cores)", 1, 1, 1024),
     number_option("vector", "", "vector unit throughput as a share of the peak (non-GEMM FLOPs)", 1.0,
                   1.0 / 64, 1.0),
     number_option("spm_bandwidth", "bytes/s",
                   "on-chip (scratchpad) bandwidth: a step lasts at least its operands' bytes / it "
                   "(0: not modelled)", 0, 0, 1e18)},
    &prepare_systolic};

}  // namespace dnnmem
