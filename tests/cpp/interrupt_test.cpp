// Interrupting long work (interrupt.hpp): the scope's flag and poll, and a check in every stage
// (network building, schedule building, planning, the timeline, the sweep), so that a caller who
// sets the flag stops any long call; the Python bindings set it on Ctrl-C.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/interrupt.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/schedule.hpp"
#include "dnnmem/sweep.hpp"
#include "helpers.hpp"

using namespace dnnmem;

namespace {

const char* kDenseChain = R"({"name":"x","kind":"input","shape":[64]},
  {"name":"d1","kind":"dense","inputs":["x"],"units":64},
  {"name":"r1","kind":"relu","inputs":["d1"]},
  {"name":"d2","kind":"dense","inputs":["r1"],"units":10})";

Schedule schedule_with(const Network& n, const std::string& scheduler, std::int64_t batch) {
  ScheduleOptions o;
  o.batch = batch;
  o.scheduler = scheduler;
  return build_schedule(n, o);
}

struct Polls {
  int calls = 0;
  int cancel_at = 1 << 30;
  static bool poll(void* self) {
    auto* p = static_cast<Polls*>(self);
    return ++p->calls >= p->cancel_at;
  }
};

}  // namespace

TEST_CASE("interrupt: without a scope nothing happens; with one the flag cancels") {
  CHECK_NOTHROW(check_interrupt());
  std::atomic<bool> flag{false};
  {
    const InterruptScope scope(&flag);
    CHECK_NOTHROW(check_interrupt());
    flag = true;
    CHECK_THROWS_AS(check_interrupt(), Interrupted);
    CHECK_NOTHROW(check_interrupt_every(1));  // only every 4096th index checks
    CHECK_THROWS_AS(check_interrupt_every(4096), Interrupted);
  }
  CHECK_NOTHROW(check_interrupt());  // the scope ended
}

TEST_CASE("interrupt: scopes nest, and the poll cancels and sets the flag") {
  std::atomic<bool> outer_flag{false}, inner_flag{false};
  Polls polls;
  polls.cancel_at = 2;
  const InterruptScope outer(&outer_flag);
  {
    const InterruptScope inner(&inner_flag, &Polls::poll, &polls, std::chrono::milliseconds(0));
    CHECK_NOTHROW(check_interrupt());  // the first poll says go on
    CHECK(polls.calls == 1);
    CHECK_THROWS_AS(check_interrupt(), Interrupted);
    CHECK(polls.calls == 2);
    CHECK(inner_flag);
    CHECK_FALSE(outer_flag);
  }
  CHECK_NOTHROW(check_interrupt());  // the outer scope: its flag is clear
}

TEST_CASE("interrupt: every stage checks the flag") {
  std::atomic<bool> flag{true};
  const Network n = test::net(kDenseChain);
  const Schedule s = schedule_with(n, "default", 4);
  const InterruptScope scope(&flag);
  CHECK_THROWS_AS(test::net(kDenseChain), Interrupted);                  // network building
  CHECK_THROWS_AS(schedule_with(n, "default", 4), Interrupted);       // the default scheduler
  CHECK_THROWS_AS(schedule_with(n, "mbs", 64), Interrupted);          // mini-batch serialization
  for (const CachePart* p : cache_parts()) {                        // every planner or the timeline
    if (p->needs_kept_intervals) continue;  // lp-rounded: its kept intervals come from Python
    INFO(p->name);
    EstimateOptions o;
    o.policy = std::string(p->name);
    CHECK_THROWS_AS(estimate(s, {1 << 12, 1e9, 1e12}, o), Interrupted);
  }
}

TEST_CASE("interrupt: a flag set from another thread stops a long plan") {
  // The tile model at tile 1 over a chain of dense layers: each backward GEMM is walked tile by
  // tile (2^18 operations, three orders under order=best), seconds of work in little memory.
  std::string layers = R"({"name":"x","kind":"input","shape":[64]})";
  std::string previous = "x";
  for (int i = 0; i < 40; ++i) {
    std::string name = "d";  // (appended: GCC 12's -Wrestrict misfires on "d" + std::to_string(i))
    name.append(std::to_string(i));
    layers.append(R"(,{"name":")").append(name).append(R"(","kind":"dense","use_bias":false,"units":)");
    layers.append(std::to_string(64 + (i * 37) % 64)).append(R"(,"inputs":[")").append(previous).append("\"]}");
    previous = name;
  }
  const Network n = test::net(layers);
  ScheduleOptions so;
  so.batch = 16;
  so.scheduler = "split-backward";
  so.scheduler_options = {{"order", std::string("best")}, {"tile", 1.0}};
  const Schedule s = build_schedule(n, so);
  PolicySpec spec;
  spec.cache.name = "none";
  const PreparedPolicy p = prepare_policy(s, spec, 2);
  std::atomic<bool> flag{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flag = true;
  });
  const InterruptScope scope(&flag);
  CHECK_THROWS_AS(estimate(s, {0, 1e9, 1e12}, p), Interrupted);
  stopper.join();
}

TEST_CASE("interrupt: a cancelled sweep stops inside a point and returns without an error") {
  const Network n = test::net(kDenseChain);
  const Schedule s = schedule_with(n, "default", 4);
  PolicySpec spec;
  const std::vector<PreparedPolicy> policies{prepare_policy(s, spec, 2)};
  const std::vector<SweepPoint> points(8, SweepPoint{1 << 12, 1e9, 1e12, 0});
  std::vector<double> seconds(points.size());
  std::vector<std::uint8_t> done(points.size(), 0);
  SweepColumns c;
  c.seconds = seconds.data();
  c.done = done.data();
  std::atomic<bool> cancel{true};
  SweepOptions o;
  o.threads = 1;
  o.cancel = &cancel;
  CHECK(sweep(s, policies, points, c, o) == 0);
  for (std::uint8_t d : done) CHECK(d == 0);
}
