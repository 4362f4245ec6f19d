// The thesis's cache manager (SPEC §5 rules 1–7) and its ablations `belady` (no prefetch),
// `prefetch-next` (k = 1) and `no-lookahead` (offloads issued only when the space is needed). Plan order: kept intervals (rule 2, with rule 3's offloads of
// rejected dirty intervals), then prefetches (rule 4), then outputs (rule 6); whatever is left
// is streamed. Occupancy is one range tree over steps (reservations included).
#include <algorithm>
#include <numeric>

#include "dnnmem/policies.hpp"
#include "range_tree.hpp"

namespace dnnmem {
namespace {

enum class Prefetch { None, LatencyAware, NextStep };

void delay_offloads(Plan& p, const PlanInput& in);

class ThesisPlanner {
 public:
  ThesisPlanner(const PlanInput& in, Prefetch prefetch, bool lookahead_offload = true)
      : in_(in), s_(in.schedule), prefetch_(prefetch), lookahead_offload_(lookahead_offload), n_(static_cast<int>(s_.steps.size())),
        occ_(s_.steps.size()), resident_diff_(s_.steps.size() + 1, 0) {
    prefix_.assign(s_.steps.size() + 1, 0);
    for (std::size_t i = 0; i < s_.steps.size(); ++i) prefix_[i + 1] = prefix_[i] + in.compute[i];
    index_uses();
  }

  Plan run() {
    keep_intervals();
    if (prefetch_ != Prefetch::None) prefetch();
    place_outputs();
    stream_the_rest();
    Plan p = finish();
    if (!lookahead_offload_) delay_offloads(p, in_);
    return p;
  }

 private:
  const PlanInput& in_;
  const Schedule& s_;
  Prefetch prefetch_;
  bool lookahead_offload_;
  int n_;
  detail::RangeTree occ_;                  // plan occupancy, reservations included
  std::vector<std::int64_t> resident_diff_;  // resident bytes, without reservations
  std::vector<Ticks> prefix_;              // prefix_[i] = compute ticks of steps 0 … i-1
  Plan plan_;

  // Full uses per tensor (partial ones are always streamed and never a use for residency).
  std::vector<std::vector<int>> full_;     // tensor -> indices into s_.uses
  std::vector<int> first_interval_;        // tensor -> its first interval index
  std::vector<char> kept_, dirty_;         // per interval (tensor t, j): uses j -> j+1
  std::vector<std::vector<char>> loaded_;  // tensor -> per full use: prefetched for it (rule 4)
  std::vector<std::vector<char>> born_;    // tensor -> per full use: its output is on chip (rule 6)
  std::vector<std::vector<Transfer>> at_start_prefetch_, at_end_;

  const Tensor& tensor(int t) const { return s_.tensors[static_cast<std::size_t>(t)]; }
  const Use& use(int t, int j) const {
    return s_.uses[static_cast<std::size_t>(full_[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)])];
  }
  int num_full(int t) const { return static_cast<int>(full_[static_cast<std::size_t>(t)].size()); }
  int interval(int t, int j) const { return first_interval_[static_cast<std::size_t>(t)] + j; }
  bool kept(int t, int j) const {  // the interval from full use j to j+1
    return j >= 0 && j + 1 < num_full(t) && kept_[static_cast<std::size_t>(interval(t, j))];
  }
  bool dirty(int t, int j) const {
    return j >= 0 && j + 1 < num_full(t) && dirty_[static_cast<std::size_t>(interval(t, j))];
  }

  void index_uses() {
    const std::size_t nt = s_.tensors.size();
    full_.assign(nt, {});
    first_interval_.assign(nt, 0);
    loaded_.assign(nt, {});
    born_.assign(nt, {});
    int intervals = 0;
    for (std::size_t t = 0; t < nt; ++t) {
      for (int u = s_.tensors[t].use_begin; u < s_.tensors[t].use_end; ++u)
        if (!s_.uses[static_cast<std::size_t>(u)].partial) full_[t].push_back(u);
      first_interval_[t] = intervals;
      intervals += std::max(0, static_cast<int>(full_[t].size()) - 1);
      loaded_[t].assign(full_[t].size(), 0);
      born_[t].assign(full_[t].size(), 0);
    }
    kept_.assign(static_cast<std::size_t>(intervals), 0);
    dirty_.assign(static_cast<std::size_t>(intervals), 0);
    at_start_prefetch_.assign(s_.steps.size(), {});
    at_end_.assign(s_.steps.size(), {});
  }

