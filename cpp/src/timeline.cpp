// One event pass over steps and transfers (SPEC §6). Priorities are static between step
// boundaries (new transfers are issued only at a step's start or end), so the fluid EDF server
// reduces to serving the most urgent pending transfer until the next boundary.
#include "dnnmem/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace dnnmem {
namespace {

// Pending transfers in two bucket queues keyed by deadline step (deadlines are steps 0 … n):
// every transfer by (deadline, loads before stores, issue order), and the offloads by (deadline,
// issue order) for capacity waits. Transfers are issued in id order, so each bucket is a FIFO
// list threaded through the transfers; a bitmap of non-empty buckets (two levels) finds the most
// urgent one. Completed entries are dropped lazily, when they reach the front of their list.
// (Before: two binary heaps of packed keys, O(log n) per push and pop.)
class BucketQueue {
 public:
  BucketQueue(std::vector<int>& head, std::vector<int>& tail, std::vector<int>& next,
              std::vector<std::uint64_t>& bits, std::size_t buckets, std::size_t ids)
      : head_(head), tail_(tail), next_(next), bits_(bits) {
    head_.assign(buckets, -1);
    tail_.resize(buckets);
    next_.resize(ids);
    words_ = (buckets + 63) / 64;
    summary_words_ = (words_ + 63) / 64;
    bits_.assign(words_ + summary_words_, 0);
    word_ = bits_.data();
    summary_ = word_ + words_;
  }

  void push(std::size_t b, int id) {
    next_[static_cast<std::size_t>(id)] = -1;
    if (head_[b] < 0) {
      head_[b] = id;
      word_[b >> 6] |= 1ULL << (b & 63);
      summary_[b >> 12] |= 1ULL << ((b >> 6) & 63);
      if ((b >> 12) < low_) low_ = b >> 12;
    } else {
      next_[static_cast<std::size_t>(tail_[b])] = id;
    }
    tail_[b] = id;
  }

  // The first transfer not done of the first non-empty bucket (one must exist).
  int top(const std::vector<std::uint8_t>& done) {
    for (;;) {
      while (summary_[low_] == 0) ++low_;
      const std::size_t w = (low_ << 6) | static_cast<std::size_t>(__builtin_ctzll(summary_[low_]));
      const std::size_t b = (w << 6) | static_cast<std::size_t>(__builtin_ctzll(word_[w]));
      int id = head_[b];
      while (id >= 0 && done[static_cast<std::size_t>(id)]) id = next_[static_cast<std::size_t>(id)];
      if (id >= 0) {
        head_[b] = id;
        return id;
      }
      head_[b] = -1;  // all done: the bucket empties
      word_[w] &= word_[w] - 1;
      if (word_[w] == 0) summary_[low_] &= summary_[low_] - 1;
    }
  }

 private:
  std::vector<int>& head_;  // per bucket: its first entry, -1 when empty
  std::vector<int>& tail_;  // per bucket: its last entry (valid while head_ >= 0)
  std::vector<int>& next_;  // per transfer: the next entry of its bucket, -1 at the end
  std::vector<std::uint64_t>& bits_;
  std::size_t words_ = 0, summary_words_ = 0;
  std::uint64_t* word_ = nullptr;     // bit b: bucket b is non-empty
  std::uint64_t* summary_ = nullptr;  // bit w: word w is non-zero
  std::size_t low_ = 0;               // no summary word below it is non-zero
};

class Channel {
 public:
  Channel(const PlanInput& in, const Plan& plan, TimelineScratch& w)
      : in_(in), plan_(plan), remaining_(w.remaining), done_(w.done), waiting_(w.waiting),
        queue_(w.head, w.tail, w.next, w.bits, 2 * (in.schedule.steps.size() + 1), plan.transfers.size()),
        offload_queue_(w.offload_head, w.offload_tail, w.offload_next, w.offload_bits,
                       in.schedule.steps.size() + 1, plan.transfers.size()),
        po_head_(w.tensor_head), po_tail_(w.tensor_tail), po_next_(w.tensor_next),
        po_stamp_(w.tensor_stamp) {
    remaining_.resize(plan.transfers.size());
    done_.assign(plan.transfers.size(), 0);
    waiting_.assign(in.schedule.steps.size() + 1, 0);
    // Pending offloads per tensor: lists valid only where stamped with this call's epoch (no
    // pass over every tensor per call; GNMT has 24k).
    const std::size_t nt = in.schedule.tensors.size();
    if (po_stamp_.size() != nt || ++w.epoch == 0) {
      po_stamp_.assign(nt, 0);
      w.epoch = 1;
    }
    epoch_ = w.epoch;
    po_head_.resize(nt);
    po_tail_.resize(nt);
    po_next_.resize(plan.transfers.size());
  }

