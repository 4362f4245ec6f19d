// The policy parts' registries (compose.hpp) and prepared compositions. Option values arrive in
// base units: parsing "200GB/s" is the Python layer's, from the unit each option declares here.
#include <pybind11/stl.h>

#include <cmath>
#include <stdexcept>

#include "bindings.hpp"
#include "dnnmem/compose.hpp"

namespace dnnmem::bindings {

OptionMap option_map(const py::dict& options, const std::string& part) {
  OptionMap m;
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (py::isinstance<py::bool_>(value))
      throw std::invalid_argument(part + ": option '" + name + "' must be a number or a name, got a bool");
    if (py::isinstance<py::str>(value)) m.emplace_back(name, value.cast<std::string>());
    else if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value))
      m.emplace_back(name, value.cast<double>());
    else
      throw std::invalid_argument(part + ": option '" + name + "' must be a number or a name, got " +
                                  std::string(py::str(py::type::of(value).attr("__name__"))));
  }
  return m;
}

namespace {

py::list describe_options(const std::vector<OptionSpec>& specs) {
  py::list out;
  for (const OptionSpec& s : specs) {
    py::dict d;
    d["name"] = std::string(s.name);
    d["type"] = s.type == OptionType::Number ? "number" : s.type == OptionType::Integer ? "integer" : "choice";
    d["unit"] = std::string(s.unit);
    d["description"] = std::string(s.description);
    if (s.type == OptionType::Choice) {
      d["default"] = std::string(s.default_choice);
      py::list choices;
      for (auto c : s.choices) choices.append(std::string(c));
      d["choices"] = choices;
    } else {
      d["default"] = s.default_number;
      d["min"] = s.min;
      d["max"] = s.max;
      d["min_exclusive"] = s.min_exclusive;
    }
    out.append(d);
  }
  return out;
}

template <class Part>
void describe(py::list& out, const char* kind, const std::vector<const Part*>& parts) {
  for (const Part* p : parts) {
    py::dict d;
    d["kind"] = kind;
    d["name"] = std::string(p->name);
    d["description"] = std::string(p->description);
    d["options"] = describe_options(p->options);
    out.append(d);
  }
}

}  // namespace

void bind_compose(py::module_& m) {
  m.def("parts", [] {
    py::list out;
    describe(out, "scheduler", scheduler_parts());
    describe(out, "cache", cache_parts());
    describe(out, "link", link_parts());
    describe(out, "compute", compute_parts());
    return out;
  }, "Every registered part: kind, name, description and declared options.");

  py::class_<PreparedPolicy, std::shared_ptr<PreparedPolicy>>(
      m, "PreparedPolicy", "A composition checked and prepared for one schedule.")
      .def_property_readonly("cache", [](const PreparedPolicy& p) { return std::string(p.cache->name); })
      .def_property_readonly("ops_per_mac", [](const PreparedPolicy& p) { return p.ops_per_mac; })
      .def("link_wire_bytes", [](const PreparedPolicy& p, int tensor, std::int64_t bytes) {
        return p.link.wire_bytes(tensor, bytes);
      }, py::arg("tensor"), py::arg("bytes"), "Bytes on the link for `bytes` of tensor `tensor`.")
      .def("transfer_seconds", [](const PreparedPolicy& p, const std::vector<int>& tensor,
                                  const std::vector<std::int64_t>& bytes, const std::vector<bool>& load,
                                  double bandwidth, double throughput) {
        if (tensor.size() != bytes.size() || tensor.size() != load.size())
          throw std::invalid_argument("transfer_seconds: tensor, bytes and load differ in length");
        const TimeBase time = time_base(Hardware{0, bandwidth, throughput});
        const auto n = static_cast<int>(p.link.size.size());
        std::vector<double> out(tensor.size());
        for (std::size_t i = 0; i < tensor.size(); ++i) {
          if (!p.link.num.empty() && (tensor[i] < 0 || tensor[i] >= n))
            throw std::invalid_argument("transfer_seconds: tensor " + std::to_string(tensor[i]) + " out of range");
          out[i] = time.seconds(p.link.ticks(time, tensor[i], bytes[i], load[i]));
        }
        return to_array(out);
      }, py::arg("tensor"), py::arg("bytes"), py::arg("load"), py::arg("bandwidth"), py::arg("throughput"),
         "Seconds each transfer takes on the link alone (the timeline's channel time): `bytes` of "
         "tensor `tensor`, a load or a store, at the design point's bandwidth and throughput.")
      .def("with_kept", [](const PreparedPolicy& p, const std::vector<std::uint8_t>& kept) {
        auto copy = std::make_shared<PreparedPolicy>(p);
        copy->kept_given = kept;
        return copy;
      }, py::arg("kept"),
         "A copy whose cache manager (lp-rounded) keeps the reuse intervals flagged: one flag per "
         "full use, in the schedule's use order (docs/model/optimal.md).")
      .def_property_readonly("compute_work", [](const PreparedPolicy& p) { return to_array(p.compute.work); },
                             "Per step: the FLOPs that take as long at peak throughput.");

  m.def("prepare_policy", [](std::shared_ptr<const Schedule> s, const std::string& cache,
                             const py::dict& cache_options, const std::string& link,
                             const py::dict& link_options, const std::string& compute,
                             const py::dict& compute_options, int ops_per_mac,
                             std::vector<double> link_sparsity, std::vector<double> link_ratio) {
    PolicySpec spec;
    spec.link_tables.sparsity = std::move(link_sparsity);
    spec.link_tables.ratio = std::move(link_ratio);
    spec.cache = {cache, option_map(cache_options, part_label("cache manager", cache))};
    spec.link = {link, option_map(link_options, part_label("link", link))};
    spec.compute = {compute, option_map(compute_options, part_label("compute model", compute))};
    return interruptible([&] { return std::make_shared<PreparedPolicy>(prepare_policy(*s, spec, ops_per_mac)); });
  }, py::arg("schedule"), py::arg("cache") = "lookahead", py::arg("cache_options") = py::dict(),
     py::arg("link") = "raw", py::arg("link_options") = py::dict(), py::arg("compute") = "peak",
     py::arg("compute_options") = py::dict(), py::arg("ops_per_mac") = 2,
     py::arg("link_sparsity") = std::vector<double>{}, py::arg("link_ratio") = std::vector<double>{},
     "Check a composition against a schedule and build its per-schedule tables (link_sparsity, "
     "link_ratio: the link's per-tensor inputs, in tensor order).");

  m.def("zvc_bytes", &zvc_bytes, py::arg("bytes"), py::arg("element_bytes"), py::arg("sparsity"),
        py::arg("window") = 32, py::arg("mask") = true,
        "Bytes on the wire for a zero-value-compressed tensor (cDMA paper, §V-A).");
}

}  // namespace dnnmem::bindings
