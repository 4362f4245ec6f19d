// Layer -> GEMM (cpp/include/dnnmem/gemm.hpp): each mapping against the im2col arithmetic written
// next to it, and the invariant m*n*k*count = MACs * batch for every pass of every layer here
// (tests/python/test_gemm.py checks the same invariant on every layer of the 15 built-in networks).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "dnnmem/gemm.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

namespace {

using dnnmem::test::layer;

Gemm gemm(const Network& n, const std::string& name, GemmPass p, std::int64_t batch, int input = 0) {
  return layer_gemm(n, layer(n, name), p, batch, input);
}

// m*n*k*count = the layer's MACs of that pass, times the batch, for every pass and input.
void check_macs(const Network& n, std::int64_t batch) {
  for (const Layer& l : n.layers) {
    INFO("layer " << l.name);
    CHECK(gemm_macs(layer_gemm(n, l, GemmPass::Forward, batch)) == l.fwd.macs * batch);
    CHECK(gemm_macs(layer_gemm(n, l, GemmPass::BackwardWeight, batch)) == l.bwd_dw.macs * batch);
    const int inputs = std::max<int>(1, static_cast<int>(l.inputs.size()));
    for (int i = 0; i < inputs; ++i)
      CHECK(gemm_macs(layer_gemm(n, l, GemmPass::BackwardData, batch, i)) == l.bwd_dx.macs * batch);
  }
}

// The message of the std::invalid_argument f throws ("" if it throws nothing).
template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

using dnnmem::test::contains;

}  // namespace

TEST_CASE("conv2d lowers to im2col GEMMs", "[gemm]") {
  // [8, 8, 3] * 4 filters 3x3, valid: output [6, 6, 4]. Batch 2: rows = 2*6*6 = 72,
  // patch = 3*3*3 = 27. MACs per sample: 36 * 4 * 27 = 3888.
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3})");
  CHECK(gemm(n, "c", GemmPass::Forward, 2) == Gemm{72, 4, 27, 1});       // X_col . W
  CHECK(gemm(n, "c", GemmPass::BackwardData, 2) == Gemm{72, 27, 4, 1});  // dY . W^T
  CHECK(gemm(n, "c", GemmPass::BackwardWeight, 2) == Gemm{27, 4, 72, 1});  // X_col^T . dY
  CHECK(layer(n, "c").fwd.macs == 3888);
  CHECK(gemm_macs(gemm(n, "c", GemmPass::Forward, 2)) == 2 * 3888);
  check_macs(n, 2);
}

TEST_CASE("strided conv2d: rows are output pixels", "[gemm]") {
  // [9, 9, 2], 5 filters 3x3 stride 2 same: output ceil(9/2) = 5 -> [5, 5, 5]; batch 3:
  // rows = 3*25 = 75, patch = 18.
  auto n = net(R"({"name":"x","kind":"input","shape":[9,9,2]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":5,"kernel_size":3,"strides":2,"padding":"same"})");
  CHECK(gemm(n, "c", GemmPass::Forward, 3) == Gemm{75, 5, 18, 1});
  check_macs(n, 3);
}

