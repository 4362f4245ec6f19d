// The timeline (cpp/src/timeline.cpp) against a plain reference of its rules (SPEC §6), on random
// plans: the small sorted queue and the bucket queues (past 64 pending transfers, and from the
// start under the test hook), a scratch reused across calls (left empty by each call; a throwing
// call in between), the raw link and a rounding one, with and without the per-step table.
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "catch.hpp"
#include "dnnmem/timeline.hpp"

namespace {

using namespace dnnmem;

bool same(Ticks a, Ticks b) { return a == b; }

// The rules, plainly: pending transfers in a vector, each choice a scan.
struct Reference {
  std::vector<Ticks> start, end;
  TimelineTotals tl;
};

Reference reference(const PlanInput& in, const Plan& plan) {
  const auto& xs = plan.transfers;
  const int n = static_cast<int>(in.schedule.steps.size());
  std::vector<Ticks> rem(xs.size());
  std::vector<int> pending;
  Reference r;
  Ticks now = 0;
  std::int64_t offload_bytes = 0;
  const auto key = [&](int id) {
    const Transfer& x = xs[static_cast<std::size_t>(id)];
    return std::pair<int, int>(2 * x.deadline + (x.is_load() ? 0 : 1), id);
  };
  const auto issue = [&](std::size_t id) {
    const Transfer& x = xs[id];
    rem[id] = in.transfer_ticks(x.tensor, x.bytes, x.is_load());
    pending.push_back(static_cast<int>(id));
    if (x.writes_out()) offload_bytes += x.bytes;
    (x.is_load() ? r.tl.traffic_in : r.tl.traffic_out) += x.bytes;
    (x.is_load() ? r.tl.wire_in : r.tl.wire_out) += in.link->wire_bytes(x.tensor, x.bytes);
  };
  const auto offload_pending = [&]() {
    return std::any_of(pending.begin(), pending.end(),
                       [&](int id) { return xs[static_cast<std::size_t>(id)].writes_out(); });
  };
  // The most urgent; a transfer of a tensor goes after the tensor's pending offloads issued before it.
  const auto pick = [&]() {
    int top = pending[0];
    for (const int id : pending)
      if (key(id) < key(top)) top = id;
    if (xs[static_cast<std::size_t>(top)].writes_out()) return top;
    int first = top;
    for (const int id : pending)
      if (id < first && xs[static_cast<std::size_t>(id)].writes_out() &&
          xs[static_cast<std::size_t>(id)].tensor == xs[static_cast<std::size_t>(top)].tensor)
        first = id;
    return first;
  };
  // Serves `id` until `limit` (-1: to its end); erases it when done.
  const auto serve = [&](int id, Ticks limit) {
    Ticks& left = rem[static_cast<std::size_t>(id)];
    const Ticks dt = (limit < 0 || limit - now >= left) ? left : limit - now;
    left -= dt;
    now += dt;
    if (left > 0) return;
    if (xs[static_cast<std::size_t>(id)].writes_out()) offload_bytes -= xs[static_cast<std::size_t>(id)].bytes;
    pending.erase(std::find(pending.begin(), pending.end(), id));
  };
  std::size_t next = 0;
  std::int64_t wait_level = 0;
  for (int i = 0; i < n; ++i) {
    const Ticks ready = now;
    for (; next < xs.size() && xs[next].issue_step == i && xs[next].kind == TransferKind::Evict; ++next) issue(next);
    const std::int64_t resident = plan.resident[static_cast<std::size_t>(i)];
    if (offload_pending()) wait_level = std::max(wait_level, resident + offload_bytes);
    while (resident + offload_bytes > in.capacity && offload_pending()) {
      int first = -1;
      for (const int id : pending)
        if (xs[static_cast<std::size_t>(id)].writes_out() &&
            (first < 0 || std::pair(xs[static_cast<std::size_t>(id)].deadline, id) <
                              std::pair(xs[static_cast<std::size_t>(first)].deadline, first)))
          first = id;
      serve(first, -1);
    }
    const Ticks start = now;
    r.tl.capacity_stall += start - ready;
    for (; next < xs.size() && xs[next].issue_step == i && !xs[next].at_end(); ++next) issue(next);
    const Ticks compute = in.compute[static_cast<std::size_t>(i)];
    r.tl.compute += compute;
    while (now < start + compute && !pending.empty()) serve(pick(), start + compute);
    now = std::max(now, start + compute);
    const auto waited = [&]() {
      return std::any_of(pending.begin(), pending.end(), [&](int id) {
        return !xs[static_cast<std::size_t>(id)].writes_out() && xs[static_cast<std::size_t>(id)].deadline == i;
      });
    };
    while (waited()) serve(pick(), -1);
    r.start.push_back(start);
    r.end.push_back(now);
    for (; next < xs.size() && xs[next].issue_step == i && xs[next].at_end(); ++next) issue(next);
  }
  r.tl.steps_end = now;
  while (!pending.empty()) serve(pick(), -1);
  r.tl.total = now;
  r.tl.wait_free_from = wait_level <= in.capacity ? wait_level : INT64_MAX;
  return r;
}

// A random plan in issue order. `burst`: one step prefetches many tensors far ahead on a slow
// channel, so that more than 64 transfers are pending.
Plan random_plan(std::mt19937_64& rng, int n, int nt, bool burst) {
  Plan p;
  const auto pick_tensor = [&]() { return static_cast<int>(rng() % static_cast<unsigned>(nt)); };
  const auto bytes = [&]() { return rng() % 8 == 0 ? std::int64_t{0} : static_cast<std::int64_t>(1 + rng() % 5000); };
  const auto later = [&](int i) { return i + 1 + static_cast<int>(rng() % static_cast<unsigned>(n - i)); };
  const int burst_step = static_cast<int>(rng() % static_cast<unsigned>(n));
  for (int i = 0; i < n; ++i) {
    const auto add = [&](TransferKind kind, int deadline) {
      p.transfers.push_back(Transfer{pick_tensor(), kind, bytes(), i, deadline});
    };
    for (int k = static_cast<int>(rng() % 3); k > 0; --k)
      if (rng() % 3 == 0) add(TransferKind::Evict, i);
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) add(TransferKind::StreamLoad, i);
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) add(TransferKind::StreamStore, i);
    const int prefetches = burst && i == burst_step ? 100 : static_cast<int>(rng() % 3);
    for (int k = 0; k < prefetches; ++k) add(TransferKind::Prefetch, later(i));
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) add(TransferKind::Offload, later(i));
    p.resident.push_back(static_cast<std::int64_t>(rng() % 20000));
  }
  return p;
}

}  // namespace

