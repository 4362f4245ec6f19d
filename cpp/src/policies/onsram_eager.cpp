// `onsram-eager-wb` and `onsram-eager-spec` (docs/model/onsram.md, rules E1-E7): OnSRAM-Eager,
// which sees the steps one at a time (no graph) and predicts from a history buffer of recent
// step patterns whether to keep each output on chip and for how long. W/B always writes the
// output back as well; Spec writes back only outputs whose prediction is not yet stable, and on
// a read after a dropped output's predicted lifetime re-executes its producer (recursively, for
// inputs lost too). The two parts share this file: they differ in one rule (E6).
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "dnnmem/compose.hpp"
#include "pinning.hpp"
#include "range_tree.hpp"

namespace dnnmem {
namespace {

// What OnSRAM-Eager decides without the capacity: which tensors are candidates (rule E2) and,
// for each candidate at its producing step, the liveness and stability its history buffer
// predicts (rules E3-E4). The buffer's lookups, LRU evictions and learning depend only on the
// steps' signatures and on when tensors die, never on what was pinned, so the whole sequence of
// predictions is a function of the schedule and the options: derived once and kept while the
// input is the same (PlanScratch::same_input, a sweep's capacity axis). Before, every point
// rebuilt the signatures, the contexts and a std::map keyed by them (GNMT: 12.7 ms a point).
struct EagerTables {
  std::vector<std::uint8_t> candidate;  // per tensor
  std::vector<int> start, last;         // per candidate: producing step, last use
  // Per step i, its candidates' predictions in output order: [born_begin[i], born_begin[i + 1]).
  std::vector<int> born_begin, born_tensor, born_live;
  std::vector<std::uint8_t> born_stable;
  // Per prediction (as born_tensor): whether Spec may skip its write-back (rule E6): always with
  // `speculate=stable`; with `speculate=cost` only when the write-back costs its step more time
  // than re-executing the producer would (its compute and its reads of non-candidates).
  std::vector<std::uint8_t> born_may_speculate;
  // Per step i, the candidates whose last use it is: [death_begin[i], death_begin[i + 1]).
  std::vector<int> death_begin, death_tensor;
};

using Signature = std::vector<std::int64_t>;

struct Entry {            // one history-buffer entry (rule E3)
  int touched = 0;        // step of the last lookup or insertion (LRU)
  std::vector<int> live;  // per output: the liveness last observed, -1 if none yet
  std::vector<std::uint8_t> stable;  // per output: the last two observations agreed
};

void derive_tables(const PlanInput& in, bool spec, EagerTables& d) {
  const Schedule& s = in.schedule;
  const UseIndex& x = s.index;
  const std::size_t nt = s.tensors.size(), n = s.steps.size();
  const int window = static_cast<int>(in.options->integer("window"));
  const std::size_t entries = static_cast<std::size_t>(in.options->integer("entries"));
  const bool by_shape = in.options->choice("similar") == "shape";
  d.candidate.assign(nt, 0);
  d.start.assign(nt, -1);
  d.last.assign(nt, -1);
  // Rule E2: candidates of rule O2 that are made on chip and only read after that.
  std::vector<std::vector<int>> outputs(n), deaths(n);
  for (std::size_t t = 0; t < nt; ++t) {
    if (!detail::pin_candidate(s, t) || s.tensors[t].starts_offchip) continue;
    bool reads_only = true;
    for (int f = x.full_begin[t] + 1; f < x.full_begin[t + 1]; ++f)
      reads_only = reads_only && !x.full_write[static_cast<std::size_t>(f)];
    if (!reads_only) continue;
    d.candidate[t] = 1;
    d.start[t] = detail::pin_start(s, t);
    d.last[t] = detail::pin_end(s, t);
    outputs[static_cast<std::size_t>(d.start[t])].push_back(static_cast<int>(t));
    deaths[static_cast<std::size_t>(d.last[t])].push_back(static_cast<int>(t));
  }

  // Rule E6's option `cost`: per step, x0 (every access streamed, rule O6) and the cost of
  // re-executing it (its compute and the reads it cannot find on chip: non-candidates).
  const bool by_cost = spec && in.options->choice("speculate") == "cost";
  std::vector<Ticks> streamed, base, recovery(by_cost ? n : 0, 0);
  if (by_cost) {
    detail::streamed_baseline(in, streamed, base);
    for (std::size_t i = 0; i < n; ++i) {
      const Step& st = s.steps[i];
      recovery[i] = in.compute[i];
      for (int k = 0; k < st.num_accesses; ++k) {
        const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
        if (a.read && (a.partial || !d.candidate[static_cast<std::size_t>(a.tensor)]))
          recovery[i] += in.transfer_ticks(a.tensor, a.bytes, true);
      }
    }
  }

  // Rule E3: a step's signature, the context of the last `window` signatures, the buffer.
  std::vector<Signature> sigs(n);
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    Signature& g = sigs[i];
    // shape: the same FLOPs on the same bytes; kind: the same kind of work (a GEMM or not, the
    // same accesses in the same directions), whatever the sizes.
    g = {static_cast<std::int64_t>(st.phase), static_cast<std::int64_t>(st.part),
         by_shape ? st.ops.macs : (st.ops.macs > 0 ? 1 : 0), by_shape ? st.ops.flops : 0};
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      g.push_back((by_shape ? a.bytes * 8 : 0) + (a.read ? 1 : 0) + (a.write ? 2 : 0) + (a.partial ? 4 : 0));
    }
  }
  std::map<Signature, Entry> buffer;
  std::vector<Signature> context(n);
  std::vector<int> slot(nt, -1);  // output index k of each candidate in its step
  d.born_begin.assign(1, 0);
  d.born_tensor.clear();
  d.born_live.clear();
  d.born_stable.clear();
  d.born_may_speculate.clear();
  d.death_begin.assign(1, 0);
  d.death_tensor.clear();
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    const int step = static_cast<int>(i);
    Signature& ctx = context[i];
    for (int j = std::max(0, step - window + 1); j <= step; ++j) {
      ctx.push_back(-1);  // separator
      ctx.insert(ctx.end(), sigs[static_cast<std::size_t>(j)].begin(), sigs[static_cast<std::size_t>(j)].end());
    }
    // Rule E4: look up (or insert, evicting the least recently used entry), then predict.
    auto it = buffer.find(ctx);
    if (it == buffer.end()) {
      if (buffer.size() >= entries) {
        auto victim = buffer.begin();
        for (auto v = buffer.begin(); v != buffer.end(); ++v)
          if (v->second.touched < victim->second.touched) victim = v;
        buffer.erase(victim);
      }
      Entry fresh;
      fresh.live.assign(outputs[i].size(), -1);
      fresh.stable.assign(outputs[i].size(), 0);
      it = buffer.emplace(ctx, std::move(fresh)).first;
    }
    Entry& entry = it->second;
    entry.touched = step;
    for (std::size_t k = 0; k < outputs[i].size(); ++k) {
      const auto t = static_cast<std::size_t>(outputs[i][k]);
      slot[t] = static_cast<int>(k);
      d.born_tensor.push_back(static_cast<int>(t));
      d.born_live.push_back(k < entry.live.size() ? entry.live[k] : -1);
      d.born_stable.push_back(k < entry.stable.size() ? entry.stable[k] : 0);
      if (by_cost) {  // the store's time the step saves, against a re-execution's
        const Ticks saved = std::min(in.transfer_ticks(static_cast<int>(t), s.tensors[t].bytes, false),
                                     streamed[i] - in.compute[i]);
        d.born_may_speculate.push_back(saved > recovery[i]);
      } else {
        d.born_may_speculate.push_back(1);
      }
    }
    d.born_begin.push_back(static_cast<int>(d.born_tensor.size()));
    // Rule E4, learning: a tensor dies after its last use; its entry, if still buffered,
    // learns the liveness.
    for (const int ti : deaths[i]) {
      const auto t = static_cast<std::size_t>(ti);
      auto found = buffer.find(context[static_cast<std::size_t>(d.start[t])]);
      const auto k = static_cast<std::size_t>(slot[t]);
      if (found != buffer.end() && k < found->second.live.size()) {
        const int live = step - d.start[t];
        found->second.stable[k] = found->second.live[k] == live;
        found->second.live[k] = live;
      }
      d.death_tensor.push_back(ti);
    }
    d.death_begin.push_back(static_cast<int>(d.death_tensor.size()));
  }
}

