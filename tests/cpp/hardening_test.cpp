// Issue 19 ("hardening"): each finding of a hostile-user review, reproduced. Totals that cannot
// be counted exactly are refused naming the quantity (never a negative or wrapped number); the
// bound behind that (build_schedule) is checked against what every policy produces near it; the
// JSON depth limit, unknown top-level keys, endless files, overflowing concats and the fields
// overflow errors name; the sweep's thread cap.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "helpers.hpp"
#include "dnnmem/errors.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/schedule.hpp"
#include "dnnmem/sweep.hpp"

using namespace dnnmem;

namespace {

using dnnmem::test::contains;

// An input of `shape` followed by a chain of `n` relu layers.
Network relus(const std::string& shape, int n) {
  std::string layers = R"({"name":"x","kind":"input","shape":)" + shape + "}";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    const std::string name = "r" + std::to_string(i);
    layers += R"(,{"name":")" + name + R"(","kind":"relu","inputs":[")" + prev + "\"]}";
    prev = name;
  }
  return parse_network(R"({"name":"chain","layers":[)" + layers + "]}", "chain.json");
}

Schedule schedule_at(const Network& n, std::int64_t batch, int bytes_per_element) {
  ScheduleOptions o;
  o.batch = batch;
  o.bytes_per_element = bytes_per_element;
  return build_schedule(n, o);
}

std::string schedule_error(const Network& n, std::int64_t batch, int bytes_per_element) {
  try {
    (void)schedule_at(n, batch, bytes_per_element);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

__extension__ typedef __int128 Wide;

Wide access_bytes(const Schedule& s) {
  Wide a = 0;
  for (const Access& x : s.accesses) a += x.bytes;
  return a;
}

using dnnmem::test::k62;

}  // namespace

// ---- finding 1: sums beyond 64 bits -------------------------------------------------------------

TEST_CASE("hardening: traffic beyond 2^63 bytes is refused, not wrapped (policy none)") {
  // The issue's example: [262144, 1048576] (2^38 elements per sample) and five relus at batch
  // 2^20, 16 bytes per element: every tensor is 2^62 bytes, 11 accesses move 11 · 2^62 bytes.
  // Before: time -5.0 s and traffic_in = -2^63.
  const Network n = relus("[262144,1048576]", 5);
  const std::string e = schedule_error(n, std::int64_t{1} << 20, 16);
  INFO(e);
  CHECK(contains(e, "at batch 1048576"));
  CHECK(contains(e, "the bytes of all tensor accesses"));
  CHECK(contains(e, "more than 2^58 bytes"));
}

TEST_CASE("hardening: occupancy beyond 2^63 bytes is refused (lookahead at capacity 2^62)") {
  // Three relus: before, lookahead with capacity 2^62 believed 2^63 bytes fit.
  const Network n = relus("[262144,1048576]", 3);
  CHECK(contains(schedule_error(n, std::int64_t{1} << 20, 16), "the bytes of all tensor accesses"));
}

TEST_CASE("hardening: FLOPs beyond 2^63 are refused (six dense layers at batch 2^24)") {
  // dense(131072) on 131072 features: 2^34 MACs per sample per layer; at batch 2^24 a step
  // is 2^59 FLOPs forward and 2^60 backward, fine alone, 9.8e18 > 2^62 together. Before:
  // Result.flops negative, utilization -0.88.
  std::string layers = R"({"name":"x","kind":"input","shape":[131072]})";
  std::string prev = "x";
  for (int i = 0; i < 6; ++i) {
    const std::string name = "d" + std::to_string(i);
    layers += R"(,{"name":")" + name + R"(","kind":"dense","units":131072,"inputs":[")" + prev + "\"]}";
    prev = name;
  }
  const Network n = parse_network(R"({"layers":[)" + layers + "]}", "dense.json");
  const std::string e = schedule_error(n, std::int64_t{1} << 24, 4);
  INFO(e);
  CHECK(contains(e, "the FLOPs of all steps"));
  CHECK(contains(e, "more than 2^62 FLOPs"));
  // At batch 2^20 the same network is fine, and its FLOPs are exact: 6 layers · 2^20 samples ·
  // (forward 2·2^34 + backward dW 2·2^34 + dX 2·2^34 for all but the first) + 3 FLOPs per logit.
  const Schedule s = schedule_at(n, std::int64_t{1} << 20, 4);
  const std::int64_t mac = std::int64_t{1} << 34, batch = std::int64_t{1} << 20;
  CHECK(s.total_ops(2) == batch * (6 * 2 * mac + 6 * 2 * mac + 5 * 2 * mac) + 3 * batch * 131072);
}

TEST_CASE("hardening: a step over 2^62 bytes is still refused naming the layer") {
  const Network n = relus("[262144,1048576]", 1);
  const std::string e = schedule_error(n, std::int64_t{1} << 24, 16);
  INFO(e);
  CHECK(contains(e, "layer 'x' at batch 16777216 is too large to count exactly in 64 bits"));
}

