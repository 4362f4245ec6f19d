// Replay of repeated blocks in the timeline (docs/performance.md, "Exact replay"). Included by
// timeline.cpp only: it works on the event pass's own state (run() keeps it in locals).
//
// A block's steps (UseIndex::blocks) run from the channel's state at the block's start: the
// pending transfers (their order in the queue, ticks left, deadlines, kinds, bytes), the one
// being served, the transfers the steps issue, the steps' compute and, at the steps that wait
// for offloads, the resident bytes. A block timed in full that later blocks repeat leaves a
// record of that state and of how it ran: the state at its end, the time taken, its capacity
// stall and bytes, the largest level it checked against the capacity. A later block whose state
// at its start is the record's relative to its start — the same transfers pending in the same
// order with the same ticks left and the same deadlines relative to the block, the same one
// served, the same tensors shared among them and its own transfers (the one ordering rule that
// reads tensors: a transfer waits for a pending offload of its tensor issued before it), the
// same issues and compute, and resident bytes that differ from the record's by one constant c
// at the steps that waited, with c in the range that leaves every wait as it was — runs the
// same events shifted in time. Ticks are integers, so the shift is exact: it takes the record's
// end state, mapped to its own transfers, without simulating.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "dnnmem/plan.hpp"
#include "dnnmem/timeline.hpp"

namespace dnnmem::detail {

struct TimelineRecords {
  const Schedule* schedule = nullptr;
  std::size_t blocks = 0;
  std::vector<std::uint8_t> is_source;  // per block: a later block names it
  // Per block: a replay used its record at the previous call (useful) / at this one (used); a
  // block is recorded only where that paid, or every kRetry calls (as the planners' records).
  static constexpr unsigned kRetry = 16;
  std::vector<std::uint8_t> useful, used;
  unsigned calls = 0;
  std::vector<int> record;               // per block: the block whose record it replays / is, -1
  std::vector<int> at;                   // per block with a record: where it starts in `ints`
  std::vector<int> ints;
  std::vector<Ticks> ticks;
  std::vector<std::int64_t> values;
  std::vector<std::uint32_t> mark;  // per tensor: the epoch it was last seen in (relations())
  std::vector<int> mark_at;         // per tensor: where
  std::uint32_t epoch = 0;
  std::vector<int> ids, rel, start_ids;  // scratch
  std::vector<std::uint8_t> ended;       // scratch: pending at the start and done at the end
  long replayed = 0;                     // blocks replayed since this was made (tests)
};

class TimelineReplay {
 public:
  using Slot = TimelineScratch::Slot;
  static constexpr std::int64_t kLow = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kHigh = std::numeric_limits<std::int64_t>::max();

  // The channel's arrays (fixed for a call) and its state (run()'s locals, copied in and out at
  // block boundaries so that run() never hands out their addresses).
  struct Channel {
    std::uint64_t* keys;  // the small array, most urgent last
    Slot* slots;
    int* waiting;
    int* po_head;
    int* po_tail;
    std::uint32_t* po_stamp;
    std::uint32_t epoch;
  };
  struct State {
    int small_n, current, pending, pending_offloads;
    bool small;
    std::int64_t offload_bytes, bytes_in, bytes_out, wait_level;
    Ticks now, capacity_stall;
  };

  TimelineReplay(TimelineRecords& r, const Schedule& s, const Plan& plan, const Ticks* compute,
                 std::int64_t capacity, Channel ch)
      : r_(r), s_(s), xs_(plan.transfers.data()), nx_(plan.transfers.size()), resident_(plan.resident.data()),
        recompute_(plan.recompute.empty() ? nullptr : plan.recompute.data()), compute_(compute),
        capacity_(capacity), c_(ch) {
    const std::size_t nb = s.index.blocks.size();
    if (r.schedule != &s || r.blocks != nb) {
      r.schedule = &s;
      r.blocks = nb;
      r.is_source.assign(nb, 0);
      for (const RepeatBlock& b : s.index.blocks)
        if (b.source >= 0) r.is_source[static_cast<std::size_t>(b.source)] = 1;
      r.used.assign(nb, 1);
      r.calls = 0;
    } else {
      ++r.calls;
    }
    std::swap(r.useful, r.used);
    r.used.assign(nb, 0);
    r.record.assign(nb, -1);
    r.at.assign(nb, -1);
    r.ints.clear();
    r.ticks.clear();
    r.values.clear();
    if (r.mark.size() != s.tensors.size()) {
      r.mark.assign(s.tensors.size(), 0);
      r.mark_at.assign(s.tensors.size(), 0);
      r.epoch = 0;
    }
  }

