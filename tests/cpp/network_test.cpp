// Shape, weight and operation-count inference per kind (SPEC §2, docs/network-format.md), each
// against hand arithmetic written next to the check. Counts are per sample; MACs are kept apart
// from plain FLOPs (OpCount), so "fwd.macs == 3888" means 2·3888 FLOPs at ops_per_mac 2.
#include <string>
#include <vector>

#include "catch.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

namespace {

using dnnmem::test::layer;

int index_of(const Network& n, const std::string& name) {
  const int i = n.find(name);
  INFO("layer " << name);
  REQUIRE(i >= 0);
  return i;
}

// Elements of the trainable weight tensor W a layer reads, 0 when it has none.
std::int64_t weight_elements(const Network& n, const std::string& name) {
  const Layer& l = layer(n, name);
  if (l.weight < 0) return 0;
  return n.weights[static_cast<std::size_t>(l.weight)].elements;
}

const WeightTensor& weight_of(const Network& n, const std::string& name) {
  const Layer& l = layer(n, name);
  REQUIRE(l.weight >= 0);
  return n.weights[static_cast<std::size_t>(l.weight)];
}

std::vector<std::string> names(const Network& n, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int i : idx) out.push_back(n.layers[static_cast<std::size_t>(i)].name);
  return out;
}

}  // namespace

TEST_CASE("smoke") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
               {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"padding":"same"})");
  REQUIRE(n.layers.size() == 2);
  CHECK(n.layers[1].shape == Shape{8, 8, 4});
}

// ---- conv2d ------------------------------------------------------------------------------------

TEST_CASE("conv2d with valid padding: shape, weights and MACs") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3})");
  const Layer& c = layer(n, "c");
  // valid: out = (8 - 3) / 1 + 1 = 6 → [6, 6, 4], 144 elements.
  CHECK(c.shape == Shape{6, 6, 4});
  CHECK(c.elements == 144);
  // W = kh·kw·C·filters + filters = 3·3·3·4 + 4 = 112.
  CHECK(weight_elements(n, "c") == 112);
  // MACs = outputs · kh·kw·C = 144 · 27 = 3888; dX and dW cost the same (SPEC: "= fwd").
  CHECK(c.fwd.macs == 3888);
  CHECK(c.fwd.flops == 0);
  CHECK(c.fwd.total() == 7776);   // ops_per_mac 2
  CHECK(c.fwd.total(1) == 3888);  // ops_per_mac 1
  CHECK(c.bwd_dx.macs == 3888);
  CHECK(c.bwd_dw.macs == 3888);
  CHECK(c.forward_of == -1);
  CHECK(kind_info(c.kind).layer_class == LayerClass::I);
}

TEST_CASE("conv2d with same padding and stride 2 on odd sizes rounds up (Keras)") {
  auto n = net(R"({"name":"x","kind":"input","shape":[7,5,2]},
    {"name":"s2","kind":"conv2d","inputs":["x"],"filters":3,"kernel_size":3,"strides":2,"padding":"same"},
    {"name":"s3","kind":"conv2d","inputs":["x"],"filters":3,"kernel_size":3,"strides":3,"padding":"same"},
    {"name":"rect","kind":"conv2d","inputs":["x"],"filters":3,"kernel_size":[3,1],"strides":[2,1]})");
  const Layer& s2 = layer(n, "s2");
  // same: out = ceil(in / stride): ceil(7/2) = 4, ceil(5/2) = 3 → [4, 3, 3], 36 elements.
  CHECK(s2.shape == Shape{4, 3, 3});
  // MACs = 36 · (3·3·2) = 648; W = 18·3 + 3 = 57.
  CHECK(s2.fwd.macs == 648);
  CHECK(weight_elements(n, "s2") == 57);
  // ceil(7/3) = 3, ceil(5/3) = 2.
  CHECK(layer(n, "s3").shape == Shape{3, 2, 3});
  // valid, kernel [3, 1], strides [2, 1]: rows (7-3)/2+1 = 3, cols (5-1)/1+1 = 5.
  const Layer& rect = layer(n, "rect");
  CHECK(rect.shape == Shape{3, 5, 3});
  // MACs = 45 · (3·1·2) = 270; W = 3·1·2·3 + 3 = 21.
  CHECK(rect.fwd.macs == 270);
  CHECK(weight_elements(n, "rect") == 21);
}

