// One event pass over steps and transfers (SPEC §6). Priorities are static between step
// boundaries (new transfers are issued only at a step's start or end), so the fluid EDF server
// reduces to serving the most urgent pending transfer until the next boundary.
#include "dnnmem/timeline.hpp"

#include <set>
#include <tuple>
#include <unordered_map>

namespace dnnmem {
namespace {

class Channel {
 public:
  Channel(const PlanInput& in, const Plan& plan) : in_(in), plan_(plan), remaining_(plan.transfers.size(), 0) {
    waiting_.assign(in.schedule.steps.size() + 1, 0);
  }

  Ticks now = 0;
  std::int64_t offload_bytes_in_flight = 0;

  void issue(int id) {
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    remaining_[static_cast<std::size_t>(id)] = in_.time.transfer(x.bytes);
    normal_.insert(key(id));
    if (x.writes_out()) {
      offloads_.insert({x.deadline, id});
      pending_offloads_[x.tensor].insert(id);
      offload_bytes_in_flight += x.bytes;
    } else {
      ++waiting_[static_cast<std::size_t>(x.deadline)];
    }
  }

  bool idle() const { return normal_.empty(); }
  int waiting_for(int step) const { return waiting_[static_cast<std::size_t>(step)]; }
  bool offloads_pending() const { return !offloads_.empty(); }

  // Serves in priority order until `limit` (or until idle).
  void run_until(Ticks limit) {
    while (now < limit && !idle()) serve(pick(false), limit);
    if (now < limit) now = limit;
  }
  // Serves until no transfer is waited on by `step`.
  void run_until_done(int step) {
    while (waiting_for(step) > 0) serve(pick(false), -1);
  }
  // Capacity wait: pending offloads go first, in (deadline, issue) order; serve one to the end.
  void finish_one_offload() { serve(offloads_.begin()->second, -1); }
  void drain() {
    while (!idle()) serve(pick(false), -1);
  }

 private:
  const PlanInput& in_;
  const Plan& plan_;
  std::vector<Ticks> remaining_;
  std::vector<int> waiting_;  // per deadline step: pending loads / streamed transfers
  // (deadline, stores after loads, issue order)
  std::set<std::tuple<int, int, int>> normal_;
  std::set<std::pair<int, int>> offloads_;
  std::unordered_map<int, std::set<int>> pending_offloads_;  // tensor -> offload ids

  std::tuple<int, int, int> key(int id) const {
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    return {x.deadline, x.is_load() ? 0 : 1, id};
  }

  int pick(bool) const {
    const int id = std::get<2>(*normal_.begin());
    const Transfer& x = plan_.transfers[static_cast<std::size_t>(id)];
    // Every transfer of a tensor is ordered after a pending offload of the same tensor.
    if (!x.writes_out()) {
      auto it = pending_offloads_.find(x.tensor);
      if (it != pending_offloads_.end() && !it->second.empty() && *it->second.begin() < id)
        return *it->second.begin();
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
    normal_.erase(key(id));
    if (x.writes_out()) {
      offloads_.erase({x.deadline, id});
      pending_offloads_[x.tensor].erase(id);
      offload_bytes_in_flight -= x.bytes;
    } else {
      --waiting_[static_cast<std::size_t>(x.deadline)];
    }
  }
};

}  // namespace

Timeline simulate(const PlanInput& in, const Plan& plan) {
  const Schedule& s = in.schedule;
  const std::size_t n = s.steps.size();
  Timeline tl;
  tl.steps.assign(n, {});
  Channel ch(in, plan);
  std::size_t next = 0;  // next transfer to issue, in issue order
  const auto& xs = plan.transfers;
  for (std::size_t i = 0; i < n; ++i) {
    StepTiming& st = tl.steps[i];
    const int step = static_cast<int>(i);
    const Ticks ready = ch.now;
    // Evictions forced by this step (no-lookahead, lru) are issued as it wants to start, before
    // its capacity wait: it then waits for the space they free.
    for (; next < xs.size() && xs[next].issue_step == step && xs[next].kind == TransferKind::Evict; ++next) {
      ch.issue(static_cast<int>(next));
      st.bytes_out += xs[next].bytes;
    }
    // Wait until the step's resident data and the data still being written out fit.
    while (plan.resident[i] + ch.offload_bytes_in_flight > in.capacity && ch.offloads_pending())
      ch.finish_one_offload();
    st.start = ch.now;
    st.capacity_stall = st.start - ready;
    st.resident = plan.resident[i] + ch.offload_bytes_in_flight;
    for (; next < xs.size() && xs[next].issue_step == step && !xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      st.bytes_in += xs[next].is_load() ? xs[next].bytes : 0;
      st.bytes_out += xs[next].is_load() ? 0 : xs[next].bytes;
    }
    st.compute = in.compute[i];
    ch.run_until(st.start + st.compute);
    ch.run_until_done(step);
    st.end = ch.now;
    for (; next < xs.size() && xs[next].issue_step == step && xs[next].at_end(); ++next) {
      ch.issue(static_cast<int>(next));
      st.bytes_out += xs[next].bytes;
    }
    tl.traffic_in += st.bytes_in;
    tl.traffic_out += st.bytes_out;
  }
  tl.steps_end = ch.now;
  ch.drain();
  tl.total = ch.now;
  return tl;
}

}  // namespace dnnmem