TEST_CASE("timeline: totals and steps equal a plain reference on random plans, with both queues and a "
          "reused scratch") {
  std::mt19937_64 rng(2026);
  Schedule s;
  TimelineScratch reused, reused_buckets;
  reused_buckets.bucket_queues_only = true;
  LinkModel rounding;  // 80 % efficiency: transfer times rounded up, not the raw link's path
  rounding.eff_num = 8000;
  int over_64 = 0, waits = 0;
  for (int c = 0; c < 300; ++c) {
    const int n = 1 + static_cast<int>(rng() % 80);
    s.steps.assign(static_cast<std::size_t>(n), Step{});
    s.tensors.assign(1 + rng() % 12, Tensor{});
    const bool burst = c % 3 == 0;
    const Plan plan = random_plan(rng, n, static_cast<int>(s.tensors.size()), burst);
    std::vector<Ticks> compute;
    for (int i = 0; i < n; ++i)
      compute.push_back(rng() % 5 == 0 ? 0 : static_cast<Ticks>(rng() % 40000) * (burst ? 1 : 50));
    const LinkModel& link = c % 2 == 0 ? identity_link() : rounding;
    const PlanInput in{s, static_cast<std::int64_t>(rng() % 60000), TimeBase{7, 3}, 2, compute, &link, nullptr};
    const Reference r = reference(in, plan);
    if (r.tl.capacity_stall > 0) ++waits;
    // How many transfers were pending at most (issued at a step's start, none served yet).
    std::size_t most = 0;
    for (int i = 0; i < n; ++i)
      most = std::max(most, static_cast<std::size_t>(std::count_if(plan.transfers.begin(), plan.transfers.end(),
                                                                   [&](const Transfer& x) { return x.issue_step == i; })));
    if (most > 64) ++over_64;

    TimelineScratch fresh;
    for (TimelineScratch* scratch : {&fresh, &reused, &reused_buckets}) {
      const TimelineTotals t = simulate(in, plan, *scratch, nullptr);
      REQUIRE(same(t.steps_end, r.tl.steps_end));
      REQUIRE(same(t.total, r.tl.total));
      REQUIRE(same(t.compute, r.tl.compute));
      REQUIRE(same(t.capacity_stall, r.tl.capacity_stall));
      REQUIRE(t.traffic_in == r.tl.traffic_in);
      REQUIRE(t.traffic_out == r.tl.traffic_out);
      REQUIRE(t.wire_in == r.tl.wire_in);
      REQUIRE(t.wire_out == r.tl.wire_out);
      REQUIRE(t.wait_free_from == r.tl.wait_free_from);
    }
    const Timeline table = simulate(in, plan);
    REQUIRE(same(table.total, r.tl.total));
    for (int i = 0; i < n; ++i) {
      REQUIRE(same(table.steps[static_cast<std::size_t>(i)].start, r.start[static_cast<std::size_t>(i)]));
      REQUIRE(same(table.steps[static_cast<std::size_t>(i)].end, r.end[static_cast<std::size_t>(i)]));
    }
    // A plan whose deadline lies past the end throws midway; the scratch then serves the next
    // call as a fresh one would.
    if (c % 7 == 0 && !plan.transfers.empty()) {
      Plan bad = plan;
      bad.transfers[bad.transfers.size() / 2].deadline = n + 1;
      REQUIRE_THROWS_AS(simulate(in, bad, reused, nullptr), std::logic_error);
      REQUIRE_THROWS_AS(simulate(in, bad, reused_buckets, nullptr), std::logic_error);
    }
  }
  // The cases reach what they are meant to: the bucket queues past 64 pending, capacity waits.
  REQUIRE(over_64 > 20);
  REQUIRE(waits > 20);
}