  Ticks now = 0;
  std::int64_t offload_bytes_in_flight = 0;

  void issue(int id) {
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    remaining_[static_cast<std::size_t>(id)] =
        raw_link_ ? in_.time.transfer(x.bytes) : in_.transfer_ticks(x.tensor, x.bytes, x.is_load());
    const auto d = static_cast<std::size_t>(x.deadline);
    if (d > last_deadline_) throw std::logic_error("timeline: a transfer's deadline lies outside 0 … n");
    queue_.push(2 * d + (x.is_load() ? 0 : 1), id);
    ++pending_;
    if (x.writes_out()) {
      offload_queue_.push(d, id);
      const auto t = static_cast<std::size_t>(x.tensor);
      po_next_[static_cast<std::size_t>(id)] = -1;
      if (po_stamp_[t] != epoch_ || po_head_[t] < 0) {
        po_stamp_[t] = epoch_;
        po_head_[t] = id;
      } else {
        po_next_[static_cast<std::size_t>(po_tail_[t])] = id;
      }
      po_tail_[t] = id;
      offload_bytes_in_flight += x.bytes;
      ++pending_offload_count_;
    } else {
      ++waiting_[d];
    }
  }

  bool idle() const { return pending_ == 0; }
  bool offloads_pending() const { return pending_offload_count_ > 0; }

  // Serves in priority order until `limit` (or until idle).
  void run_until(Ticks limit) {
    while (now < limit && !idle()) serve(pick(), limit);
    if (now < limit) now = limit;
  }
  // Serves until no transfer is waited on by `step`.
  void run_until_done(int step) {
    while (waiting_[static_cast<std::size_t>(step)] > 0) serve(pick(), -1);
  }
  // Capacity wait: pending offloads go first, in (deadline, issue) order; serve one to the end.
  void finish_one_offload() { serve(offload_queue_.top(done_), -1); }
  void drain() {
    while (!idle()) serve(pick(), -1);
  }

 private:
  const PlanInput& in_;
  const Plan& plan_;
  const bool raw_link_ = in_.link->identity();
  // In the caller's TimelineScratch:
  std::vector<Ticks>& remaining_;
  std::vector<std::uint8_t>& done_;
  std::vector<int>& waiting_;  // per deadline step: pending loads / streamed transfers
  BucketQueue queue_;          // bucket 2·deadline + (store ? 1 : 0)
  BucketQueue offload_queue_;  // bucket deadline, offloads and evictions only
  // Per tensor, its offloads and evictions in issue order (a list through po_next_; entries
  // done are dropped when they reach the front): valid where po_stamp_ == epoch_.
  std::vector<int>& po_head_;
  std::vector<int>& po_tail_;
  std::vector<int>& po_next_;
  std::vector<std::uint32_t>& po_stamp_;
  std::uint32_t epoch_ = 0;
  std::size_t last_deadline_ = in_.schedule.steps.size();  // n, the end of the iteration
  int pending_ = 0;
  int pending_offload_count_ = 0;

  // The tensor's first pending offload or eviction, or -1.
  int first_offload(int tensor) {
    const auto t = static_cast<std::size_t>(tensor);
    if (po_stamp_[t] != epoch_) return -1;
    int id = po_head_[t];
    while (id >= 0 && done_[static_cast<std::size_t>(id)]) id = po_next_[static_cast<std::size_t>(id)];
    po_head_[t] = id;
    return id;
  }

  int pick() {
    const int id = queue_.top(done_);
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    // Every transfer of a tensor is ordered after a pending offload of the same tensor.
    if (pending_offload_count_ > 0 && !x.writes_out()) {
      const int first = first_offload(x.tensor);
      if (first >= 0 && first < id) return first;
    }
    return id;
  }

  // Serves transfer `id` until it completes or until `limit` (limit < 0: to completion).
  void serve(int id, Ticks limit) {
    Ticks& rem = remaining_[static_cast<std::size_t>(id)];
    const Ticks dt = (limit < 0 || limit - now >= rem) ? rem : limit - now;
    rem -= dt;
    now += dt;
    if (rem > 0) return;
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    done_[static_cast<std::size_t>(id)] = 1;
    --pending_;
    if (x.writes_out()) {
      offload_bytes_in_flight -= x.bytes;
      --pending_offload_count_;
    } else {
      --waiting_[static_cast<std::size_t>(x.deadline)];
    }
  }
};

}  // namespace

Timeline simulate(const PlanInput& in, const Plan& plan) {
  TimelineScratch scratch;
  Timeline tl;
  simulate(in, plan, scratch, &tl);
  return tl;
}

