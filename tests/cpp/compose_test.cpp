// Policies as compositions (compose.hpp): option checking, the registries, the new schedulers on
// a hand-written chain, the ratio link's exact cost, and sweep = estimate for compositions.
#include <set>
#include <string>
#include <vector>

#include "../../cpp/src/exact.hpp"
#include "catch.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/policies.hpp"
#include "dnnmem/sweep.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using namespace dnnmem::test;

namespace {

const char* kChain = R"({"name":"x","kind":"input","shape":[4]},
    {"name":"fc1","kind":"dense","inputs":["x"],"units":3},
    {"name":"r","kind":"relu","inputs":["fc1"]},
    {"name":"fc2","kind":"dense","inputs":["r"],"units":2})";

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

Schedule schedule(const Network& n, const std::string& scheduler, OptionMap options = {}) {
  ScheduleOptions o;
  o.batch = 2;
  o.scheduler = scheduler;
  o.scheduler_options = std::move(options);
  return build_schedule(n, o);
}

}  // namespace

TEST_CASE("options: defaults, types, ranges, choices, unknown names") {
  const std::vector<OptionSpec> specs = {
      number_option("ratio", "", "a ratio", 1.0, 0.5, 8.0),
      integer_option("rows", "rows", 4, 1, 64),
      choice_option("order", "which first", "dx", {"dx", "dw"}),
      number_option("rate", "bytes/s", "a rate", 0, 0, 1e12, /*min_exclusive=*/true)};
  const Options d = resolve_options("link 't'", specs, {});
  CHECK(d.number("ratio") == 1.0);
  CHECK(d.integer("rows") == 4);
  CHECK(d.choice("order") == "dx");
  CHECK_FALSE(d.given("ratio"));
  const Options o = resolve_options("link 't'", specs, {{"order", std::string("dw")}, {"ratio", 2.5}});
  CHECK(o.number("ratio") == 2.5);
  CHECK(o.choice("order") == "dw");
  CHECK(o.given("ratio"));
  CHECK(what([&] { resolve_options("link 't'", specs, {{"foo", 1.0}}); }) ==
        "link 't': unknown option 'foo' (valid: ratio, rows, order, rate)");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"ratio", 9.0}}); }) ==
        "link 't': option 'ratio' must be >= 0.5 and <= 8, got 9");
  // The shortest form that reads back to the value (was 0.10000000000000001).
  CHECK(what([&] { resolve_options("link 't'", specs, {{"ratio", 0.1}}); }) ==
        "link 't': option 'ratio' must be >= 0.5 and <= 8, got 0.1");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"ratio", 1e300}}); }) ==
        "link 't': option 'ratio' must be >= 0.5 and <= 8, got 1e+300");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"rows", 2.5}}); }) ==
        "link 't': option 'rows' must be a whole number, got 2.5");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"order", std::string("dy")}}); }) ==
        "link 't': option 'order' must be one of dx, dw, got 'dy'");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"order", 1.0}}); }) ==
        "link 't': option 'order' must be one of dx, dw, got 1");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"ratio", std::string("x")}}); }) ==
        "link 't': option 'ratio' must be a number, got 'x'");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"rate", 0.0}}); }) ==
        "link 't': option 'rate' must be > 0 and <= 1000000000000, got 0");
  CHECK(what([&] { resolve_options("link 't'", specs, {{"ratio", 2.0}, {"ratio", 3.0}}); }) ==
        "link 't': option 'ratio' given twice");
  CHECK(what([&] { resolve_options("scheduler 'default'", {}, {{"x", 1.0}}); }) ==
        "scheduler 'default': unknown option 'x' (it takes no options)");
}

