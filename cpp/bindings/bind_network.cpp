#include <pybind11/stl.h>

#include "bindings.hpp"
#include "dnnmem/network_json.hpp"

namespace dnnmem::bindings {

void bind_network(py::module_& m) {
  py::class_<Network, std::shared_ptr<Network>>(m, "Network",
                                                "A parsed network (per-sample; no batch).")
      .def_readonly("name", &Network::name)
      .def_readonly("source", &Network::source)
      .def_readonly("document", &Network::document)
      .def_property_readonly("num_layers", [](const Network& n) { return n.layers.size(); })
      .def("parameters", &Network::parameters)
      .def("trainable_parameters", &Network::trainable_parameters)
      .def_property_readonly("outputs", [](const Network& n) { return n.outputs; })
      .def("layer_table", [](const Network& n) {
        const auto& L = n.layers;
        py::dict d;
        d["name"] = column<py::object>(L, [](const Layer& l) { return py::str(l.name); });
        d["kind"] = column<py::object>(L, [](const Layer& l) { return py::str(std::string(kind_name(l.kind))); });
        d["class"] = column<py::object>(L, [](const Layer& l) {
          return py::str(std::string(class_name(kind_info(l.kind).layer_class)));
        });
        d["inputs"] = column<py::object>(L, [&](const Layer& l) {
          py::list ins;
          for (int i : l.inputs) ins.append(n.layers[static_cast<std::size_t>(i)].name);
          return py::tuple(ins);
        });
        d["output_shape"] = column<py::object>(L, [](const Layer& l) { return py::tuple(py::cast(l.shape)); });
        d["elements"] = column<std::int64_t>(L, [](const Layer& l) { return l.elements; });
        d["int_bytes"] = column<std::int64_t>(L, [](const Layer& l) {
          return l.dtype == DType::Int32 ? 4 : l.dtype == DType::Int64 ? 8 : 0;
        });
        d["weight"] = column<py::object>(L, [&](const Layer& l) {
          return l.weight < 0 ? py::str("") : py::str(n.weights[static_cast<std::size_t>(l.weight)].name);
        });
        d["weight_elements"] = column<std::int64_t>(L, [&](const Layer& l) {
          return l.weight < 0 ? 0 : n.weights[static_cast<std::size_t>(l.weight)].elements;
        });
        d["trainable"] = column<bool>(L, [&](const Layer& l) {
          return l.weight >= 0 && n.weights[static_cast<std::size_t>(l.weight)].trainable;
        });
        d["state_elements"] = column<std::int64_t>(L, [](const Layer& l) { return l.state_elements; });
        d["fwd_macs"] = column<std::int64_t>(L, [](const Layer& l) { return l.fwd.macs; });
        d["fwd_flops"] = column<std::int64_t>(L, [](const Layer& l) { return l.fwd.flops; });
        d["bwd_dx_macs"] = column<std::int64_t>(L, [](const Layer& l) { return l.bwd_dx.macs; });
        d["bwd_dx_flops"] = column<std::int64_t>(L, [](const Layer& l) { return l.bwd_dx.flops; });
        d["bwd_dw_macs"] = column<std::int64_t>(L, [](const Layer& l) { return l.bwd_dw.macs; });
        d["bwd_dw_flops"] = column<std::int64_t>(L, [](const Layer& l) { return l.bwd_dw.flops; });
        d["folded"] = column<bool>(L, [](const Layer& l) { return kind_info(l.kind).folded; });
        return d;
      }, "Per-layer columns (per sample) as NumPy arrays; dnnmem.Network.layers builds the DataFrame.");

  m.def("parse_network", [](std::string_view text, const std::string& source) {
    return interruptible([&] { return parse_network(text, source); });
  }, py::arg("text"), py::arg("source") = "<string>",
        "Parse a network document (JSON text). Raises NetworkError naming source, layer, field.");
  m.def("load_network_file", [](const std::string& path, std::size_t max_bytes) {
    return interruptible([&] { return load_network_file(path, max_bytes); });
  }, py::arg("path"), py::arg("max_bytes") = kMaxNetworkFileBytes,
     "Read and parse a network file of at most max_bytes bytes.");
  m.attr("MAX_NETWORK_FILE_BYTES") = kMaxNetworkFileBytes;

  m.def("kinds_table", [] {
    py::list rows;
    for (const auto& k : all_kinds()) {
      py::dict r;
      r["kind"] = std::string(k.name);
      r["class"] = std::string(class_name(k.layer_class));
      r["folded"] = k.folded;
      r["backward_reads"] = static_cast<int>(k.backward_reads);
      r["fwd"] = py::make_tuple(k.fwd.per_element, static_cast<int>(k.fwd.basis));
      r["bwd_dx"] = py::make_tuple(k.bwd_dx.per_element, static_cast<int>(k.bwd_dx.basis));
      r["bwd_dw"] = py::make_tuple(k.bwd_dw.per_element, static_cast<int>(k.bwd_dw.basis));
      rows.append(r);
    }
    return rows;
  }, "The per-kind table of SPEC §2 (for docs and tests).");
}

}  // namespace dnnmem::bindings
