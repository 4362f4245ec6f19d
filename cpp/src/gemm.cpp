// Layer -> GEMM (docs/model/compute-systolic.md, "Layer -> GEMM"). The mapping is the standard
// im2col lowering; each case below states why its m*n*k*count equals the MAC count network.cpp
// computed for the same layer, so the GEMM view never changes how much work a step does.
#include "dnnmem/gemm.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace dnnmem {
namespace {

std::int64_t mul(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw std::invalid_argument(what + " overflows int64");
  return r;
}

const Shape& input_shape(const Network& net, const Layer& l, std::size_t i) {
  if (i >= l.inputs.size())
    throw std::invalid_argument("layer '" + l.name + "': input " + std::to_string(i) +
                                " is missing");
  const auto index = static_cast<std::size_t>(l.inputs[i]);
  if (index >= net.layers.size())
    throw std::invalid_argument("layer '" + l.name + "': input index out of range");
  return net.layers[index].shape;
}

// The three products of one convolution group, lowered by im2col: the forward GEMM multiplies the
// [rows x patch] im2col matrix by the [patch x filters] weight matrix. dX is computed in column
// form (dY . W^T, [rows x patch], which col2im then scatters back): the same MACs as the forward
// pass, as SPEC §2 counts them; dW = im2col(X)^T . dY.
Gemm conv_pass(GemmPass pass, std::int64_t rows, std::int64_t patch, std::int64_t filters,
               std::int64_t groups) {
  switch (pass) {
    case GemmPass::Forward: return {rows, filters, patch, groups};
    case GemmPass::BackwardData: return {rows, patch, filters, groups};
    case GemmPass::BackwardWeight: return {patch, filters, rows, groups};
  }
  return {};
}

}  // namespace

std::int64_t gemm_macs(const Gemm& g) {
  const std::string what = "GEMM MACs (" + std::to_string(g.m) + " x " + std::to_string(g.n) +
                           " x " + std::to_string(g.k) + " x " + std::to_string(g.count) + ")";
  return mul(mul(mul(g.m, g.n, what), g.k, what), g.count, what);
}

Gemm layer_gemm(const Network& net, const Layer& l, GemmPass pass, std::int64_t batch, int input) {
  if (batch < 1)
    throw std::invalid_argument("batch: must be a positive integer, got " + std::to_string(batch));
  const auto n_inputs = static_cast<int>(l.inputs.size());
  if (input < 0 || (input > 0 && input >= n_inputs))
    throw std::invalid_argument("layer '" + l.name + "': input " + std::to_string(input) +
                                " out of range (the layer has " + std::to_string(n_inputs) +
                                " inputs)");
  const OpCount& ops = pass == GemmPass::Forward        ? l.fwd
                       : pass == GemmPass::BackwardData ? l.bwd_dx
                                                        : l.bwd_dw;
  // A pass without MACs (no weight to train, an element-wise kind) is not a GEMM.
  if (ops.macs == 0) return {};
  const std::string who = "layer '" + l.name + "': ";

  switch (l.kind) {
    case Kind::Conv2D:
    case Kind::DepthwiseConv2D: {
      // Output [H', W', Cout]; rows of the im2col matrix = batch * H' * W'.
      const std::int64_t rows = mul(batch, mul(l.shape.at(0), l.shape.at(1), who + "H' * W'"),
                                    who + "GEMM rows (batch * H' * W')");
      const std::int64_t rs = mul(l.params.kernel[0], l.params.kernel[1], who + "kernel area");
      const std::int64_t c_in = input_shape(net, l, 0).at(2);
      if (l.kind == Kind::DepthwiseConv2D) {
        // A grouped convolution with one group per input channel: each group convolves one
        // channel (patch R*S) with depth_multiplier filters. MACs: H'W' * Cin*dm * R*S.
        return conv_pass(pass, rows, rs, l.params.depth_multiplier, c_in);
      }
      const std::int64_t g = l.params.groups;
      // MACs: H'W' * Cout * R*S*Cin/g = rows * (R*S*Cin/g) * (Cout/g) * g.
      return conv_pass(pass, rows, mul(rs, c_in / g, who + "im2col patch"), l.shape.at(2) / g, g);
    }
    case Kind::Dense: {
      // Applied to the last dimension; every leading dimension (tokens) is a row. MACs:
      // elements * in = (tokens * units) * in.
      const std::int64_t in = input_shape(net, l, 0).back();
      const std::int64_t units = l.shape.back();
      const std::int64_t rows = mul(batch, l.elements / units, who + "GEMM rows (batch * tokens)");
      switch (pass) {
        case GemmPass::Forward: return {rows, units, in, 1};
        case GemmPass::BackwardData: return {rows, in, units, 1};
        case GemmPass::BackwardWeight: return {in, units, rows, 1};
      }
      return {};
    }
    case Kind::MatMul: {
      // Rebuild the operands as network.cpp's infer_matmul does: split [T, d] into
      // [heads, T, d/heads], apply the transposes; C[.., m, n] = A[.., m, k] . B[.., k, n] with
      // numpy broadcasting of the leading dims. MACs per sample: elements * k.
      const LayerParams& p = l.params;
      Shape s[2];
      for (std::size_t i = 0; i < 2; ++i) {
        s[i] = input_shape(net, l, i);
        if (p.heads > 0 && s[i].size() == 2) s[i] = {p.heads, s[i][0], s[i][1] / p.heads};
        if (s[i].size() < 2) throw std::invalid_argument(who + "matmul input of rank < 2");
      }
      const bool ta = p.transpose_a, tb = p.transpose_b;
      if (ta) std::swap(s[0][s[0].size() - 1], s[0][s[0].size() - 2]);
      if (tb) std::swap(s[1][s[1].size() - 1], s[1][s[1].size() - 2]);
      const std::int64_t m = s[0][s[0].size() - 2], k = s[0].back(), n = s[1].back();
      // The broadcast leading dims hold elements / (m*n) products (merge_heads keeps elements).
      const std::int64_t count =
          mul(batch, l.elements / mul(m, n, who + "m * n"), who + "GEMM count (batch * heads)");
      if (pass == GemmPass::Forward) return {m, n, k, count};
      // The gradient of an input is produced in that input's stored layout: for A[m, k]
      // dA = dC . B^T (m x n . n x k), for a stored A^T = [k, m] dA^T = B . dC^T (k x n . n x m);
      // for B[k, n] dB = A^T . dC (k x m . m x n), for a stored B^T = [n, k] dB^T = dC^T . A.
      // An input broadcast over leading dims sums its gradient over them: the same MACs, counted
      // as `count` products accumulated into one.
      if (input == 0) return ta ? Gemm{k, m, n, count} : Gemm{m, k, n, count};
      return tb ? Gemm{n, k, m, count} : Gemm{k, n, m, count};
    }
    default: break;
  }
  return {};
}

std::string_view gemm_pass_name(GemmPass p) {
  switch (p) {
    case GemmPass::Forward: return "forward";
    case GemmPass::BackwardData: return "backward_data";
    case GemmPass::BackwardWeight: return "backward_weight";
  }
  return "";
}

std::optional<GemmPass> gemm_pass_from_name(std::string_view name) {
  if (name == "forward" || name == "fwd") return GemmPass::Forward;
  if (name == "backward_data" || name == "dx") return GemmPass::BackwardData;
  if (name == "backward_weight" || name == "dw") return GemmPass::BackwardWeight;
  return std::nullopt;
}

}  // namespace dnnmem
