// The thesis's cache manager (SPEC §5 rules 1–7) and its ablations: the planner's class, shared
// by thesis.cpp (the rules, the plan's assembly, no-lookahead's lingering) and thesis_replay.cpp
// (replaying repeated blocks, docs/performance.md "Exact replay"). Plan order: kept intervals
// (rule 2, with rule 3's offloads of rejected dirty intervals), then prefetches (rule 4), then
// outputs (rule 6); whatever is left is streamed. Occupancy is one range tree over steps
// (reservations included).
#pragma once

#include <algorithm>
#include <any>
#include <cstdint>
#include <limits>
#include <vector>

#include "dnnmem/compose.hpp"
#include "dnnmem/plan.hpp"
#include "range_tree.hpp"
#include "thesis_replay.hpp"

namespace dnnmem::detail {

#ifdef DNNMEM_DECISION_TRACE
// Measurement only (benchmarks/decision_trace.cpp, docs/performance.md "Third round"): every
// decision of the planner in order, to find where two capacities first disagree. Never built
// into the library.
extern thread_local std::vector<int>* decision_trace;
#define DNNMEM_TRACE(x) \
  do {                  \
    if (detail::decision_trace) detail::decision_trace->push_back(x); \
  } while (0)
#else
#define DNNMEM_TRACE(x) \
  do {                  \
  } while (0)
#endif

enum class Prefetch { None, LatencyAware, NextStep };

void linger_offloads(Plan& p, const PlanInput& in, PlanScratch& w);

class ThesisPlanner {
 public:
  // `given`: rule 2 keeps exactly the intervals of in.kept_given (lp-rounded), unchecked here;
  // probing and replay are off then (the decisions come from the data, not from the capacity).
  ThesisPlanner(const PlanInput& in, PlanScratch& w, Plan& out, Prefetch prefetch, bool lookahead_offload = true,
                const std::uint8_t* given = nullptr);

