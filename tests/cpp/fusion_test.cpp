// The fusion stage (docs/model/fusion.md) on hand-made graphs: which layers join, what a fused
// step reads, writes, keeps on chip and saves for the backward pass, at every level.
#include <numeric>

#include "catch.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/fusion.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::accesses;
using dnnmem::test::net;

namespace {

Schedule fused(const Network& n, const std::string& level, const std::string& scheduler = "default",
               std::int64_t batch = 1) {
  ScheduleOptions o;
  o.batch = batch;
  o.scheduler = scheduler;
  o.scheduler_options = {{"fusion", level}};
  return build_schedule(n, o);
}

// "F:bn+relu+add" — a step's name with all the layers it runs.
std::string name(const Network& n, const Schedule& s, std::size_t i) {
  const Step& st = s.steps[i];
  std::string out = st.phase == Phase::Forward ? "F:" : st.phase == Phase::Loss ? "loss:" : "B:";
  const auto layers = s.layers_of(static_cast<int>(i));
  for (std::size_t k = 0; k < layers.size(); ++k)
    out += (k ? "+" : "") + n.layers[static_cast<std::size_t>(layers[k])].name;
  return out;
}

std::vector<std::string> names(const Network& n, const Schedule& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.steps.size(); ++i) out.push_back(name(n, s, i));
  return out;
}

// Bytes read and written with every access streamed (the cache manager `none`).
std::pair<std::int64_t, std::int64_t> streamed(const Schedule& s) {
  std::int64_t r = 0, w = 0;
  for (const Access& a : s.accesses) {
    r += a.read ? a.bytes : 0;
    w += a.write ? a.bytes : 0;
  }
  return {r, w};
}

// x[4,4,2] -> conv 1x1 (2 filters) -> bn -> relu -> add(relu, x) -> out (relu): the chain of
// docs/model/fusion.md, "A worked chain".
const char* kFusedChain = R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"conv","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[1,1],"use_bias":false},
    {"name":"bn","kind":"batchnorm","inputs":["conv"]},
    {"name":"relu","kind":"relu","inputs":["bn"]},
    {"name":"add","kind":"add","inputs":["relu","x"]},
    {"name":"out","kind":"relu","inputs":["add"]})";

}  // namespace

TEST_CASE("fusion: levels by name and kinds by class") {
  CHECK(fusion_level_from_name("pointwise") == FusionLevel::Pointwise);
  CHECK_FALSE(fusion_level_from_name("pw").has_value());
  CHECK(fusion_class(Kind::Conv2D) == FusionClass::Product);
  CHECK(fusion_class(Kind::BatchNorm) == FusionClass::BatchNorm);
  CHECK(fusion_class(Kind::LayerNorm) == FusionClass::RowReduction);
  CHECK(fusion_class(Kind::MaxPool) == FusionClass::Alone);
  CHECK(backward_needs_only_sign(Kind::ReLU6));
  CHECK_FALSE(backward_needs_only_sign(Kind::GELU));
  CHECK(mask_bytes(32) == 4);
  CHECK(mask_bytes(33) == 5);
}