TEST_CASE("conv2d with explicit padding: an int, rows and cols, or top, bottom, left, right") {
  auto n = net(R"({"name":"x","kind":"input","shape":[5,5,1]},
    {"name":"p1","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"padding":1},
    {"name":"p2","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"padding":[1,2]},
    {"name":"p3","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":3,"strides":2,
     "padding":[[0,1],[2,3]]})");
  // padding 1 on every side: (5+1+1-3)/1+1 = 5.
  CHECK(layer(n, "p1").shape == Shape{5, 5, 2});
  // MACs = 50 · 9 = 450; padding changes no weight: W = 3·3·1·2 + 2 = 20.
  CHECK(layer(n, "p1").fwd.macs == 450);
  CHECK(weight_elements(n, "p1") == 20);
  // [1, 2]: rows (5+2-3)+1 = 5, cols (5+4-3)+1 = 7.
  CHECK(layer(n, "p2").shape == Shape{5, 7, 2});
  // rows: 5+0+1 = 6 → (6-3)/2+1 = 2; cols: 5+2+3 = 10 → (10-3)/2+1 = 4 (floor 3.5 = 3).
  CHECK(layer(n, "p3").shape == Shape{2, 4, 2});
  CHECK(layer(n, "p3").fwd.macs == 16 * 9);
}

TEST_CASE("conv2d with dilation widens the window but not the MACs") {
  auto n = net(R"({"name":"x","kind":"input","shape":[10,10,1]},
    {"name":"d2","kind":"conv2d","inputs":["x"],"filters":1,"kernel_size":3,"dilation":2},
    {"name":"d13","kind":"conv2d","inputs":["x"],"filters":1,"kernel_size":3,"dilation":[1,3]},
    {"name":"same","kind":"conv2d","inputs":["x"],"filters":1,"kernel_size":3,"dilation":2,"padding":"same"})");
  // span = 2·(3-1)+1 = 5 → 10-5+1 = 6.
  const Layer& d2 = layer(n, "d2");
  CHECK(d2.shape == Shape{6, 6, 1});
  // 36 outputs · 9 taps (dilation only spreads them) = 324; W = 9 + 1 = 10.
  CHECK(d2.fwd.macs == 324);
  CHECK(weight_elements(n, "d2") == 10);
  // rows span 3 → 8; cols span 3·2+1 = 7 → 4.
  CHECK(layer(n, "d13").shape == Shape{8, 4, 1});
  CHECK(layer(n, "same").shape == Shape{10, 10, 1});
}

TEST_CASE("conv2d with groups divides the input channels per filter") {
  auto n = net(R"({"name":"x","kind":"input","shape":[6,6,8]},
    {"name":"g2","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"groups":2},
    {"name":"g8","kind":"conv2d","inputs":["x"],"filters":8,"kernel_size":3,"groups":8})");
  const Layer& g2 = layer(n, "g2");
  CHECK(g2.shape == Shape{4, 4, 4});
  // per output: 3·3·(8/2) = 36 MACs; 64 outputs → 2304; W = 36·4 + 4 = 148.
  CHECK(g2.fwd.macs == 2304);
  CHECK(weight_elements(n, "g2") == 148);
  // groups = channels: 3·3·1 per output, 4·4·8 = 128 outputs → 1152; W = 9·8 + 8 = 80.
  CHECK(layer(n, "g8").fwd.macs == 1152);
  CHECK(weight_elements(n, "g8") == 80);
}

TEST_CASE("conv2d and dense without bias drop the bias from W only") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"use_bias":false},
    {"name":"f","kind":"flatten","inputs":["c"]},
    {"name":"d","kind":"dense","inputs":["f"],"units":2,"use_bias":false})");
  // W = 3·3·3·4 = 108 (no + 4); MACs unchanged: 144 · 27 = 3888.
  CHECK(weight_elements(n, "c") == 108);
  CHECK(layer(n, "c").fwd.macs == 3888);
  // dense on 144 features: W = 144·2 = 288; MACs = 2·144 = 288.
  CHECK(weight_elements(n, "d") == 288);
  CHECK(layer(n, "d").fwd.macs == 288);
}

// ---- depthwise conv2d, dense, matmul -----------------------------------------------------------

TEST_CASE("depthwise_conv2d with a depth multiplier") {
  auto n = net(R"({"name":"x","kind":"input","shape":[6,6,4]},
    {"name":"dw","kind":"depthwise_conv2d","inputs":["x"],"kernel_size":3,"depth_multiplier":2},
    {"name":"y","kind":"input","shape":[7,7,4]},
    {"name":"dws","kind":"depthwise_conv2d","inputs":["y"],"kernel_size":3,"strides":2,"padding":"same"})");
  const Layer& dw = layer(n, "dw");
  // valid 6-3+1 = 4; channels C·m = 4·2 = 8.
  CHECK(dw.shape == Shape{4, 4, 8});
  // W = kh·kw·C·m + C·m = 9·8 + 8 = 80; MACs = 128 outputs · 9 taps = 1152.
  CHECK(weight_elements(n, "dw") == 80);
  CHECK(dw.fwd.macs == 1152);
  CHECK(dw.bwd_dx.macs == 1152);
  CHECK(dw.bwd_dw.macs == 1152);
  // same, stride 2: ceil(7/2) = 4 → [4, 4, 4]; MACs = 64 · 9 = 576; W = 36 + 4 = 40.
  const Layer& dws = layer(n, "dws");
  CHECK(dws.shape == Shape{4, 4, 4});
  CHECK(dws.fwd.macs == 576);
  CHECK(weight_elements(n, "dws") == 40);
}

TEST_CASE("dense on a rank-1 input") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"d","kind":"dense","inputs":["x"],"units":3})");
  const Layer& d = layer(n, "d");
  CHECK(d.shape == Shape{3});
  // W = 4·3 + 3 = 15; MACs = 3 · 4 = 12 → 24 FLOPs; dX and dW the same.
  CHECK(weight_elements(n, "d") == 15);
  CHECK(d.fwd.macs == 12);
  CHECK(d.fwd.total() == 24);
  CHECK(d.bwd_dx.macs == 12);
  CHECK(d.bwd_dw.macs == 12);
}

TEST_CASE("dense on a T by d input maps the last dimension only") {
  auto n = net(R"({"name":"x","kind":"input","shape":[5,4]},
    {"name":"d","kind":"dense","inputs":["x"],"units":3},
    {"name":"x3","kind":"input","shape":[2,5,4]},
    {"name":"d3","kind":"dense","inputs":["x3"],"units":3})");
  const Layer& d = layer(n, "d");
  CHECK(d.shape == Shape{5, 3});
  // W does not depend on T: 4·3 + 3 = 15; MACs = (5·3 outputs) · 4 = 60.
  CHECK(weight_elements(n, "d") == 15);
  CHECK(d.fwd.macs == 60);
  // [2, 5, 4] → [2, 5, 3]; MACs = 30 · 4 = 120.
  CHECK(layer(n, "d3").shape == Shape{2, 5, 3});
  CHECK(layer(n, "d3").fwd.macs == 120);
}

TEST_CASE("matmul of two activations: plain and transposed") {
  auto n = net(R"({"name":"a","kind":"input","shape":[3,4]},
    {"name":"b","kind":"input","shape":[4,5]},
    {"name":"bt","kind":"input","shape":[5,4]},
    {"name":"at","kind":"input","shape":[4,3]},
    {"name":"m","kind":"matmul","inputs":["a","b"]},
    {"name":"mtb","kind":"matmul","inputs":["a","bt"],"transpose_b":true},
    {"name":"mta","kind":"matmul","inputs":["at","b"],"transpose_a":true},
    {"name":"mtt","kind":"matmul","inputs":["at","bt"],"transpose_a":true,"transpose_b":true})");
  const Layer& m = layer(n, "m");
  // [3,4] @ [4,5] → [3,5]; MACs = 15 · 4 = 60.
  CHECK(m.shape == Shape{3, 5});
  CHECK(m.fwd.macs == 60);
  // No weights: dX costs the forward MACs for each input, no dW.
  CHECK(m.weight == -1);
  CHECK(m.bwd_dx.macs == 60);
  CHECK(m.bwd_dw.total() == 0);
  CHECK(kind_info(m.kind).backward_reads == BackwardReads::AllInputs);
  // [3,4] @ [5,4]^T, [4,3]^T @ [4,5], [4,3]^T @ [5,4]^T: all [3,5], 60 MACs.
  for (const char* name : {"mtb", "mta", "mtt"}) {
    INFO(name);
    CHECK(layer(n, name).shape == Shape{3, 5});
    CHECK(layer(n, name).fwd.macs == 60);
  }
}

