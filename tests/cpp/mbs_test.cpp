// Scheduler `mbs` and cache manager `mbs-strict` (docs/model/mbs.md) on a hand-computed chain:
// groups, sub-batch bounds, every step's accesses, slices summing to their tensor, the strict
// traffic, and the error for a buffer smaller than one sample.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/policies.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using namespace dnnmem::test;

namespace {

// Per sample at 1 byte/element: x 4, fc1 3, r 3, fc2 2. Footprints 7, 6, 5.
const char* kMbsChain = R"({"name":"x","kind":"input","shape":[4]},
    {"name":"fc1","kind":"dense","inputs":["x"],"units":3},
    {"name":"r","kind":"relu","inputs":["fc1"]},
    {"name":"fc2","kind":"dense","inputs":["r"],"units":2})";

Schedule mbs(const Network& n, OptionMap options) {
  ScheduleOptions o;
  o.batch = 4;
  o.bytes_per_element = 1;
  o.scheduler = "mbs";
  o.scheduler_options = std::move(options);
  return build_schedule(n, o);
}

}  // namespace

TEST_CASE("mbs: a 3-layer chain, greedy grouping, every step's accesses") {
  const Network n = net(kMbsChain);
  // buffer 12: n_min 4, 2, 2; merging {fc1} with {r, fc2} costs 16 bytes more (test_mbs.py).
  const Schedule s = mbs(n, {{"variant", std::string("mbs1")}, {"buffer", 12.0}});
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[0].bounds == std::vector<std::int64_t>{0, 1, 2, 3, 4});
  CHECK(s.groups[1].bounds == std::vector<std::int64_t>{0, 2, 4});
  CHECK(s.groups[0].first == 0);
  CHECK(s.groups[0].last == 0);
  CHECK(s.groups[1].last == 2);
  std::vector<std::string> got;
  for (std::size_t i = 0; i < s.steps.size(); ++i) got.push_back(step_name(n, s, i) + " " + accesses(s, i));
  const std::vector<std::string> want = {
      "F:fc1 r:Y:x[0:1] r:W:fc1 w:Y:fc1[0:1]",
      "F:fc1 r:Y:x[1:2] r:W:fc1 w:Y:fc1[1:2]",
      "F:fc1 r:Y:x[2:3] r:W:fc1 w:Y:fc1[2:3]",
      "F:fc1 r:Y:x[3:4] r:W:fc1 w:Y:fc1[3:4]",
      "F:r r:Y:fc1[0:1] r:Y:fc1[1:2] w:Y:r[0:2]",
      "F:fc2 r:Y:r[0:2] r:W:fc2 w:Y:fc2[0:2]",
      "F:r r:Y:fc1[2:3] r:Y:fc1[3:4] w:Y:r[2:4]",
      "F:fc2 r:Y:r[2:4] r:W:fc2 w:Y:fc2[2:4]",
      "loss:fc2 r:Y:fc2[0:2] w:dY:fc2[0:2]",
      "loss:fc2 r:Y:fc2[2:4] w:dY:fc2[2:4]",
      "B:fc2 r:dY:fc2[0:2] r:Y:r[0:2] r:W:fc2 w:dY:r[0:2] w:dW:fc2",
      "B:r r:dY:r[0:2] r:Y:r[0:2] w:dY:fc1[0:1] w:dY:fc1[1:2]",
      "B:fc2 r:dY:fc2[2:4] r:Y:r[2:4] r:W:fc2 w:dY:r[2:4] rw:dW:fc2",
      "B:r r:dY:r[2:4] r:Y:r[2:4] w:dY:fc1[2:3] w:dY:fc1[3:4]",
      "B:fc1 r:dY:fc1[0:1] r:Y:x[0:1] w:dW:fc1",
      "B:fc1 r:dY:fc1[1:2] r:Y:x[1:2] rw:dW:fc1",
      "B:fc1 r:dY:fc1[2:3] r:Y:x[2:3] rw:dW:fc1",
      "B:fc1 r:dY:fc1[3:4] r:Y:x[3:4] rw:dW:fc1",
  };
  CHECK(got == want);
  CHECK(s.step_group == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0});
  CHECK(s.step_sub_batch == std::vector<int>{0, 1, 2, 3, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 2, 3});
  // FLOPs scale with the sub-batch: the iteration's total is the default's.
  ScheduleOptions o;
  o.batch = 4;
  o.bytes_per_element = 1;
  CHECK(s.total_ops() == build_schedule(n, o).total_ops());
}