TEST_CASE("fusion: the worked chain at none, pointwise and accelerator (docs/model/fusion.md)") {
  const auto n = net(kFusedChain);
  const Schedule none = fused(n, "none");
  const Schedule pw = fused(n, "pointwise");
  const Schedule acc = fused(n, "accelerator");
  ScheduleOptions plain;
  const Schedule thesis = build_schedule(n, plain);

  SECTION("none is the thesis's schedule, access for access") {
    REQUIRE(none.steps.size() == 11);
    for (std::size_t i = 0; i < none.steps.size(); ++i) CHECK(accesses(none, i) == accesses(thesis, i));
    CHECK(none.step_layers.empty());
    CHECK(streamed(none) == std::pair<std::int64_t, std::int64_t>{1984, 1184});
  }
  SECTION("FLOPs are the same at every level") {
    CHECK(none.total_ops() == 992);
    CHECK(pw.total_ops() == 992);
    CHECK(acc.total_ops() == 992);
  }
  SECTION("pointwise: the batch norm, both ReLUs and the add are one step") {
    CHECK(names(n, pw) == std::vector<std::string>{"F:conv", "F:bn+relu+add+out", "loss:out",
                                                   "B:bn+relu+add+out", "B:conv"});
    // Y:out's mask: 32 elements, 4 bytes.
    CHECK(accesses(pw, 1) == "r:Y:conv r:W:bn r:S:bn r:Y:x w:Y:out w:M:out");
    CHECK(pw.step_intermediate_bytes[1] == 3 * 128);  // Y:bn, Y:relu, Y:add
    // Backward: the batch norm reads its input (saved: a product's output); Y:relu is
    // recomputed from it; Y:out, which no product's backward reads and which needs x (not read
    // by this step) to recompute, is read as its mask.
    CHECK(accesses(pw, 3) == "r:dY:out r:M:out r:Y:conv r:W:bn w:dY:conv w:dW:bn");
    CHECK(pw.step_intermediate_bytes[3] == 2 * 128);  // dY:add, dY:bn
    CHECK(accesses(pw, 4) == "r:dY:conv r:Y:x w:dW:conv");
    CHECK(streamed(pw) == std::pair<std::int64_t, std::int64_t>{1092, 548});
  }
  SECTION("accelerator: the forward cut at the batch norm's statistics, one backward step") {
    CHECK(names(n, acc) == std::vector<std::string>{"F:conv", "F:bn+relu+add+out", "loss:out",
                                                    "B:conv+bn+relu+add+out"});
    CHECK(accesses(acc, 1) == "r:Y:conv r:W:bn r:S:bn r:Y:x w:Y:out");
    // Y:out and Y:relu recomputed from Y:conv and x; dY:conv never leaves the chip.
    CHECK(accesses(acc, 3) == "r:dY:out r:Y:conv r:W:bn w:dW:bn r:Y:x w:dW:conv");
    CHECK(acc.step_intermediate_bytes[3] == 3 * 128);  // dY:add, dY:bn, dY:conv
    CHECK(streamed(acc) == std::pair<std::int64_t, std::int64_t>{960, 416});
  }
  SECTION("the cache manager none moves the streamed bytes") {
    Hardware hw;
    hw.capacity = 0;
    hw.bandwidth = 1e9;
    hw.throughput = 1e12;
    EstimateOptions o;
    o.policy = "none";
    const Estimate e = estimate(acc, hw, o);
    CHECK(e.traffic_in == 960);
    CHECK(e.traffic_out == 416);
  }
}

TEST_CASE("fusion: a ReLU after a product saves a 1-bit mask at accelerator, its output at pointwise") {
  // x[64] -> fc1 dense(64) -> r relu -> fc2 dense(8): r's output is fc2's input (written
  // anyway); its backward needs only its sign.
  const auto n = net(R"({"name":"x","kind":"input","shape":[64]},
    {"name":"fc1","kind":"dense","inputs":["x"],"units":64,"use_bias":false},
    {"name":"r","kind":"relu","inputs":["fc1"]},
    {"name":"fc2","kind":"dense","inputs":["r"],"units":8,"use_bias":false})");
  const Schedule pw = fused(n, "pointwise", "default", 2);
  const Schedule acc = fused(n, "accelerator", "default", 2);
  CHECK(names(n, pw) == std::vector<std::string>{"F:fc1", "F:r", "F:fc2", "loss:fc2", "B:fc2", "B:r", "B:fc1"});
  CHECK(names(n, acc) == std::vector<std::string>{"F:fc1+r", "F:fc2", "loss:fc2", "B:fc2", "B:fc1+r"});
  // The mask: N x ceil(64 / 8) = 16 bytes, written by the forward step, read by the backward one.
  CHECK(accesses(acc, 0) == "r:Y:x r:W:fc1 w:Y:r w:M:r");
  CHECK(accesses(acc, 4) == "r:dY:r r:M:r r:Y:x w:dW:fc1");
  for (const Tensor& t : acc.tensors)
    if (t.name == "M:r") {
      CHECK(t.mask);
      CHECK(t.bytes == 16);
    }
  CHECK(acc.step_intermediate_bytes[0] == 2 * 64 * 4);  // Y:fc1
  CHECK(acc.step_intermediate_bytes[4] == 2 * 64 * 4);  // dY:fc1
  const auto [r0, w0] = streamed(fused(n, "none", "default", 2));
  const auto [r1, w1] = streamed(acc);
  CHECK(r1 + w1 < r0 + w0);
  CHECK(r0 - r1 == 3 * 512 - 16);  // Y:fc1 and dY:fc1 never read; Y:r read as a 16-byte mask
}

