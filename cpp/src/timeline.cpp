// One event pass over steps and transfers (SPEC §6). Priorities are static between step
// boundaries (new transfers are issued only at a step's start or end), so the fluid EDF server
// reduces to serving the most urgent pending transfer until the next boundary.
#include "dnnmem/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace dnnmem {
namespace {

// Pending transfers in two binary heaps with lazy deletion (a completed entry is skipped when it
// reaches the top): every transfer by (deadline, loads before stores, issue order), and the
// offloads by (deadline, issue order) for capacity waits. Keys are packed into 64-bit integers.
class Channel {
 public:
  Channel(const PlanInput& in, const Plan& plan, TimelineScratch& w)
      : in_(in), plan_(plan), remaining_(w.remaining), done_(w.done), waiting_(w.waiting),
        heap_(w.heap), offload_heap_(w.offload_heap), pending_offloads_(w.pending_offloads) {
    remaining_.assign(plan.transfers.size(), 0);
    done_.assign(plan.transfers.size(), 0);
    waiting_.assign(in.schedule.steps.size() + 1, 0);
    heap_.clear();
    offload_heap_.clear();
    heap_.reserve(64);
    offload_heap_.reserve(64);
    pending_offloads_.resize(in.schedule.tensors.size());
    for (auto& po : pending_offloads_) po.clear();
  }

  Ticks now = 0;
  std::int64_t offload_bytes_in_flight = 0;

  void issue(int id) {
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    remaining_[static_cast<std::size_t>(id)] =
        raw_link_ ? in_.time.transfer(x.bytes) : in_.transfer_ticks(x.tensor, x.bytes, x.is_load());
    push(heap_, key(x, id));
    ++pending_;
    if (x.writes_out()) {
      push(offload_heap_, (static_cast<std::uint64_t>(x.deadline) << 32) | static_cast<std::uint32_t>(id));
      pending_offloads_[static_cast<std::size_t>(x.tensor)].push_back(id);
      offload_bytes_in_flight += x.bytes;
      ++pending_offload_count_;
    } else {
      ++waiting_[static_cast<std::size_t>(x.deadline)];
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
  void finish_one_offload() { serve(top(offload_heap_), -1); }
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
  std::vector<std::uint64_t>& heap_;
  std::vector<std::uint64_t>& offload_heap_;
  std::vector<std::vector<int>>& pending_offloads_;  // per tensor, in issue order
  int pending_ = 0;
  int pending_offload_count_ = 0;

  static std::uint64_t key(const Transfer& x, int id) {
    // (deadline, stores after loads, issue order); deadlines < 2^30, ids < 2^32
    return (static_cast<std::uint64_t>(x.deadline) << 33) | (x.is_load() ? 0ULL : 1ULL << 32) |
           static_cast<std::uint32_t>(id);
  }
  static void push(std::vector<std::uint64_t>& h, std::uint64_t k) {
    h.push_back(k);
    std::push_heap(h.begin(), h.end(), std::greater<>());
  }
  int top(std::vector<std::uint64_t>& h) {
    for (;;) {
      const int id = static_cast<int>(h.front() & 0xffffffffULL);
      if (!done_[static_cast<std::size_t>(id)]) return id;
      std::pop_heap(h.begin(), h.end(), std::greater<>());
      h.pop_back();
    }
  }

  int pick() {
    const int id = top(heap_);
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    // Every transfer of a tensor is ordered after a pending offload of the same tensor.
    if (!x.writes_out()) {
      const auto& po = pending_offloads_[static_cast<std::size_t>(x.tensor)];
      if (!po.empty() && po.front() < id) return po.front();
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
      auto& po = pending_offloads_[static_cast<std::size_t>(x.tensor)];
      po.erase(std::find(po.begin(), po.end(), id));
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
  // misses the cache on large networks (GNMT: 24k tensors).
  const bool by_role = steps != nullptr;
  const LinkModel& link = *in.link;
  const bool raw = link.identity();
  // The raw link puts every byte on the wire: its wire totals are the byte totals, set once at
  // the end instead of added per transfer.
  const auto count = [&s, by_role, &link, raw](StepTiming& st, const Transfer& x) {
    const std::int64_t wire = raw ? 0 : link.wire_bytes(x.tensor, x.bytes);
    if (x.is_load()) {
      st.bytes_in += x.bytes;
      st.wire_in += wire;
      if (by_role) st.in_by_role[static_cast<std::size_t>(s.tensors[static_cast<std::size_t>(x.tensor)].role)] += x.bytes;
    } else {
      st.bytes_out += x.bytes;
      st.wire_out += wire;
      if (by_role) st.out_by_role[static_cast<std::size_t>(s.tensors[static_cast<std::size_t>(x.tensor)].role)] += x.bytes;
    }
    if (by_role && x.kind == TransferKind::StreamLoad) st.streamed_in += x.bytes;
    if (by_role && x.kind == TransferKind::StreamStore) st.streamed_out += x.bytes;
  };
  const std::size_t n = s.steps.size();
  TimelineTotals tl;
  if (steps) steps->steps.assign(n, {});
  StepTiming local;
  Channel ch(in, plan, scratch);
  std::size_t next = 0;  // next transfer to issue, in issue order
  const auto& xs = plan.transfers;
  for (std::size_t i = 0; i < n; ++i) {
    StepTiming& st = steps ? steps->steps[i] : (local = StepTiming{});
    const int step = static_cast<int>(i);
    const Ticks ready = ch.now;
    // Evictions forced by this step (no-lookahead, lru) are issued as it wants to start, before
    // its capacity wait: it then waits for the space they free.
    for (; next < xs.size() && xs[next].issue_step == step && xs[next].kind == TransferKind::Evict; ++next) {
      ch.issue(static_cast<int>(next));
      count(st, xs[next]);
    }
    // Wait until the step's resident data and the data still being written out fit.
    while (plan.resident[i] + ch.offload_bytes_in_flight > in.capacity && ch.offloads_pending())
      ch.finish_one_offload();
    st.start = ch.now;
    st.capacity_stall = st.start - ready;
    st.resident = plan.resident[i] + ch.offload_bytes_in_flight;
    for (; next < xs.size() && xs[next].issue_step == step && !xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      count(st, xs[next]);
    }
    st.compute = in.compute[i] + (plan.recompute.empty() ? 0 : plan.recompute[i]);
    ch.run_until(st.start + st.compute);
    ch.run_until_done(step);
    st.end = ch.now;
    for (; next < xs.size() && xs[next].issue_step == step && xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      count(st, xs[next]);
    }
    tl.traffic_in += st.bytes_in;
    tl.traffic_out += st.bytes_out;
    if (raw) {
      st.wire_in = st.bytes_in;
      st.wire_out = st.bytes_out;
    }
    tl.wire_in += st.wire_in;
    tl.wire_out += st.wire_out;
    tl.compute += st.compute;
    tl.capacity_stall += st.capacity_stall;
  }
  tl.steps_end = ch.now;
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
