// Issue 26, "Time wraps": every tick count the core produces stays below 2^125 (limits.cpp), or
// the design point is refused naming the option. The scratchpad floor (spm_bandwidth), the
// compressor cap, the link's efficiency and expanding ratios, each just below and just above
// the bound, with the exact time where it fits.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "helpers.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/schedule.hpp"
#include "dnnmem/sweep.hpp"

using namespace dnnmem;

namespace {

using dnnmem::test::contains;

// An input of 2^38 elements per sample and `n` relus, inference, one byte per element: at
// batch 2^k each tensor is 2^(38 + k) bytes; each step reads one and writes one.
Schedule relu_chain(int n, std::int64_t batch) {
  std::string layers = R"({"name":"x","kind":"input","shape":[262144,1048576]})";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = "r";  // (appended: GCC 12's -Wrestrict misfires on "r" + std::to_string(i))
    name.append(std::to_string(i));
    layers += R"(,{"name":")" + name + R"(","kind":"relu","inputs":[")" + prev + "\"]}";
    prev = name;
  }
  ScheduleOptions o;
  o.batch = batch;
  o.bytes_per_element = 1;
  o.scheduler = "inference";
  return build_schedule(parse_network(R"({"name":"chain","layers":[)" + layers + "]}", "chain.json"), o);
}

PreparedPolicy policy(const Schedule& s, const std::string& link, OptionMap link_options,
                      OptionMap compute_options, LinkTables tables = {}) {
  PolicySpec spec;
  spec.cache.name = "none";
  spec.link = {link, std::move(link_options)};
  spec.compute = {"peak", std::move(compute_options)};
  spec.link_tables = std::move(tables);
  return prepare_policy(s, spec, 2);
}

