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

// A candidate for pinning (rule O6): a tensor's full uses [f0, f1) over steps [start, end].
struct Candidate {
  double fom = 0;
  int start = 0, end = 0, tensor = -1, f0 = 0, f1 = 0;
  std::int64_t size = 0;  // the tensor's bytes, kept here: the Tensor records are large and
                          // visited in figure-of-merit order, i.e. at random
};

// Rule O6's figure of merit: the ticks pinning saves per byte, discounted by the steps of the
// interval with no use of the tensor.
double figure_of_merit(Ticks saved, std::int64_t size, double alpha, int start, int end, int uses) {
  const double unused = static_cast<double>((end - start + 1) - uses);
  return size == 0 ? std::numeric_limits<double>::infinity()
                   : static_cast<double>(saved) / (static_cast<double>(size) * (1.0 + alpha * unused));
}

// Rule O7's order: decreasing figure of merit, then start step, then tensor.
bool by_fom(const Candidate& a, const Candidate& b) {
  if (a.fom != b.fom) return a.fom > b.fom;
  if (a.start != b.start) return a.start < b.start;
  return a.tensor < b.tensor;
}

// Rule O7: pins c when it fits at every step of its interval in `room` (asked and added in
// one visit of the tree).
bool try_pin(detail::RangeTree& occ, const Candidate& c, std::int64_t room) {
  return occ.add_unless_above(c.start, c.end, room - c.size, c.size);
}

void plan_onsram_static_split(const PlanInput& in, PlanScratch& w, Plan& plan);

// Rule O6's candidates in rule O7's order. Their figures of merit depend on the schedule, the
// link and the time base, never on the capacity, so a sweep's capacity axis derives them once
// (PlanScratch::same_input) and each point only walks them (GNMT: the sort was 14 % of a point).
struct StaticTables {
  std::vector<Candidate> cands;
};

void derive_candidates(const PlanInput& in, std::vector<Candidate>& cands) {
  const Schedule& s = in.schedule;
  const UseIndex& x = s.index;
  const std::size_t nt = s.tensors.size();
  const double alpha = in.options->number("alpha");

  // The baseline's streamed ticks per step (every access streamed) and its step times.
  std::vector<Ticks> streamed, base;
  detail::streamed_baseline(in, streamed, base);

  cands.clear();
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
    cands.push_back({figure_of_merit(saved, size, alpha, start, end, f1 - f0), start, end,
                     static_cast<int>(t), f0, f1, size});
  }
  std::sort(cands.begin(), cands.end(), by_fom);
}

void plan_onsram_static(const PlanInput& in, PlanScratch& w, Plan& plan) {
  if (in.options->choice("split") == "phase") {
    w.same_input = false;  // (derives afresh: PlanScratch)
    return plan_onsram_static_split(in, w, plan);
  }
  const Schedule& s = in.schedule;
  const std::size_t nt = s.tensors.size(), n = s.steps.size();
  const std::int64_t room = in.capacity - static_cast<std::int64_t>(in.options->number("reserve"));
  const StaticTables& tables =
      derived_tables<StaticTables>(w, [&](StaticTables& t) { derive_candidates(in, t.cands); });

  // Probing (PlanScratch::probe_capacity): a pin is the only decision that reads the capacity,
  // the occupancy before it depends only on the pins before it, and only a rejection can flip at
  // a larger capacity; so the plan there is this one unless a rejected candidate would fit.
  bool probe = w.probe_capacity > in.capacity;
  const std::int64_t probe_room = room + (w.probe_capacity - in.capacity);
  detail::RangeTree occ(n, w.tree);
  w.cached.assign(nt, 0);
  for (const Candidate& c : tables.cands) {
    if (try_pin(occ, c, room)) {
      w.cached[static_cast<std::size_t>(c.tensor)] = 1;
    } else if (probe && !occ.any_above(c.start, c.end, probe_room - c.size)) {
      probe = false;  // pinned at the probed capacity: the plans differ
    }
  }
  detail::plan_pinned(s, w.cached, w.resident_diff, plan);
  w.probe_same = probe;
}

