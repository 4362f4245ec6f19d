// The default scheduler (SPEC §3) on hand-made graphs: order, accesses, gradient accumulation.
#include "catch.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::accesses;
using dnnmem::test::net;
using dnnmem::test::step_name;

namespace {

std::vector<std::string> order(const Network& n, const Schedule& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i) out.push_back(step_name(n, s, i));
  return out;
}

const char* kInput = R"({"name":"x","kind":"input","shape":[4]})";

}  // namespace

TEST_CASE("a 3-layer chain: steps and accesses written out by hand") {
  // x[4] -> fc1 dense(3) -> r relu -> fc2 dense(2); N = 2, FP32.
  auto n = net(std::string(kInput) + R"(,
    {"name":"fc1","kind":"dense","inputs":["x"],"units":3},
    {"name":"r","kind":"relu","inputs":["fc1"]},
    {"name":"fc2","kind":"dense","inputs":["r"],"units":2})");
  ScheduleOptions o;
  o.batch = 2;
  auto s = build_schedule(n, o);
  REQUIRE(order(n, s) == std::vector<std::string>{"F:fc1", "F:r", "F:fc2", "loss:fc2", "B:fc2",
                                                  "B:r", "B:fc1"});
  CHECK(accesses(s, 0) == "r:Y:x r:W:fc1 w:Y:fc1");
  CHECK(accesses(s, 1) == "r:Y:fc1 w:Y:r");
  CHECK(accesses(s, 2) == "r:Y:r r:W:fc2 w:Y:fc2");
  CHECK(accesses(s, 3) == "r:Y:fc2 w:dY:fc2");
  // B(dense): dY, X (it has dW), W (it writes dX), dX, dW.
  CHECK(accesses(s, 4) == "r:dY:fc2 r:Y:r r:W:fc2 w:dY:r w:dW:fc2");
  CHECK(accesses(s, 5) == "r:dY:r r:Y:r w:dY:fc1");  // relu reads Y
  // fc1's input has no gradient: no W read, no dX; X read for dW.
  CHECK(accesses(s, 6) == "r:dY:fc1 r:Y:x w:dW:fc1");

  // Sizes: Y:x 2·4·4 = 32 B; W:fc1 (4·3 + 3)·4 = 60 B; W:fc2 (3·2 + 2)·4 = 32 B.
  auto bytes = [&](const std::string& name) {
    for (const auto& t : s.tensors)
      if (t.name == name) return t.bytes;
    return std::int64_t{-1};
  };
  CHECK(bytes("Y:x") == 32);
  CHECK(bytes("W:fc1") == 60);
  CHECK(bytes("W:fc2") == 32);
  CHECK(bytes("Y:fc2") == 16);
  // FLOPs (ops_per_mac 2): F(fc1) = 2·(2·3·4) = 48, F(r) = 2·3 = 6, F(fc2) = 2·(2·2·3) = 24,
  // loss = 3·(2·2) = 12, B(fc2) = dX 24 + dW 24, B(r) = 6, B(fc1) = dW 48 only.
  std::vector<std::int64_t> flops;
  for (const auto& st : s.steps) flops.push_back(st.ops.total(2));
  CHECK(flops == std::vector<std::int64_t>{48, 6, 24, 12, 48, 6, 48});
  CHECK(s.total_ops(1) == 24 + 6 + 12 + 12 + 24 + 6 + 24);

  // Tensor order: (first use, role, position) — role before position, so at step 0 the
  // activations Y:x and Y:fc1 come before W:fc1.
  std::vector<std::string> names;
  for (const auto& t : s.tensors) names.push_back(t.name);
  CHECK(names == std::vector<std::string>{"Y:x", "Y:fc1", "W:fc1", "Y:r", "Y:fc2", "W:fc2",
                                          "dY:fc2", "dY:r", "dW:fc2", "dY:fc1", "dW:fc1"});
  // Uses and intervals: Y:r is used at F(r) w, F(fc2) r, B(fc2) r, B(r) r → 3 intervals.
  CHECK(s.tensors[3].first_use == 1);
  CHECK(s.tensors[3].last_use == 5);
  CHECK(s.tensors[3].use_end - s.tensors[3].use_begin == 4);
  CHECK(s.tensors[0].starts_offchip);
  CHECK(s.tensors[2].starts_offchip);
  CHECK_FALSE(s.tensors[1].starts_offchip);
  CHECK(s.tensors[8].must_end_offchip);
  // Intervals: Y:x 1, W:fc1 0, Y:fc1 2 (F fc1 w, F r r, B fc1? no: relu reads Y not X) ...
  // counted directly: uses-1 per tensor.
  std::int64_t expect = 0;
  for (const auto& t : s.tensors) expect += t.use_end - t.use_begin - 1;
  CHECK(s.num_intervals() == expect);
}

