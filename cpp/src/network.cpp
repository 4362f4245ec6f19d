// Graph validation and shape / weight / operation-count inference (SPEC §2); the LSTM cell's
// expansion and the topological order are in network_graph.cpp.
#include "dnnmem/network.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "dnnmem/errors.hpp"
#include "dnnmem/interrupt.hpp"
#include "network_graph.hpp"

namespace dnnmem {

NetworkError::NetworkError(std::string source, std::string layer, std::string field,
                           const std::string& what)
    : std::runtime_error([&] {
        std::string m = source.empty() ? std::string("<network>") : source;
        m += ": ";
        if (!layer.empty()) m += "layer '" + layer + "'";
        if (!field.empty()) m += std::string(layer.empty() ? "" : ", ") + "field '" + field + "'";
        if (!layer.empty() || !field.empty()) m += ": ";
        return m + what;
      }()),
      source_(std::move(source)),
      layer_(std::move(layer)),
      field_(std::move(field)),
      detail_(what) {}

std::int64_t Network::trainable_parameters() const {
  std::int64_t n = 0;
  for (const auto& w : weights)
    if (w.trainable) n += w.elements;
  return n;
}

std::int64_t Network::parameters() const {
  std::int64_t n = 0;
  for (const auto& w : weights) n += w.elements;
  for (const auto& l : layers) n += l.state_elements;
  return n;
}

int Network::find(const std::string& layer_name) const {
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == layer_name) return static_cast<int>(i);
  return -1;
}

int Network::resolve(int layer) const {
  // build_network sets `root` (so that a chain of a million folded layers resolves in O(1)
  // per layer, not O(chain)); the walk serves networks assembled by hand.
  if (const int r = layers[static_cast<std::size_t>(layer)].root; r >= 0) return r;
  while (layers[static_cast<std::size_t>(layer)].forward_of >= 0)
    layer = layers[static_cast<std::size_t>(layer)].forward_of;
  return layer;
}

namespace {

std::string article(std::string_view noun) {
  const bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << '[';
  for (std::size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
}

// Products of user-given sizes must not overflow: a file with absurd sizes is an error, not UB.
constexpr std::int64_t kMaxCount = std::int64_t{1} << 44;

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::function<void()>& fail) {
  if (a != 0 && b > kMaxCount / a) fail();
  return a * b;
}

struct Builder {
  const std::string& source;
  Network net;
  std::unordered_map<std::string, std::size_t> weight_index;  // net.weights by name

  [[noreturn]] void fail(const Layer& l, const std::string& field, const std::string& what) const {
    throw NetworkError(source, l.name, field, what);
  }

  // The field whose value makes a size too large: the kind's main size field.
  static const char* size_field(Kind k) {
    switch (k) {
      case Kind::Input: return "shape";
      case Kind::Conv2D: return "filters";
      case Kind::DepthwiseConv2D: return "depth_multiplier";
      case Kind::Dense: case Kind::LSTMCell: return "units";
      case Kind::Embedding: return "output_dim";
      case Kind::Reshape: return "target_shape";
      case Kind::MaxPool: case Kind::AvgPool: return "pool_size";
      case Kind::Upsample: return "size";
      case Kind::ZeroPadding: return "padding";
      default: return "inputs";
    }
  }

  std::int64_t mul(const Layer& l, std::int64_t a, std::int64_t b) const {
    return mul(l, a, b, size_field(l.kind));
  }
  // The same, naming `field` (a product that only one field enters).
  std::int64_t mul(const Layer& l, std::int64_t a, std::int64_t b, const char* field) const {
    return checked_mul(a, b, [&] {
      fail(l, field, "sizes overflow (more than 2^44 elements or operations per sample)");
    });
  }
  std::int64_t prod(const Layer& l, const Shape& s) const {
    std::int64_t p = 1;
    for (auto d : s) p = mul(l, p, d);
    return p;
  }

  const Shape& in_shape(const Layer& l, std::size_t i) const {
    return net.layers[static_cast<std::size_t>(l.inputs[i])].shape;
  }