TEST_CASE("registries: names unique across the four kinds, unknown names listed") {
  std::set<std::string_view> names;
  std::size_t n = 0;
  for (auto* p : scheduler_parts()) names.insert(p->name), ++n;
  for (auto* p : cache_parts()) names.insert(p->name), ++n;
  for (auto* p : link_parts()) names.insert(p->name), ++n;
  for (auto* p : compute_parts()) names.insert(p->name), ++n;
  CHECK(names.size() == n);
  CHECK(cache_parts().size() == 17);
  CHECK(what([] { find_link("lz4"); }) ==
        "link: unknown link 'lz4' (valid: raw, ratio, zvc, rle, zlib)");
  CHECK(what([] { find_scheduler("nope"); }) ==
        "scheduler: unknown scheduler 'nope' (valid: default, inference, split-backward, mbs)");
}

TEST_CASE("exact ceil(b / r) for a ratio given as a double") {
  CHECK(detail::ceil_div_ratio(10, 2.5) == 4);
  CHECK(detail::ceil_div_ratio(10, 2.0) == 5);
  CHECK(detail::ceil_div_ratio(9, 3.0) == 3);
  CHECK(detail::ceil_div_ratio(10, 3.0) == 4);
  CHECK(detail::ceil_div_ratio(7, 0.5) == 14);
  CHECK(detail::ceil_div_ratio(7, 1.0 / 64) == 448);
  // 0.1 is 0.1000000000000000055511151231257827...: 1 / that is just below 10.
  CHECK(detail::ceil_div_ratio(1, 0.1) == 10);
  CHECK(detail::ceil_div_ratio(std::int64_t{1} << 61, 1 << 20) == std::int64_t{1} << 41);
  CHECK(detail::ceil_div_ratio((std::int64_t{1} << 61) + 1, 1 << 20) == (std::int64_t{1} << 41) + 1);
}

TEST_CASE("inference: forward steps only, outputs end off-chip, no gradients") {
  const Network n = net(kChain);
  const Schedule s = schedule(n, "inference");
  REQUIRE(s.steps.size() == 3);
  CHECK(accesses(s, 0) == "r:Y:x r:W:fc1 w:Y:fc1");
  CHECK(accesses(s, 2) == "r:Y:r r:W:fc2 w:Y:fc2");
  CHECK(s.capabilities == 0u);
  CHECK(s.scheduler == "inference");
  for (const Tensor& t : s.tensors) {
    CHECK(t.role != Role::Gradient);
    CHECK(t.role != Role::WeightGrad);
    CHECK(t.must_end_offchip == (t.name == "Y:fc2"));
  }
  // A cache manager that needs a backward pass refuses it, naming both parts.
  const CachePart needs_training{"test-needs-training", "", {}, kTraining, nullptr};
  CHECK(what([&] { check_capabilities(needs_training, s); }) ==
        "cache manager 'test-needs-training' needs a training schedule (loss and backward pass); "
        "scheduler 'inference' has none");
  CHECK_NOTHROW(check_capabilities(needs_training, schedule(n, "default")));
}

TEST_CASE("split-backward: fc2's backward as dX then dW (or dW then dX), each reading dY") {
  const Network n = net(kChain);
  const Schedule whole = schedule(n, "default");
  const Schedule s = schedule(n, "split-backward");
  REQUIRE(s.steps.size() == whole.steps.size() + 1);
  // Default step 4 is "r:dY:fc2 r:Y:r r:W:fc2 w:dY:r w:dW:fc2" (schedule_test.cpp).
  CHECK(accesses(s, 4) == "r:dY:fc2 r:W:fc2 w:dY:r");
  CHECK(s.steps[4].part == StepPart::Data);
  CHECK(accesses(s, 5) == "r:dY:fc2 r:Y:r w:dW:fc2");
  CHECK(s.steps[5].part == StepPart::Weight);
  // fc1 has no dX (x has no gradient): one step.
  CHECK(accesses(s, 7) == accesses(whole, 6));
  CHECK(s.steps[7].part == StepPart::Whole);
  // MACs split: dX 2·3·2 = 12, dW 3·2·2 = 12 (batch 2).
  CHECK(s.steps[4].ops.macs == 12);
  CHECK(s.steps[5].ops.macs == 12);
  CHECK(s.steps[4].ops.macs + s.steps[5].ops.macs == whole.steps[4].ops.macs);
  const Schedule dw = schedule(n, "split-backward", {{"first", std::string("dw")}});
  CHECK(accesses(dw, 4) == "r:dY:fc2 r:Y:r w:dW:fc2");
  CHECK(accesses(dw, 5) == "r:dY:fc2 r:W:fc2 w:dY:r");
  CHECK(what([&] { schedule(n, "split-backward", {{"first", std::string("dy")}}); }) ==
        "scheduler 'split-backward': option 'first' must be one of dx, dw, got 'dy'");
}