TEST_CASE("matmul with heads as in attention: scores, then merge_heads") {
  // T = 6, d = 8, h = 2 heads of width 4.
  auto n = net(R"({"name":"q","kind":"input","shape":[6,8]},
    {"name":"k","kind":"input","shape":[6,8]},
    {"name":"v","kind":"input","shape":[6,8]},
    {"name":"scores","kind":"matmul","inputs":["q","k"],"heads":2,"transpose_b":true},
    {"name":"sm","kind":"softmax","inputs":["scores"]},
    {"name":"ctx","kind":"matmul","inputs":["sm","v"],"heads":2,"merge_heads":true})");
  const Layer& s = layer(n, "scores");
  // q → [2, 6, 4], k → [2, 6, 4]ᵀ = [2, 4, 6]; out [h, T, T] = [2, 6, 6].
  CHECK(s.shape == Shape{2, 6, 6});
  // MACs = h·T·T·(d/h) = 2·6·6·4 = 288 = T·T·d = 6·6·8.
  CHECK(s.fwd.macs == 288);
  const Layer& ctx = layer(n, "ctx");
  // sm [2, 6, 6] (rank 3: not split) @ v → [2, 6, 4] = [2, 6, 4] → merged [T, d] = [6, 8].
  CHECK(ctx.shape == Shape{6, 8});
  CHECK(ctx.elements == 48);
  // MACs = 2·6·4 outputs · 6 = 288 = T·T·d.
  CHECK(ctx.fwd.macs == 288);
}

TEST_CASE("matmul broadcasts batch dimensions as numpy.matmul") {
  auto n = net(R"({"name":"a","kind":"input","shape":[2,1,3,4]},
    {"name":"b","kind":"input","shape":[5,4,6]},
    {"name":"a3","kind":"input","shape":[2,3,4]},
    {"name":"w","kind":"input","shape":[4,5]},
    {"name":"m","kind":"matmul","inputs":["a","b"]},
    {"name":"m2","kind":"matmul","inputs":["a3","w"]})");
  // batch [2, 1] with [5] → [2, 5]; out [2, 5, 3, 6] = 180 elements; MACs = 180 · 4 = 720.
  CHECK(layer(n, "m").shape == Shape{2, 5, 3, 6});
  CHECK(layer(n, "m").fwd.macs == 720);
  // [2, 3, 4] @ [4, 5] → [2, 3, 5]; MACs = 30 · 4 = 120.
  CHECK(layer(n, "m2").shape == Shape{2, 3, 5});
  CHECK(layer(n, "m2").fwd.macs == 120);
}

// ---- normalisation and point-wise kinds --------------------------------------------------------

TEST_CASE("batchnorm: W = 2C trainable, S = 2C moving statistics, FLOPs 5 / 7 / 2") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,3]},
    {"name":"bn","kind":"batchnorm","inputs":["x"]})");
  const Layer& bn = layer(n, "bn");
  CHECK(bn.shape == Shape{4, 4, 3});
  // γ and β: 2·3 = 6; moving mean and variance: 2·3 = 6.
  CHECK(weight_elements(n, "bn") == 6);
  CHECK(bn.state_elements == 6);
  CHECK(n.trainable_parameters() == 6);
  CHECK(n.parameters() == 12);
  // 48 elements: fwd 5·48 = 240, dX 7·48 = 336, dW 2·48 = 96; no MACs.
  CHECK(bn.fwd.flops == 240);
  CHECK(bn.bwd_dx.flops == 336);
  CHECK(bn.bwd_dw.flops == 96);
  CHECK(bn.fwd.macs == 0);
  CHECK(kind_info(bn.kind).backward_reads == BackwardReads::XAndScale);
}

TEST_CASE("batchnorm without center or scale") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,3]},
    {"name":"nc","kind":"batchnorm","inputs":["x"],"center":false},
    {"name":"none","kind":"batchnorm","inputs":["x"],"center":false,"scale":false})");
  // γ only: 3.
  CHECK(weight_elements(n, "nc") == 3);
  // Neither: no W, no dW, but S = 2C still.
  const Layer& nn = layer(n, "none");
  CHECK(nn.weight == -1);
  CHECK(nn.bwd_dw.total() == 0);
  CHECK(nn.state_elements == 6);
  // trainable 3; all 3 + 6 + 6 = 15.
  CHECK(n.trainable_parameters() == 3);
  CHECK(n.parameters() == 15);
}

TEST_CASE("layernorm: W = 2 x last dimension, no state") {
  auto n = net(R"({"name":"x","kind":"input","shape":[5,8]},
    {"name":"ln","kind":"layernorm","inputs":["x"]})");
  const Layer& ln = layer(n, "ln");
  CHECK(ln.shape == Shape{5, 8});
  CHECK(weight_elements(n, "ln") == 16);
  CHECK(ln.state_elements == 0);
  // 40 elements: 5·40 = 200, 7·40 = 280, 2·40 = 80.
  CHECK(ln.fwd.flops == 200);
  CHECK(ln.bwd_dx.flops == 280);
  CHECK(ln.bwd_dw.flops == 80);
}