  void occupy(int lo, int hi, std::int64_t bytes, bool reservation) {
    if (lo > hi) return;
    occ_.add(lo, hi, bytes);
    if (!reservation) {
      resident_diff_[static_cast<std::size_t>(lo)] += bytes;
      resident_diff_[static_cast<std::size_t>(hi) + 1] -= bytes;
    }
  }
  bool fits(int lo, int hi, std::int64_t bytes) const {
    return occ_.max(lo, hi) + bytes <= in_.capacity;
  }

  // Rule 3's deadline: the first step w > u with compute of u+1 … w-1 >= the write time; n when
  // no step qualifies (then `qualifies` is false).
  int write_deadline(int u, std::int64_t bytes, bool* qualifies = nullptr) const {
    const Ticks need = prefix_[static_cast<std::size_t>(u) + 1] + in_.time.transfer(bytes);
    // prefix_[w] >= need, smallest w in [u+1, n-1]
    auto it = std::lower_bound(prefix_.begin() + u + 1, prefix_.begin() + n_, need);
    const bool ok = it != prefix_.begin() + n_;
    if (qualifies) *qualifies = ok;
    return ok ? static_cast<int>(it - prefix_.begin()) : n_;
  }

  // A resident dirty tensor leaves after step u: written out, its space reserved until w-1.
  void offload_after(int t, int u) {
    const std::int64_t bytes = tensor(t).bytes;
    const int w = write_deadline(u, bytes);
    occupy(u + 1, std::min(w, n_) - 1, bytes, /*reservation=*/true);
    at_end_[static_cast<std::size_t>(u)].push_back({t, TransferKind::Offload, bytes, u, w});
    ++plan_.counts.offloads;
  }

  // Does tensor t leave dirty after full use j (resident there), needing a write-out?
  bool leaves_dirty(int t, int j, bool dirty_at_j) const {
    if (j + 1 < num_full(t)) return !kept(t, j) && dirty_at_j;
    return dirty_at_j && tensor(t).must_end_offchip;
  }

  // Rule 2 (Bélády): intervals by end, dirty first, later start first, smaller, tensor order.
  void keep_intervals() {
    std::vector<std::vector<std::pair<int, int>>> by_end(s_.steps.size());
    for (int t = 0; t < static_cast<int>(s_.tensors.size()); ++t)
      for (int j = 0; j + 1 < num_full(t); ++j) by_end[static_cast<std::size_t>(use(t, j + 1).step)].push_back({t, j});
    for (int v = 0; v < n_; ++v) {
      auto& group = by_end[static_cast<std::size_t>(v)];
      for (auto [t, j] : group)
        dirty_[static_cast<std::size_t>(interval(t, j))] = use(t, j).write || (kept(t, j - 1) && dirty(t, j - 1));
      std::sort(group.begin(), group.end(), [&](auto a, auto b) {
        const bool da = dirty(a.first, a.second), db = dirty(b.first, b.second);
        if (da != db) return da;
        const int ua = use(a.first, a.second).step, ub = use(b.first, b.second).step;
        if (ua != ub) return ua > ub;
        const auto sa = tensor(a.first).bytes, sb = tensor(b.first).bytes;
        if (sa != sb) return sa < sb;
        return a.first < b.first;
      });
      for (auto [t, j] : group) {
        const int u = use(t, j).step;
        const bool into_kept = kept(t, j - 1);
        const int lo = into_kept ? u + 1 : u;  // consecutive kept intervals share their endpoint
        const std::int64_t bytes = tensor(t).bytes;
        if (fits(lo, v, bytes)) {
          occupy(lo, v, bytes, false);
          kept_[static_cast<std::size_t>(interval(t, j))] = 1;
          ++plan_.counts.kept;
          // Kept into its last use, dirty, and due off-chip: the final write-out (rule 7).
          if (j + 2 == num_full(t) && tensor(t).must_end_offchip && (dirty(t, j) || use(t, j + 1).write))
            offload_after(t, v);
        } else if (into_kept && dirty(t, j)) {
          offload_after(t, u);  // rule 3: leaves right after u
        }
      }
    }
  }

