// Exact replay of repeated blocks (docs/performance.md, "Exact replay"): the schedule's blocks
// (schedule_repeats.cpp) and the thesis planners' replay (policies/thesis.cpp). A plan made with
// replay equals the plan made deciding every block, in every field, along the capacity axis as
// a sweep takes it (the previous point's tables kept, the next capacity probed).
#include <algorithm>
#include <any>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/policies.hpp"
#include "dnnmem/timeline.hpp"
#include "../../cpp/src/policies/range_tree.hpp"
#include "../../cpp/src/policies/thesis_replay.hpp"
#include "../../cpp/src/timeline_replay.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

namespace {

// An unrolled recurrent network: T time steps of a cell that reads the previous state and one
// weight shared by every step (as GNMT's LSTM layers), a skip connection in each step, and two
// layers of such cells (time-major), so that the schedule repeats with intervals inside a time
// step, across one (the shared weight, the state) and from the forward pass to the backward.
Network unrolled(int steps) {
  std::string layers = R"({"name":"x0","kind":"input","shape":[32]})";
  std::string prev1 = "x0", prev2 = "x0";
  for (int t = 1; t <= steps; ++t) {
    const std::string s = std::to_string(t);
    layers += R"(,{"name":"a)" + s + R"(","kind":"dense","inputs":[")" + prev1 + R"("],"units":32,"weights":"wa"})";
    layers += R"(,{"name":"r)" + s + R"(","kind":"relu","inputs":["a)" + s + R"("]})";
    layers += R"(,{"name":"h)" + s + R"(","kind":"add","inputs":["r)" + s + R"(",")" + prev1 + R"("]})";
    layers += R"(,{"name":"c)" + s + R"(","kind":"concat","inputs":["h)" + s + R"(",")" + prev2 + R"("]})";
    layers += R"(,{"name":"b)" + s + R"(","kind":"dense","inputs":["c)" + s + R"("],"units":32,"weights":"wb"})";
    layers += R"(,{"name":"g)" + s + R"(","kind":"sigmoid","inputs":["b)" + s + R"("]})";
    prev1 = "h" + s;
    prev2 = "g" + s;
  }
  return net(layers);
}

// An unrolled two-layer LSTM (lstm_cell, as the zoo's GNMT), time-major with a residual
// connection: the cells' gates share each layer's weights across time steps, so the blocks
// replay with the occupancy shifted by a constant as GNMT's do.
Network lstm(int steps, int hidden) {
  const std::string H = std::to_string(hidden);
  std::string layers = R"({"name":"zero","kind":"input","shape":[1,)" + H + R"(]},{"name":"x","kind":"input","shape":[1,)" + H + "]}";
  for (int t = 1; t <= steps; ++t) {
    const std::string s = std::to_string(t), p = std::to_string(t - 1);
    const auto cell = [&](const std::string& layer, const std::string& in) {
      const std::string h = t == 1 ? "zero" : layer + "_" + p, c = t == 1 ? "zero" : layer + "_" + p + "/c";
      layers += R"(,{"name":")" + layer + "_" + s + R"(","kind":"lstm_cell","inputs":[")" + in + R"(",")" + h +
                R"(",")" + c + R"("],"units":)" + H + R"(,"weights":")" + layer + R"("})";
      return layer + "_" + s;
    };
    const std::string y1 = cell("l1", t == 1 ? "x" : "r_" + p);
    const std::string y2 = cell("l2", y1);
    layers += R"(,{"name":"r_)" + s + R"(","kind":"add","inputs":[")" + y2 + R"(",")" + y1 + R"("]})";
  }
  return net(layers);
}

// The zoo's GNMT, small (tests/data/README.md): the occupancy of its repeated blocks differs from
// their records' by constants that the margins decide on.
Network gnmt_small() { return load_network_file(std::string(DNNMEM_TEST_DATA) + "/gnmt_small.json"); }

// Sixteen identical residual blocks.
Network residual() {
  std::string layers = R"({"name":"b0","kind":"input","shape":[24]})";
  for (int b = 1; b <= 16; ++b) {
    const std::string s = std::to_string(b), p = std::to_string(b - 1);
    layers += R"(,{"name":"d)" + s + R"(","kind":"dense","inputs":["b)" + p + R"("],"units":24})";
    layers += R"(,{"name":"r)" + s + R"(","kind":"relu","inputs":["d)" + s + R"("]})";
    layers += R"(,{"name":"e)" + s + R"(","kind":"dense","inputs":["r)" + s + R"("],"units":24})";
    layers += R"(,{"name":"b)" + s + R"(","kind":"add","inputs":["e)" + s + R"(","b)" + p + R"("]})";
  }
  return net(layers);
}