TEST_CASE("mbs: slices sum to the whole tensor; dp groups {fc1, r} {fc2}") {
  const Network n = net(kMbsChain);
  const Schedule s = mbs(n, {{"variant", std::string("mbs1")}, {"buffer", 12.0}, {"grouping", std::string("dp")}});
  REQUIRE(s.groups.size() == 2);
  CHECK(s.groups[0].last == 1);
  std::map<std::string, std::int64_t> sum;
  for (const Tensor& t : s.tensors) sum[t.name.substr(0, t.name.find('['))] += t.bytes;
  CHECK(sum["Y:x"] == 16);
  CHECK(sum["Y:fc1"] == 12);
  CHECK(sum["Y:r"] == 12);
  CHECK(sum["dY:fc1"] == 12);
  CHECK(sum["W:fc1"] == 15);
}

TEST_CASE("mbs-strict: the chain's traffic by hand") {
  const Network n = net(kMbsChain);
  const Schedule s = mbs(n, {{"variant", std::string("mbs1")}, {"buffer", 12.0}});
  Hardware hw;
  hw.capacity = 1 << 20;
  hw.bandwidth = 1e9;
  hw.throughput = 1e12;
  PolicySpec spec;
  spec.cache = {"mbs-strict", {}};
  const Estimate e = estimate(s, hw, prepare_policy(s, spec, 2));
  CHECK(e.traffic_in == 221);  // tests/python/test_mbs.py spells out every byte
  CHECK(e.traffic_out == 120);
}

TEST_CASE("mbs: a buffer smaller than one sample names the layer") {
  const Network n = net(kMbsChain);
  CHECK_THROWS_WITH(mbs(n, {{"variant", std::string("mbs1")}, {"buffer", 6.0}}),
                    Catch::Matchers::Contains("layer 'fc1' needs 7 B of buffer, more than buffer=6 B"));
}

TEST_CASE("mbs-strict: reuse=none is `none`; the 1-bit ReLU mask on the chain") {
  const Network n = net(kMbsChain);
  ScheduleOptions o;
  o.batch = 4;
  o.bytes_per_element = 1;
  const Schedule s = build_schedule(n, o);
  Hardware hw;
  hw.capacity = 1 << 20;
  hw.bandwidth = 1e9;
  hw.throughput = 1e12;
  const auto run = [&](const char* cache, OptionMap options) {
    PolicySpec spec;
    spec.cache = {cache, std::move(options)};
    return estimate(s, hw, prepare_policy(s, spec, 2));
  };
  const Estimate none = run("none", {});
  const Estimate strict = run("mbs-strict", {{"reuse", std::string("none")}});
  CHECK(strict.traffic_in == none.traffic_in);
  CHECK(strict.traffic_out == none.traffic_out);
  CHECK(none.traffic_in == 151);
  CHECK(none.traffic_out == 87);
  // Y:r has 12 elements: B:r loads a 2-byte mask instead of its 12 bytes, F:r stores the mask
  // beside Y:r (B:fc2 still loads Y:r) — tests/python/test_mbs_report.py, at 2 B/element.
  const Estimate mask =
      run("mbs-strict", {{"reuse", std::string("none")}, {"relu_mask", std::string("on")}});
  CHECK(mask.traffic_in == 151 - 12 + 2);
  CHECK(mask.traffic_out == 87 + 2);
}

namespace {

// Residual blocks of three widths with batch norms and ReLUs: branch data that mbs2 keeps,
// keeps of many sizes, so that the admissions change at many capacities.
Network residual_bn() {
  std::string layers = R"({"name":"b0","kind":"input","shape":[24]})";
  const int widths[] = {24, 40, 16, 24, 56, 24};
  for (int b = 1; b <= 6; ++b) {
    const std::string s = std::to_string(b), p = std::to_string(b - 1), w = std::to_string(widths[b - 1]);
    layers += R"(,{"name":"d)" + s + R"(","kind":"dense","inputs":["b)" + p + R"("],"units":)" + w + "}";
    layers += R"(,{"name":"n)" + s + R"(","kind":"batchnorm","inputs":["d)" + s + R"("]})";
    layers += R"(,{"name":"r)" + s + R"(","kind":"relu","inputs":["n)" + s + R"("]})";
    layers += R"(,{"name":"e)" + s + R"(","kind":"dense","inputs":["r)" + s + R"("],"units":24})";
    layers += R"(,{"name":"b)" + s + R"(","kind":"add","inputs":["e)" + s + R"(","b)" + p + R"("]})";
  }
  return net(layers);
}

}  // namespace

