// The fusion stage (docs/model/fusion.md), between the network and the schedule: which layers a
// compiler runs as one step. `none` (the default) keeps one step per layer and pass, the thesis's
// model. `pointwise` is what PyTorch Inductor and XLA do in training: point-wise layers (batch
// norm's apply, activations, residual adds, dropout, layer norm, softmax) fuse with their
// point-wise producers and consumers, and convolutions and matrix products stay library kernels,
// each a step of its own. `accelerator` also puts a convolution or matrix product in the same step
// as its point-wise consumers, the vector units at the buffer of WaveCore and OnSRAM; a batch
// norm's statistics need the product whole, so in the forward pass the batch norm starts a step
// of its own (its backward joins the product's).
//
// The groups are computed here from the network and its forward order; the step builder
// (cpp/src/schedule.cpp) merges each group's steps (cpp/src/fusion_steps.cpp), so that every
// scheduler, cache manager, link and compute model sees ordinary steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "dnnmem/kinds.hpp"
#include "dnnmem/network.hpp"

namespace dnnmem {

enum class FusionLevel : std::uint8_t { None, Pointwise, Accelerator };

std::string_view fusion_level_name(FusionLevel level);  // "none", "pointwise", "accelerator"
std::optional<FusionLevel> fusion_level_from_name(std::string_view name);

// How a layer kind takes part in fusion (docs/model/fusion.md, "Which layers join").
enum class FusionClass : std::uint8_t {
  Alone,         // never fused: pools with a window, concat, upsample, class token, opaque
  Product,       // convolution, depthwise, dense, matmul: a library kernel (pointwise), or the
                 // first layer of its group (accelerator)
  Gather,        // embedding: starts a group that point-wise consumers join
  Pointwise,     // one output element from the same element of each input
  RowReduction,  // layer norm, softmax: a reduction along each row, complete once the row is
  BatchNorm,     // statistics over the whole batch, then a point-wise apply
  Reduction,     // global pools: joins its producer's group and ends it
};

FusionClass fusion_class(Kind kind);

// The backward step of these kinds needs one bit per element of the layer's output (ReLU's
// y > 0, ReLU6's 0 < y < 6, leaky ReLU's sign), the "mask" of docs/model/fusion.md, which is
// also what mbs-strict(relu_mask=on) moves instead of the output.
bool backward_needs_only_sign(Kind kind);

// Bytes of a mask of `elements` elements: one bit each, rounded up to a whole byte. A schedule's
// mask tensor is batch × mask_bytes(elements per sample), so sub-batch slices of it are exact.
inline std::int64_t mask_bytes(std::int64_t elements) { return (elements + 7) / 8; }

// The groups of one level: each a list of layers in forward order. Forward and backward groups
// differ only at `accelerator` (a batch norm after a product in the same group starts a forward
// group of its own).
struct FusionGroups {
  FusionLevel level = FusionLevel::None;
  std::vector<std::vector<int>> forward, backward;  // in the order of their last member
  std::vector<int> forward_of, backward_of;          // per layer: its group, -1 if none
};

// The groups of `level` over the layers of `forward_order` (the layers with a forward step, in
// step order). At `none` every layer is a group of its own. Without a backward pass
// (`training` false) a batch norm normalises with its running statistics: a point-wise layer,
// no statistics cut.
FusionGroups fusion_groups(const Network& net, const std::vector<int>& forward_order,
                           FusionLevel level, bool training = true);

}  // namespace dnnmem