  // At the start of block j, before its first step issues anything; `next` is the first
  // transfer the block issues. Replays the block if it repeats a record in the same state (then
  // `next` moves past its transfers and the caller goes on at its end) and returns true; else
  // starts a record of it if later blocks repeat it.
  bool begin_block(int j, std::size_t& next, State& state) {
    st_ = &state;
    const RepeatBlock& B = s_.index.blocks[static_cast<std::size_t>(j)];
    a_ = B.begin;
    b_ = B.end;
    block_ = j;
    if (!st_->small) return false;
    const std::size_t end = first_at_or_after(next, b_);
    bool tried = false;
    if (B.source >= 0) {
      const int x = r_.record[static_cast<std::size_t>(B.source)];
      tried = x >= 0;
      if (x >= 0 && replay(x, next, end)) {
        r_.record[static_cast<std::size_t>(j)] = x;
        r_.used[static_cast<std::size_t>(x)] = 1;
        ++r_.replayed;
        next = end;
        return true;
      }
    }
    if (r_.is_source[static_cast<std::size_t>(j)] &&
        (r_.useful[static_cast<std::size_t>(j)] || tried || r_.calls % TimelineRecords::kRetry == 0))
      start_record(next, end);
    return false;
  }

  bool recording() const { return recording_; }

  // After the block's last step (before the next block begins): its record, if it has one.
  void end_block(State& state) {
    st_ = &state;
    if (recording_) finish_record();
  }

  // While recording, the capacity wait of step i: it starts at `level` (resident + bytes in
  // flight); it serves an offload because level > capacity (a shift c of the resident bytes
  // must keep that: c > capacity - level); it stops at level <= capacity with offloads still
  // pending (c <= capacity - level).
  void wait_begins(int i, std::int64_t level) {
    if (!recording_) return;
    checked_.push_back(i - a_);
    wait_max_ = std::max(wait_max_, level);
  }
  void wait_serves(std::int64_t level) {
    if (recording_) low_ = std::max(low_, capacity_ - level);
  }
  void wait_stops(std::int64_t level) {
    if (recording_) high_ = std::min(high_, capacity_ - level);
  }

 private:
  TimelineRecords& r_;
  const Schedule& s_;
  const Transfer* xs_;
  std::size_t nx_;
  const std::int64_t* resident_;
  const Ticks* recompute_;
  const Ticks* compute_;
  std::int64_t capacity_;
  Channel c_;
  State* st_ = nullptr;
  int a_ = 0, b_ = 0, block_ = -1;
  // Recording:
  bool recording_ = false;
  std::size_t rec_ = 0, first_ = 0;
  Ticks now0_ = 0, stall0_ = 0;
  std::int64_t in0_ = 0, out0_ = 0, wait_max_ = kLow, low_ = kLow, high_ = kHigh;
  std::vector<int> checked_;

  // A record in `ints`: a header (kHeader entries), then per transfer pending at the start, in
  // key order: its id (a transfer of this plan), its position (below) and its bucket relative to
  // the block; the relations (one per pending transfer and per transfer of the block); per
  // transfer pending at the end: position, relative bucket; the steps that waited, relative.
  // Positions: the pending transfers at the start in id order, then the block's own. `ticks`:
  // ticks left at the start (key order), at the end, time taken, capacity stall. `values`: low,
  // high (the range of c), the largest level waited on, bytes in, bytes out.
  enum Header { kStart, kFirst, kCount, kPendingIn, kPendingOut, kCurrentIn, kCurrentOut, kWaits, kTicks, kValues, kHeader };