TEST_CASE("point-wise activations and dropout: per-element constants") {
  auto n = net(R"({"name":"x","kind":"input","shape":[2,3]},
    {"name":"relu","kind":"relu","inputs":["x"]},
    {"name":"relu6","kind":"relu6","inputs":["x"]},
    {"name":"gelu","kind":"gelu","inputs":["x"]},
    {"name":"sigmoid","kind":"sigmoid","inputs":["x"]},
    {"name":"tanh","kind":"tanh","inputs":["x"]},
    {"name":"softmax","kind":"softmax","inputs":["x"]},
    {"name":"dropout","kind":"dropout","inputs":["x"],"rate":0.1})");
  struct Row {
    const char* name;
    std::int64_t fwd, dx;
  };
  // 6 elements each: relu-likes 1 / 1, gelu 8 / 8, softmax 5 / 4, dropout 2 / 1.
  const Row rows[] = {{"relu", 6, 6},     {"relu6", 6, 6},    {"gelu", 48, 48},  {"sigmoid", 6, 6},
                      {"tanh", 6, 6},     {"softmax", 30, 24}, {"dropout", 12, 6}};
  for (const auto& r : rows) {
    INFO(r.name);
    const Layer& l = layer(n, r.name);
    CHECK(l.shape == Shape{2, 3});
    CHECK(l.elements == 6);
    CHECK(l.fwd.flops == r.fwd);
    CHECK(l.fwd.macs == 0);
    CHECK(l.bwd_dx.flops == r.dx);
    CHECK(l.bwd_dw.total() == 0);
    CHECK(l.weight == -1);
    CHECK(kind_info(l.kind).layer_class == LayerClass::II);
  }
  CHECK(n.parameters() == 0);
}

TEST_CASE("activations beyond SPEC's table: swish, hard swish / sigmoid, leaky relu, mish") {
  auto n = net(R"({"name":"x","kind":"input","shape":[2,3]},
    {"name":"swish","kind":"swish","inputs":["x"]},
    {"name":"hswish","kind":"hard_swish","inputs":["x"]},
    {"name":"hsig","kind":"hard_sigmoid","inputs":["x"]},
    {"name":"leaky","kind":"leaky_relu","inputs":["x"],"alpha":0.1},
    {"name":"mish","kind":"mish","inputs":["x"]},
    {"name":"scale","kind":"rescaling","inputs":["x"],"scale":0.5,"offset":-1})");
  struct Row {
    const char* name;
    std::int64_t fwd, dx;
    BackwardReads reads;
  };
  // 6 elements each: swish 2 / 3, hard swish 3 / 2, hard sigmoid 2 / 1, leaky 1 / 1, mish 4 / 6,
  // rescaling 2 / 1 (kinds.cpp gives the reason for each constant).
  const Row rows[] = {{"swish", 12, 18, BackwardReads::X},   {"hswish", 18, 12, BackwardReads::X},
                      {"hsig", 12, 6, BackwardReads::X},     {"leaky", 6, 6, BackwardReads::Y},
                      {"mish", 24, 36, BackwardReads::X},    {"scale", 12, 6, BackwardReads::Nothing}};
  for (const auto& r : rows) {
    INFO(r.name);
    const Layer& l = layer(n, r.name);
    CHECK(l.shape == Shape{2, 3});
    CHECK(l.fwd.flops == r.fwd);
    CHECK(l.bwd_dx.flops == r.dx);
    CHECK(l.weight == -1);
    CHECK(kind_info(l.kind).backward_reads == r.reads);
    CHECK(kind_info(l.kind).layer_class == LayerClass::II);
  }
  CHECK(n.parameters() == 0);
}

TEST_CASE("normalization keeps mean, variance and a count as state: 2C + 1") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,3]},
    {"name":"norm","kind":"normalization","inputs":["x"]})");
  const Layer& l = layer(n, "norm");
  CHECK(l.state_elements == 7);  // Keras EfficientNet's Normalization: 3 + 3 + 1
  CHECK(l.weight == -1);
  CHECK(l.fwd.flops == 2 * 48);
  CHECK(n.parameters() == 7);
  CHECK(n.trainable_parameters() == 0);
}

TEST_CASE("upsample: nearest copy, size per dimension, dX one add per output") {
  auto n = net(R"({"name":"x","kind":"input","shape":[3,5,2]},
    {"name":"up","kind":"upsample","inputs":["x"]},
    {"name":"up23","kind":"upsample","inputs":["x"],"size":[2,3]})");
  CHECK(layer(n, "up").shape == Shape{6, 10, 2});
  CHECK(layer(n, "up").fwd.total() == 0);
  CHECK(layer(n, "up").bwd_dx.flops == 120);
  CHECK(layer(n, "up23").shape == Shape{6, 15, 2});
}

TEST_CASE("class token and position embedding: learned rows of a [T, d] sequence") {
  auto n = net(R"({"name":"x","kind":"input","shape":[196,8]},
    {"name":"cls","kind":"class_token","inputs":["x"]},
    {"name":"pos","kind":"position_embedding","inputs":["cls"]})");
  // ViT: one d-wide token prepended, then a learned [T+1, d] table added.
  CHECK(layer(n, "cls").shape == Shape{197, 8});
  CHECK(weight_elements(n, "cls") == 8);
  CHECK(layer(n, "cls").fwd.total() == 0);
  CHECK(layer(n, "pos").shape == Shape{197, 8});
  CHECK(weight_elements(n, "pos") == 197 * 8);
  CHECK(layer(n, "pos").fwd.flops == 197 * 8);
  CHECK(layer(n, "pos").bwd_dw.flops == 197 * 8);
  CHECK(layer(n, "pos").bwd_dx.total() == 0);
  CHECK(n.trainable_parameters() == 8 + 197 * 8);
}

TEST_CASE("opaque: an importer's placeholder with the shape the file gives, 0 FLOPs") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,8]},
    {"name":"y","kind":"input","shape":[2]},
    {"name":"op","kind":"opaque","inputs":["x","y"],"shape":[4,4,3],"meta":{"op_type":"Foo"}},
    {"name":"r","kind":"relu","inputs":["op"]})");
  const Layer& l = layer(n, "op");
  CHECK(l.shape == Shape{4, 4, 3});
  CHECK(l.elements == 48);
  CHECK(l.weight == -1);
  CHECK(l.fwd.total() == 0);
  CHECK(l.bwd_dx.total() == 0);
  CHECK(l.bwd_dw.total() == 0);
  CHECK(kind_info(Kind::Opaque).layer_class == LayerClass::II);
  CHECK(n.parameters() == 0);
  CHECK_THROWS_WITH(net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"op","kind":"opaque","inputs":["x"]})"),
                    Catch::Matchers::Contains("shape"));
}