// The proof at build_schedule says: every policy's traffic <= 4 A (A = the bytes of all
// accesses) and time in ticks fits. Check it where it matters, just below the limits, at the
// extreme rates and capacities, with weights so that dW offloads and prefetches happen.
TEST_CASE("hardening: just below the limits, every policy gives exact, non-negative totals") {
  struct Case {
    const char* what;
    Network net;
    std::int64_t batch;
    int bpe;
  };
  // (1) 2^55-byte tensors: A = 7 · 2^55 < 2^58. (2) Two dense(2^20) layers: weights of 2^40
  // elements (2^44 bytes at 16 B), FLOPs near 2^62 at batch 2^18.
  std::vector<Case> cases;
  cases.push_back({"relu chain", relus("[262144,1048576]", 3), std::int64_t{1} << 17, 1});
  cases.push_back({"dense", parse_network(R"({"layers":[{"name":"x","kind":"input","shape":[1048576]},
      {"name":"d0","kind":"dense","units":1048576,"inputs":["x"]},
      {"name":"r","kind":"relu","inputs":["d0"]},
      {"name":"d1","kind":"dense","units":1048576,"inputs":["r"]}]})", "dense.json"),
      std::int64_t{1} << 17, 16});
  for (const Case& c : cases) {
    const Schedule s = schedule_at(c.net, c.batch, c.bpe);
    const Wide a = access_bytes(s);
    REQUIRE(a <= kMaxIterationBytes);
    // Near a limit: the bytes (within a factor 2), or the FLOPs (within a factor 16).
    REQUIRE((a > kMaxIterationBytes / 2 || s.total_ops(2) > kMaxIterationFlops / 16));
    for (const CachePart* p : cache_parts()) {
      if (p->needs_kept_intervals) continue;  // lp-rounded: its kept intervals come from Python
      for (std::int64_t cap : {std::int64_t{0}, std::int64_t{1} << 56, std::int64_t{1} << 62,
                               std::int64_t{INT64_MAX}}) {
        for (double rate : {1.0, k62}) {
          INFO(c.what << ", policy " << p->name << ", capacity " << cap << ", rates " << rate);
          EstimateOptions o;
          o.policy = std::string(p->name);
          const Estimate e = estimate(s, {cap, rate, rate}, o);
          CHECK(e.traffic_in >= 0);
          CHECK(e.traffic_out >= 0);
          CHECK(static_cast<Wide>(e.traffic_in) + e.traffic_out <= 4 * a);
          CHECK(std::isfinite(e.seconds));
          CHECK(e.seconds > 0);
          CHECK(e.steps_seconds <= e.seconds);
          CHECK(e.compute_seconds <= e.steps_seconds * (1 + 1e-12));
          for (const StepTiming& t : e.timeline.steps) {
            CHECK(t.resident >= 0);
            CHECK(t.end >= t.start);
          }
        }
      }
    }
  }
}