TimelineTotals simulate(const PlanInput& in, const Plan& plan, TimelineScratch& scratch,
                        Timeline* steps) {
  const Schedule& s = in.schedule;
  // Bytes belong to the step at whose start or end they are issued (SPEC §6). The split by role
  // is kept only with `steps`: a sweep needs the totals, and looking up each transfer's tensor
  // misses the cache on large networks (GNMT: 24k tensors). Without `steps` a step's figures
  // live in a few locals (no StepTiming of ~200 bytes cleared per step).
  const LinkModel& link = *in.link;
  const bool raw = link.identity();
  const std::size_t n = s.steps.size();
  TimelineTotals tl;
  if (steps) steps->steps.assign(n, {});
  // The step's byte counts: in, out, and on the wire (the raw link puts every byte on the wire:
  // its wire totals are the byte totals, set per step instead of added per transfer).
  std::int64_t bytes_in = 0, bytes_out = 0, wire_in = 0, wire_out = 0;
  StepTiming* st = nullptr;
  const auto count = [&](const Transfer& x) {
    const std::int64_t wire = raw ? 0 : link.wire_bytes(x.tensor, x.bytes);
    if (x.is_load()) {
      bytes_in += x.bytes;
      wire_in += wire;
      if (st) st->in_by_role[static_cast<std::size_t>(s.tensors[static_cast<std::size_t>(x.tensor)].role)] += x.bytes;
    } else {
      bytes_out += x.bytes;
      wire_out += wire;
      if (st) st->out_by_role[static_cast<std::size_t>(s.tensors[static_cast<std::size_t>(x.tensor)].role)] += x.bytes;
    }
    if (st && x.kind == TransferKind::StreamLoad) st->streamed_in += x.bytes;
    if (st && x.kind == TransferKind::StreamStore) st->streamed_out += x.bytes;
  };
  Channel ch(in, plan, scratch);
  std::size_t next = 0;  // next transfer to issue, in issue order
  const auto& xs = plan.transfers;
  const std::size_t nx = xs.size();
  const bool recompute = !plan.recompute.empty();
  std::int64_t wait_level = 0;  // see TimelineTotals::wait_free_from
  for (std::size_t i = 0; i < n; ++i) {
    if (steps) st = &steps->steps[i];
    bytes_in = bytes_out = wire_in = wire_out = 0;
    const int step = static_cast<int>(i);
    const Ticks ready = ch.now;
    // Evictions forced by this step (no-lookahead, lru) are issued as it wants to start, before
    // its capacity wait: it then waits for the space they free.
    for (; next < nx && xs[next].issue_step == step && xs[next].kind == TransferKind::Evict; ++next) {
      ch.issue(static_cast<int>(next));
      count(xs[next]);
    }
    // Wait until the step's resident data and the data still being written out fit.
    if (ch.offloads_pending() && plan.resident[i] + ch.offload_bytes_in_flight > wait_level)
      wait_level = plan.resident[i] + ch.offload_bytes_in_flight;
    while (plan.resident[i] + ch.offload_bytes_in_flight > in.capacity && ch.offloads_pending())
      ch.finish_one_offload();
    const Ticks start = ch.now;
    const Ticks capacity_stall = start - ready;
    if (st) {
      st->start = start;
      st->capacity_stall = capacity_stall;
      st->resident = plan.resident[i] + ch.offload_bytes_in_flight;
    }
    for (; next < nx && xs[next].issue_step == step && !xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      count(xs[next]);
    }
    const Ticks compute = in.compute[i] + (recompute ? plan.recompute[i] : 0);
    ch.run_until(start + compute);
    ch.run_until_done(step);
    if (st) {
      st->compute = compute;
      st->end = ch.now;
    }
    for (; next < nx && xs[next].issue_step == step && xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      count(xs[next]);
    }
    if (raw) {
      wire_in = bytes_in;
      wire_out = bytes_out;
    }
    if (st) {
      st->bytes_in = bytes_in;
      st->bytes_out = bytes_out;
      st->wire_in = wire_in;
      st->wire_out = wire_out;
    }
    tl.traffic_in += bytes_in;
    tl.traffic_out += bytes_out;
    tl.wire_in += wire_in;
    tl.wire_out += wire_out;
    tl.compute += compute;
    tl.capacity_stall += capacity_stall;
  }
  tl.steps_end = ch.now;
  tl.wait_free_from = wait_level <= in.capacity ? wait_level : std::numeric_limits<std::int64_t>::max();
  ch.drain();
  tl.total = ch.now;
  if (steps) {
    steps->steps_end = tl.steps_end;
    steps->total = tl.total;
    steps->traffic_in = tl.traffic_in;
    steps->traffic_out = tl.traffic_out;
    steps->wire_in = tl.wire_in;
    steps->wire_out = tl.wire_out;
  }
  return tl;
}

}  // namespace dnnmem