// ---- joins -------------------------------------------------------------------------------------

TEST_CASE("add: one FLOP per input per output element, no backward FLOPs") {
  auto n = net(R"({"name":"x","kind":"input","shape":[2,3]},
    {"name":"a","kind":"relu","inputs":["x"]},
    {"name":"b","kind":"tanh","inputs":["x"]},
    {"name":"s2","kind":"add","inputs":["x","a"]},
    {"name":"s3","kind":"add","inputs":["x","a","b"]})");
  // 6 elements · 2 inputs = 12; · 3 inputs = 18.
  CHECK(layer(n, "s2").fwd.flops == 12);
  CHECK(layer(n, "s3").fwd.flops == 18);
  CHECK(layer(n, "s3").shape == Shape{2, 3});
  CHECK(layer(n, "s3").bwd_dx.total() == 0);
  CHECK(layer(n, "s3").bwd_dw.total() == 0);
}

TEST_CASE("multiply broadcasts like numpy (squeeze-excite)") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,8]},
    {"name":"se","kind":"input","shape":[1,1,8]},
    {"name":"v","kind":"input","shape":[8]},
    {"name":"m","kind":"multiply","inputs":["x","se"]},
    {"name":"mv","kind":"multiply","inputs":["v","x"]})");
  // [4,4,8] × [1,1,8] → [4,4,8], 128 elements: fwd 1·128, dX 1·128 per input.
  const Layer& m = layer(n, "m");
  CHECK(m.shape == Shape{4, 4, 8});
  CHECK(m.fwd.flops == 128);
  CHECK(m.bwd_dx.flops == 128);
  // [8] × [4,4,8]: the shorter shape is padded with leading 1s.
  CHECK(layer(n, "mv").shape == Shape{4, 4, 8});
}

TEST_CASE("concat along the last axis and along axis 0") {
  auto n = net(R"({"name":"a","kind":"input","shape":[4,4,3]},
    {"name":"b","kind":"input","shape":[4,4,5]},
    {"name":"p","kind":"input","shape":[2,3]},
    {"name":"q","kind":"input","shape":[4,3]},
    {"name":"r","kind":"input","shape":[1,3]},
    {"name":"c","kind":"concat","inputs":["a","b"]},
    {"name":"c0","kind":"concat","inputs":["p","q","r"],"axis":0},
    {"name":"cn","kind":"concat","inputs":["p","r"],"axis":-2})");
  // 3 + 5 = 8 channels; a copy: no FLOPs.
  CHECK(layer(n, "c").shape == Shape{4, 4, 8});
  CHECK(layer(n, "c").fwd.total() == 0);
  CHECK(layer(n, "c").bwd_dx.total() == 0);
  // 2 + 4 + 1 = 7 rows.
  CHECK(layer(n, "c0").shape == Shape{7, 3});
  // axis -2 of rank 2 = axis 0: 2 + 1 = 3.
  CHECK(layer(n, "cn").shape == Shape{3, 3});
}

// ---- pooling -----------------------------------------------------------------------------------

TEST_CASE("maxpool: k*k FLOPs per output, default strides = pool size") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,2]},
    {"name":"p2","kind":"maxpool","inputs":["x"]},
    {"name":"y","kind":"input","shape":[7,7,2]},
    {"name":"p3s","kind":"maxpool","inputs":["y"],"pool_size":3,"strides":2,"padding":"same"},
    {"name":"p3","kind":"maxpool","inputs":["y"],"pool_size":3},
    {"name":"z","kind":"input","shape":[5,5,1]},
    {"name":"p31","kind":"maxpool","inputs":["z"],"pool_size":3,"strides":1})");
  // pool 2, strides 2: 8/2 = 4 → [4,4,2], 32 outputs · 4 = 128 both ways.
  const Layer& p2 = layer(n, "p2");
  CHECK(p2.shape == Shape{4, 4, 2});
  CHECK(p2.fwd.flops == 128);
  CHECK(p2.bwd_dx.flops == 128);
  // same, stride 2: ceil(7/2) = 4 → 32 outputs · 9 = 288.
  CHECK(layer(n, "p3s").shape == Shape{4, 4, 2});
  CHECK(layer(n, "p3s").fwd.flops == 288);
  // pool 3, default strides 3, valid: (7-3)/3+1 = 2.
  CHECK(layer(n, "p3").shape == Shape{2, 2, 2});
  // pool 3, stride 1: 5-3+1 = 3 → 9 outputs · 9 = 81.
  CHECK(layer(n, "p31").shape == Shape{3, 3, 1});
  CHECK(layer(n, "p31").fwd.flops == 81);
  CHECK(kind_info(p2.kind).backward_reads == BackwardReads::X);
}

TEST_CASE("avgpool and global_avgpool: 1 per input element forward, 1 per output element dX") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,2]},
    {"name":"ap","kind":"avgpool","inputs":["x"],"pool_size":2},
    {"name":"y","kind":"input","shape":[4,4,3]},
    {"name":"gap","kind":"global_avgpool","inputs":["y"]},
    {"name":"gapk","kind":"global_avgpool","inputs":["y"],"keepdims":true})");
  const Layer& ap = layer(n, "ap");
  // [4,4,2]; fwd = 8·8·2 = 128 input elements; dX = 32 output elements.
  CHECK(ap.shape == Shape{4, 4, 2});
  CHECK(ap.fwd.flops == 128);
  CHECK(ap.bwd_dx.flops == 32);
  const Layer& gap = layer(n, "gap");
  // [4,4,3] → [3]; fwd = 48; dX = 3.
  CHECK(gap.shape == Shape{3});
  CHECK(gap.fwd.flops == 48);
  CHECK(gap.bwd_dx.flops == 3);
  CHECK(layer(n, "gapk").shape == Shape{1, 1, 3});
  CHECK(kind_info(gap.kind).backward_reads == BackwardReads::Nothing);
}