TEST_CASE("ratio link: wire bytes and time by hand, cap binding and not") {
  const Network n = net(kChain);
  const Schedule s = schedule(n, "default");
  PolicySpec spec;
  spec.link = {"ratio", {{"activation", 4.0}, {"cap", 200.0}}};
  const PreparedPolicy p = prepare_policy(s, spec, 2);
  // Y:fc1 is 2·3·4 = 24 bytes: 6 on the wire. bandwidth 100 B/s, throughput 10 FLOP/s: a tick
  // is 1/1000 s. Wire: 6 B / 100 B/s = 60 ms = 60 ticks; cap: 24 B / 200 B/s = 120 ms = 120.
  int y_fc1 = -1;
  for (std::size_t t = 0; t < s.tensors.size(); ++t)
    if (s.tensors[t].name == "Y:fc1") y_fc1 = static_cast<int>(t);
  REQUIRE(y_fc1 >= 0);
  const TimeBase tb{100, 10};
  CHECK(p.link.wire_bytes(y_fc1, 24) == 6);
  CHECK(p.link.ticks(tb, y_fc1, 24) == 120);  // the compressor is the limit
  PolicySpec fast = spec;
  fast.link.options[1].second = 1000.0;         // 24 ms: the wire (60 ms) is the limit
  CHECK(prepare_policy(s, fast, 2).link.ticks(tb, y_fc1, 24) == 60);
  // A weight is not compressed (ratio 1): W:fc1 is 4·3·4 + 3·4 = 60 bytes, 600 ticks on the wire.
  int w_fc1 = -1;
  for (std::size_t t = 0; t < s.tensors.size(); ++t)
    if (s.tensors[t].name == "W:fc1") w_fc1 = static_cast<int>(t);
  CHECK(p.link.wire_bytes(w_fc1, 60) == 60);
  CHECK(p.link.ticks(tb, w_fc1, 60) == 600);
}

TEST_CASE("sweep over prepared compositions equals estimate, point by point") {
  const Network n = net(kChain);
  const Schedule s = schedule(n, "split-backward");
  std::vector<PreparedPolicy> policies;
  for (const char* cache : {"lookahead", "lru", "none", "onsram-static", "onsram-eager-spec"}) {
    PolicySpec spec;
    spec.cache.name = cache;
    spec.link = {"ratio", {{"all", 2.5}, {"cap", 5e9}}};
    spec.compute = {"systolic", {{"rows", 2.0}, {"cols", 3.0}, {"vector", 0.5}}};
    policies.push_back(prepare_policy(s, spec, 2));
  }
  std::vector<SweepPoint> points;
  for (int p = 0; p < 5; ++p)
    for (std::int64_t cap : {0, 40, 100, 1000}) points.push_back({cap, 1e9, 1e10, p});
  const std::size_t k = points.size();
  std::vector<double> seconds(k);
  std::vector<std::int64_t> in(k), out(k), wire_in(k), wire_out(k);
  std::vector<std::uint8_t> done(k);
  std::vector<std::int64_t> pinned(k), pinned_bytes(k);
  std::vector<double> recompute(k);
  SweepColumns cols;
  cols.pinned = pinned.data();
  cols.pinned_bytes = pinned_bytes.data();
  cols.recompute_seconds = recompute.data();
  cols.seconds = seconds.data();
  cols.traffic_in = in.data();
  cols.traffic_out = out.data();
  cols.wire_in = wire_in.data();
  cols.wire_out = wire_out.data();
  cols.done = done.data();
  SweepOptions o;
  o.threads = 2;
  CHECK(sweep(s, policies, points, cols, o) == static_cast<std::int64_t>(k));
  for (std::size_t i = 0; i < k; ++i) {
    const auto& pt = points[i];
    const Estimate e = estimate(s, {pt.capacity, pt.bandwidth, pt.throughput},
                                policies[static_cast<std::size_t>(pt.policy)]);
    INFO("point " << i);
    CHECK(seconds[i] == e.seconds);
    CHECK(in[i] == e.traffic_in);
    CHECK(wire_in[i] == e.wire_in);
    CHECK(wire_out[i] == e.wire_out);
    CHECK(wire_in[i] < in[i]);  // ratio 2.5 > 1
    CHECK(pinned[i] == e.pins.pinned);  // the pinning managers' report (PinTotals)
    CHECK(pinned_bytes[i] == e.pins.pinned_bytes);
    CHECK(recompute[i] == e.pins.recompute_seconds);
  }
  CHECK(what([&] {
          std::vector<SweepPoint> bad = {{0, 1e9, 1e10, 5}};
          sweep(s, policies, bad, cols, o);
        }) == "point 0: policy: index 5 out of range (0..4)");
}

