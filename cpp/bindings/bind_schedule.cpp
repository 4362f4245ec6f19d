#include <pybind11/stl.h>

#include "bindings.hpp"
#include "dnnmem/report.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem::bindings {

void bind_schedule(py::module_& m) {
  py::class_<Schedule, std::shared_ptr<Schedule>>(m, "Schedule",
                                                  "Steps, accesses and tensor uses of one iteration.")
      .def_readonly("batch", &Schedule::batch)
      .def_readonly("bytes_per_element", &Schedule::bytes_per_element)
      .def_readonly("scheduler", &Schedule::scheduler)
      .def_property_readonly("training", [](const Schedule& s) { return (s.capabilities & kTraining) != 0; })
      .def_property_readonly("num_steps", [](const Schedule& s) { return s.steps.size(); })
      .def_property_readonly("num_tensors", [](const Schedule& s) { return s.tensors.size(); })
      .def("num_intervals", &Schedule::num_intervals)
      .def("peak_alive_bytes", &Schedule::peak_alive_bytes)
      .def("total_ops", &Schedule::total_ops, py::arg("ops_per_mac") = 2)
      .def("step_table", [](const Schedule& s) {
        py::dict d;
        d["phase"] = column<std::uint8_t>(s.steps, [](const Step& x) { return static_cast<std::uint8_t>(x.phase); });
        d["layer"] = column<std::int32_t>(s.steps, [](const Step& x) { return x.layer; });
        d["part"] = column<std::uint8_t>(s.steps, [](const Step& x) { return static_cast<std::uint8_t>(x.part); });
        d["macs"] = column<std::int64_t>(s.steps, [](const Step& x) { return x.ops.macs; });
        d["flops"] = column<std::int64_t>(s.steps, [](const Step& x) { return x.ops.flops; });
        d["first_access"] = column<std::int32_t>(s.steps, [](const Step& x) { return x.first_access; });
        d["num_accesses"] = column<std::int32_t>(s.steps, [](const Step& x) { return x.num_accesses; });
        return d;
      })
      .def("group_table", [](const Schedule& s) {
        // Serialized schedules (scheduler mbs): per step its layer group and sub-batch, per group
        // its forward positions, footprint per sample and sub-batch bounds. Empty otherwise.
        std::vector<std::int32_t> first, last;
        std::vector<std::int64_t> footprint;
        py::list bounds;
        for (const LayerGroup& g : s.groups) {
          first.push_back(g.first);
          last.push_back(g.last);
          footprint.push_back(g.footprint);
          bounds.append(py::cast(g.bounds));
        }
        py::dict d;
        d["first"] = to_array(first);
        d["last"] = to_array(last);
        d["footprint"] = to_array(footprint);
        d["bounds"] = bounds;
        d["step_group"] = to_array(std::vector<std::int32_t>(s.step_group.begin(), s.step_group.end()));
        d["step_sub_batch"] = to_array(std::vector<std::int32_t>(s.step_sub_batch.begin(), s.step_sub_batch.end()));
        return d;
      }, "Layer groups of a serialized schedule (scheduler mbs); empty arrays for the others.")
      .def_readonly("fusion", &Schedule::fusion)
      .def("fusion_table", [](const Schedule& s) {
        // Fused schedules (docs/model/fusion.md): per step the layers it runs and the bytes it
        // keeps on chip between them. At fusion level none: each step's one layer, 0 bytes.
        std::vector<std::int32_t> step, layer;
        for (std::size_t i = 0; i < s.steps.size(); ++i)
          for (int l : s.layers_of(static_cast<int>(i))) {
            step.push_back(static_cast<std::int32_t>(i));
            layer.push_back(l);
          }
        std::vector<std::int64_t> inside = s.step_intermediate_bytes;
        inside.resize(s.steps.size(), 0);
        py::dict d;
        d["step"] = to_array(step);
        d["layer"] = to_array(layer);
        d["intermediate_bytes"] = to_array(inside);
        return d;
      }, "Per step the layers it runs (step, layer) and its intermediate bytes (per step).")
      .def("gemm_table", [](const Schedule& s) {
        std::vector<std::int32_t> step;
        for (std::size_t i = 0; i < s.steps.size(); ++i)
          step.insert(step.end(), static_cast<std::size_t>(s.steps[i].num_gemms), static_cast<std::int32_t>(i));
        py::dict d;
        d["step"] = to_array(step);
        d["m"] = column<std::int64_t>(s.gemms, [](const Gemm& g) { return g.m; });
        d["n"] = column<std::int64_t>(s.gemms, [](const Gemm& g) { return g.n; });
        d["k"] = column<std::int64_t>(s.gemms, [](const Gemm& g) { return g.k; });
        d["count"] = column<std::int64_t>(s.gemms, [](const Gemm& g) { return g.count; });
        return d;
      }, "Each step's GEMMs (m x k . k x n, `count` of them), steps in order.")
      .def("access_table", [](const Schedule& s) {
        py::dict d;
        d["tensor"] = column<std::int32_t>(s.accesses, [](const Access& a) { return a.tensor; });
        d["read"] = column<bool>(s.accesses, [](const Access& a) { return a.read; });
        d["write"] = column<bool>(s.accesses, [](const Access& a) { return a.write; });
        d["partial"] = column<bool>(s.accesses, [](const Access& a) { return a.partial; });
        d["bytes"] = column<std::int64_t>(s.accesses, [](const Access& a) { return a.bytes; });
        return d;
      })
      .def("tensor_table", [](const Schedule& s) {
        const auto& T = s.tensors;
        py::dict d;
        d["name"] = column<py::object>(T, [](const Tensor& t) { return py::str(t.name); });
        d["role"] = column<std::uint8_t>(T, [](const Tensor& t) { return static_cast<std::uint8_t>(t.role); });
        d["layer"] = column<std::int32_t>(T, [](const Tensor& t) { return t.layer; });
        d["bytes"] = column<std::int64_t>(T, [](const Tensor& t) { return t.bytes; });
        d["starts_offchip"] = column<bool>(T, [](const Tensor& t) { return t.starts_offchip; });
        d["must_end_offchip"] = column<bool>(T, [](const Tensor& t) { return t.must_end_offchip; });
        d["mask"] = column<bool>(T, [](const Tensor& t) { return t.mask; });
        d["first_use"] = column<std::int32_t>(T, [](const Tensor& t) { return t.first_use; });
        d["last_use"] = column<std::int32_t>(T, [](const Tensor& t) { return t.last_use; });
        d["first_full_use"] = column<std::int32_t>(T, [](const Tensor& t) { return t.first_full_use; });
        d["num_uses"] = column<std::int32_t>(T, [](const Tensor& t) { return t.use_end - t.use_begin; });
        return d;
      })
      .def("use_table", [](const Schedule& s) {
        py::dict d;
        std::vector<std::int32_t> tensor;
        tensor.reserve(s.uses.size());
        for (std::size_t t = 0; t < s.tensors.size(); ++t)
          for (int u = s.tensors[t].use_begin; u < s.tensors[t].use_end; ++u)
            tensor.push_back(static_cast<std::int32_t>(t));
        d["tensor"] = to_array(tensor);
        d["step"] = column<std::int32_t>(s.uses, [](const Use& u) { return u.step; });
        d["read"] = column<bool>(s.uses, [](const Use& u) { return u.read; });
        d["write"] = column<bool>(s.uses, [](const Use& u) { return u.write; });
        d["partial"] = column<bool>(s.uses, [](const Use& u) { return u.partial; });
        d["bytes"] = column<std::int64_t>(s.uses, [](const Use& u) { return u.bytes; });
        return d;
      })
      .def("reuse_frequency", [](const Schedule& s, int ops_per_mac) {
        return to_array(reuse_frequency(s, ops_per_mac));
      }, py::arg("ops_per_mac") = 2, "FLOP/byte per step (thesis Eq. 3.4); NaN where no byte moves.");

  m.def("build_schedule", [](std::shared_ptr<const Network> net, std::int64_t batch, int bytes_per_element,
                             const std::string& scheduler, const py::dict& scheduler_options) {
    ScheduleOptions o;
    o.batch = batch;
    o.bytes_per_element = bytes_per_element;
    o.scheduler = scheduler;
    o.scheduler_options = option_map(scheduler_options, "scheduler '" + scheduler + "'");
    // Reads only the C++ Network, which Python cannot mutate.
    return interruptible([&] { return std::make_shared<Schedule>(build_schedule(*net, o)); });
  }, py::arg("network"), py::arg("batch"), py::arg("bytes_per_element") = 4,
     py::arg("scheduler") = "default", py::arg("scheduler_options") = py::dict());
}

}  // namespace dnnmem::bindings
