// The thesis's cache manager (SPEC §5 rules 1–7) and its ablations `belady` (no prefetch),
// `prefetch-next` (k = 1) and `no-lookahead` (dirty tensors linger until their space is needed).
// Plan order: kept intervals (rule 2, with rule 3's offloads of rejected dirty intervals), then
// prefetches (rule 4), then outputs (rule 6); whatever is left is streamed. Occupancy is one
// range tree over steps (reservations included).
#include <algorithm>
#include <numeric>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"
#include "range_tree.hpp"

namespace dnnmem {

#ifdef DNNMEM_DECISION_TRACE
// Measurement only (benchmarks/decision_trace.cpp, docs/performance.md "Third round"): every
// decision of the planner in order, to find where two capacities first disagree. Never built
// into the library.
namespace detail {
thread_local std::vector<int>* decision_trace = nullptr;
}
#define DNNMEM_TRACE(x) \
  do {                  \
    if (detail::decision_trace) detail::decision_trace->push_back(x); \
  } while (0)
#else
#define DNNMEM_TRACE(x) \
  do {                  \
  } while (0)
#endif

namespace {

enum class Prefetch { None, LatencyAware, NextStep };

void linger_offloads(Plan& p, const PlanInput& in, PlanScratch& w);

class ThesisPlanner {
 public:
  ThesisPlanner(const PlanInput& in, PlanScratch& w, Plan& out, Prefetch prefetch,
                bool lookahead_offload = true)
      : in_(in), s_(in.schedule), x_(in.schedule.index), w_(w), prefetch_(prefetch),
        lookahead_offload_(lookahead_offload),
        through_(in.options != nullptr && in.options->choice("streaming") == "through-cache"),
        n_(static_cast<int>(s_.steps.size())), occ_(s_.steps.size(), w.tree), prefix_(w.prefix),
        deadline_(w.deadline), prefetch_from_(w.prefetch_from), plan_(out), state_(w.use_state),
        prefetches_(w.prefetches), offloads_(w.offloads), candidates_(w.candidates) {
    // plan_.resident holds the resident bytes' differences step to step (one more entry, for
    // the end of the last step) until assemble() sums them.
    plan_.resident.assign(s_.steps.size() + 1, 0);
    const std::size_t nf = x_.full_step.size();
    if (!w.same_input) {  // else: derived by the previous call, from the same input
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
    // capacity enters otherwise: through-cache reservations, no-lookahead's lingering.
    probe_ = w.probe_capacity > in.capacity && !through_ && lookahead_offload_ ? w.probe_capacity : -1;
    w.probe_capacity = -1;
    w.probe_same = false;
    state_.assign(nf + 1, UseState{});  // (entry nf: the partial accesses' state, always 0)
    st_ = state_.data();
    prefetches_.clear();
    offloads_.clear();
    plan_.transfers.clear();
    plan_.counts = {};
  }

  void run() {
    if (through_) reserve_working_sets();
    keep_intervals();
    if (prefetch_ != Prefetch::None) prefetch();
    place_outputs();
    assemble();
    if (!lookahead_offload_) linger_offloads(plan_, in_, w_);
    w_.probe_same = probe_ >= 0;
  }

 private:
  const PlanInput& in_;
  const Schedule& s_;
  const UseIndex& x_;
  PlanScratch& w_;
  Prefetch prefetch_;
  bool lookahead_offload_;
  // streaming=through-cache: every tensor a step accesses passes through the cache during that
  // step (thesis Listing 1, cache.load / cache.generate), so each step reserves its working set
  // (capped at the capacity); a tensor is resident between two uses only if the working sets at
  // both ends fit, and then costs capacity only strictly between them. Off: SPEC §5, a
  // streamed access needs no capacity.
  bool through_;
  int n_;
  std::int64_t probe_ = -1;  // the capacity probed, -1 once some decision flips there (or off)
  // The working state lives in the caller's PlanScratch (reused from point to point).
  detail::RangeTree occ_;       // plan occupancy, reservations included
  std::vector<Ticks>& prefix_;  // prefix_[i] = compute ticks of steps 0 … i-1
  // Independent of the capacity, so kept from point to point while the input is the same
  // (PlanScratch::same_input), each derived when first needed (-1: not yet):
  std::vector<int>& deadline_;       // per full use f: write_deadline after f's step (rule 3)
  std::vector<int>& prefetch_from_;  // per position in x_.read_uses: p* (rule 4)
  Plan& plan_;
  // Per full use f (an interval is named by the full use it starts at), bits in one byte so that
  // the planner's random look-ups by f touch one small array. The bits about the interval into
  // f live on f itself, so that every question about f reads one byte:
  static constexpr std::uint8_t Kept = 1;     // interval f -> f+1 kept (rule 2)
  static constexpr std::uint8_t KeptIn = 2;   // interval f-1 -> f kept
  static constexpr std::uint8_t DirtyIn = 4;  // interval f-1 -> f dirty
  static constexpr std::uint8_t Loaded = 8;   // prefetched for use f (rule 4)
  static constexpr std::uint8_t Born = 16;    // the output of use f is on chip (rule 6)
  std::vector<UseState>& state_;
  UseState* st_ = nullptr;  // state_.data()
  std::vector<Transfer>& prefetches_;
  std::vector<Transfer>& offloads_;
  std::vector<ReadAt>& candidates_;  // rule 4's, in its order

  std::uint8_t bits(int f) const { return static_cast<std::uint8_t>(st_[f]); }
  void set(int f, std::uint8_t bit) { st_[f] = static_cast<UseState>(bits(f) | bit); }
  bool is(int f, std::uint8_t bit) const { return (bits(f) & bit) != 0; }
  bool kept(int f) const { return is(f, Kept); }  // f -> f+1
  bool resident_before(int f) const { return is(f, KeptIn | Loaded); }

  // Through-cache: each step's working set (the bytes of its accesses and, in a fused schedule,
  // of its intermediates), as a reservation capped
  // at the capacity; over_ marks the steps whose working set does not fit (nothing is resident
  // at their uses: the minimal caching scheme, thesis §4.3.3).
  std::vector<std::uint8_t> over_;
  void reserve_working_sets() {
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
  bool over(int s) const { return over_[static_cast<std::size_t>(s)] != 0; }

  void occupy(int lo, int hi, std::int64_t bytes, bool reservation) {
    if (lo > hi) return;
    occ_.add_up(lo, hi, bytes);
    if (!reservation) occupy_resident(lo, hi, bytes);
  }
  void occupy_resident(int lo, int hi, std::int64_t bytes) {
    if (lo > hi) return;
    std::int64_t* diff = plan_.resident.data();
    diff[lo] += bytes;
    diff[hi + 1] -= bytes;
  }
  // If occ_.max(lo, hi) + bytes <= capacity (or lo > hi), adds bytes to [lo, hi] of the tree;
  // whether it did. Asked as "no step above capacity - bytes", which passes over blocks below
  // that level, in the same visit of the block as the add (rules 2 and 6 ask, then add).
  bool claim(int lo, int hi, std::int64_t bytes) {
    return occ_.add_unless_above(lo, hi, in_.capacity - bytes, bytes);
  }

  // A rejection of [lo, hi] (claim() false): would the probed capacity keep it?
  void probe_rejected(int lo, int hi, std::int64_t bytes) {
    if (probe_ >= 0 && (occ_.max_all() + bytes <= probe_ || !occ_.any_above(lo, hi, probe_ - bytes))) probe_ = -1;
  }

  // Rule 3's deadline: the first step w > u with compute of u+1 … w-1 >= the write time; n when
  // no step qualifies.
  int write_deadline(int u, int tensor, std::int64_t bytes) const {
    const Ticks need = prefix_[static_cast<std::size_t>(u) + 1] + in_.transfer_ticks(tensor, bytes, false);
    auto it = std::lower_bound(prefix_.begin() + u + 1, prefix_.begin() + n_, need);
    return static_cast<int>(it - prefix_.begin());
  }

  // write_deadline after step u of full use f (of `tensor`, `bytes`), derived once per input.
  int deadline(int f, int u, int tensor, std::int64_t bytes) {
    int& d = deadline_[static_cast<std::size_t>(f)];
    if (d < 0) d = write_deadline(u, tensor, bytes);
    return d;
  }

  // A resident dirty tensor leaves after step u of full use f: written out, its space reserved
  // until w-1.
  void offload_after(int f, int u, int tensor, std::int64_t bytes) {
    const int w = deadline(f, u, tensor, bytes);
    occupy(u + 1, w - 1, bytes, /*reservation=*/true);
    offloads_.push_back({tensor, TransferKind::Offload, bytes, u, w});
    ++plan_.counts.offloads;
  }
  void offload_after(const PlanUse& r) { offload_after(r.f, r.step, r.tensor, r.bytes); }

  // Resident and dirty at use f (FullUse flags `flags`): does it need writing out after f?
  bool leaves_dirty(int f, std::uint8_t flags) const {
    return (flags & FullUse::HasNext) ? !kept(f) : (flags & FullUse::MustEndOffchip) != 0;
  }

  // Calls fn(i, in_first) for the positions i of [b, e) where keep(i), those where also
  // first(i) before the others, each part in position order: rule 2's "dirty first" (a
  // stable partition). Every keep / first is asked before the first fn. Groups of up to 64
  // (all but a few) go by bit masks, and most already have their first members first.
  template <class Keep, class First, class Fn>
  void in_rule_order(int b, int e, Keep keep, First first, Fn fn) {
    if (e - b > 64) {
      in_rule_order_long(b, e, keep, first, fn);
      return;
    }
    std::uint64_t kb = 0, fb = 0;
    for (int i = b; i < e; ++i) {
      kb |= std::uint64_t{keep(i)} << (i - b);
      fb |= std::uint64_t{first(i)} << (i - b);
    }
    fb &= kb;
    const std::uint64_t rest = kb & ~fb;
    std::uint64_t now = kb, then = 0;  // the positions to visit, in two runs
    if (rest != 0 && fb > (rest & (~rest + 1))) {  // some other one before a first one
      now = fb;
      then = rest;
    }
    for (;;) {
      if (now == 0) {
        if (then == 0) return;
        now = then;
        then = 0;
      }
      const int k = __builtin_ctzll(now);
      now &= now - 1;
      fn(b + k, ((fb >> k) & 1) != 0);
    }
  }
  template <class Keep, class First, class Fn>
  [[gnu::noinline]] void in_rule_order_long(int b, int e, Keep keep, First first, Fn fn) {
    std::vector<int>& group = w_.group;
    std::vector<std::uint8_t>& is_first = w_.group_first;
    group.clear();
    is_first.clear();
    for (int i = b; i != e; ++i) is_first.push_back(keep(i) && first(i));
    for (int i = b; i != e; ++i)
      if (is_first[static_cast<std::size_t>(i - b)]) group.push_back(i);
    const std::size_t firsts = group.size();
    for (int i = b; i != e; ++i)
      if (!is_first[static_cast<std::size_t>(i - b)] && keep(i)) group.push_back(i);
    for (std::size_t k = 0; k < group.size(); ++k) fn(group[k], k < firsts);
  }

  // Rule 2 (Bélády): intervals by end, dirty first, later start first, smaller, tensor order.
  // An interval is dirty if its start writes, or if it continues a kept dirty interval; each
  // group's dirty bits are read before any of its decisions.
  //
  // It also lists rule 4's candidates, the reads not resident before their step, in rule 4's
  // order: per step v, the rejected intervals that end in a read, as visited here (dirty ones
  // first, each part in the static order, which is the reads' static order: later previous use
  // first, smaller, tensor order), then the reads without a previous use (clean, and last in
  // that order). Rule 4 then visits only those.
  void keep_intervals() {
    const PlanUse* rec = x_.interval_uses.data();
    const int* begin = x_.interval_begin.data();
    const bool list = prefetch_ != Prefetch::None;
    candidates_.clear();
    const ReadAt* first_read = x_.first_reads.data();
    const ReadAt* first_end = first_read + x_.first_reads.size();
    for (int v = 0; v < n_; ++v) {
      const int b = begin[v], e = begin[v + 1];
      if (b != e)
        in_rule_order(
            b, e, [](int) { return true; },
            [&](int i) {
              return (rec[i].flags & FullUse::Write) || (bits(rec[i].f) & (KeptIn | DirtyIn)) == (KeptIn | DirtyIn);
            },
            [&](int i, bool dirty) __attribute__((always_inline)) {
              if (!keep_interval(rec[i], v, dirty) && list && x_.interval_read[static_cast<std::size_t>(i)] >= 0)
                candidates_.push_back({v, x_.interval_read[static_cast<std::size_t>(i)]});
            });
      if (list)
        for (; first_read != first_end && first_read->step == v; ++first_read) candidates_.push_back(*first_read);
    }
  }

  // Whether it kept the interval.
  [[gnu::always_inline]] inline bool keep_interval(const PlanUse& r, int v, bool dirty) {
    const int f = r.f;
    const int u = r.step;
    const bool into_kept = is(f, KeptIn);
    const int lo = into_kept ? u + 1 : u;  // consecutive kept intervals share their endpoint
    const std::int64_t bytes = r.bytes;
    bool keep = false;
    if (!through_) {
      keep = claim(lo, v, bytes);
      if (keep)
        occupy_resident(lo, v, bytes);
      else
        probe_rejected(lo, v, bytes);
    } else if (!over(u) && !over(v) && claim(u + 1, v - 1, bytes)) {
      keep = true;  // its ends are in their steps' working sets: the tree holds u+1 … v-1
      occupy_resident(lo, v, bytes);
    }
    DNNMEM_TRACE(keep ? 1 : 0);
    set(f + 1, static_cast<std::uint8_t>((keep ? KeptIn : 0) | (dirty ? DirtyIn : 0)));
    if (keep) {
      set(f, Kept);
      ++plan_.counts.kept;
      // Kept into its last use, dirty, and due off-chip: the final write-out (rule 7).
      if ((r.flags & FullUse::MustEndOffchip) && (r.flags & PlanUse::NextLast) && (dirty || (r.flags & PlanUse::NextWrite))) {
        const FullUse& next = x_.full[static_cast<std::size_t>(f) + 1];
        offload_after(f + 1, next.step, next.tensor, next.bytes);
      }
    } else if (into_kept && dirty) {
      offload_after(r);  // rule 3: leaves right after u
    }
    return keep;
  }

  // Rule 4: a read not resident before its step is loaded from p* = max(v - k, u + 1); those
  // whose previous interval was dirty first (the candidates, listed by keep_intervals()).
  void prefetch() {
    const PlanUse* rec = x_.read_uses.data();
    for (const ReadAt& c : candidates_) prefetch_one(rec[c.pos], c.pos, c.step);
  }

  [[gnu::always_inline]] void prefetch_one(const PlanUse& r, int i, int v) {
    const int f = r.f;
    const int u = r.step;
    const std::int64_t bytes = r.bytes;
    int& from = prefetch_from_[static_cast<std::size_t>(i)];
    if (from < 0) {
      int k = 1;
      if (prefetch_ == Prefetch::LatencyAware) {
        // smallest k with compute of v-k … v-1 >= load time: the largest q <= v-1 with
        // prefix_[q] <= prefix_[v] - load; none: k = v.
        const Ticks limit = prefix_[static_cast<std::size_t>(v)] - in_.transfer_ticks(r.tensor, bytes, true);
        auto it = std::upper_bound(prefix_.begin(), prefix_.begin() + v, limit);
        k = it == prefix_.begin() ? v : v - static_cast<int>(it - prefix_.begin() - 1);
      }
      from = std::max(v - k, u + 1);
    }
    const int p_star = from;
    if (p_star >= v) return;  // streamed
    const bool next_kept = kept(f);  // (only an interval's start is kept)
    const int end = next_kept ? v - 1 : v;  // a kept interval from v already holds v
    if (through_ && over(v)) return;  // v's working set does not fit: streamed
    const int tree_end = through_ ? v - 1 : end;  // through-cache: v's working set holds v
    const int blocked = occ_.last_above(p_star, tree_end, in_.capacity - bytes);
    // At the probed capacity the window starts elsewhere iff step `blocked` (the last one
    // above the level: those after it are below it already) falls below the higher level.
    if (probe_ >= 0 && blocked >= 0 && !occ_.any_above(blocked, blocked, probe_ - bytes)) probe_ = -1;
    const int p = blocked < 0 ? p_star : blocked + 1;
    DNNMEM_TRACE(2 + p);
    if (p > v - 1) return;  // fits nowhere: streamed
    if (through_) {
      occ_.add_up(p, tree_end, bytes);
      occupy_resident(p, end, bytes);
    } else {
      occupy(p, end, bytes, false);
    }
    set(f, Loaded);
    prefetches_.push_back({r.tensor, TransferKind::Prefetch, bytes, p, v});
    ++plan_.counts.prefetched;
    if ((r.flags & FullUse::Write) && leaves_dirty(f, r.flags))
      offload_after(f, v, r.tensor, bytes);  // a prefetched read-modify-write
  }

  // Rule 6: outputs not already resident are born on-chip if they fit at their step, in step
  // order, then tensor order.
  void place_outputs() {
    const PlanUse* rec = x_.write_uses.data();
    const int* begin = x_.write_begin.data();
    for (int step = 0; step < n_; ++step) {
      for (int i = begin[step]; i < begin[step + 1]; ++i) {
        const PlanUse& r = rec[i];
        const int f = r.f;
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
          const bool fit = claim(step, step, bytes);
          DNNMEM_TRACE(fit ? 1 : 0);
          if (!fit) {
            probe_rejected(step, step, bytes);
            continue;
          }
          occupy_resident(step, step, bytes);
        }
        set(f, Born);
        ++plan_.counts.born;
        if (leaves_dirty(f, r.flags)) offload_after(f, step, r.tensor, bytes);
      }
    }
  }

  // The transfers in issue order (SPEC §6): at the start of a step its streamed loads (rule 5's
  // demand loads included), its streamed stores, then the prefetches that begin there in rule-4
  // order; at its end its offloads in tensor order. Partial accesses are always streamed.
  // Prefetches and offloads wait in one list per issue step (heads in `head`, links in
  // `link`): the prefetches in the order rule 4 made them, the offloads in tensor order (two
  // offloads of one tensor after one step are equal: same bytes, same deadline).
  void assemble() {
    const std::size_t n = static_cast<std::size_t>(n_);
    std::int64_t* resident = plan_.resident.data();
    std::int64_t r = 0;
    for (std::size_t i = 0; i < n; ++i) resident[i] = r += resident[i];
    plan_.resident.pop_back();
    const int np = static_cast<int>(prefetches_.size()), no = static_cast<int>(offloads_.size());
    std::vector<int>& heads = w_.bucket;
    heads.assign(2 * n, -1);
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
    auto& out = plan_.transfers;
    out.reserve(s_.accesses.size() + prefetches_.size() + offloads_.size());
    const StreamUse* loads = x_.loads.data();
    const StreamUse* stores = x_.stores.data();
    const int* load_begin = x_.load_begin.data();
    const int* store_begin = x_.store_begin.data();
    const StreamUse* load = loads;  // (pointers in locals: the pushes store ints, which could
    const StreamUse* store = stores;  // alias the tables' ints)
    const UseState* st = st_;
    for (int step = 0; step < n_; ++step) {
      for (const StreamUse* end = loads + load_begin[step + 1]; load != end; ++load)
        if (!(static_cast<std::uint8_t>(st[load->f]) & (KeptIn | Loaded)))
          out.push_back({load->tensor, TransferKind::StreamLoad, load->bytes, step, step});
      for (const StreamUse* end = stores + store_begin[step + 1]; store != end; ++store)
        if (!(static_cast<std::uint8_t>(st[store->f]) & (KeptIn | Loaded | Born)))
          out.push_back({store->tensor, TransferKind::StreamStore, store->bytes, step, step});
      for (int k = head[step]; k >= 0; k = link[k]) out.push_back(pre[k]);
      for (int k = off_head[step]; k >= 0; k = off_link[k]) out.push_back(off[k]);
    }
  }
};

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

}  // namespace

void plan_no_lookahead(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::LatencyAware, /*lookahead_offload=*/false).run();
}
void plan_lookahead(const PlanInput& in, PlanScratch& w, Plan& out) {
  ThesisPlanner(in, w, out, Prefetch::LatencyAware).run();
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
extern const CachePart cache_no_lookahead{
    "no-lookahead",
    "as lookahead, writing a dirty tensor out only when its space is needed (thesis Fig. 4.2a)",
    thesis_options(), 0, &plan_no_lookahead};

}  // namespace dnnmem
