// The GEMM view of a layer's work (docs/model/compute-systolic.md, "Layer -> GEMM"). A compute
// model that cares about shapes (the systolic array) needs more than a MAC count: it needs the
// M x K . K x N matrix product each pass performs. This header maps conv2d, depthwise conv2d,
// dense and matmul layers to that product, with the im2col lowering for convolutions; every other
// kind is not a GEMM. The mapping keeps MACs exact: m*n*k*count equals the layer's MAC count of
// that pass times the batch, for every layer (tests/python/test_gemm.py checks the zoo).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "dnnmem/network.hpp"

namespace dnnmem {

// `count` independent (m x k) . (k x n) products run one after another; count 0 = not a GEMM
// (then m = n = k = 0 too).
struct Gemm {
  std::int64_t m = 0, n = 0, k = 0, count = 0;
  friend bool operator==(const Gemm&, const Gemm&) = default;
};

enum class GemmPass : std::uint8_t {
  Forward,
  BackwardData,    // dX = dY . W^T (column form for convolutions)
  BackwardWeight,  // dW = X^T . dY
};

// m*n*k*count; throws std::invalid_argument("... MACs overflow") past int64.
std::int64_t gemm_macs(const Gemm& g);

// The GEMM of layer `l` (a layer of `net`) for `pass` at mini-batch `batch`. `input` picks the
// input whose gradient BackwardData computes: matmul has two (0 = A, 1 = B), every other GEMM
// kind one. Returns Gemm{} when the layer does no MACs in that pass: kinds that are not
// conv2d / depthwise_conv2d / dense / matmul, BackwardWeight of a layer without a weight, and
// matmul's BackwardWeight. Throws std::invalid_argument for batch < 1, an input index out of
// range, or a product that overflows int64 (the message names the layer and the quantity).
Gemm layer_gemm(const Network& net, const Layer& l, GemmPass pass, std::int64_t batch,
                int input = 0);

std::string_view gemm_pass_name(GemmPass p);  // "forward", "backward_data", "backward_weight"
std::optional<GemmPass> gemm_pass_from_name(std::string_view name);  // also "fwd", "dx", "dw"

}  // namespace dnnmem