TEST_CASE("residual block: shortcut first, the add waits for both, one aliased gradient") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"c0","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"a","kind":"conv2d","inputs":["c0"],"filters":2,"kernel_size":3,"padding":"same"},
    {"name":"b","kind":"relu","inputs":["a"]},
    {"name":"add","kind":"add","inputs":["c0","b"]},
    {"name":"out","kind":"relu","inputs":["add"]})");
  auto s = build_schedule(n, {});
  CHECK(order(n, s) == std::vector<std::string>{"F:c0", "F:a", "F:b", "F:add", "F:out",
                                                "loss:out", "B:out", "B:add", "B:b", "B:a",
                                                "B:c0"});
  CHECK(accesses(s, 3) == "r:Y:c0 r:Y:b w:Y:add");
  CHECK(accesses(s, 6) == "r:dY:out r:Y:out w:dY:add");  // creates the aliased dY
  CHECK(accesses(s, 7).empty());                         // B(add): no access, no FLOPs
  CHECK(s.steps[7].ops.total() == 0);
  CHECK(accesses(s, 8) == "r:dY:add r:Y:b w:dY:a");      // b's dY is the add's
  // a writes dX into c0's dY = the add's dY, already created: read-modify-write.
  CHECK(accesses(s, 9) == "r:dY:a r:Y:c0 r:W:a rw:dY:add w:dW:a");
  CHECK(accesses(s, 10) == "r:dY:add r:Y:x w:dW:c0");  // first conv: dW only, no W, no dX
  int grads = 0;
  for (const auto& t : s.tensors) grads += t.role == Role::Gradient;
  CHECK(grads == 3);  // dY:out, dY:add (= dY:c0 = dY:b), dY:a
}

TEST_CASE("two-branch inception-like block: branches depth-first in file order, then the join") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"b1","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"b2a","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"b2b","kind":"relu","inputs":["b2a"]},
    {"name":"cat","kind":"concat","inputs":["b1","b2b"]},
    {"name":"b1r","kind":"relu","inputs":["b1"]},
    {"name":"out","kind":"multiply","inputs":["cat","cat"]})");
  auto s = build_schedule(n, {});
  // x's consumers in file order: b1, b2a. b1's consumers: cat (waits), b1r.
  CHECK(order(n, s) == std::vector<std::string>{"F:b1", "F:b1r", "F:b2a", "F:b2b", "F:cat",
                                                "F:out", "loss:b1r", "loss:out", "B:out",
                                                "B:cat", "B:b2b", "B:b2a", "B:b1r", "B:b1"});
  CHECK(n.layers[4].shape == Shape{4, 4, 4});
  // multiply(cat, cat): one access per tensor; two dX contributions into one gradient.
  CHECK(accesses(s, 5) == "r:Y:cat w:Y:out");
  CHECK(accesses(s, 8) == "r:dY:out r:Y:cat w:dY:cat");
  CHECK(s.steps[8].ops.flops == 2 * 64);  // 1 per output element per input, 2 inputs
  CHECK(accesses(s, 9) == "r:dY:cat w:dY:b1 w:dY:b2b");  // concat copies slices
  CHECK(accesses(s, 12) == "r:dY:b1r r:Y:b1r rw:dY:b1");  // b1 accumulates from cat and b1r
}

TEST_CASE("multi-input join is entered only after every input, wherever the inputs come from") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"y","kind":"input","shape":[4]},
    {"name":"j","kind":"add","inputs":["fx","y","fy"]},
    {"name":"fx","kind":"dense","inputs":["x"],"units":4},
    {"name":"fy","kind":"dense","inputs":["y"],"units":4},
    {"name":"o","kind":"dense","inputs":["j"],"units":1})");
  auto s = build_schedule(n, {});
  CHECK(order(n, s) == std::vector<std::string>{"F:fx", "F:fy", "F:j", "F:o", "loss:o", "B:o",
                                                "B:j", "B:fy", "B:fx"});
  CHECK(s.steps[2].ops.flops == 3 * 4);  // add: 1 per input per output element
  // The add's dY aliases fx's and fy's (y is an input: no gradient).
  CHECK(accesses(s, 5) == "r:dY:o r:Y:j r:W:o w:dY:j w:dW:o");
  CHECK(accesses(s, 7) == "r:dY:j r:Y:y w:dW:fy");
  CHECK(accesses(s, 8) == "r:dY:j r:Y:x w:dW:fx");
}