TEST_CASE("grouped conv2d: one GEMM per group", "[gemm]") {
  // [6, 6, 8], 4 filters 3x3, 2 groups: output [4, 4, 4]; per group patch = 3*3*(8/2) = 36,
  // filters 4/2 = 2; batch 1: rows 16.
  auto n = net(R"({"name":"x","kind":"input","shape":[6,6,8]},
    {"name":"g","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"groups":2})");
  CHECK(gemm(n, "g", GemmPass::Forward, 1) == Gemm{16, 2, 36, 2});
  CHECK(gemm(n, "g", GemmPass::BackwardData, 1) == Gemm{16, 36, 2, 2});
  CHECK(gemm(n, "g", GemmPass::BackwardWeight, 1) == Gemm{36, 2, 16, 2});
  check_macs(n, 1);
}

TEST_CASE("depthwise conv2d: one skinny GEMM per input channel", "[gemm]") {
  // [5, 5, 3], 3x3, depth multiplier 2: output [3, 3, 6]. Batch 4: rows = 36; per channel
  // patch = 9 (one input channel), 2 filters; 3 channels.
  auto n = net(R"({"name":"x","kind":"input","shape":[5,5,3]},
    {"name":"d","kind":"depthwise_conv2d","inputs":["x"],"kernel_size":3,"depth_multiplier":2})");
  CHECK(gemm(n, "d", GemmPass::Forward, 4) == Gemm{36, 2, 9, 3});
  CHECK(gemm(n, "d", GemmPass::BackwardData, 4) == Gemm{36, 9, 2, 3});
  CHECK(gemm(n, "d", GemmPass::BackwardWeight, 4) == Gemm{9, 2, 36, 3});
  check_macs(n, 4);
}

TEST_CASE("dense: every leading dimension is a row", "[gemm]") {
  // [4, 6] (4 tokens of width 6) -> 3 units; batch 2: rows = 8.
  auto n = net(R"({"name":"x","kind":"input","shape":[4,6]},
    {"name":"d","kind":"dense","inputs":["x"],"units":3},
    {"name":"r","kind":"relu","inputs":["d"]},
    {"name":"f","kind":"flatten","inputs":["r"]},
    {"name":"o","kind":"dense","inputs":["f"],"units":5,"use_bias":false})");
  CHECK(gemm(n, "d", GemmPass::Forward, 2) == Gemm{8, 3, 6, 1});
  CHECK(gemm(n, "d", GemmPass::BackwardData, 2) == Gemm{8, 6, 3, 1});
  CHECK(gemm(n, "d", GemmPass::BackwardWeight, 2) == Gemm{6, 3, 8, 1});
  // After flatten [12]: one row per sample.
  CHECK(gemm(n, "o", GemmPass::Forward, 2) == Gemm{2, 5, 12, 1});
  // Not GEMMs: the input, an element-wise layer, a folded layer.
  for (const char* name : {"x", "r", "f"})
    for (GemmPass p : {GemmPass::Forward, GemmPass::BackwardData, GemmPass::BackwardWeight})
      CHECK(gemm(n, name, p, 2) == Gemm{});
  check_macs(n, 2);
}

TEST_CASE("matmul: transposes pick the gradient's layout, no dW", "[gemm]") {
  // A [3, 4] . B [4, 5]: m = 3, k = 4, n = 5; batch 2 -> count 2.
  auto n = net(R"({"name":"a","kind":"input","shape":[3,4]},
    {"name":"b","kind":"input","shape":[4,5]},
    {"name":"at","kind":"input","shape":[4,3]},
    {"name":"bt","kind":"input","shape":[5,4]},
    {"name":"p","kind":"matmul","inputs":["a","b"]},
    {"name":"q","kind":"matmul","inputs":["at","bt"],"transpose_a":true,"transpose_b":true})");
  CHECK(gemm(n, "p", GemmPass::Forward, 2) == Gemm{3, 5, 4, 2});
  CHECK(gemm(n, "p", GemmPass::BackwardData, 2, 0) == Gemm{3, 4, 5, 2});  // dA = dC . B^T
  CHECK(gemm(n, "p", GemmPass::BackwardData, 2, 1) == Gemm{4, 5, 3, 2});  // dB = A^T . dC
  CHECK(gemm(n, "p", GemmPass::BackwardWeight, 2) == Gemm{});
  // Stored A^T [4, 3] and B^T [5, 4]: the same product, gradients in the stored layouts.
  CHECK(gemm(n, "q", GemmPass::Forward, 2) == Gemm{3, 5, 4, 2});
  CHECK(gemm(n, "q", GemmPass::BackwardData, 2, 0) == Gemm{4, 3, 5, 2});  // dA^T = B . dC^T
  CHECK(gemm(n, "q", GemmPass::BackwardData, 2, 1) == Gemm{5, 4, 3, 2});  // dB^T = dC^T . A
  check_macs(n, 2);
}

TEST_CASE("matmul with heads and broadcasting: count = batch * leading dims", "[gemm]") {
  // T = 6, d = 8, 2 heads: scores = q_h . k_h^T per head: m = 6, k = 4, n = 6, count 2*batch.
  auto n = net(R"({"name":"q","kind":"input","shape":[6,8]},
    {"name":"k","kind":"input","shape":[6,8]},
    {"name":"v","kind":"input","shape":[6,8]},
    {"name":"s","kind":"matmul","inputs":["q","k"],"heads":2,"transpose_b":true},
    {"name":"sm","kind":"softmax","inputs":["s"]},
    {"name":"ctx","kind":"matmul","inputs":["sm","v"],"heads":2,"merge_heads":true},
    {"name":"a","kind":"input","shape":[2,1,3,4]},
    {"name":"b","kind":"input","shape":[5,4,6]},
    {"name":"bc","kind":"matmul","inputs":["a","b"]})");
  CHECK(gemm(n, "s", GemmPass::Forward, 3) == Gemm{6, 6, 4, 6});
  // ctx = sm [2, 6, 6] . v_h [2, 6, 4]: m = 6, k = 6, n = 4 (merge_heads reshapes the output only).
  CHECK(gemm(n, "ctx", GemmPass::Forward, 3) == Gemm{6, 4, 6, 6});
  // [2, 1] and [5] broadcast to [2, 5]: 10 products of 3x4 . 4x6 per sample.
  CHECK(gemm(n, "bc", GemmPass::Forward, 1) == Gemm{3, 6, 4, 10});
  check_macs(n, 3);
}

TEST_CASE("an lstm cell is dense layers after loading", "[gemm]") {
  auto n = net(R"({"name":"x","kind":"input","shape":[5]},
    {"name":"l","kind":"lstm_cell","inputs":["x"],"units":3})");
  int dense = 0;
  for (const Layer& l : n.layers)
    if (l.kind == Kind::Dense) {
      ++dense;
      CHECK(layer_gemm(n, l, GemmPass::Forward, 7).count == 1);
      CHECK(layer_gemm(n, l, GemmPass::Forward, 7).m == 7);
    }
  CHECK(dense > 0);
  check_macs(n, 7);
}

TEST_CASE("layer_gemm rejects a bad batch, a bad input index, and overflow", "[gemm]") {
  auto n = net(R"({"name":"a","kind":"input","shape":[3,4]},
    {"name":"b","kind":"input","shape":[4,5]},
    {"name":"p","kind":"matmul","inputs":["a","b"]},
    {"name":"d","kind":"dense","inputs":["p"],"units":2})");
  CHECK_THROWS_AS(gemm(n, "p", GemmPass::Forward, 0), std::invalid_argument);
  const std::string bad_input = message_of([&] { gemm(n, "p", GemmPass::BackwardData, 1, 2); });
  CHECK(contains(bad_input, "layer 'p'"));
  CHECK(contains(bad_input, "input 2"));
  CHECK_THROWS_AS(gemm(n, "d", GemmPass::BackwardData, 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(gemm(n, "d", GemmPass::BackwardData, 1, -1), std::invalid_argument);
  // rows = 2^62 * 3 overflows.
  const std::string rows = message_of([&] { gemm(n, "d", GemmPass::Forward, std::int64_t{1} << 62); });
  CHECK(contains(rows, "layer 'd'"));
  CHECK(contains(rows, "GEMM rows"));
  CHECK(contains(rows, "overflows"));
  const std::string macs =
      message_of([] { gemm_macs(Gemm{std::int64_t{1} << 32, std::int64_t{1} << 32, 1, 1}); });
  CHECK(contains(macs, "MACs"));
  CHECK(contains(macs, "overflows"));
}

TEST_CASE("gemm pass names", "[gemm]") {
  for (GemmPass p : {GemmPass::Forward, GemmPass::BackwardData, GemmPass::BackwardWeight})
    CHECK(gemm_pass_from_name(gemm_pass_name(p)) == p);
  CHECK(gemm_pass_from_name("dx") == GemmPass::BackwardData);
  CHECK(!gemm_pass_from_name("backward"));
}