  void run() {
    if (through_) reserve_working_sets();
    keep_intervals();
    if (prefetch_ != Prefetch::None) prefetch();
    place_outputs();
    assemble();
    if (!lookahead_offload_) linger_offloads(plan_, in_, w_);
    w_.probe_same = probe_ >= 0;
    w_.probe_holds_to = probe_;
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
  const std::uint8_t* given_;  // per full use: keep the interval it starts (lp-rounded), or null
  // streaming=through-cache: every tensor a step accesses passes through the cache during that
  // step (thesis Listing 1, cache.load / cache.generate), so each step reserves its working set
  // (capped at the capacity); a tensor is resident between two uses only if the working sets at
  // both ends fit, and then costs capacity only strictly between them. Off: SPEC §5, a
  // streamed access needs no capacity.
  bool through_;
  int n_;
  // Probing: the plan holds at every capacity up to probe_, -1 once a decision flips at or below
  // probe_floor_ (the capacity probed), or off. Without replay it starts above every capacity,
  // each rejection lowering it below its threshold `flip` (> the capacity) in probe_flips_at.
  std::int64_t probe_ = -1, probe_floor_ = -1;
  void probe_flips_at(std::int64_t flip) {
    if (flip <= probe_) probe_ = flip - 1 >= probe_floor_ ? flip - 1 : -1;
  }
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
  std::vector<Transfer>& prefetches_;  // the first plan_.counts.prefetched (add_prefetch)
  Transfer *pre_ = nullptr, *pre_end_ = nullptr;  // the next prefetch's slot; prefetches_'s end
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
  int replaying_from_ = -1;  // the block whose record replay_record() gave
  bool tried_ = false;       // replay_record() gave one
  std::int64_t* margin_ = nullptr;  // recording: the record's (low, high]

  std::uint8_t bits(int f) const { return static_cast<std::uint8_t>(st_[f]); }
  void set(int f, std::uint8_t bit) { st_[f] = static_cast<UseState>(bits(f) | bit); }
  bool is(int f, std::uint8_t bit) const { return (bits(f) & bit) != 0; }
  bool kept(int f) const { return is(f, Kept); }  // f -> f+1
  bool resident_before(int f) const { return is(f, KeptIn | Loaded); }

  // Through-cache: each step's working set (the bytes of its accesses and, in a fused schedule,
  // of its intermediates), as a reservation capped at the capacity; over_ marks the steps whose
  // working set does not fit (nothing is resident at their uses: the minimal caching scheme,
  // thesis §4.3.3).
  std::vector<std::uint8_t> over_;
  void reserve_working_sets();
  bool over(int s) const { return over_[static_cast<std::size_t>(s)] != 0; }

  // kReplayed: a replayed block's add, whose part inside the block's region is the record's.
  template <bool kReplayed = false>
  void occupy(int lo, int hi, std::int64_t bytes, bool reservation) {
    if (lo > hi) return;
    if constexpr (kReplayed)
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
  [[gnu::always_inline]] bool claim(int lo, int hi, std::int64_t bytes) {
    return occ_.add_unless_above(lo, hi, in_.capacity - bytes, bytes);
  }

  // A rejection of [lo, hi] (claim() false): would the probed capacity keep it?
  void probe_rejected(int lo, int hi, std::int64_t bytes) {
    if (probe_ >= 0 && (occ_.max_all() + bytes <= probe_ || !occ_.any_above(lo, hi, probe_ - bytes)))
      probe_flips_at(occ_.max(lo, hi) + bytes);  // (it flips at or below probe_: where exactly)
  }

  // Rule 3's deadline: the first step w > u with compute of u+1 … w-1 >= the write time; n when
  // no step qualifies.
  int write_deadline(int u, int tensor, std::int64_t bytes) const {
    const Ticks need = prefix_[static_cast<std::size_t>(u) + 1] + in_.transfer_ticks(tensor, bytes, false);
    auto it = std::lower_bound(prefix_.begin() + u + 1, prefix_.begin() + n_, need);
    return static_cast<int>(it - prefix_.begin());
  }

  // write_deadline after step u of full use f (of `tensor`, `bytes`), derived once per input.
  [[gnu::always_inline]] int deadline(int f, int u, int tensor, std::int64_t bytes) {
    int& d = deadline_[static_cast<std::size_t>(f)];
    if (d < 0) d = write_deadline(u, tensor, bytes);
    return d;
  }
  int deadline(const PlanUse& r, int u) { return deadline(r.f, u, r.tensor, r.bytes); }

  // Rule 4's p* of the read at position i of x_.read_uses (at step v), derived once per input:
  // max(v - k, u + 1) with k = 1 (prefetch-next) or the smallest k whose compute covers the
  // load (lookahead: the largest q <= v-1 with prefix_[q] <= prefix_[v] - load; none: k = v).
  [[gnu::always_inline]] int p_star(const PlanUse& r, int i, int v) {
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
  template <bool kReplayed = false>
  void offload_after(int f, int u, int tensor, std::int64_t bytes) {
    const int w = deadline(f, u, tensor, bytes);
    occupy<kReplayed>(u + 1, w - 1, bytes, /*reservation=*/true);
    offloads_.push_back({tensor, TransferKind::Offload, bytes, u, w});
    ++plan_.counts.offloads;
  }
  void offload_after(const PlanUse& r) { offload_after(r.f, r.step, r.tensor, r.bytes); }

  // Resident and dirty at use f (FullUse flags `flags`): does it need writing out after f?
  bool leaves_dirty(int f, std::uint8_t flags) const {
    return (flags & FullUse::HasNext) ? !kept(f) : (flags & FullUse::MustEndOffchip) != 0;
  }

  // Calls fn(i, in_first) for the positions i of [b, e), those where first(i) before the
  // others, each part in position order: rule 2's "dirty first" (a stable partition). Every first
  // is asked before the first fn. Groups of up to 64 (all but a few) go by bit masks; most have
  // their first members first (fb & (fb + 1) == 0) and are visited in position order.
  template <class First, class Fn>
  [[gnu::always_inline]] void in_rule_order(int b, int e, First first, Fn fn) {
    if (e - b > 64) {
      in_rule_order_long(b, e, first, fn);
      return;
    }
    std::uint64_t fb = 0;
    for (int i = b; i < e; ++i) fb |= std::uint64_t{first(i)} << (i - b);
    const std::uint64_t all = ~std::uint64_t{0} >> (64 - (e - b));  // (b < e: the caller skips empty groups)
    std::uint64_t now = all, then = 0;  // the positions to visit, in two runs
    if ((fb & (fb + 1)) != 0) {  // some other one before a first one
      now = fb;
      then = all & ~fb;
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
  template <class First, class Fn>
  [[gnu::noinline]] void in_rule_order_long(int b, int e, First first, Fn fn) {
    std::vector<int>& group = w_.group;
    std::vector<std::uint8_t>& is_first = w_.group_first;
    group.clear();
    is_first.clear();
    for (int i = b; i != e; ++i) is_first.push_back(first(i));
    for (int i = b; i != e; ++i)
      if (is_first[static_cast<std::size_t>(i - b)]) group.push_back(i);
    const std::size_t firsts = group.size();
    for (int i = b; i != e; ++i)
      if (!is_first[static_cast<std::size_t>(i - b)]) group.push_back(i);
    for (std::size_t k = 0; k < group.size(); ++k) fn(group[k], k < firsts);
  }

  // ---- Replay (docs/performance.md, "Exact replay") ----

  // The tables of the schedule and of the input the replay needs, derived when they change.
  void prepare_replay(bool same);

  // Whether block j's capacity-free tables equal its source's relative to their starts: rule 3's
  // deadline after each use that may be written out (the use of an interval's end or start
  // inside the block, a read, a write; for an interval from outside, that its reservation ends
  // before the block, in both), and rule 4's p* of each read. Derived once per input (they are
  // the planner's own cached tables, so this costs nothing more where the planner needs them
  // anyway).
  bool link(int j);
  bool derive_link(int j);

  // Whether block j, not replayed, is recorded in pass `pass`: a later block repeats it, and
  // that paid at the previous point, or j itself tried to replay (its repeats would replay the
  // same record), or it is time to try again.
  bool worth_recording(int pass, int j) const;

  // Pass `pass`'s record that block j may replay (its source's, if j passes link()), or null.
  const Replay::At* replay_record(int pass, int j);

  // The occupancy over [lo_, b_) now, against a record's: c_ if it exceeds the record's by one
  // constant c_ at every step there, within the record's margins (low, high]; then also the
  // probe (a rejection flips at the probed capacity C' iff c - (C' - C) <= low).
  bool shifted_by_constant(const std::int64_t* margin, const std::int64_t* before);

  // Starts a record of pass `pass` for block j over [lo_, b_): its margins, the occupancy now,
  // room for what it adds, then `per` values per decision (`decisions` of them).
  void start_record(int pass, int j, int decisions, int per, int bits, int extra = 0);
  // Ends it: what the block added over its region.
  void finish_record();
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
  void add_record(int pass, int j);

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
  void keep_intervals();

  // A record of rule 2 (block of len steps, count intervals): values [low, high, occupancy
  // before (len), added (len), per interval the maximum it compared inside the block, the
  // resident-bytes differences added over steps [a, b] (len + 1)]; bits per interval (kRec*);
  // ints [intervals kept, externals, per external (its position, where it started), candidates,
  // per candidate (its step and read position, relative to the block)].
  static constexpr std::uint8_t kRecKeep = 1, kRecDirty = 8, kRecRule3 = 16, kRecRule7 = 32;  // (2, 4: KeptIn, DirtyIn)
  std::vector<std::int64_t> ext_resident_;  // recording: external kept intervals' resident bytes (lo, v, bytes)

  void record_intervals(int j, int first, int count);

  // Block j (intervals [first, first + count)) replays its source's record of rule 2 if the
  // occupancy over the block is the record's plus c within its margins (so every decision of an
  // interval inside the block comes out alike), every interval from before the block arrives in
  // the state the record's did (kept, dirty: where it starts, its place in its group), and each
  // of those, decided in the record's order with the occupancy before the block as it is now,
  // comes out as the record's. Then the block takes the record's decisions in bulk. Else
  // nothing has changed (the adds made while checking are taken back) and it is decided.
  bool replay_intervals(int j, int first, int count);

  // A replayed write-out after step u of full use f: the transfer, and its reservation past the
  // block (before it and inside it: added already).
  void write_out_from(int f, int u, int tensor, std::int64_t bytes);

  template <Mode M>
  void intervals_of(int from, int to) {
    const PlanUse* rec = x_.interval_uses.data();
    const int* begin = x_.interval_begin.data();
    const bool list = prefetch_ != Prefetch::None;
    const ReadAt* first_end = x_.first_reads.data() + x_.first_reads.size();
    for (int v = from; v < to; ++v) {
      check_interrupt_every(static_cast<std::size_t>(v));
      const int b = begin[v], e = begin[v + 1];
      if (b != e)
        in_rule_order(
            b, e, [&](int i) {
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
    if (given_ != nullptr) {  // (never recording: replay is off) the caller checks that they fit
      keep = given_[f] != 0;
      if (keep) occupy(lo, v, bytes, /*reservation=*/false);
    } else if (!through_) {
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
  void prefetch();

  // How many steps before block j rule 4's windows may start (its reads' earliest p*), derived
  // once per input.
  int reach_back(int j);

  // Whether block j's candidates [c, c + count) replay its source's record of rule 4: the same
  // candidates (relative to the block), each read's interval onwards kept or not alike (it
  // decides the window's end), and the occupancy over the region shifted by a constant within
  // the margins.
  bool start_replay_prefetches(int j, const ReadAt* c, int count);

  // Rule 4's decision from the record: the window starts at a_ + start (the record's start
  // relative to its block), or the read streams (start = kStreamed or p > v - 1).
  // (Inline: one call per candidate of every replayed block.)
  static constexpr int kStreamed = std::numeric_limits<int>::min();
  [[gnu::always_inline]] void replay_prefetch(const PlanUse& r, int v, int start) {
    if (start == kStreamed) return;
    const int p = a_ + start;
    DNNMEM_TRACE(2 + p);
    if (p > v - 1) return;
    prefetched<true>(r, v, p, kept(r.f) ? v - 1 : v);
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
    // At a larger capacity the window starts elsewhere iff step `blocked` (the last one above
    // the level) falls below the higher level; a read streamed here (blocked >= v - 1) only once
    // every step of [max(p*, v - 1), blocked] does (else its window starts at v or later).
    if (probe_ >= 0 && blocked >= 0)
      probe_flips_at((blocked >= v - 1 ? occ_.max(std::max(ps, v - 1), blocked) : occ_.at(blocked)) + bytes);
    const int p = blocked < 0 ? ps : blocked + 1;
    DNNMEM_TRACE(2 + p);
    if (p > v - 1) return;  // fits nowhere: streamed
    if (through_) {
      occ_.add_up(p, tree_end, bytes);
      occupy_resident(p, end, bytes);
      set(f, Loaded);
      add_prefetch(r.tensor, bytes, p, v);
      if ((r.flags & FullUse::Write) && leaves_dirty(f, r.flags)) offload_after(f, v, r.tensor, bytes);
      return;
    }
    prefetched(r, v, p, end);
  }

  // A prefetch written in place (plan_.counts.prefetched counts them): the scratch has a slot per
  // read (each is prefetched at most once), so this is a few stores, not a push_back call.
  void add_prefetch(int tensor, std::int64_t bytes, int p, int v) {
    if (pre_ == pre_end_) grow_prefetches();  // (not reached: one slot per read)
    *pre_++ = {tensor, TransferKind::Prefetch, bytes, p, v};
    ++plan_.counts.prefetched;
  }
  [[gnu::noinline]] void grow_prefetches();

  // Read r at v prefetched over [p, end].
  template <bool kReplayed = false>
  [[gnu::always_inline]] void prefetched(const PlanUse& r, int v, int p, int end) {
    const int f = r.f;
    occupy<kReplayed>(p, end, r.bytes, false);
    set(f, Loaded);
    add_prefetch(r.tensor, r.bytes, p, v);
    if ((r.flags & FullUse::Write) && leaves_dirty(f, r.flags))
      offload_after<kReplayed>(f, v, r.tensor, r.bytes);  // a prefetched read-modify-write
  }

  // ---- Rule 6 ----

  // Rule 6: outputs not already resident are born on-chip if they fit at their step, in step
  // order, then tensor order. Block by block when replaying, as rule 2.
  void place_outputs();

  // Whether block j's writes [first, first + count) replay its source's record of rule 6: each
  // write's state (resident before, kept onwards) as the record's, and the occupancy over the
  // block shifted by a constant within the margins.
  bool start_replay_outputs(int j, int first, int count);

  static constexpr std::uint8_t kFits = 128;  // a record's rule-6 bit: the output fit
  // One pass over the writes of steps [from, to) (thesis.cpp: place_outputs() alone calls it).
  template <Mode M>
  void outputs_of(int from, int to);

  // The transfers in issue order (SPEC §6): at the start of a step its streamed loads (rule 5's
  // demand loads included), its streamed stores, then the prefetches that begin there in rule-4
  // order; at its end its offloads in tensor order. Partial accesses are always streamed.
  // Prefetches and offloads wait in one list per issue step (heads in `head`, links in
  // `link`): the prefetches in the order rule 4 made them, the offloads in tensor order (two
  // offloads of one tensor after one step are equal: same bytes, same deadline).
  void assemble();
};

}  // namespace dnnmem::detail
