// The sweep engine (sweep.hpp): every point equals estimate() at that point, bit for bit; the
// thread count and the order of the points change nothing; cancellation leaves the points not
// evaluated marked; bad points are rejected naming the point and the field.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/policies.hpp"
#include "dnnmem/sweep.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

namespace {

// A small network with a skip connection (so tensors live across several steps), big enough
// that the capacities below keep, prefetch, offload and stall.
const char* kNet = R"({"name":"x","kind":"input","shape":[8]},
  {"name":"fc1","kind":"dense","inputs":["x"],"units":16},
  {"name":"r1","kind":"relu","inputs":["fc1"]},
  {"name":"fc2","kind":"dense","inputs":["r1"],"units":16},
  {"name":"s","kind":"add","inputs":["fc2","fc1"]},
  {"name":"fc3","kind":"dense","inputs":["s"],"units":4})";

Schedule schedule_of(const Network& n) {
  ScheduleOptions o;
  o.batch = 4;
  return build_schedule(n, o);
}

// Every policy × capacities 0 … 12 KiB × two bandwidths × two throughputs.
std::vector<SweepPoint> grid() {
  std::vector<SweepPoint> pts;
  for (int p = 0; p < static_cast<int>(cache_parts().size()); ++p) {
    if (cache_parts()[static_cast<std::size_t>(p)]->needs_kept_intervals) continue;  // lp-rounded
    for (std::int64_t c = 0; c <= 12288; c += 512)
      for (double bw : {1e9, 7e9})
        for (double thr : {5e9, 3e11}) pts.push_back({c, bw, thr, p});
  }
  return pts;
}

struct Columns {
  explicit Columns(std::size_t n)
      : seconds(n), compute(n), stall(n), capacity_stall(n), drain(n), in(n), out(n), kept(n),
        prefetched(n), born(n), offloads(n), done(n) {}
  std::vector<double> seconds, compute, stall, capacity_stall, drain;
  std::vector<std::int64_t> in, out, kept, prefetched, born, offloads;
  std::vector<std::uint8_t> done;
  SweepColumns view() {
    return {seconds.data(), compute.data(), stall.data(), capacity_stall.data(), drain.data(),
            in.data(), out.data(), kept.data(), prefetched.data(), born.data(), offloads.data(),
            done.data()};
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Row i of a sweep against `e`, every column bit for bit.
void check_row(const Columns& c, std::size_t i, const Estimate& e) {
  CHECK(c.done[i] == 1);
  CHECK(same_bits(c.seconds[i], e.seconds));
  CHECK(same_bits(c.compute[i], e.compute_seconds));
  CHECK(same_bits(c.stall[i], e.stall_seconds));
  CHECK(same_bits(c.capacity_stall[i], e.capacity_stall_seconds));
  CHECK(same_bits(c.drain[i], e.drain_seconds));
  CHECK(c.in[i] == e.traffic_in);
  CHECK(c.out[i] == e.traffic_out);
  CHECK(c.kept[i] == e.plan.counts.kept);
  CHECK(c.prefetched[i] == e.plan.counts.prefetched);
  CHECK(c.born[i] == e.plan.counts.born);
  CHECK(c.offloads[i] == e.plan.counts.offloads);
}

// Point i of a sweep against estimate() at that point (the policy by name), every column bit
// for bit; returns the estimate for the caller's own counts.
Estimate check_equals_estimate(const Schedule& s, const std::vector<SweepPoint>& pts,
                               const Columns& c, std::size_t i) {
  EstimateOptions eo;
  eo.policy = std::string(cache_parts()[static_cast<std::size_t>(pts[i].policy)]->name);
  Estimate e = estimate(s, {pts[i].capacity, pts[i].bandwidth, pts[i].throughput}, eo);
  INFO("point " << i << " policy " << eo.policy << " capacity " << pts[i].capacity);
  check_row(c, i, e);
  return e;
}

}  // namespace

TEST_CASE("sweep: every point equals estimate() at that point") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  const auto pts = grid();
  Columns c(pts.size());
  SweepOptions o;
  o.threads = 2;
  REQUIRE(sweep(s, pts, c.view(), o) == static_cast<std::int64_t>(pts.size()));
  int with_kept = 0, with_prefetch = 0, with_stall = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Estimate e = check_equals_estimate(s, pts, c, i);
    with_kept += e.plan.counts.kept > 0;
    with_prefetch += e.plan.counts.prefetched > 0;
    with_stall += e.capacity_stall_seconds > 0;
  }
  // The grid exercises the planners, not only streaming.
  CHECK(with_kept > 0);
  CHECK(with_prefetch > 0);
  CHECK(with_stall > 0);
}