TEST_CASE("layers without trainable ancestors get no backward step") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"r","kind":"relu","inputs":["x"]},
    {"name":"fc","kind":"dense","inputs":["r"],"units":2,"trainable":false},
    {"name":"fc2","kind":"dense","inputs":["fc"],"units":2})");
  auto s = build_schedule(n, {});
  CHECK(order(n, s) == std::vector<std::string>{"F:r", "F:fc", "F:fc2", "loss:fc2", "B:fc2"});
  CHECK(accesses(s, 4) == "r:dY:fc2 r:Y:fc w:dW:fc2");
}

TEST_CASE("folded layers make no step and no tensor, consumers read through them") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"pad","kind":"zero_padding","inputs":["x"],"padding":1},
    {"name":"c","kind":"conv2d","inputs":["pad"],"filters":3,"kernel_size":3},
    {"name":"flat","kind":"flatten","inputs":["c"]},
    {"name":"fc","kind":"dense","inputs":["flat"],"units":2})");
  auto s = build_schedule(n, {});
  CHECK(order(n, s) == std::vector<std::string>{"F:c", "F:fc", "loss:fc", "B:fc", "B:c"});
  CHECK(n.layers[2].shape == Shape{4, 4, 3});  // 3x3 valid on the 6x6 padded input
  CHECK(accesses(s, 1) == "r:Y:c r:W:fc w:Y:fc");
  CHECK(accesses(s, 3) == "r:dY:fc r:Y:c r:W:fc w:dY:c w:dW:fc");
  CHECK(s.tensors.size() == 9);  // Y x c fc, W c fc, dY fc c, dW fc c
}

TEST_CASE("shared weights and partial embedding accesses") {
  // Tied embedding: emb reads 3 rows of the 10x4 table (partial); out reads the whole table.
  auto n = net(R"({"name":"ids","kind":"input","shape":[3],"dtype":"int32"},
    {"name":"emb","kind":"embedding","inputs":["ids"],"input_dim":10,"output_dim":4,"weights":"table"},
    {"name":"out","kind":"dense","inputs":["emb"],"units":10,"use_bias":false,"weights":"table"})");
  ScheduleOptions o;
  o.batch = 2;
  auto s = build_schedule(n, o);
  CHECK(n.trainable_parameters() == 40);
  CHECK(accesses(s, 0) == "r:Y:ids r:p:W:table w:Y:emb");
  CHECK(accesses(s, 1) == "r:Y:emb r:W:table w:Y:out");
  CHECK(accesses(s, 3) == "r:dY:out r:Y:emb r:W:table w:dY:emb w:dW:table");
  CHECK(accesses(s, 4) == "r:dY:emb r:Y:ids rw:p:dW:table");
  // Partial bytes: N·rows·width·4 = 2·3·4·4 = 96; the ids are int32: 2·3·4 = 24 bytes.
  CHECK(s.accesses[static_cast<std::size_t>(s.steps[0].first_access + 1)].bytes == 96);
  CHECK(s.accesses[static_cast<std::size_t>(s.steps[0].first_access)].bytes == 24);
  CHECK(s.steps[0].ops.flops == 2 * 2 * 3 * 4);  // 2 per gathered element
  CHECK(s.steps[4].ops.flops == 1 * 2 * 3 * 4);  // dW: 1 per gathered element
  // The table's first full use is F(out), step 1: partial uses do not count for ordering.
  for (const auto& t : s.tensors)
    if (t.name == "W:table") {
      CHECK(t.first_use == 0);
      CHECK(t.first_full_use == 1);
    }
}

TEST_CASE("bad schedule options are rejected with a clear message") {
  auto n = net(std::string(kInput));
  ScheduleOptions o;
  o.batch = 0;
  CHECK_THROWS_WITH(build_schedule(n, o), Catch::Matchers::Contains("batch"));
  o.batch = 1;
  o.bytes_per_element = 0;
  CHECK_THROWS_WITH(build_schedule(n, o), Catch::Matchers::Contains("bytes_per_element"));
}