TEST_CASE("OnSRAM managers on an inference chain: what each keeps, byte by byte") {
  // docs/model/onsram.md. Batch 2, 4 B/element: Y:x 32 B, W:fc1 60, Y:fc1 24, Y:r 24, W:fc2 32,
  // Y:fc2 16 (the output). Every step is memory-bound at 1 GB/s and 10 TFLOP/s.
  const Schedule s = schedule(net(kChain), "inference");
  auto traffic = [&](const char* cache, std::int64_t capacity) {
    PolicySpec spec;
    spec.cache.name = cache;
    const Estimate e = estimate(s, {capacity, 1e9, 1e13}, prepare_policy(s, spec, 2));
    return std::pair<std::int64_t, std::int64_t>{e.traffic_in, e.traffic_out};
  };
  using P = std::pair<std::int64_t, std::int64_t>;
  CHECK(traffic("none", 0) == P{32 + 60 + 24 + 24 + 32, 24 + 24 + 16});
  CHECK(traffic("infinite-spm", 0) == P{32 + 60 + 32, 16});  // capacity ignored
  CHECK(traffic("onsram-static", 1000) == P{32 + 60 + 32, 16});
  CHECK(traffic("one-step", 1000) == P{32 + 60 + 32, 16});
  {  // The report: Y:fc1 and Y:r pinned (24 + 24 bytes); Y:x's one read saves nothing (O6).
    PolicySpec spec;
    spec.cache.name = "onsram-static";
    const Estimate e = estimate(s, {1000, 1e9, 1e13}, prepare_policy(s, spec, 2));
    CHECK(e.pins.pinned == 2);
    CHECK(e.pins.pinned_bytes == 24 + 24);
    CHECK(e.pins.recompute_seconds == 0);
    CHECK(e.plan.pins.size() == 2);
  }
  // 48 bytes: Y:x (32, step 0) comes first and Y:fc1 (steps 0-1) no longer fits beside it.
  CHECK(traffic("one-step", 48) == P{32 + 60 + 24 + 32, 24 + 16});
  CHECK(traffic("fifo", 1000) == P{32 + 60 + 32, 16});
  // Three steps, no pattern seen twice: Eager has nothing to predict from.
  CHECK(traffic("onsram-eager-wb", 1000) == traffic("none", 0));
  CHECK(traffic("onsram-eager-spec", 1000) == traffic("none", 0));
}