TEST_CASE("global_maxpool with keepdims") {
  auto n = net(R"({"name":"y","kind":"input","shape":[4,4,3]},
    {"name":"gmp","kind":"global_maxpool","inputs":["y"],"keepdims":true},
    {"name":"gm","kind":"global_maxpool","inputs":["y"]})");
  const Layer& g = layer(n, "gmp");
  CHECK(g.shape == Shape{1, 1, 3});
  // Counted like global average pool: 48 input elements forward, 3 output elements dX.
  CHECK(g.fwd.flops == 48);
  CHECK(g.bwd_dx.flops == 3);
  CHECK(layer(n, "gm").shape == Shape{3});
}

// ---- folded (re-indexing) kinds ----------------------------------------------------------------

TEST_CASE("zero_padding is folded: padded shape, no FLOPs, forward_of its input") {
  auto n = net(R"({"name":"x","kind":"input","shape":[5,5,2]},
    {"name":"z1","kind":"zero_padding","inputs":["x"],"padding":1},
    {"name":"z2","kind":"zero_padding","inputs":["x"],"padding":[1,2]},
    {"name":"z3","kind":"zero_padding","inputs":["x"],"padding":[[1,2],[3,4]]},
    {"name":"c","kind":"conv2d","inputs":["z1"],"filters":1,"kernel_size":3})");
  // 5+1+1 = 7; [1,2]: 7 × 9; [[1,2],[3,4]]: 5+3 = 8 × 5+7 = 12.
  CHECK(layer(n, "z1").shape == Shape{7, 7, 2});
  CHECK(layer(n, "z2").shape == Shape{7, 9, 2});
  CHECK(layer(n, "z3").shape == Shape{8, 12, 2});
  const Layer& z1 = layer(n, "z1");
  CHECK(z1.forward_of == index_of(n, "x"));
  CHECK(z1.fwd.total() == 0);
  CHECK(z1.bwd_dx.total() == 0);
  CHECK(z1.weight == -1);
  CHECK(kind_info(z1.kind).folded);
  // The consumer sees the padded shape: 7-3+1 = 5.
  CHECK(layer(n, "c").shape == Shape{5, 5, 1});
  CHECK(n.resolve(index_of(n, "z1")) == index_of(n, "x"));
}

TEST_CASE("reshape with -1, flatten and identity are folded") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,6]},
    {"name":"r1","kind":"reshape","inputs":["x"],"target_shape":[3,-1]},
    {"name":"r2","kind":"reshape","inputs":["x"],"target_shape":[2,-1,4]},
    {"name":"r3","kind":"reshape","inputs":["x"],"target_shape":[24]},
    {"name":"y","kind":"input","shape":[2,3,4]},
    {"name":"f","kind":"flatten","inputs":["y"]})");
  // 24 elements: [3, 24/3 = 8], [2, 24/8 = 3, 4], [24].
  CHECK(layer(n, "r1").shape == Shape{3, 8});
  CHECK(layer(n, "r2").shape == Shape{2, 3, 4});
  CHECK(layer(n, "r3").shape == Shape{24});
  CHECK(layer(n, "f").shape == Shape{24});
  for (const char* name : {"r1", "r2", "r3", "f"}) {
    INFO(name);
    const Layer& l = layer(n, name);
    CHECK(l.elements == 24);
    CHECK(l.forward_of >= 0);
    CHECK(l.fwd.total() == 0);
    CHECK(kind_info(l.kind).folded);
  }
  CHECK(layer(n, "r1").forward_of == index_of(n, "x"));
  CHECK(layer(n, "f").forward_of == index_of(n, "y"));
}

TEST_CASE("resolve walks a chain of folded layers back to the real tensor") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4,4,2]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":2,"kernel_size":1},
    {"name":"i","kind":"identity","inputs":["c"]},
    {"name":"f","kind":"flatten","inputs":["i"]},
    {"name":"r","kind":"relu","inputs":["f"]})");
  const int c = index_of(n, "c");
  CHECK(layer(n, "i").forward_of == c);
  CHECK(layer(n, "i").shape == Shape{4, 4, 2});
  CHECK(layer(n, "f").forward_of == index_of(n, "i"));
  CHECK(n.resolve(index_of(n, "f")) == c);
  CHECK(n.resolve(index_of(n, "i")) == c);
  CHECK(n.resolve(c) == c);
  CHECK(n.resolve(index_of(n, "x")) == index_of(n, "x"));
  // The file's edges are kept: r reads f (the schedule resolves them).
  CHECK(layer(n, "r").inputs == std::vector<int>{index_of(n, "f")});
  CHECK(layer(n, "r").shape == Shape{32});
}

// ---- embedding ---------------------------------------------------------------------------------

TEST_CASE("embedding: int32 ids, gathered rows, W = vocab x width") {
  auto n = net(R"({"name":"ids","kind":"input","shape":[5],"dtype":"int32"},
    {"name":"e","kind":"embedding","inputs":["ids"],"input_dim":100,"output_dim":8},
    {"name":"ids2","kind":"input","shape":[2,5],"dtype":"int64"},
    {"name":"e2","kind":"embedding","inputs":["ids2"],"input_dim":100,"output_dim":8})");
  CHECK(layer(n, "ids").dtype == DType::Int32);
  CHECK(layer(n, "ids2").dtype == DType::Int64);
  const Layer& e = layer(n, "e");
  // ids [5] → [5, 8]; 5 rows gathered per sample; W = 100·8 = 800.
  CHECK(e.shape == Shape{5, 8});
  CHECK(e.dtype == DType::Float);
  CHECK(e.gathered_rows == 5);
  CHECK(weight_elements(n, "e") == 800);
  // 40 gathered elements: fwd 2·40 = 80, no dX (ids have no gradient), dW 1·40 = 40.
  CHECK(e.fwd.flops == 80);
  CHECK(e.fwd.macs == 0);
  CHECK(e.bwd_dx.total() == 0);
  CHECK(e.bwd_dw.flops == 40);
  CHECK(kind_info(e.kind).backward_reads == BackwardReads::TokenIds);
  // ids [2, 5] → [2, 5, 8], 10 rows.
  CHECK(layer(n, "e2").shape == Shape{2, 5, 8});
  CHECK(layer(n, "e2").gathered_rows == 10);
}