// Capacity as the fastest axis, up and then down: consecutive points share their input, so a
// point whose plan equals the previous one's may reuse its timeline totals, which is exact only
// at capacities where the previous timeline never waited for capacity (a point below that must
// be simulated: the way down checks it).
TEST_CASE("sweep: capacity as the fastest axis, up and down, equals estimate() at every point") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  std::vector<SweepPoint> pts;
  for (int p = 0; p < static_cast<int>(cache_parts().size()); ++p) {
    if (cache_parts()[static_cast<std::size_t>(p)]->needs_kept_intervals) continue;  // lp-rounded
    for (double thr : {5e9, 3e11}) {
      for (std::int64_t c = 0; c <= 12288; c += 256) pts.push_back({c, 1e9, thr, p});
      for (std::int64_t c = 12288; c >= 0; c -= 256) pts.push_back({c, 1e9, thr, p});
    }
  }
  Columns c(pts.size());
  SweepOptions o;
  o.threads = 1;
  REQUIRE(sweep(s, pts, c.view(), o) == static_cast<std::int64_t>(pts.size()));
  int unchanged = 0, with_stall = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const Estimate e = check_equals_estimate(s, pts, c, i);
    with_stall += e.capacity_stall_seconds > 0;
    unchanged += i > 0 && pts[i].policy == pts[i - 1].policy && c.kept[i] == c.kept[i - 1] &&
                 c.in[i] == c.in[i - 1] && c.out[i] == c.out[i - 1];
  }
  CHECK(with_stall > 0);
  CHECK(unchanged > 0);
}

// Planners that keep capacity-free tables while the input is the same (onsram-static's
// candidate order, onsram-eager's predictions: PlanScratch::derived) and managers whose plan
// never reads the capacity (CachePart::capacity_free, the plan shared by every capacity), with
// non-default options, policies alternating and capacities up and down: every point equals
// estimate() of the same prepared policy.
TEST_CASE("sweep: plans and tables shared along the capacity axis equal estimate() at every point") {
  // Eight identical blocks, so that OnSRAM-Eager's history buffer sees repeated contexts and
  // predicts (the two Eager policies below then predict differently).
  std::string layers = R"({"name":"b0","kind":"input","shape":[16]})";
  for (int b = 1; b <= 8; ++b)
    layers += ",{\"name\":\"d" + std::to_string(b) + "\",\"kind\":\"dense\",\"inputs\":[\"b" +
              std::to_string(b - 1) + "\"],\"units\":16},{\"name\":\"b" + std::to_string(b) +
              "\",\"kind\":\"relu\",\"inputs\":[\"d" + std::to_string(b) + "\"]}";
  const auto n = net(layers);
  const Schedule s = schedule_of(n);
  std::vector<PreparedPolicy> policies;
  for (const auto& [name, options] : std::vector<std::pair<std::string, OptionMap>>{
           {"onsram-static", {}},
           {"onsram-static", {{"split", std::string("phase")}, {"alpha", 0.25}}},
           {"onsram-eager-spec", {{"window", 2.0}, {"similar", std::string("shape")}}},
           {"onsram-eager-wb", {}},
           {"none", {}},
           {"vdnn-conv", {}},
           {"infinite-spm", {}}}) {
    PolicySpec spec;
    spec.cache = {name, options};
    policies.push_back(prepare_policy(s, spec, 2));
  }
  std::vector<SweepPoint> pts;
  for (int round = 0; round < 2; ++round)
    for (int p = 0; p < static_cast<int>(policies.size()); ++p)
      for (const auto& [bw, thr] : {std::pair{1e9, 5e9}, {1e9, 3e11}, {4e10, 5e9}}) {
        for (std::int64_t c = 0; c <= 12288; c += 512) pts.push_back({c, bw, thr, p});
        for (std::int64_t c = 12288; c >= 0; c -= 1024) pts.push_back({c, bw, thr, p});
        pts.push_back({4096, bw, thr, (p + 1) % static_cast<int>(policies.size())});
      }
  Columns c(pts.size());
  SweepOptions o;
  o.threads = 1;
  REQUIRE(sweep(s, policies, pts, c.view(), o) == static_cast<std::int64_t>(pts.size()));
  std::vector<int> pinned(policies.size(), 0);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const SweepPoint& p = pts[i];
    const Estimate e = estimate(s, {p.capacity, p.bandwidth, p.throughput},
                                policies[static_cast<std::size_t>(p.policy)]);
    INFO("point " << i << " policy " << p.policy << " capacity " << p.capacity);
    check_row(c, i, e);
    pinned[static_cast<std::size_t>(p.policy)] += e.plan.counts.born > 0;
  }
  for (std::size_t p : {0, 1, 2, 3, 6}) CHECK(pinned[p] > 0);  // the pinning managers pin
}