namespace {

// The thesis planners' records (UseIndex) against the accesses and full uses they come from,
// and the order rule 4's candidate list relies on: per step, the ends of its interval group that
// read (in the group's order), then the reads without a previous use, are its reads in order.
void check_planner_records(const Schedule& s) {
  const UseIndex& x = s.index;
  const int nf = static_cast<int>(x.full.size());
  std::size_t loads = 0, stores = 0;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    REQUIRE(x.load_begin[i] == static_cast<int>(loads));
    REQUIRE(x.store_begin[i] == static_cast<int>(stores));
    for (int k = 0; k < st.num_accesses; ++k) {
      const auto a = static_cast<std::size_t>(st.first_access + k);
      const int f = x.access_full[a] < 0 ? nf : x.access_full[a];
      for (const bool is_load : {true, false}) {
        if (!(is_load ? s.accesses[a].read : s.accesses[a].write)) continue;
        const StreamUse& u = is_load ? x.loads[loads++] : x.stores[stores++];
        CHECK(u.tensor == s.accesses[a].tensor);
        CHECK(u.bytes == s.accesses[a].bytes);
        CHECK(u.f == f);
      }
    }
  }
  CHECK(loads == x.loads.size());
  CHECK(stores == x.stores.size());
  std::size_t first = 0;
  for (std::size_t v = 0; v < s.steps.size(); ++v) {
    std::vector<int> reads;
    for (int i = x.interval_begin[v]; i < x.interval_begin[v + 1]; ++i) {
      const PlanUse& r = x.interval_uses[static_cast<std::size_t>(i)];
      const FullUse& end = x.full[static_cast<std::size_t>(r.f) + 1];
      CHECK(end.step == static_cast<int>(v));
      CHECK(end.tensor == r.tensor);
      CHECK(r.step == x.full[static_cast<std::size_t>(r.f)].step);
      CHECK(((r.flags & PlanUse::NextLast) != 0) == ((end.flags & FullUse::HasNext) == 0));
      CHECK(((r.flags & PlanUse::NextWrite) != 0) == ((end.flags & FullUse::Write) != 0));
      const int pos = x.interval_read[static_cast<std::size_t>(i)];
      CHECK((pos >= 0) == ((end.flags & FullUse::Read) != 0));
      if (pos >= 0) reads.push_back(pos);
    }
    for (; first < x.first_reads.size() && x.first_reads[first].step == static_cast<int>(v); ++first)
      reads.push_back(x.first_reads[first].pos);
    std::vector<int> expected;
    for (int i = x.read_begin[v]; i < x.read_begin[v + 1]; ++i) expected.push_back(i);
    CHECK(reads == expected);
    for (int i : expected) {
      const PlanUse& r = x.read_uses[static_cast<std::size_t>(i)];
      CHECK(r.step == x.full[static_cast<std::size_t>(r.f)].prev_step);
    }
  }
  CHECK(first == x.first_reads.size());
}

}  // namespace

TEST_CASE("the thesis planners' records match the accesses and full uses") {
  check_planner_records(build_schedule(net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"c0","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"a","kind":"conv2d","inputs":["c0"],"filters":2,"kernel_size":3,"padding":"same"},
    {"name":"b","kind":"relu","inputs":["a"]},
    {"name":"add","kind":"add","inputs":["c0","b"]},
    {"name":"out","kind":"relu","inputs":["add"]})"), {}));
  check_planner_records(build_schedule(net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"b1","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"b2a","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"b2b","kind":"relu","inputs":["b2a"]},
    {"name":"cat","kind":"concat","inputs":["b1","b2b"]},
    {"name":"b1r","kind":"relu","inputs":["b1"]},
    {"name":"out","kind":"multiply","inputs":["cat","cat"]})"), {}));
  ScheduleOptions o;
  o.batch = 2;
  check_planner_records(build_schedule(net(R"({"name":"ids","kind":"input","shape":[3],"dtype":"int32"},
    {"name":"emb","kind":"embedding","inputs":["ids"],"input_dim":10,"output_dim":4,"weights":"table"},
    {"name":"out","kind":"dense","inputs":["emb"],"units":10,"use_bias":false,"weights":"table"})"), o));
}