TEST_CASE("fusion: a dropout's backward reads its mask at both levels") {
  const auto n = net(R"({"name":"x","kind":"input","shape":[16]},
    {"name":"fc","kind":"dense","inputs":["x"],"units":16,"use_bias":false},
    {"name":"d","kind":"dropout","inputs":["fc"]},
    {"name":"g","kind":"gelu","inputs":["d"]},
    {"name":"o","kind":"dense","inputs":["g"],"units":4,"use_bias":false})");
  const Schedule pw = fused(n, "pointwise");
  CHECK(names(n, pw) == std::vector<std::string>{"F:fc", "F:d+g", "F:o", "loss:o", "B:o", "B:d+g", "B:fc"});
  // gelu reads X = the dropout's output, kept on chip by its forward step and not recomputable
  // (a random draw): saved. The dropout reads its mask.
  CHECK(accesses(pw, 1) == "r:Y:fc w:Y:d w:M:d w:Y:g");
  CHECK(accesses(pw, 5) == "r:dY:g r:Y:d r:M:d w:dY:fc");
}

TEST_CASE("fusion: a residual add merges the two batch norms' groups; one product per step") {
  // The first block of a ResNet stage: two convolutions, each with its batch norm, added.
  const auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"c0","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[1,1],"use_bias":false},
    {"name":"b0","kind":"batchnorm","inputs":["c0"]},
    {"name":"c1","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[1,1],"use_bias":false},
    {"name":"b1","kind":"batchnorm","inputs":["c1"]},
    {"name":"add","kind":"add","inputs":["b0","b1"]},
    {"name":"r","kind":"relu","inputs":["add"]})");
  const Schedule pw = fused(n, "pointwise");
  const auto f = [&](const Schedule& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.steps.size(); ++i)
      if (s.steps[i].phase == Phase::Forward) out.push_back(name(n, s, i));
    return out;
  };
  CHECK(f(pw) == std::vector<std::string>{"F:c0", "F:c1", "F:b0+b1+add+r"});
  const Schedule acc = fused(n, "accelerator");
  CHECK(f(acc) == f(pw));
  // Backward at accelerator: the add joins the first product's group, the second stays apart.
  std::vector<std::string> b;
  for (std::size_t i = 0; i < acc.steps.size(); ++i)
    if (acc.steps[i].phase == Phase::Backward) b.push_back(name(n, acc, i));
  CHECK(b == std::vector<std::string>{"B:c0+b0+add+r", "B:c1+b1"});
}

TEST_CASE("fusion: a group runs as one step only where no outside reader comes before it") {
  // b's output is read by r (joins) and by an outside conv that runs before the add.
  const auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":[1,1],"use_bias":false},
    {"name":"b","kind":"batchnorm","inputs":["c"]},
    {"name":"side","kind":"conv2d","inputs":["b"],"filters":2,"kernel_size":[1,1],"use_bias":false},
    {"name":"add","kind":"add","inputs":["b","side"]})");
  const Schedule pw = fused(n, "pointwise");
  CHECK(names(n, pw)[1] == "F:b");
  CHECK(names(n, pw)[3] == "F:add");
}

TEST_CASE("fusion: every scheduler takes the option") {
  const auto n = net(kFusedChain);
  const Schedule inf = fused(n, "pointwise", "inference");
  CHECK(names(n, inf) == std::vector<std::string>{"F:conv", "F:bn+relu+add+out"});
  CHECK(accesses(inf, 1) == "r:Y:conv r:W:bn r:S:bn r:Y:x w:Y:out");
  const Schedule split = fused(n, "accelerator", "split-backward");
  CHECK(split.total_ops() == 992);
  const Schedule mbs = fused(n, "accelerator", "mbs", 4);
  CHECK(mbs.fusion == "accelerator");
  CHECK(mbs.total_ops() == 4 * 992);
  CHECK(mbs.step_layer_begin.size() == mbs.steps.size() + 1);
  ScheduleOptions o;
  o.scheduler = "split-backward";
  o.scheduler_options = {{"fusion", std::string("accelerator")}, {"order", std::string("alg1")}};
  CHECK_THROWS_WITH(build_schedule(n, o), Catch::Matchers::Contains("cannot be combined"));
  o.scheduler_options = {{"fusion", std::string("pointwise")}, {"order", std::string("alg1")}};
  CHECK(build_schedule(n, o).tile_model.order == "alg1");
  // Inference: a batch norm with running statistics is point-wise, no cut.
  const Schedule inf_acc = fused(n, "accelerator", "inference");
  CHECK(names(n, inf_acc) == std::vector<std::string>{"F:conv+bn+relu+add+out"});
  o.scheduler_options = {{"fusion", std::string("fused")}};
  CHECK_THROWS_WITH(build_schedule(n, o), Catch::Matchers::Contains("fusion"));
}
