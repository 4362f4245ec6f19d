// Stage 1 of the pipeline (SPEC §2): a network is a DAG of layers with per-sample shapes, weight
// sizes and operation counts. Batch size and element size are not part of it: they are applied
// when the schedule is built, so one parsed network serves every batch of a sweep.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dnnmem/kinds.hpp"

namespace dnnmem {

using Shape = std::vector<std::int64_t>;  // per-sample dimensions, channels last (H, W, C)

// Element type of an activation. `Float` takes the network's bytes_per_element (FP32 by
// default); token ids keep their integer width whatever the float precision.
enum class DType : std::uint8_t { Float, Int32, Int64 };

struct Padding2D {
  bool same = false;  // Keras "same": output = ceil(input / stride)
  std::int64_t top = 0, bottom = 0, left = 0, right = 0;
};

// Parameters a layer may carry; each kind reads the ones it needs (docs/network-format.md).
struct LayerParams {
  Shape shape;                    // input: per-sample shape
  DType dtype = DType::Float;     // input: element type
  std::int64_t filters = 0;       // conv2d
  std::int64_t units = 0;         // dense, lstm_cell
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilation{1, 1};
  Padding2D padding;
  std::int64_t groups = 1;
  std::int64_t depth_multiplier = 1;
  bool use_bias = true;
  bool center = true, scale = true;  // norms: beta / gamma present
  bool transpose_a = false, transpose_b = false;
  std::int64_t heads = 0;         // matmul: split 2-D inputs [T, d] into [heads, T, d/heads]
  bool merge_heads = false;       // matmul: merge an output [heads, T, e] back into [T, heads*e]
  std::int64_t axis = -1;         // concat
  Shape target_shape;             // reshape (-1 once allowed)
  std::int64_t input_dim = 0;     // embedding: vocabulary
  std::int64_t output_dim = 0;    // embedding: row width
  bool keepdims = false;          // global pooling
  std::array<std::int64_t, 2> size{2, 2};  // upsample: factor per spatial dimension
  std::string weights;            // name of a shared weight tensor W ("" = the layer's own)
  bool trainable = true;
};

// Operation counts per sample. FLOPs = ops_per_mac · macs + flops, so the "2·MACs" entries of
// SPEC §2 can be read with 1 or 2 FLOPs per multiply-accumulate without re-parsing.
struct OpCount {
  std::int64_t macs = 0;
  std::int64_t flops = 0;
  std::int64_t total(int ops_per_mac = 2) const { return ops_per_mac * macs + flops; }
  OpCount& operator+=(const OpCount& o) {
    macs += o.macs;
    flops += o.flops;
    return *this;
  }
};

struct Layer {
  std::string name;
  Kind kind = Kind::Input;
  std::vector<int> inputs;      // layer indices, in the order the file lists them
  LayerParams params;
  Shape shape;                  // per-sample output shape
  std::int64_t elements = 0;    // per-sample output elements
  DType dtype = DType::Float;
  int weight = -1;              // index into Network::weights (trainable W), -1 if none
  std::int64_t state_elements = 0;  // non-trainable S (batchnorm moving mean / variance)
  OpCount fwd;                  // forward
  OpCount bwd_dx;               // backward dX, for ONE input that has a gradient
  OpCount bwd_dw;               // backward dW
  std::int64_t gathered_rows = 0;  // embedding: table rows read per sample (partial access)
  int forward_of = -1;          // folded layers: the layer whose output they re-index
  int root = -1;                // resolve(): the unfolded layer at the end of forward_of links
};

// A trainable weight tensor; several layers may share one (tied embeddings / output projection).
struct WeightTensor {
  std::string name;
  std::int64_t elements = 0;
  bool trainable = true;
  std::vector<int> layers;      // the layers that read it, in file order
};

struct Network {
  std::string name;
  std::string source;           // file name (or "<dict>") for messages
  std::vector<Layer> layers;    // file order, macro kinds expanded
  std::vector<WeightTensor> weights;
  std::vector<std::vector<int>> consumers;  // per layer, in file order, unique
  std::vector<int> outputs;     // non-input layers that nothing consumes, in file order
  std::string document;         // the JSON document it was read from (for to_json round trips)

  std::int64_t parameters() const;            // trainable + non-trainable
  std::int64_t trainable_parameters() const;
  int find(const std::string& layer_name) const;  // -1 if absent
  // The layer whose tensor a folded layer stands for (itself when not folded).
  int resolve(int layer) const;
};

// A layer as read from a file, before shapes are known.
struct LayerSpec {
  std::string name;
  Kind kind = Kind::Input;
  std::vector<std::string> inputs;
  LayerParams params;
};

// Validates the graph (unique names, known inputs, no cycle), expands macro kinds, infers every
// shape, weight size and operation count. Throws NetworkError naming source, layer and field.
Network build_network(std::vector<LayerSpec> specs, std::string name, std::string source);

}  // namespace dnnmem