  void expect_inputs(const Layer& l, std::size_t lo, std::size_t hi) const {
    const std::size_t n = l.inputs.size();
    if (n < lo || n > hi) {
      std::string want = lo == hi ? std::to_string(lo)
                         : hi == std::numeric_limits<std::size_t>::max()
                             ? "at least " + std::to_string(lo)
                             : std::to_string(lo) + " to " + std::to_string(hi);
      fail(l, "inputs", article(kind_name(l.kind)) + " layer takes " + want +
                            " input(s), got " + std::to_string(n));
    }
  }

  void expect_rank(const Layer& l, std::size_t input, std::size_t rank) const {
    const Shape& s = in_shape(l, input);
    if (s.size() != rank)
      fail(l, "inputs", "input '" + net.layers[static_cast<std::size_t>(l.inputs[input])].name +
                            "' has shape " + shape_str(s) + "; " +
                            article(kind_name(l.kind)) + " layer needs rank " +
                            std::to_string(rank) + " (per sample, channels last)");
  }

  // Output size of a windowed op (conv, pooling) along one axis, Keras conventions.
  std::int64_t window_out(const Layer& l, std::int64_t in, std::int64_t k, std::int64_t stride,
                          std::int64_t dil, std::int64_t pad_lo, std::int64_t pad_hi,
                          bool same) const {
    if (same) return (in + stride - 1) / stride;
    const std::int64_t span = dil * (k - 1) + 1;
    const std::int64_t padded = in + pad_lo + pad_hi;
    if (padded < span)
      fail(l, l.kind == Kind::MaxPool || l.kind == Kind::AvgPool ? "pool_size" : "kernel_size",
           "window " + std::to_string(span) + " is larger than the padded input " +
               std::to_string(padded));
    return (padded - span) / stride + 1;
  }

  void add_weight(Layer& l, std::int64_t elements) {
    if (elements <= 0) {
      if (!l.params.weights.empty())
        fail(l, "weights", article(kind_name(l.kind)) + " layer has no weights to share");
      return;
    }
    const std::string wname = l.params.weights.empty() ? l.name : l.params.weights;
    const int li = static_cast<int>(&l - net.layers.data());
    // By name through a hash map: a linear search made loading quadratic in the number of
    // layers with weights (2^18 dense layers: 90 s).
    if (const auto it = weight_index.find(wname); it != weight_index.end()) {
      const std::size_t i = it->second;
      auto& w = net.weights[i];
      if (w.elements != elements)
        fail(l, "weights",
             "shares weight '" + wname + "' of " + std::to_string(w.elements) +
                 " elements but needs " + std::to_string(elements));
      if (w.trainable != l.params.trainable)
        fail(l, "trainable", "layers sharing weight '" + wname + "' disagree on 'trainable'");
      w.layers.push_back(li);
      l.weight = static_cast<int>(i);
      return;
    }
    weight_index.emplace(wname, net.weights.size());
    net.weights.push_back({wname, elements, l.params.trainable, {li}});
    l.weight = static_cast<int>(net.weights.size() - 1);
  }

  Shape broadcast(const Layer& l) const {
    Shape out = in_shape(l, 0);
    for (std::size_t i = 1; i < l.inputs.size(); ++i) {
      const Shape& s = in_shape(l, i);
      Shape r(std::max(out.size(), s.size()), 1);
      for (std::size_t k = 0; k < r.size(); ++k) {
        const std::int64_t a = k < r.size() - out.size() ? 1 : out[k - (r.size() - out.size())];
        const std::int64_t b = k < r.size() - s.size() ? 1 : s[k - (r.size() - s.size())];
        if (a != b && a != 1 && b != 1)
          fail(l, "inputs", "input shapes " + shape_str(out) + " and " + shape_str(s) +
                                " cannot be broadcast together");
        r[k] = std::max(a, b);
      }
      out = std::move(r);
    }
    return out;
  }