TEST_CASE("sweep: 1 and 2 threads, forward and reversed order, give the same bits") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  auto pts = grid();
  Columns one(pts.size()), two(pts.size()), rev(pts.size());
  SweepOptions o;
  o.threads = 1;
  sweep(s, pts, one.view(), o);
  o.threads = 2;
  o.chunk = 1;
  sweep(s, pts, two.view(), o);
  std::vector<SweepPoint> reversed(pts.rbegin(), pts.rend());
  sweep(s, reversed, rev.view(), o);
  const std::size_t m = pts.size();
  for (std::size_t i = 0; i < m; ++i) {
    INFO("point " << i);
    CHECK(same_bits(one.seconds[i], two.seconds[i]));
    CHECK(same_bits(one.seconds[i], rev.seconds[m - 1 - i]));
    CHECK(same_bits(one.stall[i], rev.stall[m - 1 - i]));
    CHECK(one.in[i] == rev.in[m - 1 - i]);
    CHECK(one.out[i] == two.out[i]);
    CHECK(one.kept[i] == rev.kept[m - 1 - i]);
  }
}

TEST_CASE("sweep: a cancelled sweep evaluates nothing more and marks what it skipped") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  const auto pts = grid();
  Columns c(pts.size());
  std::atomic<bool> cancel{true};  // cancelled before it starts: no point is evaluated
  std::atomic<std::int64_t> done{0};
  SweepOptions o;
  o.threads = 2;
  o.cancel = &cancel;
  o.done = &done;
  CHECK(sweep(s, pts, c.view(), o) == 0);
  CHECK(done.load() == 0);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    CHECK(c.done[i] == 0);
    CHECK(std::isnan(c.seconds[i]));
  }
  cancel = false;
  CHECK(sweep(s, pts, c.view(), o) == static_cast<std::int64_t>(pts.size()));
  CHECK(done.load() == static_cast<std::int64_t>(pts.size()));
  for (std::size_t i = 0; i < pts.size(); ++i) CHECK(c.done[i] == 1);
}

TEST_CASE("sweep: bad points are rejected before anything runs, naming the point and field") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  std::vector<SweepPoint> pts = {{1024, 1e9, 1e9, 0}, {1024, 1e9, 1e9, 99}};
  Columns c(pts.size());
  CHECK_THROWS_WITH(sweep(s, pts, c.view(), {}),
                    Catch::Matchers::Contains("point 1: policy: index 99 out of range"));
  CHECK(c.done[0] == 0);  // validated first: nothing evaluated
  pts[1] = {1024, 0.0, 1e9, 0};
  CHECK_THROWS_WITH(sweep(s, pts, c.view(), {}), Catch::Matchers::Contains("point 1: bandwidth"));
  pts[1] = {-1, 1e9, 1e9, 0};
  CHECK_THROWS_WITH(sweep(s, pts, c.view(), {}), Catch::Matchers::Contains("point 1: capacity"));
  pts[1] = {1024, 1e9, 1e9, -1};
  CHECK_THROWS_AS(sweep(s, pts, c.view(), {}), std::invalid_argument);
  SweepOptions o;
  o.ops_per_mac = 3;
  pts[1] = pts[0];
  CHECK_THROWS_WITH(sweep(s, pts, c.view(), o), Catch::Matchers::Contains("ops_per_mac"));
}

TEST_CASE("sweep: an empty list of points is fine") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  CHECK(sweep(s, {}, {}, {}) == 0);
}

TEST_CASE("sweep: an exception thrown while evaluating stops the sweep and is rethrown") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  const auto pts = grid();
  Columns c(pts.size());
  SweepOptions o;
  o.threads = 2;
  o.chunk = 1;
  o.after_point = [](std::int64_t i) {
    if (i == 7) throw std::runtime_error("boom at point 7");
  };
  CHECK_THROWS_WITH(sweep(s, pts, c.view(), o), "boom at point 7");
  CHECK(c.done[7] == 1);  // its totals were written before the hook threw
  std::size_t done = 0;
  for (auto d : c.done) done += d;
  CHECK(done < pts.size());  // the rest was skipped (points already started finish)
}