struct Eager {
  const PlanInput& in;
  const Schedule& s;
  const EagerTables& d;
  std::vector<std::uint8_t> pinned, copy;  // copy: a valid DRAM copy exists
  std::vector<int> pred_end, stamp;
  std::vector<Ticks> recompute;
  std::vector<Transfer> loads, stores;

  Eager(const PlanInput& input, const EagerTables& tables) : in(input), s(input.schedule), d(tables) {}

  // Whether tensor t's data is on chip at step u (rule E5).
  bool on_chip(std::size_t t, int u) const { return pinned[t] && u <= pred_end[t] && u <= d.last[t]; }

  // Re-executes the producer of tensor t at step u (rule E7): its compute, and its reads from
  // DRAM, or re-executed in turn when lost too. Each tensor at most once per step.
  void reexecute(std::size_t t, int u) {
    if (stamp[t] == u) return;
    stamp[t] = u;
    const auto p = static_cast<std::size_t>(d.start[t]);
    recompute[static_cast<std::size_t>(u)] += in.compute[p];
    const Step& st = s.steps[p];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (!a.read) continue;
      const auto i = static_cast<std::size_t>(a.tensor);
      if (!a.partial && d.candidate[i] && on_chip(i, u)) continue;
      if (!a.partial && d.candidate[i] && !copy[i]) {
        reexecute(i, u);
        continue;
      }
      loads.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, u, u});
    }
  }
};