  void infer(Layer& l) {
    const LayerParams& p = l.params;
    const KindInfo& info = kind_info(l.kind);
    std::int64_t weight_elems = 0;
    switch (l.kind) {
      case Kind::Input:
        expect_inputs(l, 0, 0);
        l.shape = p.shape;
        l.dtype = p.dtype;
        break;
      case Kind::Conv2D:
      case Kind::DepthwiseConv2D: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 3);
        const Shape& x = in_shape(l, 0);
        const bool depthwise = l.kind == Kind::DepthwiseConv2D;
        const std::int64_t c_in = x[2];
        std::int64_t c_out = 0, per_out = 0;
        if (depthwise) {
          c_out = mul(l, c_in, p.depth_multiplier);
          per_out = mul(l, p.kernel[0], p.kernel[1], "kernel_size");
        } else {
          if (p.filters <= 0) fail(l, "filters", "must be a positive integer");
          if (c_in % p.groups != 0)
            fail(l, "groups", "input channels " + std::to_string(c_in) +
                                  " are not divisible by groups " + std::to_string(p.groups));
          if (p.filters % p.groups != 0)
            fail(l, "groups", "filters " + std::to_string(p.filters) +
                                  " are not divisible by groups " + std::to_string(p.groups));
          c_out = p.filters;
          per_out = mul(l, mul(l, p.kernel[0], p.kernel[1], "kernel_size"), c_in / p.groups,
                        "kernel_size");
        }
        const auto& pad = p.padding;
        l.shape = {window_out(l, x[0], p.kernel[0], p.strides[0], p.dilation[0], pad.top,
                              pad.bottom, pad.same),
                   window_out(l, x[1], p.kernel[1], p.strides[1], p.dilation[1], pad.left,
                              pad.right, pad.same),
                   c_out};
        l.elements = prod(l, l.shape);
        weight_elems = mul(l, per_out, c_out) + (p.use_bias ? c_out : 0);
        l.fwd.macs = mul(l, l.elements, per_out);
        break;
      }
      case Kind::Dense: {
        expect_inputs(l, 1, 1);
        const Shape& x = in_shape(l, 0);
        if (x.empty()) fail(l, "inputs", "a dense layer needs an input of rank >= 1");
        if (p.units <= 0) fail(l, "units", "must be a positive integer");
        l.shape = x;
        l.shape.back() = p.units;
        l.elements = prod(l, l.shape);
        weight_elems = mul(l, x.back(), p.units) + (p.use_bias ? p.units : 0);
        l.fwd.macs = mul(l, l.elements, x.back());
        break;
      }
      case Kind::MatMul: infer_matmul(l); break;
      case Kind::BatchNorm:
      case Kind::LayerNorm: {
        expect_inputs(l, 1, 1);
        l.shape = in_shape(l, 0);
        if (l.shape.empty()) fail(l, "inputs", "a norm layer needs an input of rank >= 1");
        const std::int64_t c = l.shape.back();
        weight_elems = (p.center ? c : 0) + (p.scale ? c : 0);
        if (l.kind == Kind::BatchNorm) l.state_elements = 2 * c;
        break;
      }
      case Kind::ReLU: case Kind::ReLU6: case Kind::GELU: case Kind::Sigmoid: case Kind::Tanh:
      case Kind::Softmax: case Kind::Dropout: case Kind::Identity: case Kind::Swish:
      case Kind::HardSwish: case Kind::HardSigmoid: case Kind::LeakyReLU: case Kind::Mish:
      case Kind::Rescaling:
        expect_inputs(l, 1, 1);
        l.shape = in_shape(l, 0);
        break;
      case Kind::Normalization:
        expect_inputs(l, 1, 1);
        l.shape = in_shape(l, 0);
        if (l.shape.empty()) fail(l, "inputs", "a normalization layer needs an input of rank >= 1");
        l.state_elements = 2 * l.shape.back() + 1;  // mean, variance, count (Keras)
        break;
      case Kind::Upsample: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 3);
        const Shape& x = in_shape(l, 0);
        l.shape = {mul(l, x[0], p.size[0], "size"), mul(l, x[1], p.size[1], "size"), x[2]};
        break;
      }
      case Kind::ClassToken: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 2);
        const Shape& x = in_shape(l, 0);
        l.shape = {x[0] + 1, x[1]};
        weight_elems = x[1];
        break;
      }
      case Kind::Opaque:
        expect_inputs(l, 1, std::numeric_limits<std::size_t>::max());
        l.shape = p.shape;
        break;
      case Kind::PositionEmbedding:
        expect_inputs(l, 1, 1);
        l.shape = in_shape(l, 0);
        weight_elems = prod(l, l.shape);
        break;
      case Kind::Add: {
        expect_inputs(l, 2, std::numeric_limits<std::size_t>::max());
        l.shape = in_shape(l, 0);
        for (std::size_t i = 1; i < l.inputs.size(); ++i)
          if (in_shape(l, i) != l.shape)
            fail(l, "inputs", "add of different shapes: '" +
                                  net.layers[static_cast<std::size_t>(l.inputs[0])].name + "' is " +
                                  shape_str(l.shape) + ", '" +
                                  net.layers[static_cast<std::size_t>(l.inputs[i])].name + "' is " +
                                  shape_str(in_shape(l, i)));
        break;
      }
      case Kind::Multiply:
        expect_inputs(l, 2, std::numeric_limits<std::size_t>::max());
        l.shape = broadcast(l);
        break;
      case Kind::Concat: infer_concat(l); break;
      case Kind::MaxPool:
      case Kind::AvgPool: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 3);
        const Shape& x = in_shape(l, 0);
        const auto& pad = p.padding;
        l.shape = {window_out(l, x[0], p.kernel[0], p.strides[0], 1, pad.top, pad.bottom, pad.same),
                   window_out(l, x[1], p.kernel[1], p.strides[1], 1, pad.left, pad.right, pad.same),
                   x[2]};
        break;
      }
      case Kind::GlobalAvgPool:
      case Kind::GlobalMaxPool: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 3);
        const std::int64_t c = in_shape(l, 0)[2];
        l.shape = p.keepdims ? Shape{1, 1, c} : Shape{c};
        break;
      }
      case Kind::ZeroPadding: {
        expect_inputs(l, 1, 1);
        expect_rank(l, 0, 3);
        const Shape& x = in_shape(l, 0);
        if (p.padding.same) fail(l, "padding", "zero padding needs explicit sizes, not 'same'");
        l.shape = {x[0] + p.padding.top + p.padding.bottom, x[1] + p.padding.left + p.padding.right,
                   x[2]};
        break;
      }
      case Kind::Reshape: {
        expect_inputs(l, 1, 1);
        const std::int64_t n = prod(l, in_shape(l, 0));
        Shape t = p.target_shape;
        std::int64_t known = 1;
        int free_axis = -1;
        for (std::size_t i = 0; i < t.size(); ++i) {
          if (t[i] == -1) {
            if (free_axis >= 0) fail(l, "target_shape", "at most one dimension may be -1");
            free_axis = static_cast<int>(i);
          } else {
            known = mul(l, known, t[i]);
          }
        }
        if (free_axis >= 0) {
          if (known == 0 || n % known != 0)
            fail(l, "target_shape", shape_str(t) + " does not divide " + std::to_string(n) + " elements");
          t[static_cast<std::size_t>(free_axis)] = n / known;
        } else if (known != n) {
          fail(l, "target_shape", shape_str(t) + " has " + std::to_string(known) +
                                      " elements but the input " + shape_str(in_shape(l, 0)) +
                                      " has " + std::to_string(n));
        }
        l.shape = t;
        break;
      }
      case Kind::Flatten:
        expect_inputs(l, 1, 1);
        l.shape = {prod(l, in_shape(l, 0))};
        break;
      case Kind::Embedding: {
        expect_inputs(l, 1, 1);
        if (p.input_dim <= 0) fail(l, "input_dim", "must be a positive integer (the vocabulary)");
        if (p.output_dim <= 0) fail(l, "output_dim", "must be a positive integer (the row width)");
        l.shape = in_shape(l, 0);
        l.shape.push_back(p.output_dim);
        l.gathered_rows = prod(l, in_shape(l, 0));
        weight_elems = mul(l, p.input_dim, p.output_dim);
        break;
      }
      case Kind::LSTMCell:
        fail(l, "kind", "internal: lstm_cell must be expanded before inference");
    }
    if (l.elements == 0) l.elements = prod(l, l.shape);
    if (l.elements <= 0) fail(l, "", "output shape " + shape_str(l.shape) + " is empty");
    if (info.folded) l.forward_of = l.inputs[0];
    // Inputs are inferred first (topological order), so their roots are known.
    l.root = info.folded ? net.layers[static_cast<std::size_t>(l.inputs[0])].root
                         : static_cast<int>(&l - net.layers.data());
    if (info.folded) l.dtype = net.layers[static_cast<std::size_t>(l.inputs[0])].dtype;
    add_weight(l, weight_elems);
    count_ops(l, info);
  }

  std::int64_t rule_count(const Layer& l, const FlopRule& r) const {
    switch (r.basis) {
      case FlopBasis::PerOutput: return mul(l, r.per_element, l.elements);
      case FlopBasis::PerInputElement: return mul(l, r.per_element, prod(l, in_shape(l, 0)));
      case FlopBasis::PerOutputPerInput:
        return mul(l, mul(l, r.per_element, l.elements), static_cast<std::int64_t>(l.inputs.size()));
      case FlopBasis::PerOutputWindow:
        return mul(l, mul(l, r.per_element, l.elements),
                   mul(l, l.params.kernel[0], l.params.kernel[1], "pool_size"), "pool_size");
      case FlopBasis::Macs: return 0;
    }
    return 0;
  }

  void count_ops(Layer& l, const KindInfo& info) {
    const std::int64_t macs = l.fwd.macs;
    auto apply = [&](const FlopRule& r) {
      OpCount c;
      if (r.basis == FlopBasis::Macs) c.macs = macs;
      else c.flops = rule_count(l, r);
      return c;
    };
    l.fwd = apply(info.fwd);
    l.bwd_dx = apply(info.bwd_dx);
    l.bwd_dw = l.weight >= 0 ? apply(info.bwd_dw) : OpCount{};
  }

  void infer_matmul(Layer& l) {
    const LayerParams& p = l.params;
    expect_inputs(l, 2, 2);
    Shape s[2];
    for (std::size_t i = 0; i < 2; ++i) {
      s[i] = in_shape(l, i);
      if (p.heads > 0 && s[i].size() == 2) {
        if (s[i][1] % p.heads != 0)
          fail(l, "heads", "input width " + std::to_string(s[i][1]) + " is not divisible by " +
                               std::to_string(p.heads) + " heads");
        s[i] = {p.heads, s[i][0], s[i][1] / p.heads};
      }
      if (s[i].size() < 2)
        fail(l, "inputs", "matmul inputs need rank >= 2, input " + std::to_string(i) + " is " +
                              shape_str(s[i]));
    }
    if (p.transpose_a) std::swap(s[0][s[0].size() - 1], s[0][s[0].size() - 2]);
    if (p.transpose_b) std::swap(s[1][s[1].size() - 1], s[1][s[1].size() - 2]);
    const std::int64_t m = s[0][s[0].size() - 2], k = s[0].back();
    const std::int64_t k2 = s[1][s[1].size() - 2], n = s[1].back();
    if (k != k2)
      fail(l, "inputs", "inner dimensions differ: " + shape_str(s[0]) + " @ " + shape_str(s[1]) +
                            " (after heads / transposes)");
    // Batch dimensions broadcast as in numpy.matmul.
    Shape a(s[0].begin(), s[0].end() - 2), b(s[1].begin(), s[1].end() - 2);
    Shape batch(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::int64_t x = i < batch.size() - a.size() ? 1 : a[i - (batch.size() - a.size())];
      const std::int64_t y = i < batch.size() - b.size() ? 1 : b[i - (batch.size() - b.size())];
      if (x != y && x != 1 && y != 1)
        fail(l, "inputs", "batch dimensions of " + shape_str(s[0]) + " and " + shape_str(s[1]) +
                              " cannot be broadcast");
      batch[i] = std::max(x, y);
    }
    l.shape = batch;
    l.shape.push_back(m);
    l.shape.push_back(n);
    l.elements = prod(l, l.shape);
    l.fwd.macs = mul(l, l.elements, k);
    if (p.merge_heads) {
      if (l.shape.size() != 3)
        fail(l, "merge_heads", "needs an output [heads, T, e], got " + shape_str(l.shape));
      l.shape = {l.shape[1], l.shape[0] * l.shape[2]};
    }
  }

  void infer_concat(Layer& l) {
    expect_inputs(l, 1, std::numeric_limits<std::size_t>::max());
    Shape out = in_shape(l, 0);
    const auto rank = static_cast<std::int64_t>(out.size());
    std::int64_t axis = l.params.axis < 0 ? l.params.axis + rank : l.params.axis;
    if (axis < 0 || axis >= rank)
      fail(l, "axis", "axis " + std::to_string(l.params.axis) + " is out of range for rank " +
                          std::to_string(rank));
    const auto ax = static_cast<std::size_t>(axis);
    for (std::size_t i = 1; i < l.inputs.size(); ++i) {
      const Shape& s = in_shape(l, i);
      bool ok = s.size() == out.size();
      for (std::size_t d = 0; ok && d < s.size(); ++d) ok = d == ax || s[d] == out[d];
      if (!ok)
        fail(l, "inputs", "cannot concatenate " + shape_str(out) + " and " + shape_str(s) +
                              " along axis " + std::to_string(l.params.axis));
      // Each size is <= 2^44, but many inputs could add up past 64 bits.
      if (s[ax] > kMaxCount - out[ax])
        fail(l, "inputs", "sizes overflow (more than 2^44 elements per sample along axis " +
                              std::to_string(l.params.axis) + ")");
      out[ax] += s[ax];
    }
    l.shape = out;
  }
};

}  // namespace

