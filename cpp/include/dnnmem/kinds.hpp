// The per-kind table of SPEC §2: for every layer kind its class (type-I / type-II), what its
// backward step reads besides dY, and its FLOPs per element (forward / dX / dW). One table, one
// place: the network and schedule stages read it and nothing else hard-codes per-kind numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnmem {

enum class Kind : std::uint8_t {
  Input,
  Conv2D,
  DepthwiseConv2D,
  Dense,
  MatMul,
  BatchNorm,
  LayerNorm,
  ReLU,
  ReLU6,
  GELU,
  Sigmoid,
  Tanh,
  Softmax,
  Dropout,
  Add,
  Multiply,
  Concat,
  MaxPool,
  AvgPool,
  GlobalAvgPool,
  GlobalMaxPool,
  ZeroPadding,
  Reshape,
  Flatten,
  Identity,
  Embedding,
  LSTMCell,  // a macro kind: the loader expands it into dense / point-wise layers
  // Not in SPEC §2's table (added for the zoo and the importers; constants in kinds.cpp).
  Swish,
  HardSwish,
  HardSigmoid,
  LeakyReLU,
  Mish,
  Upsample,
  Rescaling,
  Normalization,
  ClassToken,
  PositionEmbedding,
  Opaque,  // an operator an importer cannot translate (strict=False placeholder)
};

// Layer class of thesis §5 (Fig. 5.1): type-I extracts features (many inputs per output), type-II
// is point-wise. `None` for inputs and for layers that create no step (folded, macro).
enum class LayerClass : std::uint8_t { None, I, II };

// What the backward step reads besides dY (SPEC §2 table, column "backward reads").
enum class BackwardReads : std::uint8_t {
  Nothing,         // add (no access at all), average / global average pool
  XAndW,           // conv2d, depthwise, dense: X if it has dW, W if it writes dX
  AllInputs,       // matmul, multiply: every input
  XAndScale,       // batchnorm, layernorm: X and W, always
  Y,               // relu, relu6, sigmoid, tanh, softmax, dropout (Y stands in for the mask)
  X,               // gelu, swish, hard swish / sigmoid, mish, max pool, global max pool
  GradientOnly,    // concat: dY only (a copy into each input's gradient slice)
  TokenIds,        // embedding: the token ids
};

// How a FLOP count per element is measured.
enum class FlopBasis : std::uint8_t {
  PerOutput,        // per output element
  PerInputElement,  // per element of the (first) input
  PerOutputPerInput,// per output element, times the number of inputs (add)
  PerOutputWindow,  // per output element, times the pooling window k·k (max pool)
  Macs,             // ops_per_mac · MACs (conv, dense, matmul); the constant is ignored
};

struct FlopRule {
  std::int64_t per_element = 0;
  FlopBasis basis = FlopBasis::PerOutput;
};

struct KindInfo {
  Kind kind;
  std::string_view name;  // canonical name used in files and reports
  LayerClass layer_class;
  BackwardReads backward_reads;
  bool folded;            // re-indexing only: no step and no tensor (zero padding, reshape, ...)
  FlopRule fwd;
  FlopRule bwd_dx;        // counted once per input that has a gradient
  FlopRule bwd_dw;
};

const KindInfo& kind_info(Kind k);
const std::vector<KindInfo>& all_kinds();

// Canonical name or a common alias (Keras / PyTorch spellings, case and '_' insensitive).
std::optional<Kind> kind_from_name(std::string_view name);
std::string_view kind_name(Kind k);
std::string_view class_name(LayerClass c);  // "I", "II" or ""

}  // namespace dnnmem
