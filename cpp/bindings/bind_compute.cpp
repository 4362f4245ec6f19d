// _core.layer_gemm and _core.systolic_cycles: the compute model's arithmetic (gemm.hpp,
// systolic.hpp), exposed for tests that check it on the built-in networks and against SCALE-Sim.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>

#include "bindings.hpp"
#include "dnnmem/gemm.hpp"
#include "dnnmem/systolic.hpp"
#include "dnnmem/tiles.hpp"

namespace dnnmem::bindings {
namespace {

// As in bind_sweep.cpp: set the ValueError directly, so no global translator another extension
// registered can turn std::invalid_argument into RuntimeError.
[[noreturn]] void raise_value_error(const std::string& message) {
  PyErr_SetString(PyExc_ValueError, message.c_str());
  throw py::error_already_set();
}

}  // namespace

void bind_compute(py::module_& m) {
  m.def("layer_gemm", [](const Network& net, int layer, const std::string& pass, std::int64_t batch,
                         int input) {
    if (layer < 0 || static_cast<std::size_t>(layer) >= net.layers.size())
      raise_value_error("layer: index " + std::to_string(layer) + " out of range (the network has " +
                        std::to_string(net.layers.size()) + " layers)");
    const auto p = gemm_pass_from_name(pass);
    if (!p)
      raise_value_error("pass: unknown pass '" + pass +
                        "' (valid: forward, backward_data, backward_weight)");
    try {
      const Gemm g = layer_gemm(net, net.layers[static_cast<std::size_t>(layer)], *p, batch, input);
      return std::make_tuple(g.m, g.n, g.k, g.count);
    } catch (const std::invalid_argument& e) {
      raise_value_error(e.what());
    }
  }, py::arg("network"), py::arg("layer"), py::arg("pass_"), py::arg("batch"), py::arg("input") = 0,
  "(m, n, k, count) of a layer's GEMM: `count` products of m x k . k x n; (0, 0, 0, 0) when the "
  "pass does no MACs. pass_: 'forward', 'backward_data' or 'backward_weight'; input: which "
  "input's gradient backward_data computes (matmul: 0 or 1).");

  m.def("systolic_cycles", [](std::int64_t m_, std::int64_t n, std::int64_t k, std::int64_t count,
                              std::int64_t rows, std::int64_t cols, const std::string& dataflow,
                              const std::string& waves, std::int64_t tile, std::int64_t arrays) {
    const auto d = dataflow_from_name(dataflow);
    if (!d) raise_value_error("dataflow: unknown dataflow '" + dataflow + "' (valid: ws, os, is)");
    const auto w = waves_from_name(waves);
    if (!w)
      raise_value_error("waves: unknown value '" + waves +
                        "' (valid: folds, pipelined, double-buffered)");
    try {
      const Gemm g{m_, n, k, count};
      const SystolicArray a{rows, cols, *d, *w, tile};
      const std::int64_t cycles = systolic_cycles(g, a, arrays);
      const double util = cycles == 0 ? 0.0
                                      : static_cast<double>(gemm_macs(g)) /
                                            (static_cast<double>(rows) * static_cast<double>(cols) *
                                             static_cast<double>(arrays) * static_cast<double>(cycles));
      return std::make_tuple(cycles, util);
    } catch (const std::invalid_argument& e) {
      raise_value_error(e.what());
    }
  }, py::arg("m"), py::arg("n"), py::arg("k"), py::arg("count"), py::arg("rows"), py::arg("cols"),
  py::arg("dataflow"), py::arg("waves") = "folds", py::arg("tile") = 0, py::arg("arrays") = 1,
  "(cycles, utilisation) of `count` m x k . k x n GEMMs on `arrays` rows x cols systolic arrays "
  "with dataflow 'ws', 'os' or 'is': SCALE-Sim v2's compute-cycle model (waves='folds', tile=0), "
  "or waves of `tile` streamed lines that are 'pipelined' or 'double-buffered' "
  "(docs/model/compute-systolic.md).");

  const auto tile_fn = [](bool walk) {
    return [walk](std::int64_t m_, std::int64_t k, std::int64_t n, const std::string& order,
                  std::int64_t tile, std::int64_t c_eff, std::int64_t elem_bytes,
                  std::int64_t psum_bytes, const std::string& nest_x, const std::string& nest_w,
                  const std::vector<std::string>& skip_x, const std::vector<std::string>& skip_w,
                  const std::string& partition, std::int64_t parts, bool lockstep,
                  const std::string& replace, const std::string& intermediates, const std::string& reduction) {
      const auto o = backward_order_from_name(order);
      if (!o)
        raise_value_error("order: unknown order '" + order +
                          "' (valid: seq, seq-dw-first, interleave, dx-major, dw-major)");
      const auto mask = [](const std::vector<std::string>& names, const char* what) {
        unsigned bits = 0;
        for (const auto& name : names) {
          int found = -1;
          for (int x = 0; x < kTileTensors; ++x)
            if (tile_tensor_name(static_cast<TileTensor>(x)) == name) found = x;
          if (found < 0) raise_value_error(std::string(what) + ": unknown tensor '" + name + "' (valid: dY, W, X, dX, dW)");
          bits |= 1U << found;
        }
        return bits;
      };
      TileWalkOptions opt{tile, c_eff, elem_bytes, psum_bytes, nest_x, nest_w};
      opt.skip_x = mask(skip_x, "skip_x");
      opt.skip_w = mask(skip_w, "skip_w");
      if (partition != "none" && partition != "m" && partition != "n" && partition != "k")
        raise_value_error("partition: unknown '" + partition + "' (valid: none, m, n, k)");
      opt.partition = partition == "m" ? 0 : partition == "n" ? 1 : partition == "k" ? 2 : -1;
      opt.parts = parts;
      opt.lockstep = lockstep;
      if (replace != "belady" && replace != "lru" && replace != "none")
        raise_value_error("replace: unknown '" + replace + "' (valid: belady, lru, none)");
      opt.lru = replace == "lru";
      opt.no_reuse = replace == "none";
      if (intermediates != "evict" && intermediates != "keep")
        raise_value_error("intermediates: unknown '" + intermediates + "' (valid: evict, keep)");
      opt.keep_psum = intermediates == "keep";
      if (reduction != "chip" && reduction != "dram")
        raise_value_error("reduction: unknown '" + reduction + "' (valid: chip, dram)");
      opt.reduce_off_chip = reduction == "dram";
      TileTraffic t;
      std::string error;
      {
        py::gil_scoped_release release;  // a large grid walks for a while
        try {
          t = walk ? tile_walk(m_, k, n, *o, opt) : tile_estimate(m_, k, n, *o, opt);
        } catch (const std::invalid_argument& e) {
          error = e.what();
        }
      }
      if (!error.empty()) raise_value_error(error);
      py::dict out;
      const auto per_tensor = [](const std::array<std::int64_t, kTileTensors>& a) {
        py::dict d;
        for (int x = 0; x < kTileTensors; ++x)
          d[py::str(std::string(tile_tensor_name(static_cast<TileTensor>(x))))] = a[static_cast<std::size_t>(x)];
        return d;
      };
      out["read"] = per_tensor(t.read);
      out["written"] = per_tensor(t.written);
      out["psum_read"] = per_tensor(t.psum_read);
      out["psum_written"] = per_tensor(t.psum_written);
      out["operations"] = t.operations;
      out["dy_read_by_dw"] = t.dy_read_by_dw;
      return out;
    };
  };
  const auto tile_args = [] {
    return std::make_tuple(py::arg("m"), py::arg("k"), py::arg("n"), py::arg("order"), py::arg("tile"),
                           py::arg("c_eff"), py::arg("elem_bytes") = 2, py::arg("psum_bytes") = 2,
                           py::arg("nest_x") = "ijk", py::arg("nest_w") = "jik",
                           py::arg("skip_x") = std::vector<std::string>{},
                           py::arg("skip_w") = std::vector<std::string>{},
                           py::arg("partition") = "none", py::arg("parts") = 1,
                           py::arg("lockstep") = false, py::arg("replace") = "belady",
                           py::arg("intermediates") = "evict", py::arg("reduction") = "chip");
  };
  std::apply([&](auto&&... a) {
    m.def("tile_walk", tile_fn(true), a...,
          "Bytes one backward GEMM step moves (docs/model/interleaved.md, the tile walk): the paper's "
          "forward X(m, k) . W(k, n); its dX and dW tile operations in `order` over a scratchpad share "
          "of c_eff bytes with farthest-next-use replacement. skip_x / skip_w: tensors whose touches by "
          "the dX-ops / dW-ops are free (kept whole by the cache; dy-oracle). replace='lru': least-recently-"
          "used replacement instead; replace='none': nothing kept between operations (each loads its "
          "read tiles, outputs written once); intermediates='keep': a partial sum is evicted only when no other tile "
          "can go (the paper's §4.3); reduction='dram': a partition that cuts M (N) gives each part its own dW (dX), "
          "written off chip as a partial sum and read back to be summed (the paper's §5). A dict: 'read', "
          "'written' (final), 'psum_read', 'psum_written', each {'dY', 'W', 'X', 'dX', 'dW'} -> "
          "bytes; 'operations'; 'dy_read_by_dw' (the dW-ops' part of read['dY']).");
    m.def("tile_estimate", tile_fn(false), a...,
          "The closed form of the tile walk (docs/model/interleaved.md, the closed form): the same "
          "arguments and dict, from the loop nests' reuse distances without walking.");
  }, tile_args());
}

}  // namespace dnnmem::bindings