Network build_network(std::vector<LayerSpec> specs, std::string name, std::string source) {
  // Expand macro kinds first so every later check sees primitive layers only.
  std::vector<LayerSpec> flat;
  flat.reserve(specs.size());
  for (auto& s : specs) {
    if (s.kind == Kind::LSTMCell) detail::expand_lstm(s, flat, source);
    else flat.push_back(std::move(s));
  }

  Builder b{source, {}, {}};
  Network& net = b.net;
  net.name = std::move(name);
  net.source = source;
  std::unordered_map<std::string, int> index;
  for (const auto& s : flat) {
    if (s.name.empty()) throw NetworkError(source, "", "name", "a layer has an empty name");
    if (!index.emplace(s.name, static_cast<int>(index.size())).second)
      throw NetworkError(source, s.name, "name", "duplicate layer name");
  }
  if (flat.empty()) throw NetworkError(source, "", "layers", "the network has no layers");

  net.layers.resize(flat.size());
  for (std::size_t i = 0; i < flat.size(); ++i) {
    Layer& l = net.layers[i];
    l.name = flat[i].name;
    l.kind = flat[i].kind;
    l.params = std::move(flat[i].params);
    for (const auto& in : flat[i].inputs) {
      auto it = index.find(in);
      if (it == index.end()) {
        std::vector<std::string> names;
        for (const auto& s : flat) names.push_back(s.name);
        const std::string close = detail::closest_name(in, names);
        throw NetworkError(source, l.name, "inputs",
                           "unknown input layer '" + in + "'" +
                               (close.empty() ? "" : "; did you mean '" + close + "'?"));
      }
      l.inputs.push_back(it->second);
    }
  }

  const std::size_t n = net.layers.size();
  const std::vector<int> topo = detail::topological_order(net);
  for (std::size_t k = 0; k < topo.size(); ++k) {
    check_interrupt_every(k);
    b.infer(net.layers[static_cast<std::size_t>(topo[k])]);
  }
  // Network::parameters() sums every weight and state (each < 2^46): keep the sum exact. In
  // file order, a shared weight at the first layer using it, to name where the sum overflows.
  __extension__ __int128 params = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Layer& l = net.layers[i];
    if (l.weight >= 0 && net.weights[static_cast<std::size_t>(l.weight)].layers.front() == static_cast<int>(i))
      params += net.weights[static_cast<std::size_t>(l.weight)].elements;
    params += l.state_elements;
    if (params > (std::int64_t{1} << 62))
      throw NetworkError(source, l.name, "", "the network has more than 2^62 parameters in all");
  }

  for (std::size_t i = 0; i < n; ++i)
    if (net.layers[i].kind != Kind::Input && net.consumers[i].empty())
      net.outputs.push_back(static_cast<int>(i));
  return std::move(b.net);
}

}  // namespace dnnmem