TEST_CASE("a folded layer keeps the dtype of what it re-indexes") {
  auto n = net(R"({"name":"ids","kind":"input","shape":[2,5],"dtype":"int32"},
    {"name":"flat","kind":"flatten","inputs":["ids"]},
    {"name":"e","kind":"embedding","inputs":["flat"],"input_dim":10,"output_dim":4})");
  CHECK(layer(n, "flat").dtype == DType::Int32);
  CHECK(layer(n, "e").shape == Shape{10, 4});
  CHECK(layer(n, "e").gathered_rows == 10);
}

// ---- lstm_cell expansion -----------------------------------------------------------------------

TEST_CASE("lstm_cell on x alone expands to gates i, g, o (no forget gate without a cell state)") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"l","kind":"lstm_cell","inputs":["x"],"units":3})");
  std::vector<std::string> got;
  std::vector<Kind> kinds;
  for (const auto& lay : n.layers) {
    got.push_back(lay.name);
    kinds.push_back(lay.kind);
  }
  CHECK(got == std::vector<std::string>{"x", "l/i", "l/i_act", "l/g", "l/g_act", "l/o", "l/o_act",
                                        "l/c", "l/c_act", "l"});
  CHECK(kinds == std::vector<Kind>{Kind::Input, Kind::Dense, Kind::Sigmoid, Kind::Dense, Kind::Tanh,
                                   Kind::Dense, Kind::Sigmoid, Kind::Multiply, Kind::Tanh,
                                   Kind::Multiply});
  // Gate W = (d_in + 1)·units = (4 + 1)·3 = 15, three gates → 45.
  CHECK(weight_of(n, "l/i").name == "l/W_i");
  CHECK(weight_of(n, "l/i").elements == 15);
  CHECK(weight_of(n, "l/g").name == "l/W_g");
  CHECK(weight_of(n, "l/o").name == "l/W_o");
  CHECK(n.trainable_parameters() == 45);
  CHECK(layer(n, "l").shape == Shape{3});
  CHECK(layer(n, "l/c").shape == Shape{3});
  CHECK(names(n, n.outputs) == std::vector<std::string>{"l"});
}

TEST_CASE("lstm_cell on x and h concatenates x and h before the gates") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"h","kind":"input","shape":[3]},
    {"name":"l","kind":"lstm_cell","inputs":["x","h"],"units":3})");
  std::vector<std::string> got;
  for (const auto& lay : n.layers) got.push_back(lay.name);
  CHECK(got == std::vector<std::string>{"x", "h", "l/xh", "l/i", "l/i_act", "l/g", "l/g_act",
                                        "l/o", "l/o_act", "l/c", "l/c_act", "l"});
  CHECK(layer(n, "l/xh").kind == Kind::Concat);
  CHECK(layer(n, "l/xh").shape == Shape{7});
  CHECK(layer(n, "l/i").inputs == std::vector<int>{index_of(n, "l/xh")});
  // Gate W = (d_in + units + 1)·units = (4 + 3 + 1)·3 = 24; MACs = 3·7 = 21.
  CHECK(weight_elements(n, "l/i") == 24);
  CHECK(layer(n, "l/i").fwd.macs == 21);
  CHECK(n.trainable_parameters() == 3 * 24);
}

TEST_CASE("lstm_cell on x, h and c has all four gates and c = f*c_prev + i*g") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"h","kind":"input","shape":[3]},
    {"name":"c","kind":"input","shape":[3]},
    {"name":"l","kind":"lstm_cell","inputs":["x","h","c"],"units":3})");
  std::vector<std::string> got;
  std::vector<Kind> kinds;
  for (const auto& lay : n.layers) {
    got.push_back(lay.name);
    kinds.push_back(lay.kind);
  }
  CHECK(got == std::vector<std::string>{"x", "h", "c", "l/xh", "l/i", "l/i_act", "l/f", "l/f_act",
                                        "l/g", "l/g_act", "l/o", "l/o_act", "l/fc", "l/ig", "l/c",
                                        "l/c_act", "l"});
  CHECK(kinds == std::vector<Kind>{Kind::Input, Kind::Input, Kind::Input, Kind::Concat, Kind::Dense,
                                   Kind::Sigmoid, Kind::Dense, Kind::Sigmoid, Kind::Dense,
                                   Kind::Tanh, Kind::Dense, Kind::Sigmoid, Kind::Multiply,
                                   Kind::Multiply, Kind::Add, Kind::Tanh, Kind::Multiply});
  CHECK(layer(n, "l/fc").inputs == std::vector<int>{index_of(n, "l/f_act"), index_of(n, "c")});
  CHECK(layer(n, "l/c").inputs == std::vector<int>{index_of(n, "l/fc"), index_of(n, "l/ig")});
  // 4 gates · 24 = 96.
  CHECK(n.trainable_parameters() == 96);
}

TEST_CASE("two lstm cells with the same weights share the four gate tensors") {
  auto n = net(R"({"name":"x0","kind":"input","shape":[4]},
    {"name":"x1","kind":"input","shape":[4]},
    {"name":"h0","kind":"input","shape":[3]},
    {"name":"c0","kind":"input","shape":[3]},
    {"name":"t0","kind":"lstm_cell","inputs":["x0","h0","c0"],"units":3,"weights":"enc"},
    {"name":"t1","kind":"lstm_cell","inputs":["x1","t0","t0/c"],"units":3,"weights":"enc"})");
  // One set of 4 gate tensors of (4 + 3 + 1)·3 = 24: counted once → 96, not 192.
  REQUIRE(n.weights.size() == 4);
  CHECK(n.trainable_parameters() == 96);
  for (const char* g : {"i", "f", "g", "o"}) {
    INFO(g);
    const WeightTensor& w = weight_of(n, std::string("t0/") + g);
    CHECK(w.name == std::string("enc/W_") + g);
    CHECK(w.elements == 24);
    CHECK(names(n, w.layers) == std::vector<std::string>{std::string("t0/") + g,
                                                         std::string("t1/") + g});
    CHECK(layer(n, std::string("t1/") + g).weight == layer(n, std::string("t0/") + g).weight);
  }
  // t1 reads t0 (h) and t0/c (c): only t1 is an output.
  CHECK(names(n, n.outputs) == std::vector<std::string>{"t1"});
  CHECK(layer(n, "t1/fc").inputs[1] == index_of(n, "t0/c"));
}