TEST_CASE("hardening: the network's parameter count cannot wrap") {
  // A layer holds at most about 2^44 parameters (products of sizes are capped there): 2^18
  // chained dense(2^22) layers hold 2^18 · (2^44 + 2^22) > 2^62 in all.
  std::vector<LayerSpec> specs(1);
  specs[0].name = "x";
  specs[0].kind = Kind::Input;
  specs[0].params.shape = {std::int64_t{1} << 22};
  for (int i = 0; i < (1 << 18); ++i) {
    LayerSpec d;
    d.name = std::string("d").append(std::to_string(i));  // (not "d" + …: GCC 12 -Wrestrict false positive)
    d.kind = Kind::Dense;
    d.inputs = {specs.back().name};
    d.params.units = std::int64_t{1} << 22;
    specs.push_back(std::move(d));
  }
  try {
    (void)build_network(std::move(specs), "big", "big.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    INFO(e.what());
    CHECK(contains(e.detail(), "more than 2^62 parameters"));
    CHECK(e.layer() == "d262143");  // the first 2^18 - 1 layers hold less than 2^62
  }
}

TEST_CASE("hardening: a concat of many large inputs overflows cleanly") {
  // Each input is [2^44] (the largest size a dimension may reach); 2^19 of them add up to
  // 2^63: before, the sum wrapped and the layer was reported as "empty".
  std::string layers = R"({"name":"x","kind":"input","shape":[2147483648,8192]},
                          {"name":"f","kind":"flatten","inputs":["x"]},
                          {"name":"c","kind":"concat","inputs":[)";
  for (int i = 0; i < (1 << 19); ++i) layers += i ? ",\"f\"" : "\"f\"";
  layers += "]}";
  try {
    (void)parse_network(R"({"layers":[)" + layers + "]}", "cat.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    INFO(e.what());
    CHECK(e.layer() == "c");
    CHECK(e.field() == "inputs");
    CHECK(contains(e.detail(), "overflow"));
  }
}

// ---- finding 6: the field an overflow error names ------------------------------------------------

TEST_CASE("hardening: overflow errors name the field that overflows") {
  const auto field_of = [](const std::string& layers) {
    try {
      (void)parse_network(R"({"layers":[)" + layers + "]}", "f.json");
    } catch (const NetworkError& e) {
      return e.field();
    }
    return std::string("(no error)");
  };
  // Before: 'filters' and 'inputs'.
  CHECK(field_of(R"({"name":"x","kind":"input","shape":[8,8,3]},
      {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":2147483648,"padding":"same"})") ==
        "kernel_size");
  CHECK(field_of(R"({"name":"x","kind":"input","shape":[8,8,3]},
      {"name":"u","kind":"upsample","inputs":["x"],"size":2147483648})") == "size");
  CHECK(field_of(R"({"name":"x","kind":"input","shape":[8,8,3]},
      {"name":"c","kind":"depthwise_conv2d","inputs":["x"],"kernel_size":2147483648,"padding":"same"})") ==
        "kernel_size");
}

// ---- finding 2 (the depth limit without the callback parser), 6 (top-level keys, endless files) -

TEST_CASE("hardening: the depth limit counts open lists and objects, in strings or not") {
  const auto meta = [](const std::string& value) {
    return R"({"layers":[{"name":"x","kind":"input","shape":[4],"meta":)" + value + "}]}";
  };
  const auto nest = [](int d, const std::string& inner) {
    return std::string(static_cast<std::size_t>(d), '[') + inner + std::string(static_cast<std::size_t>(d), ']');
  };
  // document, layers, layer: 3 levels; 61 more make 64, the most allowed, empty or not.
  CHECK_NOTHROW(parse_network(meta(nest(61, "")), "d.json"));
  CHECK_NOTHROW(parse_network(meta(nest(61, "1")), "d.json"));
  for (const std::string& inner : {std::string(""), std::string("1")}) {
    try {
      (void)parse_network(meta(nest(62, inner)), "d.json");
      FAIL("no error");
    } catch (const NetworkError& e) {
      CHECK(contains(e.detail(), "nested too deeply (more than 64 levels)"));
    }
  }
  // Brackets inside strings (escaped quotes too) are text, not nesting.
  CHECK_NOTHROW(parse_network(meta(R"({"s":"[[[[{{{{\"[[[[","t":"\\"})") , "d.json"));
  CHECK_NOTHROW(parse_network(meta("\"" + std::string(1000, '[') + "\""), "d.json"));
}

TEST_CASE("hardening: unknown top-level keys are errors, as unknown layer keys are") {
  try {
    (void)parse_network(R"({"name":"n","layer":[],"layers":[{"name":"x","kind":"input","shape":[4]}]})",
                        "top.json");
    FAIL("no error");
  } catch (const NetworkError& e) {
    CHECK(e.field() == "layer");
    CHECK(contains(e.detail(), "is not a field of a network document"));
  }
  CHECK_NOTHROW(parse_network(R"({"name":"n","meta":{"from":"x"},"layers":[{"name":"x","kind":"input","shape":[4]}]})",
                              "top.json"));
}

TEST_CASE("hardening: a file that never ends is read up to the limit, then refused") {
  try {
    (void)load_network_file("/dev/zero", std::size_t{1} << 20);
    FAIL("no error");
  } catch (const NetworkError& e) {
    CHECK(e.source() == "/dev/zero");
    CHECK(contains(e.detail(), "larger than 1048576 bytes"));
  }
}

// ---- finding 3: threads --------------------------------------------------------------------------

TEST_CASE("hardening: a sweep starts at most one thread per point and 4 per processor") {
  CHECK(sweep_threads(20000, 2) <= 2);
  CHECK(sweep_threads(20000, 1000000) <= max_sweep_threads());
  CHECK(sweep_threads(1, 0) == 1);
  CHECK(max_sweep_threads() >= 4);  // 4 per processor
#ifdef DNNMEM_HAVE_OPENMP
  CHECK(sweep_threads(3, 10) == 3);
#else
  CHECK(sweep_threads(3, 10) == 1);  // without OpenMP a sweep runs on one thread
#endif
  // 20000 threads asked for two points: two results, the same as one thread gives.
  const Network n = relus("[16]", 2);
  const Schedule s = schedule_at(n, 2, 4);
  const std::vector<SweepPoint> pts = {{0, 1e9, 1e12, 0}, {1 << 20, 1e9, 1e12, 0}};
  std::vector<double> seconds(2), one(2);
  SweepColumns c;
  c.seconds = seconds.data();
  SweepOptions o;
  o.threads = 20000;
  CHECK(sweep(s, pts, c, o) == 2);
  c.seconds = one.data();
  o.threads = 1;
  CHECK(sweep(s, pts, c, o) == 2);
  CHECK(seconds == one);
}