TEST_CASE("scheduler option order: hybrid, bfs and random are topological, thesis unchanged") {
  const char* branches = R"({"name":"x","kind":"input","shape":[4]},
    {"name":"a","kind":"dense","inputs":["x"],"units":3},
    {"name":"b","kind":"dense","inputs":["x"],"units":3},
    {"name":"ra","kind":"relu","inputs":["a"]},
    {"name":"c","kind":"dense","inputs":["ra"],"units":3},
    {"name":"s","kind":"add","inputs":["c","b"]})";
  const Network n = net(branches);
  auto order = [&](OptionMap o) {
    std::string names;
    for (int l : schedule(n, "inference", std::move(o)).forward_order)
      names += n.layers[static_cast<std::size_t>(l)].name + " ";
    return names;
  };
  CHECK(order({}) == "a ra c b s ");  // depth-first
  CHECK(order({{"order", std::string("thesis")}}) == "a ra c b s ");
  // hybrid: the ReLU right after its producer, then breadth-first: b before c.
  CHECK(order({{"order", std::string("hybrid")}}) == "a ra b c s ");
  // bfs: the queue's front every time: a and b (released by x), then ra, c, s.
  CHECK(order({{"order", std::string("bfs")}}) == "a b ra c s ");
  const std::string r1 = order({{"order", std::string("random")}, {"seed", 1.0}});
  CHECK(r1 == order({{"order", std::string("random")}, {"seed", 1.0}}));
  CHECK(r1.substr(r1.size() - 2) == "s ");
}

TEST_CASE("vdnn: hand-computed 3-layer chain (docs/model/cdma.md V1-V6)") {
  // x -> fc1 -> r (relu) -> fc2, batch 2: steps F:fc1 F:r F:fc2 loss B:fc2 B:r B:fc1.
  const Network n = net(kChain);
  const Schedule s = schedule(n, "default");
  auto tensor = [&](const std::string& name) {
    for (std::size_t t = 0; t < s.tensors.size(); ++t)
      if (s.tensors[t].name == name) return static_cast<int>(t);
    return -1;
  };
  PolicySpec spec;
  spec.cache = {"vdnn-all", {}};
  const PreparedPolicy p = prepare_policy(s, spec, 2);
  const Hardware hw{1 << 20, 10.0, 100.0};
  const PlanInput in = make_plan_input(s, hw, p);
  const Plan plan = make_plan(*p.cache, in);
  // Y:x (32 B) out during F:fc1, back from B:r (issued) for B:fc1; Y:r (24 B) out during F:fc2,
  // back from the loss step for B:fc2 (V2, V3). Nothing else moves (V1, V4).
  REQUIRE(plan.transfers.size() == 4);
  const int yx = tensor("Y:x"), yr = tensor("Y:r");
  CHECK((plan.transfers[0].tensor == yx && plan.transfers[0].kind == TransferKind::StreamStore &&
         plan.transfers[0].issue_step == 0 && plan.transfers[0].deadline == 0));
  CHECK((plan.transfers[1].tensor == yr && plan.transfers[1].kind == TransferKind::StreamStore &&
         plan.transfers[1].issue_step == 2 && plan.transfers[1].deadline == 2));
  CHECK((plan.transfers[2].tensor == yr && plan.transfers[2].kind == TransferKind::Prefetch &&
         plan.transfers[2].issue_step == 3 && plan.transfers[2].deadline == 4));
  CHECK((plan.transfers[3].tensor == yx && plan.transfers[3].kind == TransferKind::Prefetch &&
         plan.transfers[3].issue_step == 5 && plan.transfers[3].deadline == 6));
  CHECK(plan.resident == std::vector<std::int64_t>{148, 140, 132, 148, 188, 196, 208});
  // Times (10 B/s, 100 FLOP/s): offloads 3.2 s and 2.4 s, steps 0.48 .. 0.06 s of compute.
  const Estimate e = estimate(s, hw, p);
  CHECK(e.seconds == Approx(11.26).epsilon(1e-12));
  spec.cache = {"oracle", {}};
  CHECK(estimate(s, hw, prepare_policy(s, spec, 2)).seconds == Approx(1.92).epsilon(1e-12));
  spec.cache = {"vdnn-conv", {}};  // no convolution: nothing moves
  CHECK(make_plan(*prepare_policy(s, spec, 2).cache, in).transfers.empty());
}

