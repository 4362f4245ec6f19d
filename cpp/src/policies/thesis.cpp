// The thesis's cache manager (SPEC §5 rules 1–7) and its ablations `belady` (no prefetch),
// `prefetch-next` (k = 1) and `no-lookahead` (dirty tensors linger until their space is needed):
// the passes of the planner (thesis_planner.hpp) block by block, the plan's assembly, and
// no-lookahead's lingering. Replaying repeated blocks: thesis_replay.cpp.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"
#include "thesis_planner.hpp"

namespace dnnmem {
namespace detail {

#ifdef DNNMEM_DECISION_TRACE
thread_local std::vector<int>* decision_trace = nullptr;
#endif

ThesisPlanner::ThesisPlanner(const PlanInput& in, PlanScratch& w, Plan& out, Prefetch prefetch,
                             bool lookahead_offload, const std::uint8_t* given)
    : in_(in), s_(in.schedule), x_(in.schedule.index), w_(w), prefetch_(prefetch),
      lookahead_offload_(lookahead_offload), given_(given),
      through_(given == nullptr && in.options != nullptr && in.options->choice("streaming") == "through-cache"),
      n_(static_cast<int>(s_.steps.size())), occ_(s_.steps.size(), w.tree), prefix_(w.prefix),
      deadline_(w.deadline), prefetch_from_(w.prefetch_from), plan_(out), state_(w.use_state),
      prefetches_(w.prefetches), offloads_(w.offloads), candidates_(w.candidates) {
  // plan_.resident holds the resident bytes' differences step to step (one more entry, for
  // the end of the last step) until assemble() sums them.
  plan_.resident.assign(s_.steps.size() + 1, 0);
  const std::size_t nf = x_.full_step.size();
  const bool same = w.same_input;
  if (!same) {  // else: derived by the previous call, from the same input
    prefix_.assign(s_.steps.size() + 1, 0);
    for (std::size_t i = 0; i < s_.steps.size(); ++i) prefix_[i + 1] = prefix_[i] + in.compute[i];
    deadline_.assign(nf, -1);
    prefetch_from_.assign(x_.read_uses.size(), -1);
  }
  w.same_input = false;  // consumed: a second planner in the same call derives afresh
  // Probing (PlanScratch::probe_capacity): every decision compares a threshold with the
  // capacity, and the occupancy before it depends only on the decisions before it, so the
  // plan at a larger capacity C' is this one unless some decision flips at C'. Only a
  // rejection can flip as the capacity grows (a kept interval still fits; a prefetch window
  // can only widen), so each rejection asks once more at C' until one flips. Off where the
  // capacity enters otherwise: through-cache reservations, no-lookahead's lingering; and off
  // where rule 2's decisions are given (lp-rounded: they hold at one capacity only).
  probe_ = w.probe_capacity > in.capacity && !through_ && lookahead_offload_ && given_ == nullptr
               ? w.probe_capacity
               : -1;
  probe_floor_ = probe_;
  w.probe_capacity = -1;
  w.probe_same = false;
  w.probe_holds_to = -1;
  state_.assign(nf + 1, UseState{});  // (entry nf: the partial accesses' state, always 0)
  st_ = state_.data();
  if (prefetches_.size() < x_.read_uses.size()) prefetches_.resize(x_.read_uses.size());  // (add_prefetch)
  pre_ = prefetches_.data();
  pre_end_ = pre_ + prefetches_.size();
  offloads_.clear();
  // (plan_.transfers: overwritten by assemble())
  plan_.counts = {};
  // Replay (docs/performance.md, "Exact replay"): off under through-cache (its reservations
  // read the capacity), where rule 2's decisions are given (lp-rounded: a record's margins
  // argue from the capacity, the given decisions do not follow it) and without repeated blocks.
#ifndef DNNMEM_DECISION_TRACE  // (the trace lists decisions one by one, in order)
  if (!through_ && given_ == nullptr && !w.no_replay && x_.replay) {
    rp_ = std::any_cast<ThesisReplay>(&w.replay);
    if (rp_ == nullptr) rp_ = &w.replay.emplace<ThesisReplay>();
    prepare_replay(same);
  }
#endif
  // Without replay, how far the plan holds beyond the capacity probed (a sweep's later points
  // of the same input reuse it too); replay's checks ask only whether it flips at probe_.
  if (probe_ >= 0 && rp_ == nullptr) probe_ = std::numeric_limits<std::int64_t>::max();
}

void ThesisPlanner::reserve_working_sets() {
  over_.assign(static_cast<std::size_t>(n_), 0);
  for (int s = 0; s < n_; ++s) {
    const Step& st = s_.steps[static_cast<std::size_t>(s)];
    std::int64_t sum = 0;
    for (int k = 0; k < st.num_accesses; ++k) sum += s_.accesses[static_cast<std::size_t>(st.first_access + k)].bytes;
    // A fused step's intermediates pass through the cache too (docs/model/fusion.md).
    if (!s_.step_intermediate_bytes.empty()) sum += s_.step_intermediate_bytes[static_cast<std::size_t>(s)];
    if (sum > in_.capacity) over_[static_cast<std::size_t>(s)] = 1;
    occ_.add(s, s, std::min(sum, in_.capacity));
  }
}

void ThesisPlanner::grow_prefetches() {
  prefetches_.resize(prefetches_.size() + 1);
  pre_ = prefetches_.data() + plan_.counts.prefetched;
  pre_end_ = prefetches_.data() + prefetches_.size();
}

void ThesisPlanner::keep_intervals() {
  candidates_.clear();
  first_read_ = x_.first_reads.data();
  if (rp_ == nullptr) {
    intervals_of<Mode::Plain>(0, n_);
    return;
  }
  for (int j = 0; j < static_cast<int>(x_.blocks.size()); ++j) {
    const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
    a_ = lo_ = B.begin;
    b_ = B.end;
    const int first = x_.interval_begin[static_cast<std::size_t>(a_)];
    const int count = x_.interval_begin[static_cast<std::size_t>(b_)] - first;
    if (replay_intervals(j, first, count)) {
      ++rp_->replayed[0];
      rp_->used[0][static_cast<std::size_t>(replaying_from_)] = 1;
    } else if (worth_recording(0, j)) {
      record_intervals(j, first, count);
    } else {
      intervals_of<Mode::Plain>(a_, b_);
    }
  }
}

void ThesisPlanner::prefetch() {
  const PlanUse* rec = x_.read_uses.data();
  if (rp_ == nullptr) {
    for (const ReadAt& c : candidates_) prefetch_one<Mode::Plain>(rec[c.pos], c.pos, c.step);
    return;
  }
  const ReadAt* c = candidates_.data();
  const ReadAt* end = c + candidates_.size();
  for (int j = 0; j < static_cast<int>(x_.blocks.size()); ++j) {
    const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
    a_ = B.begin;
    b_ = B.end;
    const ReadAt* stop = c;
    while (stop != end && stop->step < b_) ++stop;
    const int count = static_cast<int>(stop - c);
    if (start_replay_prefetches(j, c, count)) {
      const int* p = rp_->ints.data() + rec_.ints;
      for (int k = 0; k < count; ++k) replay_prefetch(rec[c[k].pos], c[k].step, p[4 * k + 2]);
      ++rp_->replayed[1];
      rp_->used[1][static_cast<std::size_t>(replaying_from_)] = 1;
      add_record(1, j);
    } else if (worth_recording(1, j)) {
      const int back = reach_back(j);
      lo_ = a_ - back;
      start_record(1, j, 0, 0, 0);
      rp_->ints.push_back(count);
      rp_->ints.push_back(back);
      for (int k = 0; k < count; ++k) prefetch_one<Mode::Record>(rec[c[k].pos], c[k].pos, c[k].step);
      finish_record();
    } else {
      for (int k = 0; k < count; ++k) prefetch_one<Mode::Plain>(rec[c[k].pos], c[k].pos, c[k].step);
    }
    c = stop;
  }
}

template <ThesisPlanner::Mode M>
void ThesisPlanner::outputs_of(int from, int to) {
  // One pass over the writes of steps [from, to), in step order (a write's PlanUse::step is
  // its step): no loop per step, most steps having one write or none.
  const PlanUse* rec = x_.write_uses.data();
  const int* begin = x_.write_begin.data();
  const std::uint8_t* replayed = nullptr;  // Replay: the record's bits, from the block's first write
  const int first = begin[a_];
  if constexpr (M == Mode::Replay) replayed = record_bits();
  for (int i = begin[from], end = begin[to]; i < end; ++i) {
    check_interrupt_every(static_cast<std::size_t>(i));
    const PlanUse& r = rec[i];
    const int f = r.f;
    const int step = r.step;
    std::uint8_t* note = nullptr;
    if constexpr (M == Mode::Record) {
      note = &rp_->bits[static_cast<std::size_t>(rec_.bits + i - first)];
      *note = static_cast<std::uint8_t>(bits(f) & (KeptIn | Loaded | Kept));
    }
    if (resident_before(f)) continue;
    if (kept(f)) {  // the kept interval from this step holds it (not "born")
      set(f, Born);
      continue;
    }
    const std::int64_t bytes = r.bytes;
    // (deadline n: no step qualifies, it is streamed out during its step)
    if (!(r.flags & FullUse::HasNext) && (r.flags & FullUse::MustEndOffchip) && deadline(f, step, r.tensor, bytes) >= n_)
      continue;
    if (through_) {
      if (over(step)) continue;
      occupy_resident(step, step, bytes);  // in its step's working set
    } else {
      bool fit = false;
      if constexpr (M == Mode::Replay) {
        fit = (replayed[i - first] & kFits) != 0;
        if (fit) occupy<true>(step, step, bytes, false);
      } else {
        std::int64_t maximum = 0;
        if constexpr (M == Mode::Record) maximum = occ_.at(step);
        fit = claim(step, step, bytes);
        if constexpr (M == Mode::Record) {
          note_margin(maximum, bytes, fit);
          if (fit) *note |= kFits;
        }
        if (!fit) probe_rejected(step, step, bytes);
        else occupy_resident(step, step, bytes);
      }
      DNNMEM_TRACE(fit ? 1 : 0);
      if (!fit) continue;
    }
    set(f, Born);
    ++plan_.counts.born;
    if (leaves_dirty(f, r.flags)) offload_after<M == Mode::Replay>(f, step, r.tensor, bytes);
  }
}

void ThesisPlanner::place_outputs() {
  const int* begin = x_.write_begin.data();
  if (rp_ == nullptr) {
    outputs_of<Mode::Plain>(0, n_);
    return;
  }
  for (int j = 0; j < static_cast<int>(x_.blocks.size()); ++j) {
    const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
    a_ = lo_ = B.begin;
    b_ = B.end;
    const int first = begin[a_], count = begin[b_] - first;
    if (start_replay_outputs(j, first, count)) {
      outputs_of<Mode::Replay>(a_, b_);
      ++rp_->replayed[2];
      rp_->used[2][static_cast<std::size_t>(replaying_from_)] = 1;
      add_record(2, j);
    } else if (worth_recording(2, j)) {
      start_record(2, j, 0, 0, count);
      outputs_of<Mode::Record>(a_, b_);
      finish_record();
    } else {
      outputs_of<Mode::Plain>(a_, b_);
    }
  }
}

void ThesisPlanner::assemble() {
  const std::size_t n = static_cast<std::size_t>(n_);
  std::int64_t* resident = plan_.resident.data();
  std::int64_t r = 0;
  for (std::size_t i = 0; i < n; ++i) resident[i] = r += resident[i];
  plan_.resident.pop_back();
  const int np = plan_.counts.prefetched, no = static_cast<int>(offloads_.size());
  // The list heads are -1 everywhere between calls (each is set back as its step is read
  // below), so only a fresh or interrupted buffer is filled: a point writes the heads of the
  // steps that issue something, not all 2n of them.
  std::vector<int>& heads = w_.bucket;
  if (!w_.bucket_clean || heads.size() != 2 * n) heads.assign(2 * n, -1);
  w_.bucket_clean = false;
  std::vector<int>& links = w_.group;
  links.resize(static_cast<std::size_t>(np + no));
  int* head = heads.data();
  int* link = links.data();
  const Transfer* pre = prefetches_.data();
  const Transfer* off = offloads_.data();
  for (int k = np - 1; k >= 0; --k) {  // pushed in front: each list in rule-4 order
    int& h = head[pre[k].issue_step];
    link[k] = h;
    h = k;
  }
  int* off_head = head + n;
  int* off_link = link + np;
  for (int k = 0; k < no; ++k) {
    int* at = &off_head[off[k].issue_step];
    while (*at >= 0 && off[*at].tensor < off[k].tensor) at = &off_link[*at];
    off_link[k] = *at;
    *at = k;
  }
  // The transfers overwrite the plan's earlier ones in place (a sweep's plan buffer holds the
  // plan of two points before, about as long), each a few stores instead of a push_back call;
  // past its length they are appended, and the vector is cut to what was written at the end.
  auto& out = plan_.transfers;
  out.reserve(s_.accesses.size() + static_cast<std::size_t>(np) + offloads_.size());
  Transfer* o = out.data();
  Transfer* o_end = o + out.size();
  const auto emit = [&](const Transfer& x) __attribute__((always_inline)) {
    if (o != o_end) {
      *o++ = x;
      return;
    }
    out.push_back(x);  // (o is out's end: nothing left to overwrite)
    o = o_end = out.data() + out.size();
  };
  const StreamUse* loads = x_.loads.data();
  const StreamUse* stores = x_.stores.data();
  const int* load_begin = x_.load_begin.data();
  const int* store_begin = x_.store_begin.data();
  const StreamUse* load = loads;  // (pointers in locals: the pushes store ints, which could
  const StreamUse* store = stores;  // alias the tables' ints)
  const UseState* st = st_;
  for (int step = 0; step < n_; ++step) {
    check_interrupt_every(static_cast<std::size_t>(step));
    for (const StreamUse* end = loads + load_begin[step + 1]; load != end; ++load)
      if (!(static_cast<std::uint8_t>(st[load->f]) & (KeptIn | Loaded)))
        emit({load->tensor, TransferKind::StreamLoad, load->bytes, step, step});
    for (const StreamUse* end = stores + store_begin[step + 1]; store != end; ++store)
      if (!(static_cast<std::uint8_t>(st[store->f]) & (KeptIn | Loaded | Born)))
        emit({store->tensor, TransferKind::StreamStore, store->bytes, step, step});
    if (int k = head[step]; k >= 0) {
      head[step] = -1;
      for (; k >= 0; k = link[k]) emit(pre[k]);
    }
    if (int k = off_head[step]; k >= 0) {
      off_head[step] = -1;
      for (; k >= 0; k = off_link[k]) emit(off[k]);
    }
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
  w_.bucket_clean = true;
}

// `no-lookahead` (thesis Fig. 4.2a), readings N1–N4 of tests/python/oracle.py: the plan (what is
// kept, reloaded, prefetched, born, and which dirty tensors leave) is lookahead's; only when the
// writes happen changes. A dirty tensor that lookahead offloads after step u (rule 3, born
// outputs, final dW write-outs) instead lingers on chip after u, counting against capacity.
// At each step s, as it wants to start (before its capacity wait), deadline s:
//   N3  a lingering tensor transferred again at s (streamed, demand or partial access, or a
//       prefetch beginning at s) is written out first (oldest first);
//   N2  then the oldest lingering tensors (left earliest, then tensor order) are written out
//       until s's planned data + the lingering data fit; the step waits for the writes.
//   N4  whatever still lingers after the last step is written out then (drain).
// Traffic and plan counts are therefore exactly lookahead's.
void linger_offloads(Plan& p, const PlanInput& in, PlanScratch& w) {
  const Schedule& sched = in.schedule;
  const int n = static_cast<int>(p.resident.size());
  const std::int64_t capacity = in.capacity;
  std::vector<Transfer>& xs = w.pending;
  xs.swap(p.transfers);  // lookahead's transfers, in issue order
  p.transfers.clear();
  p.transfers.reserve(xs.size());
  std::vector<int>& lingering = w.lingering;  // tensors in the order they left, -1 once written out
  lingering.clear();
  std::size_t head = 0;        // lingering[0, head) are all written out
  std::int64_t lingering_bytes = 0;
  std::vector<int>& entries = w.entries;   // lingering entries per tensor
  entries.assign(sched.tensors.size(), 0);
  std::vector<int>& touched = w.touched;   // step at which it is transferred again
  touched.assign(sched.tensors.size(), -1);
  auto bytes = [&](int t) { return sched.tensors[static_cast<std::size_t>(t)].bytes; };
  auto evict = [&](std::size_t pos, int step) {
    const int t = lingering[pos];
    p.transfers.push_back({t, TransferKind::Evict, bytes(t), step, step});
    lingering[pos] = -1;
    --entries[static_cast<std::size_t>(t)];
    lingering_bytes -= bytes(t);
  };
  std::size_t i = 0;
  for (int step = 0; step < n; ++step) {
    check_interrupt_every(static_cast<std::size_t>(step));
    std::size_t j = i;  // [i, j): the transfers issued at the start of the step
    bool again = false;
    for (; j < xs.size() && xs[j].issue_step == step && !xs[j].at_end(); ++j) {
      const auto t = static_cast<std::size_t>(xs[j].tensor);
      if (entries[t] > 0) {
        touched[t] = step;
        again = true;
      }
    }
    if (again) {  // N3
      for (std::size_t pos = head; pos < lingering.size(); ++pos)
        if (lingering[pos] >= 0 && touched[static_cast<std::size_t>(lingering[pos])] == step) evict(pos, step);
    }
    const std::int64_t planned = p.resident[static_cast<std::size_t>(step)];
    for (;;) {  // N2
      while (head < lingering.size() && lingering[head] < 0) ++head;
      if (head == lingering.size() || planned + lingering_bytes <= capacity) break;
      evict(head, step);
    }
    p.resident[static_cast<std::size_t>(step)] += lingering_bytes;
    p.transfers.insert(p.transfers.end(), xs.begin() + static_cast<std::ptrdiff_t>(i),
                       xs.begin() + static_cast<std::ptrdiff_t>(j));
    // The offloads after the step (tensor order) linger instead.
    for (i = j; i < xs.size() && xs[i].issue_step == step && xs[i].at_end(); ++i) {
      lingering.push_back(xs[i].tensor);
      ++entries[static_cast<std::size_t>(xs[i].tensor)];
      lingering_bytes += xs[i].bytes;
    }
  }
  // N4: written out after the last step, in tensor order, deadline n.
  std::vector<int>& left = w.left;
  left.clear();
  for (std::size_t pos = head; pos < lingering.size(); ++pos)
    if (lingering[pos] >= 0) left.push_back(lingering[pos]);
  std::sort(left.begin(), left.end());
  for (int t : left) p.transfers.push_back({t, TransferKind::Offload, bytes(t), n - 1, n});
}

}  // namespace detail

using detail::Prefetch;
using detail::ThesisPlanner;

void plan_no_lookahead(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::LatencyAware, /*lookahead_offload=*/false).run();
}
void plan_lookahead(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::LatencyAware).run();
}
void plan_lp_rounded(const PlanInput& in, PlanScratch& w, Plan& out) {
  const std::size_t nf = in.schedule.index.full_step.size();
  if (in.kept_given == nullptr || in.kept_given->size() != nf)
    throw std::invalid_argument(
        "cache manager 'lp-rounded': needs the kept intervals of the LP relaxation, one flag per "
        "full use (" + std::to_string(nf) + "), which dnnmem.optimal computes in Python (got " +
        std::to_string(in.kept_given == nullptr ? 0 : in.kept_given->size()) +
        "); use dnnmem.estimate or dnnmem.sweep, with the 'optimal' extra installed");
  ThesisPlanner(in, w, out, Prefetch::LatencyAware, true, in.kept_given->data()).run();
  // Rules 4 and 6 fit-check what they add; the given intervals must fit on their own.
  for (std::size_t s = 0; s < out.resident.size(); ++s)
    if (out.resident[s] > in.capacity)
      throw std::invalid_argument("cache manager 'lp-rounded': the kept intervals given hold " +
                                  std::to_string(out.resident[s]) + " bytes at step " +
                                  std::to_string(s) + ", more than the capacity (" +
                                  std::to_string(in.capacity) + " bytes)");
}
void plan_belady(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::None).run();
}
void plan_prefetch_next(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::NextStep).run();
}