TEST_CASE("mbs-strict: the plan kept along the capacity axis equals a fresh one at every capacity") {
  // A sweep's thread plans capacity after capacity on one scratch (same_input): mbs-strict then
  // redoes only the runs of keeps whose decisions the capacity changes (docs/performance.md,
  // "mbs-strict, incrementally"). Every plan, and every probe's answer, must be what a fresh
  // plan gives.
  const Network n = residual_bn();
  ScheduleOptions plain;
  plain.batch = 8;
  const Schedule whole = build_schedule(n, plain);
  const Schedule grouped = mbs(n, {{"variant", std::string("mbs2")}, {"buffer", 150.0}});
  REQUIRE(grouped.groups.size() > 1);
  const std::vector<std::pair<const Schedule*, OptionMap>> cases = {
      {&grouped, {}},
      {&grouped, {{"reuse", std::string("adjacent")}, {"backward_reuse", std::string("group")}}},
      {&grouped, {{"relu_mask", std::string("on")}, {"norm_passes", 2.0}}},
      {&grouped, {{"dy_passes", 2.0}}},
      {&whole, {}},
      {&whole, {{"reuse", std::string("fits")}}},
      {&whole,
       {{"reuse", std::string("fits")}, {"fits_footprint", std::string("forward")}, {"relu_mask", std::string("on")}}},
      {&whole, {{"reuse", std::string("adjacent")}, {"norm_passes", 2.0}}},
  };
  for (const auto& [schedule, options] : cases) {
    const Schedule& s = *schedule;
    PolicySpec spec;
    spec.cache = {"mbs-strict", options};
    const PreparedPolicy policy = prepare_policy(s, spec, 2);
    // Up the axis, down it, then jumps at random (the scratch's last plan from anywhere); the
    // keeps' spans need a fraction of the peak, so the steps are finer below a quarter of it.
    const std::int64_t top = s.peak_alive_bytes() + 64;
    const std::int64_t step = std::max<std::int64_t>(top / 400, 1);
    std::vector<std::int64_t> capacities;
    for (std::int64_t c = 0; c <= top / 4; c += step) capacities.push_back(c);
    capacities.push_back(top);
    for (std::int64_t c = top / 4; c >= 0; c -= step) capacities.push_back(c);
    std::mt19937 rng(31);
    for (int i = 0; i < 60; ++i) capacities.push_back(std::uniform_int_distribution<std::int64_t>(0, top / 2)(rng));
    PlanScratch scratch;
    std::set<int> kept_counts;
    int probes_same = 0;
    for (std::size_t i = 0; i < capacities.size(); ++i) {
      const std::int64_t c = capacities[i], probe = i + 1 < capacities.size() ? capacities[i + 1] : -1;
      INFO(s.groups.size() << " groups, option " << options.size() << ", capacity " << c << ", probe " << probe);
      const PlanInput in = make_plan_input(s, {c, 1e9, 5e9}, policy);
      scratch.same_input = i > 0;
      scratch.probe_capacity = probe;
      scratch.probe_same = false;
      Plan kept;
      policy.cache->plan(in, scratch, kept);
      const Plan fresh = make_plan(*policy.cache, in);
      REQUIRE(same_timeline_input(kept, fresh));
      kept_counts.insert(kept.counts.kept);
      if (scratch.probe_same) {  // the plan at the probed capacity is this one
        ++probes_same;
        CHECK(probe > c);
        CHECK(same_timeline_input(kept, make_plan(*policy.cache, make_plan_input(s, {probe, 1e9, 5e9}, policy))));
      }
    }
    INFO(s.groups.size() << " groups, option " << options.size());
    CHECK(kept_counts.size() > 4);  // the admissions change along the axis
    if (options.empty()) CHECK(probes_same > 0);  // (probing is off for reuse=fits, norm_passes, dy_passes)
  }
}