// ---- parameters, sharing, graph bookkeeping ----------------------------------------------------

TEST_CASE("parameters counts W and S, trainable_parameters only trainable W") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3},
    {"name":"bn","kind":"batchnorm","inputs":["c"]})");
  // conv W 112; bn W 2·4 = 8, S 2·4 = 8.
  CHECK(n.trainable_parameters() == 112 + 8);
  CHECK(n.parameters() == 112 + 8 + 8);
  CHECK(weight_of(n, "c").name == "c");  // a layer's own W is named after it
}

TEST_CASE("trainable false keeps the weight but not in trainable_parameters") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"trainable":false},
    {"name":"bn","kind":"batchnorm","inputs":["c"]})");
  CHECK_FALSE(weight_of(n, "c").trainable);
  CHECK(weight_of(n, "bn").trainable);
  CHECK(n.trainable_parameters() == 8);
  CHECK(n.parameters() == 128);
}

TEST_CASE("shared weights: tied embedding and output projection are one tensor") {
  auto n = net(R"({"name":"ids","kind":"input","shape":[5],"dtype":"int32"},
    {"name":"emb","kind":"embedding","inputs":["ids"],"input_dim":10,"output_dim":4,"weights":"tied"},
    {"name":"proj","kind":"dense","inputs":["emb"],"units":10,"use_bias":false,"weights":"tied"})");
  // embedding 10·4 = 40; projection 4·10 = 40: one tensor.
  REQUIRE(n.weights.size() == 1);
  const WeightTensor& w = n.weights[0];
  CHECK(w.name == "tied");
  CHECK(w.elements == 40);
  CHECK(names(n, w.layers) == std::vector<std::string>{"emb", "proj"});
  CHECK(layer(n, "emb").weight == 0);
  CHECK(layer(n, "proj").weight == 0);
  CHECK(n.trainable_parameters() == 40);
  CHECK(n.parameters() == 40);
  CHECK(layer(n, "proj").shape == Shape{5, 10});
}

TEST_CASE("outputs and consumers in file order, duplicates once") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4]},
    {"name":"unused","kind":"input","shape":[4]},
    {"name":"a","kind":"relu","inputs":["x"]},
    {"name":"b","kind":"tanh","inputs":["x"]},
    {"name":"s","kind":"add","inputs":["a","b"]},
    {"name":"t","kind":"sigmoid","inputs":["a"]},
    {"name":"u","kind":"add","inputs":["x","x"]})");
  CHECK(names(n, n.consumers[static_cast<std::size_t>(index_of(n, "x"))]) ==
        std::vector<std::string>{"a", "b", "u"});
  CHECK(names(n, n.consumers[static_cast<std::size_t>(index_of(n, "a"))]) ==
        std::vector<std::string>{"s", "t"});
  CHECK(n.consumers[static_cast<std::size_t>(index_of(n, "unused"))].empty());
  // Inputs keep their order and repetitions: u = x + x (2 inputs, 2·4 FLOPs).
  CHECK(layer(n, "u").inputs == std::vector<int>{index_of(n, "x"), index_of(n, "x")});
  CHECK(layer(n, "u").fwd.flops == 8);
  CHECK(layer(n, "s").inputs == std::vector<int>{index_of(n, "a"), index_of(n, "b")});
  // Unconsumed non-input layers, in file order; an unused input is not an output.
  CHECK(names(n, n.outputs) == std::vector<std::string>{"s", "t", "u"});
  CHECK(n.find("nope") == -1);
  CHECK(n.name == "t");
  CHECK(n.source == "test.json");
}

TEST_CASE("kind aliases in files") {
  auto n = net(R"({"name":"x","kind":"InputLayer","shape":[8,8,3]},
    {"name":"c","kind":"Conv2D","inputs":["x"],"filters":4,"kernel_size":3},
    {"name":"bn","kind":"BatchNormalization","inputs":["c"]},
    {"name":"r","kind":"ReLU","inputs":["bn"]},
    {"name":"p","kind":"MaxPooling2D","inputs":["r"]},
    {"name":"g","kind":"GlobalAveragePooling2D","inputs":["p"]},
    {"name":"d","kind":"Linear","inputs":["g"],"units":2})");
  CHECK(layer(n, "x").kind == Kind::Input);
  CHECK(layer(n, "c").kind == Kind::Conv2D);
  CHECK(layer(n, "bn").kind == Kind::BatchNorm);
  CHECK(layer(n, "r").kind == Kind::ReLU);
  CHECK(layer(n, "p").kind == Kind::MaxPool);
  CHECK(layer(n, "g").kind == Kind::GlobalAvgPool);
  CHECK(layer(n, "d").kind == Kind::Dense);
  // [6,6,4] → pool [3,3,4] → [4] → [2].
  CHECK(layer(n, "d").shape == Shape{2});
}

TEST_CASE("file order need not be topological") {
  auto n = net(R"({"name":"r","kind":"relu","inputs":["c"]},
    {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3},
    {"name":"x","kind":"input","shape":[8,8,3]})");
  // The layers keep the file order; shapes are inferred in dependency order.
  REQUIRE(n.layers.size() == 3);
  CHECK(n.layers[0].name == "r");
  CHECK(n.layers[2].name == "x");
  CHECK(n.layers[0].shape == Shape{6, 6, 4});
  CHECK(n.layers[1].inputs == std::vector<int>{2});
  CHECK(names(n, n.consumers[2]) == std::vector<std::string>{"c"});
  CHECK(names(n, n.outputs) == std::vector<std::string>{"r"});
}

TEST_CASE("accepted conveniences: inputs as one string, activation linear or null, meta") {
  auto n = net(R"({"name":"x","kind":"input","shape":[4],"meta":{"from":"keras","nested":[[1,[2]]]}},
    {"name":"a","kind":"dense","inputs":"x","units":2,"activation":"linear"},
    {"name":"b","kind":"dense","inputs":["a"],"units":2,"activation":null},
    {"name":"c","kind":"dense","inputs":["b"],"units":2,"activation":"none"})");
  CHECK(layer(n, "a").inputs == std::vector<int>{0});
  CHECK(layer(n, "c").shape == Shape{2});
}
