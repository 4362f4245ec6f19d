// One event pass over steps and transfers (SPEC §6). Priorities are static between step
// boundaries (new transfers are issued only at a step's start or end), so the fluid EDF server
// reduces to serving the most urgent pending transfer until the next boundary.
#include "dnnmem/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <type_traits>

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

// T: the tick type: int64 when narrow_ticks() proved the run fits it (then in units of
// `unit` ticks), Ticks (__int128, unit 1) otherwise.
template <class T>
class Channel {
 public:
  Channel(const PlanInput& in, const Plan& plan, TimelineScratch& w, std::vector<T>& remaining,
          std::int64_t unit)
      : in_(in), plan_(plan), per_byte_(in.time.throughput / unit), remaining_(remaining),
        done_(w.done), waiting_(w.waiting),
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

  T now = 0;
  std::int64_t offload_bytes_in_flight = 0;

  void issue(int id) {
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    if constexpr (!kNarrow)
      remaining_[static_cast<std::size_t>(id)] =
          raw_link_ ? in_.time.transfer(x.bytes) : in_.transfer_ticks(x.tensor, x.bytes, x.is_load());
    else if (raw_link_)  // (other links: set by narrow_ticks)
      remaining_[static_cast<std::size_t>(id)] = x.bytes * per_byte_;
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
  void run_until(T limit) {
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
  static constexpr bool kNarrow = std::is_same_v<T, std::int64_t>;
  const PlanInput& in_;
  const Plan& plan_;
  const bool raw_link_ = in_.link->identity();
  const std::int64_t per_byte_;  // a raw transfer's time per byte, in the run's unit
  // In the caller's TimelineScratch:
  std::vector<T>& remaining_;
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
  void serve(int id, T limit) {
    T& rem = remaining_[static_cast<std::size_t>(id)];
    const T dt = (limit < 0 || limit - now >= rem) ? rem : limit - now;
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

// Whether the run fits int64 ticks; if so, fills `compute` and `ticks` with every step's compute
// and every transfer's time in units of g = gcd(bandwidth, throughput) ticks. Exact time
// (hardware.hpp) makes a second of a real design point about 10^25 ticks (616 GB/s × 13.45
// TFLOP/s), far past int64; but compute (FLOPs · bandwidth) and raw transfers (bytes ·
// throughput) are multiples of g, and then so is every value of the run (sums, differences and
// minima of them): the run in units of g is the same run, exactly (scaled by 1/g), and there
// a second is bandwidth · throughput / g ticks (4·10^15 at that point). A value that is not a
// multiple of g (a compute model or link that rounds) keeps __int128. The clock only moves by
// serving a transfer (at most its time, each transfer issued once) or by waiting out a step's
// compute, so every tick value (now, a step's start + compute, a remaining time, a difference
// of two of them, the summed compute and stalls) is at most Σ compute + Σ transfer times:
// at most 2^62 leaves int64 a factor 2 of margin. On the raw link the transfer times need only
// their bytes' sum here (the channel multiplies at issue); other links' are computed here,
// into `ticks`.
__extension__ typedef unsigned __int128 UTicks;

// Exact division by g without a machine division (tens of cycles each; GNMT has 26k steps):
// g = 2^k · m with m odd, and m's inverse modulo 2^64 turns c / g into a multiplication.
class ExactDivider {
 public:
  explicit ExactDivider(std::int64_t g)
      : k_(__builtin_ctzll(static_cast<std::uint64_t>(g))), m_(static_cast<std::uint64_t>(g) >> k_) {
    // Newton's iteration: m·m ≡ 1 (mod 8) for odd m, and each step doubles the correct bits.
    inv_ = m_;
    for (int i = 0; i < 5; ++i) inv_ *= 2 - m_ * inv_;
  }
  // c / g when g divides c and the quotient is below 2^64; false otherwise. If q · m equals
  // c / 2^k, c = q · g exactly; when the quotient exists, q is it (q ≡ c/2^k · m^-1 mod 2^64).
  bool divide(Ticks c, std::int64_t& q) const {
    if (c < 0 || (static_cast<UTicks>(c) & ((UTicks{1} << k_) - 1)) != 0) return false;
    const UTicks d = static_cast<UTicks>(c) >> k_;
    const std::uint64_t u = static_cast<std::uint64_t>(d) * inv_;
    q = static_cast<std::int64_t>(u);
    return static_cast<UTicks>(u) * m_ == d && q >= 0;
  }

 private:
  int k_;
  std::uint64_t m_, inv_ = 0;
};

bool narrow_ticks(const PlanInput& in, const Plan& plan, std::int64_t g,
                  std::vector<std::int64_t>& compute, std::vector<std::int64_t>& ticks) {
  constexpr Ticks kLimit = Ticks{1} << 62;
  const ExactDivider div(g);
  const std::size_t n = in.schedule.steps.size();
  const bool recompute = !plan.recompute.empty();
  compute.resize(n);
  Ticks sum = 0;  // each term < 2^63 and the sum checked after each: no overflow
  for (std::size_t i = 0; i < n; ++i) {
    const Ticks c = in.compute[i] + (recompute ? plan.recompute[i] : 0);
    std::int64_t q;
    if (!div.divide(c, q)) return false;
    sum += q;
    if (sum > kLimit) return false;
    compute[i] = static_cast<std::int64_t>(q);
  }
  const auto& xs = plan.transfers;
  if (in.link->identity()) {  // bytes · throughput / g each: the channel computes them at issue
    Ticks bytes = 0;          // each term < 2^63: no overflow
    for (const Transfer& x : xs) bytes += x.bytes;
    // (bytes ≤ 2^62 first: the product then stays below 2^125.)
    return bytes <= kLimit && sum + bytes * (in.time.throughput / g) <= kLimit;
  }
  ticks.resize(xs.size());
  for (std::size_t id = 0; id < xs.size(); ++id) {
    const Transfer& x = xs[id];
    std::int64_t q;
    if (!div.divide(in.transfer_ticks(x.tensor, x.bytes, x.is_load()), q)) return false;
    sum += q;
    if (sum > kLimit) return false;
    ticks[id] = static_cast<std::int64_t>(q);
  }
  return true;
}

template <class T>
TimelineTotals run(const PlanInput& in, const Plan& plan, TimelineScratch& scratch,
                   Timeline* steps, std::vector<T>& remaining, std::int64_t unit) {
  constexpr bool kNarrow = std::is_same_v<T, std::int64_t>;
  // Back to ticks: the narrow run counts in units of `unit` ticks (narrow_ticks).
  const auto ticks = [unit](T x) { return kNarrow ? static_cast<Ticks>(x) * unit : static_cast<Ticks>(x); };
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
  Channel<T> ch(in, plan, scratch, remaining, unit);
  std::size_t next = 0;  // next transfer to issue, in issue order
  const auto& xs = plan.transfers;
  const std::size_t nx = xs.size();
  const bool recompute = !plan.recompute.empty();
  std::int64_t wait_level = 0;  // see TimelineTotals::wait_free_from
  T compute_sum = 0, stall_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (steps) st = &steps->steps[i];
    bytes_in = bytes_out = wire_in = wire_out = 0;
    const int step = static_cast<int>(i);
    const T ready = ch.now;
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
    const T start = ch.now;
    const T capacity_stall = start - ready;
    if (st) {
      st->start = ticks(start);
      st->capacity_stall = ticks(capacity_stall);
      st->resident = plan.resident[i] + ch.offload_bytes_in_flight;
    }
    for (; next < nx && xs[next].issue_step == step && !xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      count(xs[next]);
    }
    T compute;
    if constexpr (kNarrow)
      compute = scratch.compute[i];
    else
      compute = in.compute[i] + (recompute ? plan.recompute[i] : 0);
    ch.run_until(start + compute);
    ch.run_until_done(step);
    if (st) {
      st->compute = ticks(compute);
      st->end = ticks(ch.now);
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
    compute_sum += compute;
    stall_sum += capacity_stall;
  }
  tl.compute = ticks(compute_sum);
  tl.capacity_stall = ticks(stall_sum);
  tl.steps_end = ticks(ch.now);
  tl.wait_free_from = wait_level <= in.capacity ? wait_level : std::numeric_limits<std::int64_t>::max();
  ch.drain();
  tl.total = ticks(ch.now);
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

}  // namespace

Timeline simulate(const PlanInput& in, const Plan& plan) {
  TimelineScratch scratch;
  Timeline tl;
  simulate(in, plan, scratch, &tl);
  return tl;
}

// 64-bit ticks halve the channel's arithmetic and its per-transfer times; the results are the
// same either way (exact integers, scaled back), so the choice only costs the bound's pass.
TimelineTotals simulate(const PlanInput& in, const Plan& plan, TimelineScratch& scratch,
                        Timeline* steps) {
  const std::int64_t g = std::gcd(in.time.bandwidth, in.time.throughput);
  scratch.narrow = !scratch.force_wide && narrow_ticks(in, plan, g, scratch.compute, scratch.ticks);
  return scratch.narrow ? run<std::int64_t>(in, plan, scratch, steps, scratch.ticks, g)
                        : run<Ticks>(in, plan, scratch, steps, scratch.remaining, 1);
}

}  // namespace dnnmem