// The schedule of n with replay on (UseIndex::replay: these small networks repeat too little of
// themselves for a sweep to turn it on by itself).
Schedule replay_schedule(const Network& n, std::int64_t batch) {
  ScheduleOptions o;
  o.batch = batch;
  Schedule s = build_schedule(n, o);
  s.index.replay = true;
  return s;
}

// Plans every capacity from 0 to the schedule's peak (and past it) as a sweep does, with and
// without replay, and compares each plan and each probe's answer; returns the blocks replayed.
long compare_along_capacities(const Schedule& s, const std::string& manager, const OptionMap& options, double bandwidth,
                              double throughput) {
  PolicySpec spec;
  spec.cache = {manager, options};
  const PreparedPolicy policy = prepare_policy(s, spec, 2);
  PlanScratch with, without;
  without.no_replay = true;
  const std::int64_t top = s.peak_alive_bytes() + 4096;
  const std::int64_t step = std::max<std::int64_t>(top / 97, 1);
  bool first = true;
  for (std::int64_t c = 0; c <= top; c += step) {
    INFO(manager << " capacity " << c << " bandwidth " << bandwidth << " throughput " << throughput);
    Hardware hw{c, bandwidth, throughput};
    const PlanInput in = make_plan_input(s, hw, policy);
    Plan a, b;
    for (PlanScratch* w : {&with, &without}) {
      w->same_input = !first;
      w->probe_capacity = c + step;
    }
    policy.cache->plan(in, with, a);
    policy.cache->plan(in, without, b);
    CHECK(same_timeline_input(a, b));
    CHECK(with.probe_same == without.probe_same);
    first = false;
  }
  const auto* r = std::any_cast<detail::ThesisReplay>(&with.replay);
  return r == nullptr ? 0 : r->replayed[0] + r->replayed[1] + r->replayed[2];
}

}  // namespace

TEST_CASE("repeats: the blocks cut the steps in order, each source an earlier block alike") {
  for (const Network& n : {lstm(12, 16), unrolled(24), residual()}) {
    const Schedule s = replay_schedule(n, 4);
    const std::vector<RepeatBlock>& blocks = s.index.blocks;
    REQUIRE(!blocks.empty());
    CHECK(blocks.front().begin == 0);
    CHECK(blocks.back().end == static_cast<int>(s.steps.size()));
    int repeated = 0;
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const RepeatBlock& b = blocks[j];
      CHECK(b.begin < b.end);
      if (j > 0) CHECK(b.begin == blocks[j - 1].end);
      if (b.source < 0) continue;
      REQUIRE(static_cast<std::size_t>(b.source) < j);
      const RepeatBlock& src = blocks[static_cast<std::size_t>(b.source)];
      CHECK(src.end - src.begin == b.end - b.begin);
      for (int k = 0; k < b.end - b.begin; ++k) {
        const Step& x = s.steps[static_cast<std::size_t>(b.begin + k)];
        const Step& y = s.steps[static_cast<std::size_t>(src.begin + k)];
        CHECK(x.num_accesses == y.num_accesses);
        CHECK(x.ops.macs == y.ops.macs);
        CHECK(x.phase == y.phase);
      }
      repeated += b.end - b.begin;
    }
    // A good part of the steps repeats an earlier block (all but the first instances, the ends
    // of each repeated stretch, and what lies between).
    INFO(repeated << " of " << s.steps.size() << " steps repeat");
    CHECK(repeated * 3 > static_cast<int>(s.steps.size()));
  }
}

TEST_CASE("replay: the thesis planners' plans equal those decided block by block") {
  long replayed = 0;
  for (const Network& n : {gnmt_small(), lstm(12, 16), unrolled(12), residual()}) {
    const Schedule s = replay_schedule(n, 4);
    for (const char* manager : {"lookahead", "belady", "prefetch-next", "no-lookahead"})
      for (const auto& [bw, thr] : {std::pair{1e9, 5e9}, {4e10, 5e9}, {1e9, 3e11}})
        replayed += compare_along_capacities(s, manager, {}, bw, thr);
    // through-cache decides every block (its reservations read the capacity): still equal
    compare_along_capacities(s, "lookahead", {{"streaming", std::string("through-cache")}}, 1e9, 5e9);
  }
  CHECK(replayed > 100);  // the comparison is not vacuous
}

