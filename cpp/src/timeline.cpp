// One event pass over steps and transfers (SPEC §6). Priorities are static between step
// boundaries (new transfers are issued only at a step's start or end), so the fluid EDF server
// reduces to serving the most urgent pending transfer until the next boundary.
#include "dnnmem/timeline.hpp"

#include <algorithm>
#include <any>
#include <optional>
#include <climits>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "timeline_replay.hpp"

namespace dnnmem {
namespace {

using Slot = TimelineScratch::Slot;

// Pending transfers in two bucket queues keyed by deadline step (deadlines are steps 0 … n):
// every transfer by (deadline, loads before stores, issue order), and the offloads by (deadline,
// issue order) for capacity waits. Transfers are issued in id order, so each bucket is a FIFO
// list threaded through the transfers (Slot::*Next); a bitmap of non-empty buckets (two levels)
// finds the most urgent one. Completed entries are dropped lazily, when they reach the front of
// their list. They start empty, and are emptied (clear()) whenever the channel goes idle, so a
// call leaves them empty for the next. They serve only past the small array's size (run()).
template <int Slot::*Next>
class BucketQueue {
 public:
  BucketQueue(std::vector<int>& head, std::vector<int>& tail, std::vector<std::uint64_t>& bits,
              std::size_t buckets, bool clean) {
    const std::size_t words = (buckets + 63) / 64;
    const std::size_t summary_words = (words + 63) / 64;
    if (!clean || head.size() != buckets || bits.size() != words + summary_words) {
      head.assign(buckets, -1);
      bits.assign(words + summary_words, 0);
    }
    tail.resize(buckets);
    head_ = head.data();
    tail_ = tail.data();
    word_ = bits.data();
    summary_ = word_ + words;
    summary_words_ = summary_words;
  }

  // (Out of line: the small array serves nearly every call, and the loop that inlines these keeps
  // fewer values in memory without them.)
  __attribute__((noinline)) void push(Slot* slots, std::size_t b, int id) {
    slots[id].*Next = -1;
    if (head_[b] < 0) {
      head_[b] = id;
      word_[b >> 6] |= 1ULL << (b & 63);
      summary_[b >> 12] |= 1ULL << ((b >> 6) & 63);
      if ((b >> 12) < low_) low_ = b >> 12;
    } else {
      slots[tail_[b]].*Next = id;
    }
    tail_[b] = id;
  }

  // The first transfer not done of the first non-empty bucket (one must exist).
  __attribute__((noinline)) int top(Slot* slots) {
    for (;;) {
      while (summary_[low_] == 0) ++low_;
      const std::size_t w = (low_ << 6) | static_cast<std::size_t>(__builtin_ctzll(summary_[low_]));
      const std::size_t b = (w << 6) | static_cast<std::size_t>(__builtin_ctzll(word_[w]));
      int id = head_[b];
      while (id >= 0 && slots[id].done) id = slots[id].*Next;
      if (id >= 0) {
        head_[b] = id;
        return id;
      }
      head_[b] = -1;  // all done: the bucket empties
      word_[w] &= word_[w] - 1;
      if (word_[w] == 0) summary_[low_] &= summary_[low_] - 1;
    }
  }

  // Drops `id` (done) from the front of bucket b if it is there; top() skips it otherwise.
  __attribute__((noinline)) void pop_if_head(Slot* slots, std::size_t b, int id) {
    if (head_[b] != id) return;
    head_[b] = slots[id].*Next;
    if (head_[b] < 0) {
      word_[b >> 6] &= ~(1ULL << (b & 63));
      if (word_[b >> 6] == 0) summary_[b >> 12] &= ~(1ULL << ((b >> 6) & 63));
    }
  }