// TimelineTotals::[same_from, same_below): every capacity there gives the totals of the capacity
// simulated (a sweep reuses them at its next capacity, evaluate_point), and the range is tight:
// at same_below a wait that served no longer does.
TEST_CASE("timeline: every capacity from same_from up to same_below runs the same events") {
  std::mt19937_64 rng(31);
  Schedule s;
  int served = 0, tight = 0;
  for (int c = 0; c < 300; ++c) {
    const int n = 1 + static_cast<int>(rng() % 60);
    s.steps.assign(static_cast<std::size_t>(n), Step{});
    s.tensors.assign(1 + rng() % 12, Tensor{});
    const Plan plan = random_plan(rng, n, static_cast<int>(s.tensors.size()), false);
    std::vector<Ticks> compute;
    for (int i = 0; i < n; ++i) compute.push_back(rng() % 5 == 0 ? 0 : static_cast<Ticks>(rng() % 40000) * 50);
    const std::int64_t capacity = static_cast<std::int64_t>(rng() % 60000);
    const auto run_at = [&](std::int64_t cap) {
      const PlanInput in{s, cap, TimeBase{7, 3}, 2, compute, &identity_link(), nullptr};
      TimelineScratch scratch;
      return simulate(in, plan, scratch, nullptr);
    };
    const TimelineTotals t = run_at(capacity);
    REQUIRE(t.same_from <= capacity);
    REQUIRE(capacity < t.same_below);
    const bool waited = t.same_below != INT64_MAX;
    REQUIRE(waited == (t.wait_free_from == INT64_MAX));
    if (!waited) REQUIRE(t.same_from == t.wait_free_from);
    const std::int64_t top = waited ? t.same_below - 1 : capacity + 1000000;
    for (const std::int64_t other :
         {t.same_from, top, t.same_from + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(top - t.same_from + 1))}) {
      const TimelineTotals u = run_at(other);
      REQUIRE(same(u.steps_end, t.steps_end));
      REQUIRE(same(u.total, t.total));
      REQUIRE(same(u.capacity_stall, t.capacity_stall));
      REQUIRE(u.traffic_in == t.traffic_in);
      REQUIRE(u.traffic_out == t.traffic_out);
      REQUIRE(u.wait_free_from == t.wait_free_from);
      REQUIRE(u.same_below == t.same_below);
    }
    if (waited) {
      ++served;
      if (!same(run_at(t.same_below).capacity_stall, t.capacity_stall)) ++tight;
    }
  }
  // Many cases wait, and most stall less from same_below on: the range is not cut short (the
  // others served offloads of 0 bytes there, which take no time; 129 of 149 stall less).
  REQUIRE(served > 50);
  REQUIRE(tight * 10 >= served * 8);
}