// split=phase (docs/model/onsram.md, rule O10): first O6-O7 exactly (whole live intervals); then,
// in the room left, each candidate not pinned whole is cut into two segments, its forward uses
// and its loss-and-backward uses, each a candidate of its own in figure-of-merit order. A pinned
// segment is resident from its first use to its last; its uses move nothing but (a) its first
// use, when that reads, loads the tensor (its data is in DRAM between segments; a network
// input's first read as in O2) and (b) its last use stores the tensor when the segment wrote it
// and later uses exist. A segment's figure of merit is O6's with these loads and stores charged.
void plan_onsram_static_split(const PlanInput& in, PlanScratch& w, Plan& plan) {
  const Schedule& s = in.schedule;
  const UseIndex& x = s.index;
  const std::size_t nt = s.tensors.size(), n = s.steps.size();
  const double alpha = in.options->number("alpha");
  const std::int64_t room = in.capacity - static_cast<std::int64_t>(in.options->number("reserve"));
  const auto fs = [](int f) { return static_cast<std::size_t>(f); };

  std::vector<Ticks> streamed, base;
  detail::streamed_baseline(in, streamed, base);

  // Per full use of a pinned segment: 1 = on chip, |2 = loads, |4 = stores after it.
  std::vector<std::uint8_t>& how = w.state;
  how.assign(x.full_step.size(), 0);
  const auto flags = [&](std::size_t t, int f0, int f1, int f) {
    std::uint8_t h = 1;
    const bool read = x.full_read[fs(f)];
    if (f == f0 && read && !(f0 == x.full_begin[t] && !s.tensors[t].starts_offchip)) h |= 2;
    if (f == f1 - 1 && f1 < x.full_begin[t + 1]) {
      bool dirty = false;
      for (int g = f0; g < f1; ++g) dirty = dirty || x.full_write[fs(g)];
      if (dirty) h |= 4;
    }
    return h;
  };
  // A segment's figure of merit (O6 with the segment's charges); 0 when it saves nothing.
  const auto segment = [&](std::size_t t, int f0, int f1) {
    const std::int64_t size = s.tensors[t].bytes;
    const Ticks load = in.transfer_ticks(static_cast<int>(t), size, true);
    const Ticks store = in.transfer_ticks(static_cast<int>(t), size, false);
    Ticks saved = 0;
    for (int f = f0; f < f1; ++f) {
      const auto i = fs(x.full_step[fs(f)]);
      const std::uint8_t h = flags(t, f0, f1, f);
      const Ticks avoided = (x.full_read[fs(f)] && !(h & 2) ? load : 0) +
                            (x.full_write[fs(f)] ? store : 0);
      const Ticks added = (h & 4) ? store : 0;
      saved += base[i] - std::max(in.compute[i], streamed[i] - avoided + added);
    }
    Candidate c{0, x.full_step[fs(f0)], x.full_step[fs(f1 - 1)], static_cast<int>(t), f0, f1, size};
    if (saved > 0) c.fom = figure_of_merit(saved, size, alpha, c.start, c.end, f1 - f0);
    return c;
  };
  detail::RangeTree occ(n, w.tree);
  std::vector<Candidate> cands, chosen;
  // Pass 1: whole live intervals, O6-O7 exactly.
  for (std::size_t t = 0; t < nt; ++t) {
    if (!detail::pin_candidate(s, t)) continue;
    const Candidate c = segment(t, x.full_begin[t], x.full_begin[t + 1]);
    if (c.fom > 0) cands.push_back(c);
  }
  std::sort(cands.begin(), cands.end(), by_fom);
  w.cached.assign(nt, 0);
  for (const Candidate& c : cands) {
    if (!try_pin(occ, c, room)) continue;
    chosen.push_back(c);
    w.cached[static_cast<std::size_t>(c.tensor)] = 1;
  }
  // Pass 2: the forward and the loss-and-backward segments of the candidates not pinned whole,
  // in the room left.
  cands.clear();
  for (std::size_t t = 0; t < nt; ++t) {
    if (!detail::pin_candidate(s, t) || w.cached[t]) continue;
    const int f0 = x.full_begin[t], f1 = x.full_begin[t + 1];
    int cut = f0;
    while (cut < f1 && s.steps[fs(x.full_step[fs(cut)])].phase == Phase::Forward) ++cut;
    if (cut == f0 || cut == f1) continue;  // one segment: the whole interval, already decided
    for (const Candidate& c : {segment(t, f0, cut), segment(t, cut, f1)})
      if (c.fom > 0) cands.push_back(c);
  }
  std::sort(cands.begin(), cands.end(), by_fom);
  for (const Candidate& c : cands)
    if (try_pin(occ, c, room)) chosen.push_back(c);
  std::sort(chosen.begin(), chosen.end(),
            [](const Candidate& a, const Candidate& b) { return a.f0 < b.f0; });  // tensor, then use

  std::vector<std::int64_t>& diff = w.resident_diff;
  detail::start_pin_plan(n, diff, plan);
  int last = -1;
  for (const Candidate& c : chosen) {
    const auto t = static_cast<std::size_t>(c.tensor);
    for (int f = c.f0; f < c.f1; ++f) how[fs(f)] = flags(t, c.f0, c.f1, f);
    diff[static_cast<std::size_t>(c.start)] += s.tensors[t].bytes;
    diff[static_cast<std::size_t>(c.end) + 1] -= s.tensors[t].bytes;
    plan.pins.push_back({c.tensor, c.start, c.end});
    plan.counts.kept += c.f1 - c.f0 - 1;
    if (c.tensor != last) ++plan.counts.born;
    last = c.tensor;
  }
  detail::emit_pin_plan(s, diff, plan, [&](std::size_t ai, int) {
    const Access& a = s.accesses[ai];
    const int f = x.access_full[ai];
    const std::uint8_t h = f < 0 ? 0 : how[fs(f)];
    if (!h) return (a.read ? detail::kLoads : 0) | (a.write ? detail::kStores : 0);
    return ((h & 2) ? detail::kLoads : 0) | ((h & 4) ? detail::kStores : 0);
  });
}

}  // namespace

extern const CachePart cache_onsram_static{
    "onsram-static",
    "OnSRAM-Static: pin activations for their whole live interval, greedily in figure-of-merit order",
    {number_option("alpha", "", "weight of unused liveness (steps) in the figure of merit", 1.0, 0,
                   1e9),
     number_option("reserve", "bytes", "capacity held back at every step (staging buffers)", 0, 0,
                   1e18),
     choice_option("split", "pin each tensor for its whole live interval (none) or its uses in "
                   "each phase separately (phase: forward, loss, backward)", "none",
                   {"none", "phase"})},
    0, &plan_onsram_static};

}  // namespace dnnmem