void plan_eager(const PlanInput& in, PlanScratch& w, Plan& plan, bool write_back_always) {
  const Schedule& s = in.schedule;
  const std::size_t nt = s.tensors.size(), n = s.steps.size();
  const EagerTables& d = derived_tables<EagerTables>(
      w, [&](EagerTables& t) { derive_tables(in, !write_back_always, t); });
  Eager e(in, d);
  e.pinned.assign(nt, 0);
  e.copy.assign(nt, 0);
  e.pred_end.assign(nt, -1);
  e.stamp.assign(nt, -1);
  e.recompute.assign(n, 0);

  detail::RangeTree occ(n, w.tree);
  plan.transfers.clear();
  plan.pins.clear();
  plan.counts = {};
  std::vector<std::int64_t>& diff = w.resident_diff;
  diff.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    const int step = static_cast<int>(i);
    // Rule E4's predictions for the step's outputs: pin for the predicted liveness if it fits.
    for (int b = d.born_begin[i]; b < d.born_begin[i + 1]; ++b) {
      const auto t = static_cast<std::size_t>(d.born_tensor[static_cast<std::size_t>(b)]);
      const int live = d.born_live[static_cast<std::size_t>(b)];
      const std::int64_t size = s.tensors[t].bytes;
      const int end = std::min(step + live, static_cast<int>(n) - 1);
      if (live >= 1 && occ.max(step, end) + size <= in.capacity) {
        e.pinned[t] = 1;
        e.pred_end[t] = end;
        occ.add(step, end, size);
        e.copy[t] = write_back_always || !d.born_stable[static_cast<std::size_t>(b)] ||
                    !d.born_may_speculate[static_cast<std::size_t>(b)];  // rule E6
        ++plan.counts.born;
      } else {
        e.copy[t] = 1;
      }
    }
    // Rule E5: the step's accesses.
    e.loads.clear();
    e.stores.clear();
    const Step& st = s.steps[i];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto t = static_cast<std::size_t>(a.tensor);
      if (a.partial || !d.candidate[t]) {
        if (a.read) e.loads.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
        if (a.write) e.stores.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
        continue;
      }
      if (a.write) {  // its production
        if (e.copy[t]) e.stores.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
        continue;
      }
      if (e.on_chip(t, step)) {
        ++plan.counts.kept;
      } else if (e.copy[t]) {
        e.loads.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
      } else {
        e.reexecute(t, step);
      }
    }
    plan.transfers.insert(plan.transfers.end(), e.loads.begin(), e.loads.end());
    plan.transfers.insert(plan.transfers.end(), e.stores.begin(), e.stores.end());
    // A tensor dies after its last use (the buffer learnt its liveness in derive_tables); a
    // pinned tensor that dies early gives its space back.
    for (int j = d.death_begin[i]; j < d.death_begin[i + 1]; ++j) {
      const int ti = d.death_tensor[static_cast<std::size_t>(j)];
      const auto t = static_cast<std::size_t>(ti);
      if (e.pinned[t]) {
        if (step < e.pred_end[t]) occ.add(step + 1, e.pred_end[t], -s.tensors[t].bytes);
        diff[static_cast<std::size_t>(d.start[t])] += s.tensors[t].bytes;
        diff[static_cast<std::size_t>(std::min(step, e.pred_end[t])) + 1] -= s.tensors[t].bytes;
        plan.pins.push_back({ti, d.start[t], std::min(step, e.pred_end[t])});
      }
    }
  }
  plan.resident.assign(n, 0);
  std::int64_t level = 0;
  for (std::size_t i = 0; i < n; ++i) plan.resident[i] = level += diff[i];
  plan.recompute = std::move(e.recompute);
}

void plan_eager_wb(const PlanInput& in, PlanScratch& w, Plan& plan) { plan_eager(in, w, plan, true); }
void plan_eager_spec(const PlanInput& in, PlanScratch& w, Plan& plan) { plan_eager(in, w, plan, false); }

std::vector<OptionSpec> eager_options(bool spec) {
  std::vector<OptionSpec> o{
      integer_option("entries", "history-buffer entries", 6, 1, 1 << 20),
      integer_option("window", "steps whose signatures form a lookup context", 3, 1, 1 << 10),
      choice_option("similar", "steps are similar when they do the same kind of work (kind) or "
                    "also on the same sizes (shape)", "kind", {"kind", "shape"})};
  if (spec)  // rule E6's option: where Spec may skip a write-back
    o.push_back(choice_option("speculate", "skip the write-back of every stably predicted "
                              "output (stable) or only where the write-back costs more time than "
                              "re-executing its producer (cost)", "stable", {"stable", "cost"}));
  return o;
}

}  // namespace

extern const CachePart cache_onsram_eager_wb{
    "onsram-eager-wb",
    "OnSRAM-Eager W/B: keep outputs for a liveness predicted from a history buffer, always written back",
    eager_options(false), 0, &plan_eager_wb};
extern const CachePart cache_onsram_eager_spec{
    "onsram-eager-spec",
    "OnSRAM-Eager Spec: as W/B, but confident predictions are not written back; a miss re-executes the producer",
    eager_options(true), 0, &plan_eager_spec};

}  // namespace dnnmem
