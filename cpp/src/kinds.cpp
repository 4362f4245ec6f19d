#include "dnnmem/kinds.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace dnnmem {
namespace {

using B = FlopBasis;
using R = BackwardReads;
constexpr FlopRule none{0, B::PerOutput};
constexpr FlopRule macs{0, B::Macs};
constexpr FlopRule out(std::int64_t v) { return {v, B::PerOutput}; }

// SPEC §2 "Per-kind defaults". Change a constant only with the reason written next to it.
const std::vector<KindInfo> kTable = {
    // kind, name, class, backward reads, folded, fwd, dX (per input with gradient), dW
    {Kind::Input, "input", LayerClass::None, R::Nothing, false, none, none, none},
    {Kind::Conv2D, "conv2d", LayerClass::I, R::XAndW, false, macs, macs, macs},
    {Kind::DepthwiseConv2D, "depthwise_conv2d", LayerClass::I, R::XAndW, false, macs, macs, macs},
    {Kind::Dense, "dense", LayerClass::I, R::XAndW, false, macs, macs, macs},
    {Kind::MatMul, "matmul", LayerClass::I, R::AllInputs, false, macs, macs, none},
    {Kind::BatchNorm, "batchnorm", LayerClass::II, R::XAndScale, false, out(5), out(7), out(2)},
    {Kind::LayerNorm, "layernorm", LayerClass::II, R::XAndScale, false, out(5), out(7), out(2)},
    {Kind::ReLU, "relu", LayerClass::II, R::Y, false, out(1), out(1), none},
    {Kind::ReLU6, "relu6", LayerClass::II, R::Y, false, out(1), out(1), none},
    // gelu's backward needs X (its derivative is not a function of Y); 8 FLOPs for the tanh form.
    {Kind::GELU, "gelu", LayerClass::II, R::X, false, out(8), out(8), none},
    {Kind::Sigmoid, "sigmoid", LayerClass::II, R::Y, false, out(1), out(1), none},
    {Kind::Tanh, "tanh", LayerClass::II, R::Y, false, out(1), out(1), none},
    {Kind::Softmax, "softmax", LayerClass::II, R::Y, false, out(5), out(4), none},
    {Kind::Dropout, "dropout", LayerClass::II, R::Y, false, out(2), out(1), none},
    {Kind::Add, "add", LayerClass::II, R::Nothing, false, {1, B::PerOutputPerInput}, none, none},
    {Kind::Multiply, "multiply", LayerClass::II, R::AllInputs, false, out(1), out(1), none},
    {Kind::Concat, "concat", LayerClass::II, R::GradientOnly, false, none, none, none},
    {Kind::MaxPool, "maxpool", LayerClass::II, R::X, false, {1, B::PerOutputWindow},
     {1, B::PerOutputWindow}, none},
    {Kind::AvgPool, "avgpool", LayerClass::II, R::Nothing, false, {1, B::PerInputElement}, out(1),
     none},
    {Kind::GlobalAvgPool, "global_avgpool", LayerClass::II, R::Nothing, false,
     {1, B::PerInputElement}, out(1), none},
    // Not in SPEC's table: counted like global average pool (one compare per input element, one
    // scatter per output element); backward reads X to find the arg-max.
    {Kind::GlobalMaxPool, "global_maxpool", LayerClass::II, R::X, false, {1, B::PerInputElement},
     out(1), none},
    {Kind::ZeroPadding, "zero_padding", LayerClass::None, R::Nothing, true, none, none, none},
    {Kind::Reshape, "reshape", LayerClass::None, R::Nothing, true, none, none, none},
    {Kind::Flatten, "flatten", LayerClass::None, R::Nothing, true, none, none, none},
    {Kind::Identity, "identity", LayerClass::None, R::Nothing, true, none, none, none},
    {Kind::Embedding, "embedding", LayerClass::I, R::TokenIds, false, out(2), none, out(1)},
    {Kind::LSTMCell, "lstm_cell", LayerClass::None, R::Nothing, false, none, none, none},
    // Below: kinds SPEC §2 does not list. The constants follow its convention of one FLOP per
    // elementary point-wise operation (sigmoid counts 1): swish = x·σ(x) is 2 forward and 3 for
    // dX (σ, x·σ·(1−σ), the sum); its derivative needs X, not Y.
    {Kind::Swish, "swish", LayerClass::II, R::X, false, out(2), out(3), none},
    // hard_swish = x·relu6(x+3)/6: add, clip, multiply (3); dX is piecewise in X (2).
    {Kind::HardSwish, "hard_swish", LayerClass::II, R::X, false, out(3), out(2), none},
    // hard_sigmoid = relu6(x+3)/6: add, clip (2); dX a masked scale (1).
    {Kind::HardSigmoid, "hard_sigmoid", LayerClass::II, R::X, false, out(2), out(1), none},
    // leaky relu keeps the sign, so Y decides the slope, as for relu.
    {Kind::LeakyReLU, "leaky_relu", LayerClass::II, R::Y, false, out(1), out(1), none},
    // mish = x·tanh(softplus(x)): softplus (2), tanh (1), multiply (1); dX 6.
    {Kind::Mish, "mish", LayerClass::II, R::X, false, out(4), out(6), none},
    // Nearest-neighbour upsampling is a copy (0 FLOPs, as concat); dX sums size² gradients into
    // each input element: one add per output element.
    {Kind::Upsample, "upsample", LayerClass::II, R::Nothing, false, none, out(1), none},
    // x·scale + offset (Keras Rescaling); no weights.
    {Kind::Rescaling, "rescaling", LayerClass::II, R::Nothing, false, out(2), out(1), none},
    // (x − mean) / √variance with fixed statistics (Keras Normalization: mean, variance and a
    // count are non-trainable state, 2C + 1 elements).
    {Kind::Normalization, "normalization", LayerClass::II, R::Nothing, false, out(2), out(1),
     none},
    // ViT's learned class token prepended to a [T, d] sequence: a copy (0 FLOPs, as concat);
    // dX and dW are slices of dY (the batch sum of d elements is negligible and not counted).
    {Kind::ClassToken, "class_token", LayerClass::II, R::GradientOnly, false, none, none, none},
    // A learned [T, d] table added to the sequence (ViT, BERT, GPT-2 position embeddings): one
    // add per element; dX is dY (no FLOPs), dW sums dY over the batch (one add per element).
    {Kind::PositionEmbedding, "position_embedding", LayerClass::II, R::Nothing, false, out(1), none,
     out(1)},
    // A placeholder for an operator an importer cannot translate (docs/importers.md): output
    // shape from the file, no weights, 0 FLOPs both ways (unknown, so not guessed; counted as a
    // copy, like concat); the gradient passes through, so upstream layers still train.
    {Kind::Opaque, "opaque", LayerClass::II, R::GradientOnly, false, none, none, none},
};

std::string normalise(std::string_view s) {
  std::string r;
  for (char c : s)
    if (c != '_' && c != '-' && c != ' ') r += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Aliases users type from Keras, PyTorch or ONNX habits; compared after normalise().
const std::vector<std::pair<std::string_view, Kind>> kAliases = {
    {"inputlayer", Kind::Input},
    {"conv", Kind::Conv2D},
    {"convolution2d", Kind::Conv2D},
    {"depthwiseconv", Kind::DepthwiseConv2D},
    {"linear", Kind::Dense},
    {"fullyconnected", Kind::Dense},
    {"fc", Kind::Dense},
    {"bmm", Kind::MatMul},
    {"batchmatmul", Kind::MatMul},
    {"batchnormalization", Kind::BatchNorm},
    {"batchnorm2d", Kind::BatchNorm},
    {"layernormalization", Kind::LayerNorm},
    {"concatenate", Kind::Concat},
    {"maxpooling2d", Kind::MaxPool},
    {"maxpool2d", Kind::MaxPool},
    {"averagepooling2d", Kind::AvgPool},
    {"avgpool2d", Kind::AvgPool},
    {"globalaveragepooling2d", Kind::GlobalAvgPool},
    {"globalavgpool", Kind::GlobalAvgPool},
    {"globalmaxpooling2d", Kind::GlobalMaxPool},
    {"zeropadding2d", Kind::ZeroPadding},
    {"pad", Kind::ZeroPadding},
    {"mul", Kind::Multiply},
    {"lstm", Kind::LSTMCell},
    {"lstmcell", Kind::LSTMCell},
    {"silu", Kind::Swish},
    {"hswish", Kind::HardSwish},
    {"hsigmoid", Kind::HardSigmoid},
    {"leaky", Kind::LeakyReLU},
    {"upsampling2d", Kind::Upsample},
    {"upsample2d", Kind::Upsample},
    {"clstoken", Kind::ClassToken},
    {"positionalembedding", Kind::PositionEmbedding},
};

}  // namespace

const std::vector<KindInfo>& all_kinds() { return kTable; }

const KindInfo& kind_info(Kind k) { return kTable[static_cast<std::size_t>(k)]; }

std::string_view kind_name(Kind k) { return kind_info(k).name; }

std::string_view class_name(LayerClass c) {
  switch (c) {
    case LayerClass::I: return "I";
    case LayerClass::II: return "II";
    case LayerClass::None: break;
  }
  return "";
}

std::optional<Kind> kind_from_name(std::string_view name) {
  const std::string n = normalise(name);
  for (const auto& info : kTable)
    if (normalise(info.name) == n) return info.kind;
  for (const auto& [alias, kind] : kAliases)
    if (alias == n) return kind;
  return std::nullopt;
}

}  // namespace dnnmem