  // Rule 4: a read not resident before its step is loaded from p* = max(v - k, u + 1).
  void prefetch() {
    struct Want { int t, j, u, v; bool dirty; };
    std::vector<Want> wants;
    for (int t = 0; t < static_cast<int>(s_.tensors.size()); ++t)
      for (int j = 0; j < num_full(t); ++j) {
        if (!use(t, j).read || kept(t, j - 1)) continue;
        wants.push_back({t, j, j > 0 ? use(t, j - 1).step : -1, use(t, j).step, dirty(t, j - 1)});
      }
    std::sort(wants.begin(), wants.end(), [&](const Want& a, const Want& b) {
      if (a.v != b.v) return a.v < b.v;
      if (a.dirty != b.dirty) return a.dirty;
      if (a.u != b.u) return a.u > b.u;
      if (tensor(a.t).bytes != tensor(b.t).bytes) return tensor(a.t).bytes < tensor(b.t).bytes;
      return a.t < b.t;
    });
    for (const Want& w : wants) {
      const std::int64_t bytes = tensor(w.t).bytes;
      int k = 1;
      if (prefetch_ == Prefetch::LatencyAware) {
        // smallest k with compute of v-k … v-1 >= load time: the largest q <= v-1 with
        // prefix_[q] <= prefix_[v] - load; none: k = v.
        const Ticks limit = prefix_[static_cast<std::size_t>(w.v)] - in_.time.transfer(bytes);
        auto it = std::upper_bound(prefix_.begin(), prefix_.begin() + w.v, limit);
        k = it == prefix_.begin() ? w.v : w.v - static_cast<int>(it - prefix_.begin() - 1);
      }
      const int p_star = std::max(w.v - k, w.u + 1);
      if (p_star >= w.v) continue;  // streamed
      const bool next_kept = kept(w.t, w.j);
      const int end = next_kept ? w.v - 1 : w.v;  // a kept interval from v already holds v
      const int blocked = occ_.last_above(p_star, end, in_.capacity - bytes);
      const int p = blocked < 0 ? p_star : blocked + 1;
      if (p > w.v - 1) continue;  // fits nowhere: streamed
      occupy(p, end, bytes, false);
      loaded_[static_cast<std::size_t>(w.t)][static_cast<std::size_t>(w.j)] = 1;
      at_start_prefetch_[static_cast<std::size_t>(p)].push_back({w.t, TransferKind::Prefetch, bytes, p, w.v});
      ++plan_.counts.prefetched;
      if (use(w.t, w.j).write && leaves_dirty(w.t, w.j, true)) offload_after(w.t, w.v);
    }
  }

  bool resident_at(int t, int j) const {
    return kept(t, j - 1) || loaded_[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)];
  }

  // Rule 6: outputs not already resident are born on-chip if they fit at their step.
  void place_outputs() {
    for (int step = 0; step < n_; ++step) {
      const Step& st = s_.steps[static_cast<std::size_t>(step)];
      std::vector<int> order;
      for (int k = 0; k < st.num_accesses; ++k) {
        const Access& a = s_.accesses[static_cast<std::size_t>(st.first_access + k)];
        if (a.write && !a.partial) order.push_back(a.tensor);
      }
      std::sort(order.begin(), order.end());
      for (int t : order) {
        const int j = full_index(t, step);
        if (resident_at(t, j)) continue;
        const std::int64_t bytes = tensor(t).bytes;
        if (kept(t, j)) {  // the kept interval from this step holds it already (not "born")
          born_[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)] = 1;
          continue;
        }
        const bool last = j + 1 == num_full(t);
        if (last && tensor(t).must_end_offchip) {
          bool qualifies = false;
          write_deadline(step, bytes, &qualifies);
          if (!qualifies) continue;  // streamed out during its step
        }
        if (!fits(step, step, bytes)) continue;
        occupy(step, step, bytes, false);
        born_[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)] = 1;
        ++plan_.counts.born;
        if (leaves_dirty(t, j, true)) offload_after(t, step);
      }
    }
  }

  int full_index(int t, int step) const {
    const auto& f = full_[static_cast<std::size_t>(t)];
    for (std::size_t j = 0; j < f.size(); ++j)
      if (s_.uses[static_cast<std::size_t>(f[j])].step == step) return static_cast<int>(j);
    return -1;
  }

  // Everything not resident is streamed: reads (rule 5's demand loads included), writes that
  // were not born, and every partial access.
  std::vector<std::vector<Transfer>> loads_, stores_;
  void stream_the_rest() {
    loads_.assign(s_.steps.size(), {});
    stores_.assign(s_.steps.size(), {});
    for (int step = 0; step < n_; ++step) {
      const Step& st = s_.steps[static_cast<std::size_t>(step)];
      for (int k = 0; k < st.num_accesses; ++k) {
        const Access& a = s_.accesses[static_cast<std::size_t>(st.first_access + k)];
        // A read is on chip if the tensor was resident before the step; a write also if its
        // output was born. A read of a tensor kept from here on but not resident before is
        // rule 5's demand load: streamed, and the data stays.
        bool read_on_chip = false, write_on_chip = false;
        if (!a.partial) {
          const int j = full_index(a.tensor, step);
          read_on_chip = resident_at(a.tensor, j);
          write_on_chip = read_on_chip || born_[static_cast<std::size_t>(a.tensor)][static_cast<std::size_t>(j)];
        }
        if (a.read && !read_on_chip)
          loads_[static_cast<std::size_t>(step)].push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
        if (a.write && !write_on_chip)
          stores_[static_cast<std::size_t>(step)].push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
      }
    }
  }

  Plan finish() {
    plan_.resident.assign(s_.steps.size(), 0);
    std::int64_t r = 0;
    for (std::size_t i = 0; i < s_.steps.size(); ++i) plan_.resident[i] = r += resident_diff_[i];
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      auto append = [&](const std::vector<Transfer>& v) {
        plan_.transfers.insert(plan_.transfers.end(), v.begin(), v.end());
      };
      append(loads_[i]);
      append(stores_[i]);
      append(at_start_prefetch_[i]);
      auto& ends = at_end_[i];
      std::stable_sort(ends.begin(), ends.end(), [](const Transfer& a, const Transfer& b) { return a.tensor < b.tensor; });
      append(ends);
    }
    return std::move(plan_);
  }
};