TEST_CASE("replay: the timeline's totals equal those of every step simulated, for every cache manager") {
  long replayed = 0;
  for (const Network& n : {gnmt_small(), lstm(12, 16), unrolled(12), residual()}) {
    const Schedule s = replay_schedule(n, 4);
    const std::int64_t top = s.peak_alive_bytes() + 4096;
    for (const CachePart* part : cache_parts()) {
      if (part->needs_kept_intervals) continue;  // lp-rounded: its intervals come as data: next test
      PolicySpec spec;
      spec.cache.name = std::string(part->name);
      PreparedPolicy policy;
      try {
        policy = prepare_policy(s, spec, 2);
      } catch (const std::invalid_argument&) {  // (a manager that needs another scheduler)
        continue;
      }
      TimelineScratch with, without;
      without.no_replay = true;
      for (const auto& [bw, thr] : {std::pair{1e9, 5e9}, {4e10, 5e9}, {1e9, 3e11}})
        for (std::int64_t c = 0; c <= top; c += std::max<std::int64_t>(top / 41, 1)) {
          INFO(part->name << " capacity " << c << " bandwidth " << bw << " throughput " << thr);
          const PlanInput in = make_plan_input(s, {c, bw, thr}, policy);
          const Plan plan = make_plan(*policy.cache, in);
          const TimelineTotals a = simulate(in, plan, with, nullptr);
          const TimelineTotals b = simulate(in, plan, without, nullptr);
          CHECK(a.steps_end == b.steps_end);
          CHECK(a.total == b.total);
          CHECK(a.compute == b.compute);
          CHECK(a.capacity_stall == b.capacity_stall);
          CHECK(a.traffic_in == b.traffic_in);
          CHECK(a.traffic_out == b.traffic_out);
          CHECK(a.wire_in == b.wire_in);
          CHECK(a.wire_out == b.wire_out);
          CHECK(a.wait_free_from == b.wait_free_from);
        }
      const auto* r = std::any_cast<detail::TimelineRecords>(&with.replay);
      if (r != nullptr) replayed += r->replayed;
    }
  }
  CHECK(replayed > 100);  // the comparison is not vacuous
}

TEST_CASE("replay: lp-rounded keeps exactly the intervals given, never a source block's decisions") {
  // Rule 2's decisions come from data (PreparedPolicy::kept_given), not from the occupancy, so a
  // record's margins say nothing about them: the planner decides every block. The kept set is
  // drawn at random, so a block replaying its source's record of rule 2 would keep what the
  // source kept, not what it is given.
  std::mt19937 rng(31);
  for (const Network& n : {gnmt_small(), lstm(12, 16), unrolled(12)}) {
    const Schedule s = replay_schedule(n, 4);
    PolicySpec spec;
    spec.cache.name = "lp-rounded";
    PreparedPolicy policy = prepare_policy(s, spec, 2);
    const std::size_t nf = s.index.full_step.size();
    policy.kept_given.assign(nf, 0);
    for (std::size_t f = 0; f < nf; ++f) policy.kept_given[f] = static_cast<std::uint8_t>(rng() & 1);
    std::int64_t given = 0;  // the given intervals that exist (a full use with a next one)
    for (std::size_t f = 0; f + 1 < nf; ++f)
      if (policy.kept_given[f] != 0 && (s.index.full[f].flags & FullUse::HasNext)) ++given;
    REQUIRE(given > 0);
    const std::int64_t capacity = std::int64_t{1} << 50;  // every given interval fits
    const PlanInput in = make_plan_input(s, {capacity, 1e9, 5e9}, policy);
    PlanScratch with, without;
    without.no_replay = true;
    Plan a, b;
    for (int point = 0; point < 3; ++point) {  // a sweep's points: same input, next capacity probed
      for (PlanScratch* w : {&with, &without}) {
        w->same_input = point > 0;
        w->probe_capacity = capacity + 1;
      }
      policy.cache->plan(in, with, a);
      policy.cache->plan(in, without, b);
      CHECK(same_timeline_input(a, b));
      CHECK(a.counts.kept == given);
      CHECK_FALSE(with.probe_same);  // probing is off too: the given set holds at one capacity
    }
    CHECK(std::any_cast<detail::ThesisReplay>(&with.replay) == nullptr);
  }
}