  // The first transfer from `from` on that issues at step `step` or later (nx_ if none). The
  // transfers are in issue-step order (the event pass issues them in that order), so a gallop
  // from `from` and a binary search find the place a linear scan would, in O(log) reads of the
  // block's transfers instead of one per transfer.
  std::size_t first_at_or_after(std::size_t from, int step) const {
    if (from >= nx_ || xs_[from].issue_step >= step) return from;
    std::size_t lo = from, gap = 1;  // xs_[lo] is before `step`
    while (lo + gap < nx_ && xs_[lo + gap].issue_step < step) {
      lo += gap;
      gap *= 2;
    }
    std::size_t hi = std::min(lo + gap, nx_);  // xs_[hi] is at or after `step`, or hi == nx_
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (xs_[mid].issue_step < step)
        lo = mid;
      else
        hi = mid;
    }
    return hi;
  }

  int key_id(int p) const { return static_cast<int>(static_cast<std::uint32_t>(c_.keys[p])); }
  int key_bucket(int p) const { return static_cast<int>(c_.keys[p] >> 32); }
  Ticks compute_at(int i) const { return compute_[i] + (recompute_ != nullptr ? recompute_[i] : 0); }

  // r_.ids: the pending transfers in id order, then the block's [first, first + count); r_.rel:
  // per one, the position of the last one before it on the same tensor, -1 if none.
  void relations(std::size_t first, std::size_t count) {
    std::vector<int>& ids = sorted_pending_ids();
    for (std::size_t k = 0; k < count; ++k) ids.push_back(static_cast<int>(first + k));
    const std::uint32_t epoch = next_epoch();
    r_.rel.resize(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const auto t = static_cast<std::size_t>(xs_[ids[k]].tensor);
      r_.rel[k] = r_.mark[t] == epoch ? r_.mark_at[t] : -1;
      r_.mark[t] = epoch;
      r_.mark_at[t] = static_cast<int>(k);
    }
  }
  // The transfers pending at the block's start, in id order (r_.ids).
  std::vector<int>& sorted_pending_ids() {
    std::vector<int>& ids = r_.ids;
    ids.clear();
    for (int p = 0; p < st_->small_n; ++p) ids.push_back(key_id(p));
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  // A fresh epoch for r_.mark (every tensor unseen in it; the marks cleared when it wraps).
  std::uint32_t next_epoch() {
    if (++r_.epoch == 0) {
      std::fill(r_.mark.begin(), r_.mark.end(), 0);
      r_.epoch = 1;
    }
    return r_.epoch;
  }
  // The position of transfer id: among the n pending at the start (`pending`, in id order), or
  // n + its place among the block's transfers (from `first`).
  static int position(int id, const int* pending, int n, std::size_t first) {
    if (id >= static_cast<int>(first)) return n + (id - static_cast<int>(first));
    return static_cast<int>(std::lower_bound(pending, pending + n, id) - pending);
  }

  void start_record(std::size_t first, std::size_t end) {
    recording_ = true;
    first_ = first;
    const std::size_t count = end - first;
    relations(first, count);
    std::vector<int>& in = r_.ints;
    rec_ = in.size();
    const int n = st_->small_n;
    r_.start_ids.assign(r_.ids.begin(), r_.ids.begin() + n);
    const int* ids = r_.start_ids.data();
    in.resize(rec_ + kHeader);
    int* h = in.data() + rec_;
    h[kStart] = a_;
    h[kFirst] = static_cast<int>(first);
    h[kCount] = static_cast<int>(count);
    h[kPendingIn] = n;
    h[kCurrentIn] = st_->current < 0 ? -1 : position(st_->current, ids, n, first);
    h[kTicks] = static_cast<int>(r_.ticks.size());
    h[kValues] = static_cast<int>(r_.values.size());
    for (int p = 0; p < n; ++p) {
      in.push_back(key_id(p));
      in.push_back(position(key_id(p), ids, n, first));
      in.push_back(key_bucket(p) - 2 * a_);
    }
    in.insert(in.end(), r_.rel.begin(), r_.rel.end());
    for (int p = 0; p < n; ++p) r_.ticks.push_back(c_.slots[key_id(p)].remaining);
    now0_ = st_->now;
    stall0_ = st_->capacity_stall;
    in0_ = st_->bytes_in;
    out0_ = st_->bytes_out;
    wait_max_ = kLow;
    low_ = kLow;
    high_ = kHigh;
    checked_.clear();
  }

  void finish_record() {
    recording_ = false;
    if (!st_->small) {  // (the queue outgrew the small array meanwhile: no record)
      r_.ints.resize(rec_);
      return;
    }
    std::vector<int>& in = r_.ints;
    const int n = in[rec_ + kPendingIn];
    const int m = st_->small_n;
    const int* ids = r_.start_ids.data();
    in[rec_ + kPendingOut] = m;
    in[rec_ + kCurrentOut] = st_->current < 0 ? -1 : position(st_->current, ids, n, first_);
    in[rec_ + kWaits] = static_cast<int>(checked_.size());
    for (int p = 0; p < m; ++p) {
      in.push_back(position(key_id(p), ids, n, first_));
      in.push_back(key_bucket(p) - 2 * a_);
    }
    in.insert(in.end(), checked_.begin(), checked_.end());
    for (int p = 0; p < m; ++p) r_.ticks.push_back(c_.slots[key_id(p)].remaining);
    r_.ticks.push_back(st_->now - now0_);
    r_.ticks.push_back(st_->capacity_stall - stall0_);
    r_.values.insert(r_.values.end(), {low_, high_, wait_max_, st_->bytes_in - in0_, st_->bytes_out - out0_});
    r_.at[static_cast<std::size_t>(block_)] = static_cast<int>(rec_);
    r_.record[static_cast<std::size_t>(block_)] = block_;
  }

  // Block [a_, b_) with transfers [first, end) against record x (see the file's comment).
  bool replay(int x, std::size_t first, std::size_t end) {
    const int* h = r_.ints.data() + r_.at[static_cast<std::size_t>(x)];
    const int ax = h[kStart], fx = h[kFirst], count = h[kCount], n = h[kPendingIn], waits = h[kWaits];
    if (static_cast<std::size_t>(count) != end - first || n != st_->small_n) return false;
    for (int i = 0; i < b_ - a_; ++i)  // the same compute
      if (compute_at(a_ + i) != compute_at(ax + i)) return false;
    // The same pending transfers, in the same order, with the same ticks left, the same one
    // served; the same issues; the same tensors shared. (relations() and the comparisons in one
    // pass: the block's own ids are first + k, never stored; every comparison is made as before,
    // so the outcome is the same, only a mismatch stops sooner or later.)
    const std::vector<int>& ids = sorted_pending_ids();  // (n == st_->small_n)
    const int* start = h + kHeader;
    const Ticks* ticks = r_.ticks.data() + h[kTicks];
    for (int p = 0; p < n; ++p) {
      const int id = key_id(p);
      const Transfer& t = xs_[id];
      const Transfer& u = xs_[start[3 * p]];
      if (position(id, ids.data(), n, first) != start[3 * p + 1] || key_bucket(p) - 2 * a_ != start[3 * p + 2] ||
          c_.slots[id].remaining != ticks[p] || t.writes_out() != u.writes_out() || t.bytes != u.bytes)
        return false;
    }
    const int* rel = start + 3 * n;
    const std::uint32_t epoch = next_epoch();
    std::uint32_t* const mark = r_.mark.data();
    int* const mark_at = r_.mark_at.data();
    // Position k's relation (relations()): the last position before it on its tensor, or -1.
    const auto related = [&](int k, std::size_t tensor) __attribute__((always_inline)) {
      const int r = mark[tensor] == epoch ? mark_at[tensor] : -1;
      mark[tensor] = epoch;
      mark_at[tensor] = k;
      return r;
    };
    for (int k = 0; k < n; ++k)
      if (related(k, static_cast<std::size_t>(xs_[ids[static_cast<std::size_t>(k)]].tensor)) != rel[k]) return false;
    const Transfer* own = xs_ + first;
    const Transfer* rec = xs_ + fx;
    for (int k = 0; k < count; ++k) {  // the same issues
      const Transfer& t = own[k];
      const Transfer& u = rec[k];
      if (t.kind != u.kind || t.bytes != u.bytes || t.issue_step - a_ != u.issue_step - ax ||
          t.deadline - a_ != u.deadline - ax || related(n + k, static_cast<std::size_t>(t.tensor)) != rel[n + k])
        return false;
    }
    if ((st_->current < 0 ? -1 : position(st_->current, ids.data(), n, first)) != h[kCurrentIn]) return false;
    // Resident bytes at the steps that waited: the record's plus one c within its range.
    const int* fin = rel + n + count;
    const int* checked = fin + 2 * h[kPendingOut];
    const std::int64_t* v = r_.values.data() + h[kValues];
    std::int64_t shift = 0;
    for (int w = 0; w < waits; ++w) {
      const std::int64_t c = resident_[a_ + checked[w]] - resident_[ax + checked[w]];
      if (w > 0 && c != shift) return false;
      shift = c;
    }
    if (waits > 0 && !(shift > v[0] && shift <= v[1])) return false;
    apply(h, fin, ticks + n, v, shift, first);
    return true;
  }

  // The record's run, on this block: time, totals, and the state at its end mapped to this
  // block's transfers (r_.ids: its pending transfers by id, then its own).
  void apply(const int* h, const int* fin, const Ticks* end_ticks, const std::int64_t* v, std::int64_t shift,
             std::size_t first) {
    const int n = h[kPendingIn], m = h[kPendingOut], count = h[kCount];
    // The transfer at position k: the k-th pending at the start (r_.ids, in id order), or the
    // block's own first + (k - n).
    const int* pending = r_.ids.data();
    const auto id_at = [&](int k) { return k < n ? pending[k] : static_cast<int>(first) + (k - n); };
    st_->now += end_ticks[m];
    st_->capacity_stall += end_ticks[m + 1];
    st_->bytes_in += v[3];
    st_->bytes_out += v[4];
    if (h[kWaits] > 0) st_->wait_level = std::max(st_->wait_level, v[2] + shift);
    // Done at the end: the pending at the start that are not pending any more (their counts
    // taken back), and the block's own (issued and done: nothing counted).
    std::vector<std::uint8_t>& still = r_.ended;
    still.assign(static_cast<std::size_t>(n + count), 0);
    for (int q = 0; q < m; ++q) still[static_cast<std::size_t>(fin[2 * q])] = 1;
    for (int k = 0; k < n; ++k) {
      if (still[static_cast<std::size_t>(k)]) continue;
      const Transfer& t = xs_[pending[k]];
      c_.slots[pending[k]].done = 1;
      if (!t.writes_out()) --c_.waiting[t.deadline];
    }
    for (int k = 0; k < count; ++k) {
      const int id = static_cast<int>(first) + k;
      c_.slots[id].done = still[static_cast<std::size_t>(n + k)] ? 0 : 1;
      if (still[static_cast<std::size_t>(n + k)] && !xs_[id].writes_out()) ++c_.waiting[xs_[id].deadline];
    }
    // The queue at the end, in the record's (key) order.
    st_->small_n = m;
    st_->pending = m;
    st_->pending_offloads = 0;
    st_->offload_bytes = 0;
    for (int q = 0; q < m; ++q) {
      const int id = id_at(fin[2 * q]);
      const auto bucket = static_cast<std::uint64_t>(fin[2 * q + 1] + 2 * a_);
      c_.keys[q] = bucket << 32 | static_cast<std::uint32_t>(id);
      c_.slots[id].remaining = end_ticks[q];
      if (xs_[id].writes_out()) {
        ++st_->pending_offloads;
        st_->offload_bytes += xs_[id].bytes;
      }
    }
    // Each tensor's pending offloads, in issue order (their lists hold nothing else pending).
    for (int q = 0; q < m; ++q) {
      const int id = id_at(fin[2 * q]);
      if (xs_[id].writes_out()) {
        const auto t = static_cast<std::size_t>(xs_[id].tensor);
        c_.po_stamp[t] = c_.epoch;
        c_.po_head[t] = -1;
      }
    }
    std::vector<int>& offloads = r_.start_ids;
    offloads.clear();
    for (int q = 0; q < m; ++q) {
      const int id = id_at(fin[2 * q]);
      if (xs_[id].writes_out()) offloads.push_back(id);
    }
    std::sort(offloads.begin(), offloads.end());
    for (const int id : offloads) {
      const auto t = static_cast<std::size_t>(xs_[id].tensor);
      c_.slots[id].tensor_next = -1;
      if (c_.po_head[t] < 0)
        c_.po_head[t] = id;
      else
        c_.slots[c_.po_tail[t]].tensor_next = id;
      c_.po_tail[t] = id;
    }
    st_->current = h[kCurrentOut] < 0 ? -1 : id_at(h[kCurrentOut]);
  }
};

}  // namespace dnnmem::detail