// `no-lookahead` (thesis Fig. 4.2a): the same decisions, but a dirty tensor leaving the cache
// stays resident until the first step whose planned data no longer fits beside it; its write is
// issued at the end of the step before, with that step as deadline (the step waits for the
// space: a capacity stall), and at the latest at the end of the step before the tensor's next
// use (so a reload never reads stale data). One reading of the thesis's prose, written in
// docs/policies.md: the plan (what is kept, reloaded, prefetched) is lookahead's; only the
// offload timing moves.
void delay_offloads(Plan& p, const PlanInput& in) {
  const std::int64_t capacity = in.capacity;
  const Schedule& sched = in.schedule;
  const int n = static_cast<int>(p.resident.size());
  detail::RangeTree held(p.resident.size());
  for (int i = 0; i < n; ++i) held.add(i, i, p.resident[static_cast<std::size_t>(i)]);
  std::vector<Transfer> moved, kept;
  for (const Transfer& x : p.transfers) (x.kind == TransferKind::Offload ? moved : kept).push_back(x);
  // Earlier offloads claim the space first (issue order).
  for (Transfer& x : moved) {
    const int u = x.issue_step;
    const Tensor& t = sched.tensors[static_cast<std::size_t>(x.tensor)];
    int next_use = n;
    for (int k = t.use_begin; k < t.use_end; ++k)
      if (sched.uses[static_cast<std::size_t>(k)].step > u) {
        next_use = sched.uses[static_cast<std::size_t>(k)].step;
        break;
      }
    int s = held.first_above(u + 1, next_use - 1, capacity - x.bytes);
    if (s < 0 && next_use < n) s = next_use;
    const int last = s < 0 ? n - 1 : s - 1;  // held on chip through `last`
    held.add(u + 1, last, x.bytes);
    for (int i = u + 1; i <= last; ++i) p.resident[static_cast<std::size_t>(i)] += x.bytes;
    x.issue_step = last;
    x.deadline = s < 0 ? n : s;
  }
  // Re-insert the offloads at the end of their new steps, keeping the plan's issue order.
  std::stable_sort(moved.begin(), moved.end(), [](const Transfer& a, const Transfer& b) {
    return a.issue_step != b.issue_step ? a.issue_step < b.issue_step : a.tensor < b.tensor;
  });
  p.transfers.clear();
  std::size_t m = 0;
  for (std::size_t i = 0; i < kept.size() || m < moved.size();) {
    const int step = i < kept.size() ? kept[i].issue_step : n;
    while (m < moved.size() && moved[m].issue_step < step) p.transfers.push_back(moved[m++]);
    if (i >= kept.size()) break;
    for (; i < kept.size() && kept[i].issue_step == step; ++i) p.transfers.push_back(kept[i]);
    while (m < moved.size() && moved[m].issue_step == step) p.transfers.push_back(moved[m++]);
  }
}

}  // namespace

Plan plan_no_lookahead(const PlanInput& in) {
  return ThesisPlanner(in, Prefetch::LatencyAware, /*lookahead_offload=*/false).run();
}

Plan plan_lookahead(const PlanInput& in) { return ThesisPlanner(in, Prefetch::LatencyAware).run(); }
Plan plan_belady(const PlanInput& in) { return ThesisPlanner(in, Prefetch::None).run(); }
Plan plan_prefetch_next(const PlanInput& in) { return ThesisPlanner(in, Prefetch::NextStep).run(); }

}  // namespace dnnmem
