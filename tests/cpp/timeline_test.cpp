// The timeline's tick type (timeline.cpp): a run counts in int64, in units of g =
// gcd(bandwidth, throughput) ticks, when every compute and transfer time is a multiple of g and
// (Σ compute + Σ transfer times) / g ≤ 2^62; in __int128 otherwise. Both give the same results,
// step by step.
#include <string>
#include <vector>

#include "catch.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"
#include "dnnmem/timeline.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

namespace {

// A skip connection keeps tensors live across steps: at 4 KiB the plan prefetches and offloads.
const char* kNet = R"({"name":"x","kind":"input","shape":[8]},
  {"name":"fc1","kind":"dense","inputs":["x"],"units":16},
  {"name":"r1","kind":"relu","inputs":["fc1"]},
  {"name":"fc2","kind":"dense","inputs":["r1"],"units":16},
  {"name":"s","kind":"add","inputs":["fc2","fc1"]},
  {"name":"fc3","kind":"dense","inputs":["s"],"units":4})";

// The sum simulate bounds, in ticks, computed independently; `multiple`: every term is a
// multiple of g.
Ticks bound(const PlanInput& in, const Plan& plan, Ticks g, bool& multiple) {
  Ticks sum = 0;
  multiple = true;
  const auto add = [&](Ticks t) {
    sum += t;
    if (t % g != 0) multiple = false;
  };
  for (std::size_t i = 0; i < in.compute.size(); ++i)
    add(in.compute[i] + (plan.recompute.empty() ? 0 : plan.recompute[i]));
  for (const Transfer& x : plan.transfers) add(in.transfer_ticks(x.tensor, x.bytes, x.is_load()));
  return sum;
}

void require_same(const TimelineTotals& a, const Timeline& sa, const TimelineTotals& b,
                  const Timeline& sb) {
  REQUIRE(a.steps_end == b.steps_end);
  REQUIRE(a.total == b.total);
  REQUIRE(a.compute == b.compute);
  REQUIRE(a.capacity_stall == b.capacity_stall);
  REQUIRE(a.traffic_in == b.traffic_in);
  REQUIRE(a.traffic_out == b.traffic_out);
  REQUIRE(a.wire_in == b.wire_in);
  REQUIRE(a.wire_out == b.wire_out);
  REQUIRE(a.wait_free_from == b.wait_free_from);
  REQUIRE(sa.steps.size() == sb.steps.size());
  for (std::size_t i = 0; i < sa.steps.size(); ++i) {
    const StepTiming &x = sa.steps[i], &y = sb.steps[i];
    REQUIRE(x.start == y.start);
    REQUIRE(x.end == y.end);
    REQUIRE(x.compute == y.compute);
    REQUIRE(x.capacity_stall == y.capacity_stall);
    REQUIRE(x.resident == y.resident);
  }
}

}  // namespace

TEST_CASE("timeline: int64 ticks up to the bound 2^62 units, __int128 past it, the same results") {
  const Network n = net(kNet);
  ScheduleOptions o;
  o.batch = 4;
  const Schedule s = build_schedule(n, o);
  for (const std::string cache : {"lookahead", "no-lookahead"}) {
    for (const bool raw : {true, false}) {
      PolicySpec spec;
      spec.cache = {cache, {}};
      // Efficiency 1/2 doubles the wire ticks: still multiples of g.
      if (!raw) spec.link = {"ratio", {{"activation", 3.0}, {"efficiency", 0.5}}};
      const PreparedPolicy policy = prepare_policy(s, spec, 2);
      PlanInput in = make_plan_input(s, Hardware{4096, 1e9, 5e9}, policy);
      const Ticks g = 1000000000;  // gcd(1e9, 5e9)
      bool multiple = false;
      const Plan plan = make_plan(*policy.cache, in);
      REQUIRE(!plan.transfers.empty());
      TimelineScratch narrow, wide;
      wide.force_wide = true;
      Timeline sa, sb;
      TimelineTotals a = simulate(in, plan, narrow, &sa);
      const TimelineTotals b = simulate(in, plan, wide, &sb);
      bound(in, plan, g, multiple);
      CHECK(multiple);
      CHECK(narrow.narrow);
      CHECK_FALSE(wide.narrow);
      CHECK(a.total > a.compute);  // the transfers cost time: the channel did work
      require_same(a, sa, b, sb);

      // A compute time not a multiple of g: __int128.
      in.compute[1] += 1;
      a = simulate(in, plan, narrow, &sa);
      CHECK_FALSE(narrow.narrow);
      require_same(a, sa, simulate(in, plan, wide, &sb), sb);
      in.compute[1] -= 1;
      // Step 0's compute moves the bound to exactly 2^62 units of g (2^62 · 10^9 ticks, past
      // int64): still int64, the same as __int128.
      in.compute[0] += (Ticks{1} << 62) * g - bound(in, plan, g, multiple);
      REQUIRE(bound(in, plan, g, multiple) == (Ticks{1} << 62) * g);
      REQUIRE(multiple);
      a = simulate(in, plan, narrow, &sa);
      CHECK(narrow.narrow);
      require_same(a, sa, simulate(in, plan, wide, &sb), sb);
      // One unit more: __int128.
      in.compute[0] += g;
      a = simulate(in, plan, narrow, &sa);
      CHECK_FALSE(narrow.narrow);
      require_same(a, sa, simulate(in, plan, wide, &sb), sb);
    }
  }
}
