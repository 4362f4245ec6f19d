// The thesis's cache manager (SPEC §5 rules 1–7) and its ablations `belady` (no prefetch),
// `prefetch-next` (k = 1) and `no-lookahead` (dirty tensors linger until their space is needed).
// Plan order: kept intervals (rule 2, with rule 3's offloads of rejected dirty intervals), then
// prefetches (rule 4), then outputs (rule 6); whatever is left is streamed. Occupancy is one
// range tree over steps (reservations included).
#include <algorithm>
#include <any>
#include <limits>
#include <numeric>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"
#include "range_tree.hpp"
#include "thesis_replay.hpp"

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
    // Replay (docs/performance.md, "Exact replay"): off under through-cache (its reservations
    // read the capacity) and without repeated blocks.
#ifndef DNNMEM_DECISION_TRACE  // (the trace lists decisions one by one, in order)
    if (!through_ && !w.no_replay && x_.blocks.size() > 1) {
      rp_ = std::any_cast<detail::ThesisReplay>(&w.replay);
      if (rp_ == nullptr) rp_ = &w.replay.emplace<detail::ThesisReplay>();
      prepare_replay(same);
    }
#endif
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
  using Replay = detail::ThesisReplay;
  enum class Mode { Plain, Record, Replay };

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
  const ReadAt* first_read_ = nullptr;  // keep_intervals(): the next read without a previous use

  // Replay (null when off), and the block being decided: its steps [a_, b_), the part of the
  // occupancy its pass may read [lo_, b_), and while it records or replays: the record, and
  // for a replay the constant c_ by which the occupancy there exceeds the record's.
  Replay* rp_ = nullptr;
  int a_ = 0, b_ = 0, lo_ = 0;
  Replay::At rec_;
  std::int64_t c_ = 0;
  bool deferring_ = false;  // adds inside [lo_, b_) are left to the record's (occupy())
  std::int64_t* margin_ = nullptr;  // recording: the record's (low, high]

  std::uint8_t bits(int f) const { return static_cast<std::uint8_t>(st_[f]); }
  void set(int f, std::uint8_t bit) { st_[f] = static_cast<UseState>(bits(f) | bit); }
  bool is(int f, std::uint8_t bit) const { return (bits(f) & bit) != 0; }
  bool kept(int f) const { return is(f, Kept); }  // f -> f+1
  bool resident_before(int f) const { return is(f, KeptIn | Loaded); }

  // Through-cache: each step's working set (the bytes of its accesses), as a reservation capped
  // at the capacity; over_ marks the steps whose working set does not fit (nothing is resident
  // at their uses: the minimal caching scheme, thesis §4.3.3).
  std::vector<std::uint8_t> over_;
  void reserve_working_sets() {
    over_.assign(static_cast<std::size_t>(n_), 0);
    for (int s = 0; s < n_; ++s) {
      const Step& st = s_.steps[static_cast<std::size_t>(s)];
      std::int64_t sum = 0;
      for (int k = 0; k < st.num_accesses; ++k) sum += s_.accesses[static_cast<std::size_t>(st.first_access + k)].bytes;
      if (sum > in_.capacity) over_[static_cast<std::size_t>(s)] = 1;
      occ_.add(s, s, std::min(sum, in_.capacity));
    }
  }
  bool over(int s) const { return over_[static_cast<std::size_t>(s)] != 0; }

  void occupy(int lo, int hi, std::int64_t bytes, bool reservation) {
    if (lo > hi) return;
    if (deferring_)
      occupy_outside(lo, hi, bytes);
    else
      occ_.add_up(lo, hi, bytes);
    if (!reservation) occupy_resident(lo, hi, bytes);
  }
  // A replay's add: the parts outside the block's region; the part inside is the record's.
  void occupy_outside(int lo, int hi, std::int64_t bytes) {
    if (lo < lo_) occ_.add_up(lo, std::min(hi, lo_ - 1), bytes);
    if (hi >= b_) occ_.add_up(std::max(lo, b_), hi, bytes);
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
  int deadline(const PlanUse& r, int u) { return deadline(r.f, u, r.tensor, r.bytes); }

  // Rule 4's p* of the read at position i of x_.read_uses (at step v), derived once per input:
  // max(v - k, u + 1) with k = 1 (prefetch-next) or the smallest k whose compute covers the
  // load (lookahead: the largest q <= v-1 with prefix_[q] <= prefix_[v] - load; none: k = v).
  int p_star(const PlanUse& r, int i, int v) {
    int& from = prefetch_from_[static_cast<std::size_t>(i)];
    if (from < 0) {
      int k = 1;
      if (prefetch_ == Prefetch::LatencyAware) {
        const Ticks limit = prefix_[static_cast<std::size_t>(v)] - in_.transfer_ticks(r.tensor, r.bytes, true);
        auto it = std::upper_bound(prefix_.begin(), prefix_.begin() + v, limit);
        k = it == prefix_.begin() ? v : v - static_cast<int>(it - prefix_.begin() - 1);
      }
      from = std::max(v - k, r.step + 1);
    }
    return from;
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

  // ---- Replay (docs/performance.md, "Exact replay") ----

  // The tables of the schedule and of the input the replay needs, derived when they change.
  void prepare_replay(bool same) {
    Replay& r = *rp_;
    const std::size_t nb = x_.blocks.size();
    if (r.schedule != &s_ || r.blocks != nb) {
      r.schedule = &s_;
      r.blocks = nb;
      r.is_source.assign(nb, 0);
      for (const RepeatBlock& b : x_.blocks)
        if (b.source >= 0) r.is_source[static_cast<std::size_t>(b.source)] = 1;
      same = false;
    }
    if (!same) {
      r.link.assign(nb, -1);
      r.back.assign(nb, -1);
    }
    for (auto& rec : r.record) rec.assign(nb, -1);
    for (auto& at : r.at) at.assign(nb, {});
    r.values.clear();
    r.bits.clear();
    r.ints.clear();
  }

  // Whether block j's capacity-free tables equal its source's relative to their starts: rule 3's
  // deadline after each use that may be written out (the use of an interval's end or start
  // inside the block, a read, a write; for an interval from outside, that its reservation ends
  // before the block, in both), and rule 4's p* of each read. Derived once per input (they are
  // the planner's own cached tables, so this costs nothing more where the planner needs them
  // anyway).
  bool link(int j) {
    std::int8_t& known = rp_->link[static_cast<std::size_t>(j)];
    if (known < 0) known = derive_link(j) ? 1 : 0;
    return known != 0;
  }
  bool derive_link(int j) {
    const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
    const RepeatBlock& S = x_.blocks[static_cast<std::size_t>(B.source)];
    const int a = B.begin, as = S.begin, len = B.end - B.begin;
    // Deadline w after step u: the same distance w - u, and both n (no step qualifies) or not.
    const auto same_deadline = [&](const PlanUse& r, int u, const PlanUse& q, int us) {
      const int w = deadline(r, u), ws = deadline(q, us);
      return w - u == ws - us && (w == n_) == (ws == n_);
    };
    const PlanUse* iv = x_.interval_uses.data();
    const int di = x_.interval_begin[static_cast<std::size_t>(as)] - x_.interval_begin[static_cast<std::size_t>(a)];
    for (int v = a; v < a + len; ++v)
      for (int i = x_.interval_begin[static_cast<std::size_t>(v)]; i < x_.interval_begin[static_cast<std::size_t>(v) + 1]; ++i) {
        const PlanUse& r = iv[i];
        const PlanUse& q = iv[i + di];
        if (r.step >= a) {
          if (!same_deadline(r, r.step, q, q.step)) return false;
        } else {
          // From before the block: its write-out's reservation [u + 1, w - 1] reaches both
          // blocks or neither, and then from the same step to the same step relative to them.
          const int w = deadline(r, r.step), ws = deadline(q, q.step);
          if ((w > a) != (ws > as) ||
              (w > a && (std::max(r.step + 1, a) - a != std::max(q.step + 1, as) - as || w - a != ws - as))) return false;
        }
        if ((r.flags & FullUse::MustEndOffchip) && (r.flags & PlanUse::NextLast)) {
          const FullUse& e = x_.full[static_cast<std::size_t>(r.f) + 1];
          const FullUse& es = x_.full[static_cast<std::size_t>(q.f) + 1];
          const int w = deadline(r.f + 1, e.step, e.tensor, e.bytes), ws = deadline(q.f + 1, es.step, es.tensor, es.bytes);
          if (w - e.step != ws - es.step || (w == n_) != (ws == n_)) return false;
        }
      }
    const PlanUse* rd = x_.read_uses.data();
    const int dr = x_.read_begin[static_cast<std::size_t>(as)] - x_.read_begin[static_cast<std::size_t>(a)];
    for (int v = a; v < a + len; ++v)
      for (int i = x_.read_begin[static_cast<std::size_t>(v)]; i < x_.read_begin[static_cast<std::size_t>(v) + 1]; ++i) {
        const PlanUse& r = rd[i];
        const PlanUse& q = rd[i + dr];
        if (prefetch_ != Prefetch::None) {
          const int p = p_star(r, i, v), ps = p_star(q, i + dr, v - a + as);
          if (p - a != ps - as) return false;
        }
        if ((r.flags & FullUse::Write) && !same_deadline(r, v, q, v - a + as)) return false;
      }
    const PlanUse* wr = x_.write_uses.data();
    const int dw = x_.write_begin[static_cast<std::size_t>(as)] - x_.write_begin[static_cast<std::size_t>(a)];
    for (int i = x_.write_begin[static_cast<std::size_t>(a)]; i < x_.write_begin[static_cast<std::size_t>(a + len)]; ++i)
      if (!same_deadline(wr[i], wr[i].step, wr[i + dw], wr[i + dw].step)) return false;
    return true;
  }

  // Pass `pass`'s record that block j may replay (its source's, if j passes link()), or null.
  const Replay::At* replay_record(int pass, int j) {
    const int source = x_.blocks[static_cast<std::size_t>(j)].source;
    if (source < 0) return nullptr;
    const int r = rp_->record[pass][static_cast<std::size_t>(source)];
    if (r < 0 || !link(j)) return nullptr;
    return &rp_->at[pass][static_cast<std::size_t>(r)];
  }

  // The occupancy over [lo_, b_) now, against a record's: c_ if it exceeds the record's by one
  // constant c_ at every step there, within the record's margins (low, high]; then also the
  // probe (a rejection flips at the probed capacity C' iff c - (C' - C) <= low).
  bool shifted_by_constant(const std::int64_t* margin, const std::int64_t* before) {
    std::vector<std::int64_t>& now = rp_->region;
    const int len = b_ - lo_;
    now.resize(static_cast<std::size_t>(len));
    occ_.values(lo_, b_ - 1, now.data());
    const std::int64_t c = now[0] - before[0];
    for (int k = 1; k < len; ++k)
      if (now[static_cast<std::size_t>(k)] - before[k] != c) return false;
    if (!(c > margin[0] && c <= margin[1])) return false;
    c_ = c;
    if (probe_ >= 0 && margin[0] != Replay::kLow && c - (probe_ - in_.capacity) <= margin[0]) probe_ = -1;
    return true;
  }

  // Starts a record of pass `pass` for block j over [lo_, b_): its margins, the occupancy now,
  // room for what it adds, then `per` values per decision (`decisions` of them).
  void start_record(int pass, int j, int decisions, int per, int bits, int extra = 0) {
    Replay& r = *rp_;
    Replay::At& at = r.at[pass][static_cast<std::size_t>(j)];
    const int len = b_ - lo_;
    at.values = static_cast<int>(r.values.size());
    at.bits = static_cast<int>(r.bits.size());
    at.ints = static_cast<int>(r.ints.size());
    r.values.resize(r.values.size() + 2 + 2 * static_cast<std::size_t>(len) + static_cast<std::size_t>(decisions * per + extra));
    r.bits.resize(r.bits.size() + static_cast<std::size_t>(bits));
    std::int64_t* v = r.values.data() + at.values;
    v[0] = Replay::kLow;
    v[1] = Replay::kHigh;
    occ_.values(lo_, b_ - 1, v + 2);
    r.record[pass][static_cast<std::size_t>(j)] = j;
    rec_ = at;
    margin_ = v;
  }
  // Ends it: what the block added over its region.
  void finish_record() {
    std::int64_t* v = rp_->values.data() + rec_.values;
    const int len = b_ - lo_;
    occ_.values(lo_, b_ - 1, v + 2 + len);
    for (int k = 0; k < len; ++k) v[2 + len + k] -= v[2 + k];
    margin_ = nullptr;
  }
  // A decision that compared `maximum` + bytes with the capacity and kept (fits) or not: the
  // shifts of the occupancy that leave it as it is.
  void note_margin(std::int64_t maximum, std::int64_t bytes, bool fits) {
    const std::int64_t slack = in_.capacity - bytes - maximum;
    if (fits)
      margin_[1] = std::min(margin_[1], slack);
    else
      margin_[0] = std::max(margin_[0], slack);
  }
  const std::int64_t* record_values() const { return rp_->values.data() + rec_.values; }
  const std::uint8_t* record_bits() const { return rp_->bits.data() + rec_.bits; }
  void add_record(int pass, int j) {
    // the record's additions over the region, then the block takes the record's place
    const int len = b_ - lo_;
    occ_.add_values(lo_, b_ - 1, record_values() + 2 + len);
    const int source = x_.blocks[static_cast<std::size_t>(j)].source;
    rp_->record[pass][static_cast<std::size_t>(j)] = rp_->record[pass][static_cast<std::size_t>(source)];
  }

  // ---- Rule 2 ----

  // Rule 2 (Bélády): intervals by end, dirty first, later start first, smaller, tensor order.
  // An interval is dirty if its start writes, or if it continues a kept dirty interval; each
  // group's dirty bits are read before any of its decisions.
  //
  // It also lists rule 4's candidates, the reads not resident before their step, in rule 4's
  // order: per step v, the rejected intervals that end in a read, as visited here (dirty ones
  // first, each part in the static order, which is the reads' static order: later previous use
  // first, smaller, tensor order), then the reads without a previous use (clean, and last in
  // that order). Rule 4 then visits only those.
  //
  // Block by block when replaying: a block that repeats a recorded one in an equivalent state
  // takes its decisions (replay_intervals); a block that later blocks repeat is recorded.
  void keep_intervals() {
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
      } else if (rp_->is_source[static_cast<std::size_t>(j)]) {
        record_intervals(j, first, count);
      } else {
        intervals_of<Mode::Plain>(a_, b_);
      }
    }
  }

  // A record of rule 2 (block of len steps, count intervals): values [low, high, occupancy
  // before (len), added (len), per interval the maximum it compared inside the block, the
  // resident-bytes differences added over steps [a, b] (len + 1)]; bits per interval (kRec*);
  // ints [intervals kept, externals, per external (its position, where it started), candidates,
  // per candidate (its step and read position, relative to the block)].
  static constexpr std::uint8_t kRecKeep = 1, kRecDirty = 8, kRecRule3 = 16, kRecRule7 = 32;  // (2, 4: KeptIn, DirtyIn)
  std::vector<std::int64_t> ext_resident_;  // recording: external kept intervals' resident bytes (lo, v, bytes)

  void record_intervals(int j, int first, int count) {
    const int len = b_ - a_;
    start_record(0, j, count, 1, count, len + 1);
    std::int64_t* res = rp_->values.data() + rec_.values + 2 + 2 * len + count;
    const std::int64_t* diff = plan_.resident.data() + a_;
    for (int k = 0; k <= len; ++k) res[k] = diff[k];
    std::vector<int>& ints = rp_->ints;
    const std::size_t head = ints.size();
    ints.push_back(plan_.counts.kept);
    ints.push_back(0);
    const std::size_t cand0 = candidates_.size();
    ext_resident_.clear();
    intervals_of<Mode::Record>(a_, b_);
    (void)first;
    finish_record();
    res = rp_->values.data() + rec_.values + 2 + 2 * len + count;
    for (int k = 0; k <= len; ++k) res[k] = diff[k] - res[k];
    for (std::size_t k = 0; k < ext_resident_.size(); k += 3)
      occupy_resident(static_cast<int>(ext_resident_[k]), static_cast<int>(ext_resident_[k + 1]), ext_resident_[k + 2]);
    ints[head] = plan_.counts.kept - ints[head];
    ints[head + 1] = static_cast<int>((ints.size() - head - 2) / 2);
    ints.push_back(static_cast<int>(candidates_.size() - cand0));
    const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
    for (std::size_t k = cand0; k < candidates_.size(); ++k) {
      ints.push_back(candidates_[k].step - a_);
      ints.push_back(candidates_[k].pos - read0);
    }
  }

  // Block j (intervals [first, first + count)) replays its source's record of rule 2 if the
  // occupancy over the block is the record's plus c within its margins (so every decision of an
  // interval inside the block comes out alike), every interval from before the block arrives in
  // the state the record's did (kept, dirty: where it starts, its place in its group), and each
  // of those, decided in the record's order with the occupancy before the block as it is now,
  // comes out as the record's. Then the block takes the record's decisions in bulk. Else
  // nothing has changed (the adds made while checking are taken back) and it is decided.
  bool replay_intervals(int j, int first, int count) {
    const Replay::At* at = replay_record(0, j);
    if (at == nullptr) return false;
    rec_ = *at;
    const std::uint8_t* rb = record_bits();
    const PlanUse* r = x_.interval_uses.data() + first;
    for (int k = 0; k < count; ++k)
      if (r[k].step < a_ && (bits(r[k].f) & (KeptIn | DirtyIn)) != (rb[k] & (KeptIn | DirtyIn))) return false;
    const std::int64_t* v = record_values();
    if (!shifted_by_constant(v, v + 2)) return false;
    const int len = b_ - a_;
    const std::int64_t* inside_max = v + 2 + 2 * len;
    const int* ip = rp_->ints.data() + rec_.ints;
    const int kept_count = ip[0], externals = ip[1];
    const int* ext = ip + 2;
    // The intervals from before the block, in the record's order: each adds outside the block
    // (kept: [lo, a - 1]; a write-out's reservation from before it) before the next asks.
    std::vector<std::int64_t>& undo = rp_->deferred;
    undo.clear();
    const auto add = [&](int lo, int hi, std::int64_t bytes) {
      if (lo > hi) return;
      occ_.add_up(lo, hi, bytes);
      undo.push_back(lo);
      undo.push_back(hi);
      undo.push_back(bytes);
    };
    for (int e = 0; e < externals; ++e) {
      const int k = ext[2 * e];
      const PlanUse& q = r[k];
      const int u = q.step;
      const int lo = is(q.f, KeptIn) ? u + 1 : u;
      const std::int64_t level = in_.capacity - q.bytes;
      const std::int64_t inside = inside_max[k] + c_;
      const bool recorded = (rb[k] & kRecKeep) != 0;
      bool keep;
      if (inside > level) {
        keep = false;
      } else if (!recorded && lo <= ext[2 * e + 1]) {
        // The record's interval was rejected for a step before its block; this one's range
        // before the block holds all of that one's, and no step's occupancy has fallen since.
        keep = false;
      } else {
        keep = !(occ_.max_all() > level && occ_.any_above(lo, a_ - 1, level));
      }
      if (keep != recorded) {
        for (std::size_t m = undo.size(); m >= 3; m -= 3)
          occ_.add(static_cast<int>(undo[m - 3]), static_cast<int>(undo[m - 2]), -undo[m - 1]);
        undo.clear();
        return false;
      }
      if (keep) {
        add(lo, a_ - 1, q.bytes);
      } else {
        if (probe_ >= 0 && inside + q.bytes <= probe_ && !occ_.any_above(lo, a_ - 1, probe_ - q.bytes)) probe_ = -1;
        if (rb[k] & kRecRule3) add(u + 1, std::min(deadline(q, u) - 1, a_ - 1), q.bytes);
      }
    }
    undo.clear();
    // The block's decisions: the record's additions over it, each interval's state bits and
    // write-outs, the resident bytes, rule 4's candidates.
    occ_.add_values(a_, b_ - 1, v + 2 + len);
    std::int64_t* diff = plan_.resident.data();
    const std::int64_t* res = inside_max + count;
    for (int k = 0; k <= len; ++k) diff[a_ + k] += res[k];
    for (int e = 0; e < externals; ++e) {
      const int k = ext[2 * e];
      if (!(rb[k] & kRecKeep)) continue;
      const PlanUse& q = r[k];
      occupy_resident(is(q.f, KeptIn) ? q.step + 1 : q.step, x_.full[static_cast<std::size_t>(q.f) + 1].step, q.bytes);
    }
    for (int k = 0; k < count; ++k) {
      const PlanUse& q = r[k];
      const std::uint8_t b = rb[k];
      set(q.f + 1, static_cast<std::uint8_t>(((b & kRecKeep) ? KeptIn : 0) | ((b & kRecDirty) ? DirtyIn : 0)));
      if (b & kRecKeep) set(q.f, Kept);
      if (b & kRecRule3) write_out_from(q.f, q.step, q.tensor, q.bytes);
      if (b & kRecRule7) {
        const FullUse& next = x_.full[static_cast<std::size_t>(q.f) + 1];
        write_out_from(q.f + 1, next.step, next.tensor, next.bytes);
      }
    }
    plan_.counts.kept += kept_count;
    const int* cand = ext + 2 * externals;
    const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
    for (int k = 0; k < cand[0]; ++k) candidates_.push_back({a_ + cand[1 + 2 * k], read0 + cand[2 + 2 * k]});
    const ReadAt* first_end = x_.first_reads.data() + x_.first_reads.size();
    while (first_read_ != first_end && first_read_->step < b_) ++first_read_;
    rp_->record[0][static_cast<std::size_t>(j)] = rp_->record[0][static_cast<std::size_t>(x_.blocks[static_cast<std::size_t>(j)].source)];
    return true;
  }

  // A replayed write-out after step u of full use f: the transfer, and its reservation past the
  // block (before it and inside it: added already).
  void write_out_from(int f, int u, int tensor, std::int64_t bytes) {
    const int w = deadline(f, u, tensor, bytes);
    const int lo = std::max(u + 1, b_);
    if (lo <= w - 1) occ_.add_up(lo, w - 1, bytes);
    offloads_.push_back({tensor, TransferKind::Offload, bytes, u, w});
    ++plan_.counts.offloads;
  }

  template <Mode M>
  void intervals_of(int from, int to) {
    const PlanUse* rec = x_.interval_uses.data();
    const int* begin = x_.interval_begin.data();
    const bool list = prefetch_ != Prefetch::None;
    const ReadAt* first_end = x_.first_reads.data() + x_.first_reads.size();
    for (int v = from; v < to; ++v) {
      const int b = begin[v], e = begin[v + 1];
      if (b != e)
        in_rule_order(
            b, e, [](int) { return true; },
            [&](int i) {
              return (rec[i].flags & FullUse::Write) || (bits(rec[i].f) & (KeptIn | DirtyIn)) == (KeptIn | DirtyIn);
            },
            [&](int i, bool dirty) __attribute__((always_inline)) {
              if (!keep_interval<M>(rec[i], i, v, dirty) && list && x_.interval_read[static_cast<std::size_t>(i)] >= 0)
                candidates_.push_back({v, x_.interval_read[static_cast<std::size_t>(i)]});
            });
      if (list)
        for (; first_read_ != first_end && first_read_->step == v; ++first_read_) candidates_.push_back(*first_read_);
    }
  }

  // Whether it kept the interval (at position i of x_.interval_uses). Recording, also what the
  // replay needs: the maximum it compared inside the block, its outcome and state, its margin
  // (an interval from inside the block), its place (one from before it).
  template <Mode M>
  [[gnu::always_inline]] inline bool keep_interval(const PlanUse& r, int i, int v, bool dirty) {
    const int f = r.f;
    const int u = r.step;
    const bool into_kept = is(f, KeptIn);
    const int lo = into_kept ? u + 1 : u;  // consecutive kept intervals share their endpoint
    const std::int64_t bytes = r.bytes;
    bool keep = false;
    std::uint8_t* note = nullptr;
    if (!through_) {
      std::int64_t maximum = 0;
      if constexpr (M == Mode::Record) maximum = occ_.max(std::max(lo, a_), v);  // (before the block: the replay asks)
      keep = claim(lo, v, bytes);
      if constexpr (M == Mode::Record) {
        const int k = i - x_.interval_begin[static_cast<std::size_t>(a_)];
        rp_->values[static_cast<std::size_t>(rec_.values + 2 + 2 * (b_ - lo_) + k)] = maximum;
        note = &rp_->bits[static_cast<std::size_t>(rec_.bits + k)];
        *note = static_cast<std::uint8_t>((keep ? kRecKeep : 0) | (bits(f) & (KeptIn | DirtyIn)) | (dirty ? kRecDirty : 0));
        if (u >= a_) {
          note_margin(maximum, bytes, keep);
        } else {
          rp_->ints.push_back(k);
          rp_->ints.push_back(lo);
        }
      }
      if (keep) {
        if (M == Mode::Record && u < a_) {  // (left out of the record's resident bytes)
          ext_resident_.push_back(lo);
          ext_resident_.push_back(v);
          ext_resident_.push_back(bytes);
        } else {
          occupy_resident(lo, v, bytes);
        }
      } else {
        probe_rejected(lo, v, bytes);
      }
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
        if constexpr (M == Mode::Record) *note |= kRecRule7;
      }
    } else if (into_kept && dirty) {
      offload_after(r);  // rule 3: leaves right after u
      if constexpr (M == Mode::Record) *note |= kRecRule3;
    }
    return keep;
  }

  // ---- Rule 4 ----

  // Rule 4: a read not resident before its step is loaded from p* = max(v - k, u + 1); those
  // whose previous interval was dirty first (the candidates, listed by keep_intervals()).
  // Block by block when replaying, as rule 2; a block's region reaches back to its windows'
  // earliest start.
  void prefetch() {
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
        add_record(1, j);
        deferring_ = false;
      } else if (rp_->is_source[static_cast<std::size_t>(j)]) {
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

  // How many steps before block j rule 4's windows may start (its reads' earliest p*), derived
  // once per input.
  int reach_back(int j) {
    int& back = rp_->back[static_cast<std::size_t>(j)];
    if (back < 0) {
      const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
      back = 0;
      if (prefetch_ != Prefetch::None)
        for (int v = B.begin; v < B.end; ++v)
          for (int i = x_.read_begin[static_cast<std::size_t>(v)]; i < x_.read_begin[static_cast<std::size_t>(v) + 1]; ++i)
            back = std::max(back, B.begin - p_star(x_.read_uses[static_cast<std::size_t>(i)], i, v));
    }
    return back;
  }

  // Whether block j's candidates [c, c + count) replay its source's record of rule 4: the same
  // candidates (relative to the block), each read's interval onwards kept or not alike (it
  // decides the window's end), and the occupancy over the region shifted by a constant within
  // the margins.
  bool start_replay_prefetches(int j, const ReadAt* c, int count) {
    const Replay::At* at = replay_record(1, j);
    if (at == nullptr) return false;
    rec_ = *at;
    const int* p = rp_->ints.data() + rec_.ints;
    const int back = reach_back(j);
    if (p[0] != count || p[1] != back) return false;
    p += 2;
    const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
    for (int k = 0; k < count; ++k) {
      if (c[k].step - a_ != p[4 * k] || c[k].pos - read0 != p[4 * k + 1]) return false;
      if ((kept(x_.read_uses[static_cast<std::size_t>(c[k].pos)].f) ? 1 : 0) != p[4 * k + 3]) return false;
    }
    lo_ = a_ - back;
    const std::int64_t* v = record_values();
    if (!shifted_by_constant(v, v + 2)) return false;
    rec_.ints += 2;
    deferring_ = true;
    return true;
  }

  // Rule 4's decision from the record: the window starts at a_ + start (the record's start
  // relative to its block), or the read streams (start = kStreamed or p > v - 1).
  static constexpr int kStreamed = std::numeric_limits<int>::min();
  void replay_prefetch(const PlanUse& r, int v, int start) {
    if (start == kStreamed) return;
    const int p = a_ + start;
    DNNMEM_TRACE(2 + p);
    if (p > v - 1) return;
    prefetched(r, v, p, kept(r.f) ? v - 1 : v);
  }

  template <Mode M>
  [[gnu::always_inline]] void prefetch_one(const PlanUse& r, int i, int v) {
    const int f = r.f;
    const std::int64_t bytes = r.bytes;
    int* note = nullptr;
    if constexpr (M == Mode::Record) {
      note = &rp_->ints.emplace_back(v - a_);
      rp_->ints.push_back(i - x_.read_begin[static_cast<std::size_t>(a_)]);
      rp_->ints.push_back(kStreamed);
      rp_->ints.push_back(kept(f) ? 1 : 0);
      note = rp_->ints.data() + (rp_->ints.size() - 2);
    }
    const int ps = p_star(r, i, v);
    if (ps >= v) return;  // streamed
    const bool next_kept = kept(f);  // (only an interval's start is kept)
    const int end = next_kept ? v - 1 : v;  // a kept interval from v already holds v
    if (through_ && over(v)) return;  // v's working set does not fit: streamed
    const int tree_end = through_ ? v - 1 : end;  // through-cache: v's working set holds v
    const std::int64_t level = in_.capacity - bytes;
    const int blocked = occ_.last_above(ps, tree_end, level);
    if constexpr (M == Mode::Record) {
      // The same window under a shift c of the occupancy: the blocking step stays above the
      // level (c > level - its value), the steps after it stay at most the level.
      if (blocked >= 0) margin_[0] = std::max(margin_[0], level - occ_.at(blocked));
      const int after = blocked >= 0 ? blocked + 1 : ps;
      if (after <= tree_end) margin_[1] = std::min(margin_[1], level - occ_.max(after, tree_end));
      *note = (blocked < 0 ? ps : blocked + 1) - a_;
    }
    // At the probed capacity the window starts elsewhere iff step `blocked` (the last one
    // above the level: those after it are below it already) falls below the higher level.
    if (probe_ >= 0 && blocked >= 0 && !occ_.any_above(blocked, blocked, probe_ - bytes)) probe_ = -1;
    const int p = blocked < 0 ? ps : blocked + 1;
    DNNMEM_TRACE(2 + p);
    if (p > v - 1) return;  // fits nowhere: streamed
    if (through_) {
      occ_.add_up(p, tree_end, bytes);
      occupy_resident(p, end, bytes);
      set(f, Loaded);
      prefetches_.push_back({r.tensor, TransferKind::Prefetch, bytes, p, v});
      ++plan_.counts.prefetched;
      if ((r.flags & FullUse::Write) && leaves_dirty(f, r.flags)) offload_after(f, v, r.tensor, bytes);
      return;
    }
    prefetched(r, v, p, end);
  }

  // Read r at v prefetched over [p, end].
  void prefetched(const PlanUse& r, int v, int p, int end) {
    const int f = r.f;
    occupy(p, end, r.bytes, false);
    set(f, Loaded);
    prefetches_.push_back({r.tensor, TransferKind::Prefetch, r.bytes, p, v});
    ++plan_.counts.prefetched;
    if ((r.flags & FullUse::Write) && leaves_dirty(f, r.flags))
      offload_after(f, v, r.tensor, r.bytes);  // a prefetched read-modify-write
  }

  // ---- Rule 6 ----

  // Rule 6: outputs not already resident are born on-chip if they fit at their step, in step
  // order, then tensor order. Block by block when replaying, as rule 2.
  void place_outputs() {
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
        add_record(2, j);
        deferring_ = false;
      } else if (rp_->is_source[static_cast<std::size_t>(j)]) {
        start_record(2, j, 0, 0, count);
        outputs_of<Mode::Record>(a_, b_);
        finish_record();
      } else {
        outputs_of<Mode::Plain>(a_, b_);
      }
    }
  }

  // Whether block j's writes [first, first + count) replay its source's record of rule 6: each
  // write's state (resident before, kept onwards) as the record's, and the occupancy over the
  // block shifted by a constant within the margins.
  bool start_replay_outputs(int j, int first, int count) {
    const Replay::At* at = replay_record(2, j);
    if (at == nullptr) return false;
    rec_ = *at;
    const std::uint8_t* rb = record_bits();
    const PlanUse* r = x_.write_uses.data() + first;
    for (int k = 0; k < count; ++k)
      if ((bits(r[k].f) & (KeptIn | Loaded | Kept)) != (rb[k] & (KeptIn | Loaded | Kept))) return false;
    const std::int64_t* v = record_values();
    if (!shifted_by_constant(v, v + 2)) return false;
    deferring_ = true;
    return true;
  }

  static constexpr std::uint8_t kFits = 128;  // a record's rule-6 bit: the output fit
  template <Mode M>
  void outputs_of(int from, int to) {
    const PlanUse* rec = x_.write_uses.data();
    const int* begin = x_.write_begin.data();
    for (int step = from; step < to; ++step) {
      for (int i = begin[step]; i < begin[step + 1]; ++i) {
        const PlanUse& r = rec[i];
        const int f = r.f;
        std::uint8_t* note = nullptr;
        if constexpr (M == Mode::Record) {
          note = &rp_->bits[static_cast<std::size_t>(rec_.bits + i - begin[a_])];
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
            fit = (record_bits()[i - begin[a_]] & kFits) != 0;
            if (fit) occupy(step, step, bytes, false);
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