TEST_CASE("replay: a plan made in a reused scratch equals one made in a fresh scratch") {
  // The plan's assembly keeps its per-step list heads at -1 between calls and fills them only
  // when they are fresh, of another size or left dirty (bucket_clean false: a call interrupted
  // mid-way); a sweep's scratch goes from capacity to capacity and from schedule to schedule.
  const Schedule big = replay_schedule(gnmt_small(), 4), small = replay_schedule(lstm(12, 16), 4);
  long transfers = 0;
  for (const char* manager : {"lookahead", "no-lookahead", "belady"}) {
    PolicySpec spec;
    spec.cache.name = manager;
    PlanScratch reused;
    for (int round = 0; round < 2; ++round)
      for (const Schedule* s : {&big, &small}) {
        const PreparedPolicy policy = prepare_policy(*s, spec, 2);
        const std::int64_t top = s->peak_alive_bytes() + 4096;
        bool first = true;
        for (std::int64_t c = 0; c <= top; c += std::max<std::int64_t>(top / 23, 1)) {
          INFO(manager << " round " << round << " steps " << s->steps.size() << " capacity " << c);
          const PlanInput in = make_plan_input(*s, {c, 1e9, 5e9}, policy);
          if (round == 1 && c > 0 && !reused.bucket.empty()) {  // as if the last call stopped half-way
            std::fill(reused.bucket.begin(), reused.bucket.end(), 3);
            reused.bucket_clean = false;
          }
          reused.same_input = !first;
          first = false;
          Plan a, b;
          policy.cache->plan(in, reused, a);
          PlanScratch fresh;
          policy.cache->plan(in, fresh, b);
          CHECK(a.transfers == b.transfers);
          CHECK(same_timeline_input(a, b));
          transfers += static_cast<long>(a.transfers.size());
        }
      }
  }
  CHECK(transfers > 1000);  // not vacuous
}

TEST_CASE("replay: the timeline reads which transfers share a tensor (plans with tensors merged)") {
  // The one rule of the channel that reads tensors: a transfer waits for a pending offload of
  // its tensor issued before it. Real plans seldom make two blocks differ only there, so the
  // plans' tensors are merged at random (tensor t becomes t % m): relations appear and differ
  // from block to block while everything else stays.
  const Schedule s = replay_schedule(lstm(12, 16), 4);
  PolicySpec spec;
  spec.cache.name = "lookahead";
  const PreparedPolicy policy = prepare_policy(s, spec, 2);
  std::mt19937 rng(11);
  long replayed = 0;
  const std::int64_t top = s.peak_alive_bytes();
  for (std::int64_t c = top / 8; c <= top; c += top / 8) {
    const PlanInput in = make_plan_input(s, {c, 1e9, 5e9}, policy);
    const Plan plan = make_plan(*policy.cache, in);
    for (int m : {3, 5, 7, 11, 13, 17, 29, 41}) {
      Plan merged = plan;
      const int shift = std::uniform_int_distribution<int>(0, 100)(rng);
      for (Transfer& t : merged.transfers) t.tensor = (t.tensor + shift) % m;
      TimelineScratch with, without;
      without.no_replay = true;
      const TimelineTotals a = simulate(in, merged, with, nullptr);
      const TimelineTotals b = simulate(in, merged, without, nullptr);
      INFO("capacity " << c << " merged mod " << m);
      CHECK(a.total == b.total);
      CHECK(a.steps_end == b.steps_end);
      CHECK(a.capacity_stall == b.capacity_stall);
      replayed += std::any_cast<detail::TimelineRecords>(&with.replay)->replayed;
    }
  }
  CHECK(replayed > 20);
}