TEST_CASE("tile model: the layers kept for one schedule are found again for another") {
  // apply_tile_model keeps the layers it tiles per schedule object (TileUnitCache, a sweep's
  // workspace): with one cache taken through three schedules in turn, each plan must equal the
  // one made without a cache.
  const Network n = net(kChain);
  const Schedule dx_first = schedule(n, "split-backward", {{"order", std::string("seq")}, {"tile", 1.0}});
  const Schedule dw_first =
      schedule(n, "split-backward", {{"order", std::string("seq")}, {"tile", 1.0}, {"first", std::string("dw")}});
  const Schedule fused = schedule(n, "split-backward", {{"order", std::string("best")}, {"tile", 1.0}});
  PolicySpec spec;
  spec.cache = {"none", {}};
  TileUnitCache cache;
  // Calls body(in, plan) with s's plan under `none` and its input (apply_tile_model reads both).
  const auto with_plan = [&](const Schedule& s, const auto& body) {
    const PreparedPolicy p = prepare_policy(s, spec, 2);
    const PlanInput in = make_plan_input(s, {0, 10.0, 100.0}, p);
    PlanScratch scratch;
    Plan plain;
    p.cache->plan(in, scratch, plain);
    body(in, plain);
  };
  int tiled = 0;
  for (int round = 0; round < 2; ++round)
    for (const Schedule* s : {&dx_first, &dw_first, &fused, &dw_first})
      with_plan(*s, [&](const PlanInput& in, const Plan& plan) {
        Plan plain = plan, kept = plan;
        apply_tile_model(in, plain, false);
        apply_tile_model(in, kept, false, &cache);
        CHECK(cache.schedule == s);
        CHECK(kept.transfers == plain.transfers);
        REQUIRE(kept.tiles.size() == plain.tiles.size());
        for (std::size_t i = 0; i < kept.tiles.size(); ++i) {
          CHECK(kept.tiles[i].step == plain.tiles[i].step);
          CHECK(kept.tiles[i].step2 == plain.tiles[i].step2);
          CHECK(kept.tiles[i].read == plain.tiles[i].read);
        }
        tiled += static_cast<int>(plain.tiles.size());
      });
  CHECK(tiled == 8);  // fc2 in each plan (fc1 has no dX: its input is the network's)
  // A layer is passed over only when neither of its steps streams anything: with either step's
  // transfers taken out, the other's still make a record.
  for (const Schedule* s : {&dx_first, &dw_first})
    with_plan(*s, [&](const PlanInput& in, const Plan& plain) {
      Plan whole = plain;
      apply_tile_model(in, whole, false, &cache);
      REQUIRE(whole.tiles.size() == 1);
      for (const int gone : {whole.tiles[0].step, whole.tiles[0].step2}) {
        Plan part = plain;
        std::erase_if(part.transfers, [&](const Transfer& x) { return x.issue_step == gone; });
        REQUIRE(part.transfers.size() < plain.transfers.size());
        apply_tile_model(in, part, false, &cache);
        REQUIRE(part.tiles.size() == 1);
        CHECK(part.tiles[0].streamed != 0);
      }
    });
}

TEST_CASE("zvc: exact size (cDMA paper, section V-A)") {
  CHECK(zvc_bytes(4096, 4, 1.0, 32, true) == 128);        // 32x
  CHECK(zvc_bytes(4096, 4, 0.0, 32, true) == 4096 + 128);  // 0.970x
  CHECK(zvc_bytes(4000, 4, 0.6, 32, false) == 1600);       // 2.5x without masks
  CHECK(zvc_bytes(24, 4, 0.9, 32, true) == 8);             // round(0.6) = 1 value + 1 mask
  const Network n = net(kChain);
  const Schedule s = schedule(n, "default");
  PolicySpec spec;
  spec.link = {"zvc", {}};
  spec.link_tables.sparsity.assign(s.tensors.size(), 0.9);
  spec.link_tables.sparsity[0] = 1.5;
  CHECK(what([&] { prepare_policy(s, spec, 2); }) ==
        "link 'zvc': sparsity of tensor 'Y:x' must be in [0, 1], got 1.5");
  spec.link = {"rle", {}};
  CHECK(what([&] { prepare_policy(s, spec, 2); }).find("needs a measured ratio per tensor") !=
        std::string::npos);
}
