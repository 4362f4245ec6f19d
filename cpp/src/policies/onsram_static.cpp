// `onsram-static` (docs/model/onsram.md, rules O6-O7): OnSRAM-Static's data-structure pinning.
// Each candidate (rule O2) gets a figure of merit, the time pinning it alone saves at the
// baseline's step times (memory-boundedness x impact) per byte, discounted by its unused
// liveness; candidates are visited in decreasing FoM and pinned for their whole live interval
// when they fit at every step of it (capacity less `reserve`), else left in DRAM for good.
// Pair it with the scheduler option order=hybrid for the paper's node order.
#include <algorithm>
#include <limits>

#include "dnnmem/compose.hpp"
#include "pinning.hpp"
#include "range_tree.hpp"

namespace dnnmem {
namespace {

struct Candidate {
  double fom = 0;
  int start = 0, end = 0, tensor = -1;
};

void plan_onsram_static(const PlanInput& in, PlanScratch& w, Plan& plan) {
  const Schedule& s = in.schedule;
  const UseIndex& x = s.index;
  const std::size_t nt = s.tensors.size(), n = s.steps.size();
  const double alpha = in.options->number("alpha");
  const std::int64_t room = in.capacity - static_cast<std::int64_t>(in.options->number("reserve"));

  // The baseline's streamed ticks per step (every access streamed) and its step times.
  std::vector<Ticks> streamed(n, 0), base(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Step& st = s.steps[i];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      streamed[i] += (a.read ? in.transfer_ticks(a.tensor, a.bytes, true) : 0) +
                     (a.write ? in.transfer_ticks(a.tensor, a.bytes, false) : 0);
    }
    base[i] = std::max(in.compute[i], streamed[i]);
  }

  std::vector<Candidate> cands;
  for (std::size_t t = 0; t < nt; ++t) {
    if (!detail::pin_candidate(s, t)) continue;
    const std::int64_t size = s.tensors[t].bytes;
    Ticks saved = 0;
    const int f0 = x.full_begin[t], f1 = x.full_begin[t + 1];
    for (int f = f0; f < f1; ++f) {
      const auto i = static_cast<std::size_t>(x.full_step[static_cast<std::size_t>(f)]);
      const Ticks d = detail::pin_first_load(s, t, f)
                          ? 0
                          : (x.full_read[static_cast<std::size_t>(f)] ? in.transfer_ticks(static_cast<int>(t), size, true) : 0) +
                                (x.full_write[static_cast<std::size_t>(f)] ? in.transfer_ticks(static_cast<int>(t), size, false) : 0);
      saved += base[i] - std::max(in.compute[i], streamed[i] - d);
    }
    if (saved <= 0) continue;  // compute-bound at every use: pinning saves nothing
    const int start = detail::pin_start(s, t), end = detail::pin_end(s, t);
    const double unused = static_cast<double>((end - start + 1) - (f1 - f0));
    const double fom = size == 0 ? std::numeric_limits<double>::infinity()
                                 : static_cast<double>(saved) /
                                       (static_cast<double>(size) * (1.0 + alpha * unused));
    cands.push_back({fom, start, end, static_cast<int>(t)});
  }
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.fom != b.fom) return a.fom > b.fom;
    if (a.start != b.start) return a.start < b.start;
    return a.tensor < b.tensor;
  });

  detail::RangeTree occ(n, w.tree);
  w.cached.assign(nt, 0);
  for (const Candidate& c : cands) {
    const std::int64_t size = s.tensors[static_cast<std::size_t>(c.tensor)].bytes;
    if (occ.max(c.start, c.end) + size > room) continue;
    occ.add(c.start, c.end, size);
    w.cached[static_cast<std::size_t>(c.tensor)] = 1;
  }
  detail::plan_pinned(s, w.cached, w.resident_diff, plan);
}

}  // namespace

extern const CachePart cache_onsram_static{
    "onsram-static",
    "OnSRAM-Static: pin activations for their whole live interval, greedily in figure-of-merit order",
    {number_option("alpha", "", "weight of unused liveness (steps) in the figure of merit", 1.0, 0,
                   1e9),
     number_option("reserve", "bytes", "capacity held back at every step (staging buffers)", 0, 0,
                   1e18)},
    0, &plan_onsram_static};

}  // namespace dnnmem