namespace {

// Sixty adds of random values over random ranges, to the tree and to the plain array beside it.
void add_random_ranges(detail::RangeTree& t, std::vector<std::int64_t>& plain, std::mt19937& rng) {
  std::uniform_int_distribution<int> pos(0, static_cast<int>(plain.size()) - 1);
  std::uniform_int_distribution<std::int64_t> val(0, 1000);
  for (int r = 0; r < 60; ++r) {
    int lo = pos(rng), hi = pos(rng);
    if (lo > hi) std::swap(lo, hi);
    const std::int64_t v = val(rng);
    t.add_up(lo, hi, v);
    for (int i = lo; i <= hi; ++i) plain[static_cast<std::size_t>(i)] += v;
  }
}

}  // namespace

TEST_CASE("range tree: values, add_values, and an add taken back leaves it as it was") {
  std::mt19937 rng(7);
  for (int n : {1, 31, 32, 33, 200, 1500}) {
    INFO("n = " << n);
    std::vector<std::int64_t> nodes, nodes2;
    detail::RangeTree t(static_cast<std::size_t>(n), nodes);
    std::vector<std::int64_t> plain(static_cast<std::size_t>(n), 0);
    std::uniform_int_distribution<int> pos(0, n - 1);
    std::uniform_int_distribution<std::int64_t> val(0, 1000);
    add_random_ranges(t, plain, rng);
    // values
    std::vector<std::int64_t> got(static_cast<std::size_t>(n));
    t.values(0, n - 1, got.data());
    CHECK(got == plain);
    // add_values, then max and any_above against the plain array
    int lo = pos(rng), hi = pos(rng);
    if (lo > hi) std::swap(lo, hi);
    std::vector<std::int64_t> d(static_cast<std::size_t>(hi - lo + 1));
    for (auto& x : d) x = val(rng);
    t.add_values(lo, hi, d.data());
    for (int i = lo; i <= hi; ++i) plain[static_cast<std::size_t>(i)] += d[static_cast<std::size_t>(i - lo)];
    for (int r = 0; r < 50; ++r) {
      int a = pos(rng), b = pos(rng);
      if (a > b) std::swap(a, b);
      const std::int64_t m = *std::max_element(plain.begin() + a, plain.begin() + b + 1);
      CHECK(t.max(a, b) == m);
      CHECK(t.any_above(a, b, m - 1));
      CHECK(!t.any_above(a, b, m));
      CHECK(t.max_all() == *std::max_element(plain.begin(), plain.end()));
    }
    // an add and its negative restore every node and offset exactly
    nodes2 = nodes;
    for (int r = 0; r < 20; ++r) {
      int a = pos(rng), b = pos(rng);
      if (a > b) std::swap(a, b);
      const std::int64_t v = val(rng) + 1;
      t.add_up(a, b, v);
      t.add(a, b, -v);
      CHECK(nodes == nodes2);
    }
  }
}

TEST_CASE("range tree: shifted_from finds one constant shift, or the first step that breaks it") {
  // A replay's check of a block's region (docs/performance.md, "Exact replay", the region read
  // without a copy): the values over [lo, hi] are before + c for one c. Adds over whole blocks
  // sit in the blocks' offsets, so a range across blocks compares leaves with offsets that differ.
  std::mt19937 rng(11);
  for (int n : {1, 32, 33, 200, 1500}) {
    INFO("n = " << n);
    std::vector<std::int64_t> nodes;
    detail::RangeTree t(static_cast<std::size_t>(n), nodes);
    std::vector<std::int64_t> plain(static_cast<std::size_t>(n), 0);
    std::uniform_int_distribution<int> pos(0, n - 1);
    std::uniform_int_distribution<std::int64_t> val(0, 1000);
    add_random_ranges(t, plain, rng);
    for (int r = 0; r < 40; ++r) {
      int lo = pos(rng), hi = pos(rng);
      if (lo > hi) std::swap(lo, hi);
      const std::int64_t shift = val(rng) - 500;
      std::vector<std::int64_t> before(plain.begin() + lo, plain.begin() + hi + 1);
      for (auto& x : before) x -= shift;
      std::int64_t c = 0;
      CHECK(t.shifted_from(lo, hi, before.data(), c));
      CHECK(c == shift);
      if (lo == hi) continue;  // (one step: any value is a shift of it)
      // one step off by one, anywhere in the range (its first step: every other step differs)
      const int k = std::uniform_int_distribution<int>(lo, hi)(rng);
      before[static_cast<std::size_t>(k - lo)] += 1;
      CHECK_FALSE(t.shifted_from(lo, hi, before.data(), c));
    }
  }
}