  // Empties every bucket (their entries are all done), touching only the non-empty ones.
  __attribute__((noinline)) void clear() {
    for (std::size_t k = 0; k < summary_words_; ++k) {
      for (std::uint64_t sw = summary_[k]; sw; sw &= sw - 1) {
        const std::size_t w = (k << 6) | static_cast<std::size_t>(__builtin_ctzll(sw));
        for (std::uint64_t bw = word_[w]; bw; bw &= bw - 1)
          head_[(w << 6) | static_cast<std::size_t>(__builtin_ctzll(bw))] = -1;
        word_[w] = 0;
      }
      summary_[k] = 0;
    }
  }

 private:
  int* head_ = nullptr;  // per bucket: its first entry, -1 when empty
  int* tail_ = nullptr;  // per bucket: its last entry (valid while head_ >= 0)
  std::uint64_t* word_ = nullptr;     // bit b: bucket b is non-empty
  std::uint64_t* summary_ = nullptr;  // bit w: word w is non-zero
  std::size_t summary_words_ = 0;
  std::size_t low_ = 0;  // no summary word below it is non-zero
};

// The event pass; kTable: fill the per-step table too. Everything the loop updates lives in
// locals (stores into the scratch arrays cannot alias them), the buffers in raw pointers.
// kRaw: the link is the identity (a transfer takes bytes · throughput ticks, its bytes all on the
// wire). kReplay: replay repeated blocks (timeline_replay.hpp; a sweep's pass on the raw link
// of a schedule that repeats): the pass without it carries none of its bookkeeping.
template <bool kTable, bool kRaw, bool kReplay>
TimelineTotals run(const PlanInput& in, const Plan& plan, TimelineScratch& w, Timeline* table) {
  const Schedule& s = in.schedule;
  const LinkModel& link = *in.link;
  constexpr bool raw = kRaw;
  const std::size_t n = s.steps.size();
  const Transfer* xs = plan.transfers.data();
  const std::size_t nx = plan.transfers.size();
  TimelineTotals tl;
  if constexpr (kTable) table->steps.assign(n, {});

  // Buffers: empty from the previous call unless it threw (clean), else cleared here.
  const bool clean = w.clean && w.waiting.size() == n + 1;
  w.clean = false;
  if (!clean) w.waiting.assign(n + 1, 0);
  BucketQueue<&Slot::next> queue(w.head, w.tail, w.bits, 2 * (n + 1), clean);  // 2·deadline + store
  BucketQueue<&Slot::offload_next> offload_queue(w.offload_head, w.offload_tail, w.offload_bits, n + 1,
                                                 clean);  // deadline; offloads and evictions only
  w.slots.resize(nx);
  Slot* const slots = w.slots.data();
  int* const waiting = w.waiting.data();
  // Pending offloads per tensor: lists valid only where stamped with this call's epoch (no pass
  // over every tensor per call; GNMT has 24k). Entries done are dropped when they reach the front.
  const std::size_t nt = s.tensors.size();
  if (w.tensor_stamp.size() != nt || ++w.epoch == 0) {
    w.tensor_stamp.assign(nt, 0);
    w.epoch = 1;
  }
  const std::uint32_t epoch = w.epoch;
  w.tensor_head.resize(nt);
  w.tensor_tail.resize(nt);
  int* const po_head = w.tensor_head.data();
  int* const po_tail = w.tensor_tail.data();
  std::uint32_t* const po_stamp = w.tensor_stamp.data();

  Ticks now = 0;
  std::int64_t offload_bytes_in_flight = 0;
  int pending = 0, pending_offloads = 0;
  // The transfer the channel serves: pick()'s answer, kept while no transfer is issued or
  // completes (nothing else changes it), -1 when it must be picked again.
  int current = -1;
  const std::int64_t throughput = in.time.throughput;

  // The step's byte counts (with the table: per step; else added to the totals directly).
  std::int64_t bytes_in = 0, bytes_out = 0, wire_in = 0, wire_out = 0;
  StepTiming* st = nullptr;
  // While at most kSmall transfers are pending (nearly always: GNMT's points keep fewer than 64,
  // mostly under 8), the queues are one array of keys (bucket << 32 | id), sorted with the most
  // urgent last: a push shifts the few more urgent keys, the top is the last key, a completion
  // removes its key (nearly always the last). The order is the bucket queues' own: by bucket,
  // then issue order. The first push beyond kSmall moves every key into the bucket queues (in
  // key order, so each bucket stays in issue order); they serve until the channel is idle
  // again, when they are emptied and the array takes over.
  constexpr int kSmall = 64;
  std::uint64_t small_buffer[kSmall + 1];
  small_buffer[0] = UINT64_MAX;  // a sentinel above every key: a push's shift stops there
  std::uint64_t* const small_keys = small_buffer + 1;
  int small_n = 0;
  bool small = !w.bucket_queues_only;
  const auto enqueue = [&](int id, std::size_t b) __attribute__((always_inline)) {
    if (small) {
      if (small_n < kSmall) {
        const std::uint64_t key = static_cast<std::uint64_t>(b) << 32 | static_cast<std::uint32_t>(id);
        int j = small_n++;
        for (; small_keys[j - 1] < key; --j) small_keys[j] = small_keys[j - 1];
        small_keys[j] = key;
        return;
      }
      small = false;
      for (int j = small_n - 1; j >= 0; --j) {
        const auto q = static_cast<int>(static_cast<std::uint32_t>(small_keys[j]));
        queue.push(slots, static_cast<std::size_t>(small_keys[j] >> 32), q);
        if (xs[q].writes_out()) offload_queue.push(slots, static_cast<std::size_t>(xs[q].deadline), q);
      }
      small_n = 0;
    }
    queue.push(slots, b, id);
    if (xs[id].writes_out()) offload_queue.push(slots, static_cast<std::size_t>(xs[id].deadline), id);
  };
  // Drops completed transfer `id` (bucket b) from the queues.
  const auto dequeue = [&](int id, std::size_t b) __attribute__((always_inline)) {
    if (small) {
      int j = small_n - 1;
      while (static_cast<std::uint32_t>(small_keys[j]) != static_cast<std::uint32_t>(id)) --j;
      for (--small_n; j < small_n; ++j) small_keys[j] = small_keys[j + 1];
    } else if (pending > 0) {
      queue.pop_if_head(slots, b, id);  // (else dropped when it reaches its bucket's front)
    } else {
      queue.clear();
      offload_queue.clear();
      small = !w.bucket_queues_only;
    }
  };
  // The first pending offload or eviction in (deadline, issue) order (one must be pending).
  const auto first_in_offload_order = [&]() {
    if (!small) return offload_queue.top(slots);
    int j = small_n - 1;
    while (!xs[static_cast<std::uint32_t>(small_keys[j])].writes_out()) --j;
    return static_cast<int>(static_cast<std::uint32_t>(small_keys[j]));
  };
  const auto issue = [&](std::size_t id) __attribute__((always_inline)) {
    const Transfer& x = xs[id];
    Slot& e = slots[id];
    if constexpr (raw)
      e.remaining = static_cast<Ticks>(x.bytes) * throughput;
    else
      e.remaining = in.transfer_ticks(x.tensor, x.bytes, x.is_load());
    e.done = 0;
    const auto d = static_cast<std::size_t>(x.deadline);
    if (d > n) throw std::logic_error("timeline: a transfer's deadline lies outside 0 … n");
    const bool load = x.is_load();
    enqueue(static_cast<int>(id), 2 * d + (load ? 0 : 1));
    ++pending;
    current = -1;
    if (x.writes_out()) {
      const auto t = static_cast<std::size_t>(x.tensor);
      e.tensor_next = -1;
      if (po_stamp[t] != epoch || po_head[t] < 0) {
        po_stamp[t] = epoch;
        po_head[t] = static_cast<int>(id);
      } else {
        slots[po_tail[t]].tensor_next = static_cast<int>(id);
      }
      po_tail[t] = static_cast<int>(id);
      offload_bytes_in_flight += x.bytes;
      ++pending_offloads;
    } else {
      ++waiting[d];
    }
    std::int64_t wire = 0;
    if constexpr (!raw) wire = link.wire_bytes(x.tensor, x.bytes);
    if (load) {
      bytes_in += x.bytes;
      wire_in += wire;
    } else {
      bytes_out += x.bytes;
      wire_out += wire;
    }
    if constexpr (kTable) {
      const auto role = static_cast<std::size_t>(s.tensors[static_cast<std::size_t>(x.tensor)].role);
      (load ? st->in_by_role : st->out_by_role)[role] += x.bytes;
      if (x.kind == TransferKind::StreamLoad) {
        st->streamed_in += x.bytes;
        st->streamed_wire_in += raw ? x.bytes : wire;
      }
      if (x.kind == TransferKind::StreamStore) {
        st->streamed_out += x.bytes;
        st->streamed_wire_out += raw ? x.bytes : wire;
      }
    }
  };
  const auto complete = [&](int id) __attribute__((always_inline)) {
    const Transfer& x = xs[id];
    slots[id].done = 1;
    --pending;  // (before dequeue(): it empties the bucket queues when none is left)
    current = -1;
    dequeue(id, 2 * static_cast<std::size_t>(x.deadline) + (x.is_load() ? 0 : 1));
    if (x.writes_out()) {
      offload_bytes_in_flight -= x.bytes;
      --pending_offloads;
    } else {
      --waiting[x.deadline];
    }
  };
  // The transfer to serve: the most urgent, unless a pending offload of its tensor was issued
  // before it (every transfer of a tensor is ordered after a pending offload of the tensor).
  const auto pick = [&]() __attribute__((always_inline)) {
    const int id = small ? static_cast<int>(static_cast<std::uint32_t>(small_keys[small_n - 1])) : queue.top(slots);
    const Transfer& x = xs[id];
    if (pending_offloads > 0 && !x.writes_out()) {
      const auto t = static_cast<std::size_t>(x.tensor);
      if (po_stamp[t] == epoch) {
        int first = po_head[t];
        while (first >= 0 && slots[first].done) first = slots[first].tensor_next;
        po_head[t] = first;
        if (first >= 0 && first < id) return first;
      }
    }
    return id;
  };
  // Serves the picked transfer to its end.
  const auto serve_one = [&]() __attribute__((always_inline)) {
    if (current < 0) current = pick();
    Ticks& rem = slots[current].remaining;
    now += rem;
    rem = 0;
    complete(current);
  };

  std::size_t next = 0;  // next transfer to issue, in issue order
  // Its issue step (INT_MIN past the last: no step equals it).
  const auto next_step = [&]() __attribute__((always_inline)) { return next < nx ? xs[next].issue_step : INT_MIN; };
  int next_issue = next_step();
  const bool recompute = !plan.recompute.empty();
  const std::int64_t* const resident = plan.resident.data();
  const Ticks* const compute_of = in.compute.data();
  std::int64_t wait_level = 0;  // see TimelineTotals::wait_free_from
  // The least resident + in-flight bytes at which a capacity wait served (TimelineTotals::same_below);
  // kept in tl, not in a local of its own: the loop is register-bound, and serving is rare.
  std::int64_t& serve_min = tl.same_below;
  serve_min = std::numeric_limits<std::int64_t>::max();
  // Replay of repeated blocks (timeline_replay.hpp): a sweep's pass on the raw link.
  static_assert(!kReplay || (!kTable && kRaw));
  const std::vector<RepeatBlock>& blocks = s.index.blocks;
  std::optional<detail::TimelineReplay> replay;
  if constexpr (kReplay) {
    auto* records = std::any_cast<detail::TimelineRecords>(&w.replay);
    if (records == nullptr) records = &w.replay.emplace<detail::TimelineRecords>();
    replay.emplace(*records, s, plan, compute_of, in.capacity,
                   detail::TimelineReplay::Channel{small_keys, slots, waiting, po_head, po_tail, po_stamp, epoch});
  }
  // Block by block when replaying: a block replayed from a record, or simulated (and recorded);
  // the locals the replay reads and sets go through a copy, so that their addresses stay here.
  detail::TimelineReplay::State state;
  std::size_t block = 0;
  int boundary = kReplay ? 0 : INT_MAX;  // the next block's first step
  bool recording = false;
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    if constexpr (kReplay) {
      if (static_cast<int>(i) == boundary) {
        check_interrupt_every(block);  // (a replayed block skips its steps' polls)
        state = {small_n, current, pending, pending_offloads, small, offload_bytes_in_flight, bytes_in,
                 bytes_out, wait_level, now, tl.capacity_stall};
        if (kReplay && recording) replay->end_block(state);
        const int j = static_cast<int>(block++);
        boundary = block < blocks.size() ? blocks[block].begin : INT_MAX;
        if (replay->begin_block(j, next, state)) {
          small_n = state.small_n;
          current = state.current;
          pending = state.pending;
          pending_offloads = state.pending_offloads;
          offload_bytes_in_flight = state.offload_bytes;
          bytes_in = state.bytes_in;
          bytes_out = state.bytes_out;
          wait_level = state.wait_level;
          now = state.now;
          tl.capacity_stall = state.capacity_stall;
          next_issue = next_step();
          recording = false;
          i = static_cast<std::size_t>(blocks[static_cast<std::size_t>(j)].end) - 1;
          continue;
        }
        recording = replay->recording();
      }
    }
      if constexpr (kTable) {
        st = &table->steps[i];
        bytes_in = bytes_out = wire_in = wire_out = 0;
      }
      const int step = static_cast<int>(i);
      const Ticks ready = now;
      const bool issues = next_issue == step;  // (the loops below check each transfer's step)
      // Evictions forced by this step (no-lookahead, lru) are issued as it wants to start, before
      // its capacity wait: it then waits for the space they free.
      if (issues) {
        for (; next < nx && xs[next].issue_step == step && xs[next].kind == TransferKind::Evict; ++next)
          issue(next);
      }
      // Wait until the step's resident data and the data still being written out fit. Pending
      // offloads go first, in (deadline, issue) order; each is served to its end.
      if (pending_offloads > 0) {
        if (resident[i] + offload_bytes_in_flight > wait_level) wait_level = resident[i] + offload_bytes_in_flight;
        if (kReplay && recording) replay->wait_begins(static_cast<int>(i), resident[i] + offload_bytes_in_flight);
        while (resident[i] + offload_bytes_in_flight > in.capacity && pending_offloads > 0) {
          if (kReplay && recording) replay->wait_serves(resident[i] + offload_bytes_in_flight);
          if (resident[i] + offload_bytes_in_flight < serve_min) serve_min = resident[i] + offload_bytes_in_flight;
          const int id = first_in_offload_order();
          Ticks& rem = slots[id].remaining;
          now += rem;
          rem = 0;
          complete(id);
        }
        if (kReplay && recording && pending_offloads > 0) replay->wait_stops(resident[i] + offload_bytes_in_flight);
        tl.capacity_stall += now - ready;
      }
      const Ticks start = now;
      if constexpr (kTable) {
        st->start = start;
        st->capacity_stall = start - ready;
        st->resident = resident[i] + offload_bytes_in_flight;
      }
      if (issues) {
        for (; next < nx && xs[next].issue_step == step && !xs[next].at_end(); ++next) issue(next);
      }
      const Ticks compute = compute_of[i] + (recompute ? plan.recompute[i] : 0);
      // Serve in priority order until the compute ends (or until idle), then until no transfer
      // is waited on by this step.
      // The channel serves until the compute ends: `budget` is the time left to it, and the step's
      // compute ends at start + compute (at start when compute <= 0, as no time passes).
      Ticks budget = compute > 0 ? compute : 0;
      now += budget;
      while (pending > 0 && budget > 0) {
        if (current < 0) current = pick();
        Ticks& rem = slots[current].remaining;
        if (budget < rem) {
          rem -= budget;
          break;
        }
        budget -= rem;
        rem = 0;
        complete(current);
      }
      while (waiting[i] > 0) serve_one();
      if constexpr (kTable) {
        st->compute = compute;
        st->end = now;
      }
      if (issues) {
        for (; next < nx && xs[next].issue_step == step && xs[next].at_end(); ++next) issue(next);
        next_issue = next_step();
      }
      if constexpr (kTable) {
        if (raw) {
          wire_in = bytes_in;
          wire_out = bytes_out;
        }
        st->bytes_in = bytes_in;
        st->bytes_out = bytes_out;
        st->wire_in = wire_in;
        st->wire_out = wire_out;
        tl.traffic_in += bytes_in;
        tl.traffic_out += bytes_out;
        tl.wire_in += wire_in;
        tl.wire_out += wire_out;
      }
  }
  if constexpr (kReplay)
    if (recording) {
      state = {small_n, current, pending, pending_offloads, small, offload_bytes_in_flight, bytes_in,
               bytes_out, wait_level, now, tl.capacity_stall};
      replay->end_block(state);
    }
  if constexpr (!kTable) {
    tl.traffic_in = bytes_in;
    tl.traffic_out = bytes_out;
    tl.wire_in = raw ? bytes_in : wire_in;
    tl.wire_out = raw ? bytes_out : wire_out;
  }
  tl.steps_end = now;
  // The compute summed apart from the loop (which keeps one value less then).
  for (std::size_t i = 0; i < n; ++i) tl.compute += compute_of[i] + (recompute ? plan.recompute[i] : 0);
  tl.wait_free_from = wait_level <= in.capacity ? wait_level : std::numeric_limits<std::int64_t>::max();
  // Every wait that stopped with offloads pending saw at most the capacity, so the events are the
  // same from min(wait_level, capacity) up to the least level that served. A replayed block's
  // waits are not seen here: with replay, only the wait-free case keeps a range.
  tl.same_from = std::min(wait_level, in.capacity);
  if (kReplay && wait_level > in.capacity) tl.same_below = tl.same_from;
  while (pending > 0) serve_one();  // the drain: off-chip writes still running
  tl.total = now;
  // Every transfer issued is done: every waiting count is back to 0, and the last completion
  // emptied the bucket queues (dequeue()), so the next call clears nothing.
  w.clean = true;
  if constexpr (kTable) {
    table->steps_end = tl.steps_end;
    table->total = tl.total;
    table->traffic_in = tl.traffic_in;
    table->traffic_out = tl.traffic_out;
    table->wire_in = tl.wire_in;
    table->wire_out = tl.wire_out;
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

TimelineTotals simulate(const PlanInput& in, const Plan& plan, TimelineScratch& scratch,
                        Timeline* steps) {
  // Bytes belong to the step at whose start or end they are issued (SPEC §6). The split by role
  // is kept only with `steps`: a sweep needs the totals, and looking up each transfer's tensor
  // misses the cache on large networks (GNMT: 24k tensors). Without `steps` a step's figures
  // live in a few locals (no StepTiming of ~200 bytes cleared per step).
  // Replay (docs/performance.md, "Exact replay"): decided here, once, so that a schedule that
  // does not repeat (ResNet-50) runs the pass without any of its bookkeeping.
  if (in.link->identity()) {
    if (steps) return run<true, true, false>(in, plan, scratch, steps);
    if (!scratch.no_replay && !scratch.bucket_queues_only && in.schedule.index.replay)
      return run<false, true, true>(in, plan, scratch, nullptr);
    return run<false, true, false>(in, plan, scratch, nullptr);
  }
  return steps ? run<true, false, false>(in, plan, scratch, steps) : run<false, false, false>(in, plan, scratch, nullptr);
}

}  // namespace dnnmem