TEST_CASE("sweep: traffic by role adds up to the totals and equals the timeline's per-step split") {
  const auto n = net(kNet);
  const Schedule s = schedule_of(n);
  const auto pts = grid();
  Columns c(pts.size());
  std::vector<std::vector<std::int64_t>> in_role(5, std::vector<std::int64_t>(pts.size())),
      out_role(5, std::vector<std::int64_t>(pts.size()));
  SweepColumns v = c.view();
  for (std::size_t r = 0; r < 5; ++r) {
    v.traffic_in_by_role[r] = in_role[r].data();
    v.traffic_out_by_role[r] = out_role[r].data();
  }
  SweepOptions o;
  o.threads = 2;
  REQUIRE(sweep(s, pts, v, o) == static_cast<std::int64_t>(pts.size()));
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EstimateOptions eo;
    eo.policy = std::string(cache_parts()[static_cast<std::size_t>(pts[i].policy)]->name);
    const Estimate e = estimate(s, {pts[i].capacity, pts[i].bandwidth, pts[i].throughput}, eo);
    INFO("point " << i << " policy " << eo.policy << " capacity " << pts[i].capacity);
    std::int64_t sum_in = 0, sum_out = 0;
    for (std::size_t r = 0; r < 5; ++r) {
      std::int64_t want_in = 0, want_out = 0;
      for (const StepTiming& st : e.timeline.steps) {
        want_in += st.in_by_role[r];
        want_out += st.out_by_role[r];
      }
      CHECK(in_role[r][i] == want_in);
      CHECK(out_role[r][i] == want_out);
      sum_in += in_role[r][i];
      sum_out += out_role[r][i];
    }
    CHECK(sum_in == c.in[i]);
    CHECK(sum_out == c.out[i]);
  }
}

// The thesis planners' probe (PlanScratch::probe_holds_to): the plan holds at every capacity
// from this one up to probe_holds_to, and not one byte above it (the first decision whose
// threshold is the least flips there), so that a sweep reuses it at all its later points up
// to there; and the probe is exact (no flip at the capacity probed: the same plan there).
TEST_CASE("sweep: a thesis plan holds up to probe_holds_to and changes just above it") {
  std::string layers = R"({"name":"b0","kind":"input","shape":[16]})";
  for (int b = 1; b <= 8; ++b) {
    const std::string i = std::to_string(b), p = std::to_string(b - 1);
    layers += R"(,{"name":"d)" + i + R"(","kind":"dense","inputs":["b)" + p + R"("],"units":)" +
              std::to_string(8 + 4 * (b % 3)) + R"(},{"name":"b)" + i + R"(","kind":"relu","inputs":["d)" + i + "\"]}";
  }
  const Network gnmt_small = load_network_file(std::string(DNNMEM_TEST_DATA) + "/gnmt_small.json");
  int farther = 0;  // plans that hold beyond the capacity probed
  for (const Network& n : {net(kNet), net(layers), gnmt_small}) {
    const Schedule s = schedule_of(n);
    for (const char* manager : {"lookahead", "belady", "prefetch-next"}) {
      PolicySpec spec;
      spec.cache.name = manager;
      const PreparedPolicy policy = prepare_policy(s, spec, 2);
      for (const auto& [bw, thr] : {std::pair{1e9, 5e9}, {4e10, 3e11}}) {
        const auto plan_at = [&](std::int64_t c) { return make_plan(*policy.cache, make_plan_input(s, {c, bw, thr}, policy)); };
        PlanScratch w;
        w.no_replay = true;  // (with replay the probe asks only the capacity probed)
        int holds = 0;
        const std::int64_t step = std::max<std::int64_t>(s.peak_alive_bytes() / 150, 1);
        for (std::int64_t c = 0; c <= s.peak_alive_bytes() + step; c += step) {
          INFO(manager << " capacity " << c << " bandwidth " << bw);
          w.same_input = c > 0;
          w.probe_capacity = c + step;
          Plan plan;
          policy.cache->plan(make_plan_input(s, {c, bw, thr}, policy), w, plan);
          CHECK(same_timeline_input(plan, plan_at(c)));
          if (!w.probe_same) {
            CHECK(!same_timeline_input(plan, plan_at(c + step)));  // (the probe is exact)
            continue;
          }
          ++holds;
          const std::int64_t top = w.probe_holds_to;
          REQUIRE(top >= c + step);
          CHECK(same_timeline_input(plan, plan_at(c + step)));
          if (top == std::numeric_limits<std::int64_t>::max()) continue;  // no rejection at all
          farther += top > c + step;
          CHECK(same_timeline_input(plan, plan_at(top)));
          CHECK(same_timeline_input(plan, plan_at((c + top) / 2)));
          CHECK(!same_timeline_input(plan, plan_at(top + 1)));
        }
        CHECK(holds > 0);
      }
    }
  }
  CHECK(farther > 0);
}
