// Scheduler `split-backward`: the training iteration with each conv / depthwise / dense layer's
// backward (and a matmul's, when both operands need a gradient) as two steps, dX = dY·Wᵀ and
// dW = Xᵀ·dY, each reading dY. The baseline of the interleaved-gradient-order paper (an NPU that
// runs the two GEMMs one after the other fetches dY twice unless it stays on chip).
//
// Option `order` turns on the intra-layer tile model (docs/model/interleaved.md): `seq` and
// `dy-oracle` / `dy-once` keep the two steps; the fused orders (interleave, dx-major, dw-major, alg1,
// alg1-size, best) make each such layer's backward one step doing both products, tiled.
#include "dnnmem/compose.hpp"
#include <stdexcept>

#include "steps.hpp"

namespace dnnmem {

extern const SchedulerPart scheduler_split_backward{
    "split-backward",
    "training iteration with each GEMM layer's backward as a dX step and a dW step, each reading dY",
    {choice_option("first", "which gradient step runs first", "dx", {"dx", "dw"}),
     choice_option("order", "the tile model's backward order (docs/model/interleaved.md); none: off",
                   "none", {"none", "seq", "interleave", "dx-major", "dw-major", "alg1", "alg1-size",
                            "best", "dy-oracle", "dy-once"}),
     integer_option("tile", "tile model: the tile's edge in elements (the array's rows)", 128, 1, 1 << 20),
     number_option("buffer_fraction", "", "tile model: the share of the free scratchpad the tiles use",
                   0.5, 0, 1, true),
     integer_option("psum_bytes", "tile model: bytes per partial-sum element; 0 = the element size", 0, 0, 16),
     choice_option("method", "tile model: the tile walk (exact) or its closed form", "walk",
                   {"walk", "closed"}),
     choice_option("partition",
                   "tile model: the GEMM dimension cut into parts (best: least traffic; joint: with the order)",
                   "none", {"none", "m", "n", "k", "best", "rule", "joint"}),
     integer_option("parts", "tile model: parts of the partition, one after another", 1, 1, 64),
     integer_option("cores", "tile model: arrays sharing the scratchpad, one part each", 1, 1, 8),
     choice_option("nest", "tile model: each family's loop nest (best: least traffic; fixed: output-stationary ikj / kji)",
                   "best", {"best", "fixed"}),
     choice_option("replace",
                   "tile model: the walk's tile replacement (farthest next use, LRU, or none: nothing kept between operations)",
                   "belady", {"belady", "lru", "none"}),
     choice_option("intermediates",
                   "tile model: partial sums evicted like any tile (evict) or kept on chip while another tile can go (keep)",
                   "evict", {"evict", "keep"}),
     choice_option("reduction",
                   "tile model: a partition's contributions to an output it cuts the reduction of, summed on chip (chip) "
                   "or each part's written off chip and summed from there (dram)",
                   "chip", {"chip", "dram"}),
     choice_option("im2col",
                   "tile model: X and dX bytes as the tensors (raw) or as their im2col GEMM matrices (expanded)",
                   "raw", {"raw", "expanded"}),
     detail::fusion_option()},
    [](const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out) {
      const std::string& order = own.choice("order");
      detail::StepRules rules;
      rules.split_backward = order == "none" || order == "seq" || order == "dy-oracle" || order == "dy-once";
      rules.weight_first = own.choice("first") == "dw";
      detail::read_fusion(own, rules);
      // At `pointwise` a product's backward steps stay its own (a library kernel), as the tile
      // model needs them; at `accelerator` they take in point-wise work it does not model.
      if (order != "none" && rules.fusion == FusionLevel::Accelerator)
        throw std::invalid_argument("scheduler 'split-backward': fusion=accelerator cannot be "
                                    "combined with the tile model (option 'order') yet; use "
                                    "fusion=pointwise or order=none");
      detail::build_steps(net, options, rules, out);
      if (order == "none") return;
      out.tile_model.order = order;
      out.tile_model.tile = own.integer("tile");
      out.tile_model.buffer_fraction = own.number("buffer_fraction");
      out.tile_model.psum_bytes = static_cast<int>(own.integer("psum_bytes"));
      out.tile_model.exact = own.choice("method") == "walk";
      out.tile_model.partition = own.choice("partition");
      out.tile_model.parts = own.integer("parts");
      out.tile_model.cores = static_cast<int>(own.integer("cores"));
      out.tile_model.fixed_nests = own.choice("nest") == "fixed";
      out.tile_model.lru = own.choice("replace") == "lru";
      out.tile_model.no_reuse = own.choice("replace") == "none";
      out.tile_model.keep_psum = own.choice("intermediates") == "keep";
      out.tile_model.reduce_off_chip = own.choice("reduction") == "dram";
      out.tile_model.im2col_expanded = own.choice("im2col") == "expanded";
    }};

}  // namespace dnnmem