std::string error_of(const Schedule& s, const Hardware& hw, const PreparedPolicy& p) {
  try {
    (void)estimate(s, hw, p);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

using dnnmem::test::k62;

}  // namespace

TEST_CASE("time limits: the scratchpad floor counts exactly up to 2^125 ticks, then is refused") {
  // Each relu step reads and writes 2^38 bytes: its floor is 2^39 · 2^124 / spm ticks at rates
  // of 2^62, 2^123 ticks (0.5 s) with spm_bandwidth = 2^40 bytes/s; compute and transfers are
  // far shorter.
  const Hardware hw{0, k62, k62};
  const Schedule s = relu_chain(3, 1);
  const Estimate e = estimate(s, hw, policy(s, "raw", {}, {{"spm_bandwidth", 0x1p40}}));
  CHECK(e.seconds == 1.5);  // 3 · 2^123 ticks < 2^125: exact
  CHECK(e.compute_seconds == 1.5);
  // Five steps: 5 · 2^123 > 2^125 (2.5 s, more than the 2 s that rates of 2^62 leave).
  const Schedule s5 = relu_chain(5, 1);
  const std::string too_long = error_of(s5, hw, policy(s5, "raw", {}, {{"spm_bandwidth", 0x1p40}}));
  INFO(too_long);
  CHECK(contains(too_long, "the iteration's time is too large to count exactly: compute model 'peak': "
                           "option 'spm_bandwidth' = 1.1e+12 bytes/s makes the steps last up to 2.5 s"));
  CHECK(contains(too_long, "time is counted exactly only up to 2 s"));
  CHECK(contains(too_long, "raise spm_bandwidth"));
  // A floor beyond 128 bits (spm_bandwidth = 1 byte/s) is saturated, never wrapped.
  const std::string wide = error_of(s5, hw, policy(s5, "raw", {}, {{"spm_bandwidth", 1.0}}));
  INFO(wide);
  CHECK(contains(wide, "option 'spm_bandwidth' = 1 bytes/s makes the steps last up to 2.75e+12 s"));
}

TEST_CASE("time limits: the compressor cap and the link's efficiency are bounded and named") {
  const Schedule s = relu_chain(3, 1);  // 6 transfers of 2^38 bytes
  // cap = 2^38 bytes/s: each transfer takes 1 s at the cap (0.25 s on the wire at 2^40 bytes/s);
  // the bound, 4 · 6 · 2^38 bytes / cap = 24 s, fits the 2^23 s these rates count.
  const Estimate e = estimate(s, {0, 0x1p40, k62}, policy(s, "ratio", {{"cap", 0x1p38}}, {}));
  CHECK(e.seconds == 6.0);  // the 6 transfers one after another, 1 s each
  const std::string cap = error_of(s, {0, k62, k62}, policy(s, "ratio", {{"cap", 0x1p38}}, {}));
  INFO(cap);
  CHECK(contains(cap, "link 'ratio': option 'cap' = 2.75e+11 bytes/s makes the transfers last up to 24 s"));
  CHECK(contains(cap, "raise cap"));
  // Efficiency 0.01: the wire time x 100. The bound for the chain of 2^38-byte tensors is
  // 4 · 6 · 2^38 · 100 bytes at 2^62 bytes/s: fits; with 2^55-byte tensors, 18.75 s: refused.
  CHECK(estimate(s, {0, k62, k62}, policy(s, "ratio", {{"efficiency", 0.01}}, {})).seconds > 0);
  const Schedule big = relu_chain(3, std::int64_t{1} << 17);
  const std::string eff = error_of(big, {0, k62, k62}, policy(big, "ratio", {{"efficiency", 0.01}}, {}));
  INFO(eff);
  CHECK(contains(eff, "link 'ratio': option 'efficiency' = 0.01 makes the transfers last up to 18.8 s"));
}

TEST_CASE("time limits: a link's ratios may not put more than 2^62 bytes on the wire") {
  // zlib's measured ratios go down to 1/64 (an expansion): 2^55-byte tensors at 64 wire bytes per
  // byte could put 4 · 6 · 2^61 bytes on the wire. Before: int64 wire counts wrapped.
  const Schedule s = relu_chain(3, std::int64_t{1} << 17);
  LinkTables t;
  t.ratio.assign(s.tensors.size(), 1.0 / 64);
  const std::string e = error_of(s, {0, 1e12, 1e12}, policy(s, "zlib", {}, {}, t));
  INFO(e);
  CHECK(contains(e, "link 'zlib': its ratios (up to 64 wire bytes per byte) could put"));
  CHECK(contains(e, "more than the 2^62 counted exactly at batch 131072"));
  // At ratio 1 the same schedule is fine.
  t.ratio.assign(s.tensors.size(), 1.0);
  CHECK(estimate(s, {0, 1e12, 1e12}, policy(s, "zlib", {}, {}, t)).traffic_in == 3 * (std::int64_t{1} << 55));
}

TEST_CASE("time limits: a sweep refuses the same points (no row with a wrapped time)") {
  const Schedule s = relu_chain(5, 1);
  const std::vector<PreparedPolicy> policies{policy(s, "raw", {}, {{"spm_bandwidth", 0x1p40}})};
  const std::vector<SweepPoint> points{{0, 1e12, 1e12, 0}, {0, k62, k62, 0}};
  std::vector<double> seconds(2, 0.0);
  SweepColumns c;
  c.seconds = seconds.data();
  SweepOptions o;
  o.threads = 1;
  CHECK_THROWS_WITH(sweep(s, policies, points, c, o),
                    Catch::Matchers::Contains("option 'spm_bandwidth'"));
}

TEST_CASE("limits: mbs refuses an iteration it could not index before building it") {
  // One-sample sub-batches at batch 2^24: about 2^24 · 16 accesses > 2^25. Before: built until
  // the memory ran out (issue 26's embedding at batch 2^24 "runs until killed").
  const Network n = parse_network(R"({"name":"c","layers":[{"name":"x","kind":"input","shape":[64]},
      {"name":"d1","kind":"dense","inputs":["x"],"units":64},
      {"name":"r1","kind":"relu","inputs":["d1"]},
      {"name":"d2","kind":"dense","inputs":["r1"],"units":10}]})", "c.json");
  ScheduleOptions o;
  o.batch = std::int64_t{1} << 24;
  o.scheduler = "mbs";
  o.scheduler_options = {{"buffer", 600.0}};
  try {
    (void)build_schedule(n, o);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    INFO(e.what());
    CHECK(contains(e.what(), "scheduler 'mbs': the serialized iteration at batch 16777216 would make at least"));
    CHECK(contains(e.what(), "(up to 16777216 sub-batches a group), more than the 2^25 a serialized "
                             "iteration may make"));
  }
  o.batch = 1024;  // the same at a batch it can index
  CHECK(build_schedule(n, o).steps.size() > 1024);
}