namespace {
// The thesis planners' one option: the streaming rule (docs/thesis-figures.md, "Fidelity").
std::vector<OptionSpec> thesis_options() {
  return {choice_option("streaming",
                        "free: a non-resident access streams and needs no capacity (SPEC §5); "
                        "through-cache: every tensor a step accesses occupies the cache during the "
                        "step (thesis Listing 1), each step reserving its working set",
                        "free", {"free", "through-cache"})};
}

}  // namespace

extern const CachePart cache_lookahead{
    "lookahead", "Bélády reuse intervals + look-ahead offload + latency-aware prefetch (thesis)",
    thesis_options(), 0, &plan_lookahead};
extern const CachePart cache_belady{
    "belady", "as lookahead, without any prefetch: every load streamed at its use", thesis_options(), 0,
    &plan_belady};
extern const CachePart cache_prefetch_next{
    "prefetch-next", "as lookahead, prefetching one step ahead (thesis Fig. 4.1a)", thesis_options(), 0,
    &plan_prefetch_next};
extern const CachePart cache_lp_rounded{
    "lp-rounded",
    "as lookahead, keeping the reuse intervals of the traffic LP relaxation rounded to a feasible "
    "plan (dnnmem.optimal; the 'optimal' extra)",
    {}, 0, &plan_lp_rounded, /*capacity_free=*/false, /*unbounded=*/false,
    /*needs_kept_intervals=*/true};
extern const CachePart cache_no_lookahead{
    "no-lookahead",
    "as lookahead, writing a dirty tensor out only when its space is needed (thesis Fig. 4.2a)",
    thesis_options(), 0, &plan_no_lookahead};

}  // namespace dnnmem
