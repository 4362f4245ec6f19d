#include <pybind11/stl.h>

#include "bindings.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/compose.hpp"

namespace dnnmem::bindings {

void bind_estimate(py::module_& m) {
  py::class_<Estimate, std::shared_ptr<Estimate>>(m, "Estimate", "One design point, estimated.")
      .def_readonly("seconds", &Estimate::seconds)
      .def_readonly("steps_seconds", &Estimate::steps_seconds)
      .def_readonly("drain_seconds", &Estimate::drain_seconds)
      .def_readonly("stall_seconds", &Estimate::stall_seconds)
      .def_readonly("capacity_stall_seconds", &Estimate::capacity_stall_seconds)
      .def_readonly("compute_seconds", &Estimate::compute_seconds)
      .def_readonly("traffic_in", &Estimate::traffic_in)
      .def_readonly("traffic_out", &Estimate::traffic_out)
      .def_readonly("wire_in", &Estimate::wire_in)
      .def_readonly("wire_out", &Estimate::wire_out)
      .def_property_readonly("counts", [](const Estimate& e) {
        py::dict d;
        d["kept"] = e.plan.counts.kept;
        d["prefetched"] = e.plan.counts.prefetched;
        d["born"] = e.plan.counts.born;
        d["offloads"] = e.plan.counts.offloads;
        return d;
      })
.def_property_readonly("pins", [](const Estimate& e) {
        // The pinning managers' report (docs/model/report.md, "Pinning").
        py::dict d;
        d["pinned"] = e.pins.pinned;
        d["pinned_bytes"] = e.pins.pinned_bytes;
        d["recompute_seconds"] = e.pins.recompute_seconds;
        return d;
      })
      .def("pin_table", [](const Estimate& e) {
        const auto& P = e.plan.pins;
        py::dict d;
        d["tensor"] = column<std::int32_t>(P, [](const Pin& x) { return x.tensor; });
        d["start"] = column<std::int32_t>(P, [](const Pin& x) { return x.start; });
        d["end"] = column<std::int32_t>(P, [](const Pin& x) { return x.end; });
        return d;
      })
      .def("step_table", [](const Estimate& e) {
        const auto& S = e.timeline.steps;
        const TimeBase tb = e.time;
        py::dict d;
        d["start"] = column<double>(S, [&](const StepTiming& x) { return tb.seconds(x.start); });
        d["end"] = column<double>(S, [&](const StepTiming& x) { return tb.seconds(x.end); });
        d["compute_time"] = column<double>(S, [&](const StepTiming& x) { return tb.seconds(x.compute); });
        d["capacity_stall"] = column<double>(S, [&](const StepTiming& x) { return tb.seconds(x.capacity_stall); });
        d["bytes_in"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.bytes_in; });
        d["bytes_out"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.bytes_out; });
        d["wire_in"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.wire_in; });
        d["wire_out"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.wire_out; });
        d["bytes_streamed_in"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.streamed_in; });
        d["bytes_streamed_out"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.streamed_out; });
        d["wire_streamed_in"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.streamed_wire_in; });
        d["wire_streamed_out"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.streamed_wire_out; });
        d["resident_bytes"] = column<std::int64_t>(S, [](const StepTiming& x) { return x.resident; });
        for (std::size_t r = 0; r < 5; ++r) {
          const std::string role(role_name(static_cast<Role>(r)));
          d[py::str("bytes_in_" + role)] = column<std::int64_t>(S, [r](const StepTiming& x) { return x.in_by_role[r]; });
          d[py::str("bytes_out_" + role)] = column<std::int64_t>(S, [r](const StepTiming& x) { return x.out_by_role[r]; });
        }
        // Exact per-step times as (numerator ticks as text) would be overkill: end - previous end
        // in seconds from the exact integers.
        std::vector<double> time(S.size());
        Ticks prev = 0;
        for (std::size_t i = 0; i < S.size(); ++i) {
          time[i] = tb.seconds(S[i].end - prev);
          prev = S[i].end;
        }
        d["time"] = to_array(time);
        return d;
      })
      .def("tile_table", [](const Estimate& e) {
        // The tile model's layers (docs/model/interleaved.md, "Report"): one row per layer.
        py::list rows;
        static constexpr const char* names[5] = {"dY", "W", "X", "dX", "dW"};
        for (const TileRecord& r : e.plan.tiles) {
          py::dict d;
          d["layer"] = r.layer;
          d["step"] = r.step;
          d["step2"] = r.step2;
          d["m"] = r.m;
          d["k"] = r.k;
          d["n"] = r.n;
          d["count"] = r.count;
          d["order"] = r.order;
          d["reason"] = r.reason;
          d["nest_x"] = r.nest_x;
          d["nest_w"] = r.nest_w;
          d["partition"] = r.partition;
          d["parts"] = r.parts;
          d["c_eff"] = r.c_eff;
          for (std::size_t t = 0; t < 5; ++t) {
            const std::string n(names[t]);
            d[py::str("streamed_" + n)] = ((r.streamed >> t) & 1U) != 0;
            d[py::str("size_" + n)] = r.size[t];
            d[py::str("read_" + n)] = r.read[t];
            d[py::str("written_" + n)] = r.written[t];
            d[py::str("psum_read_" + n)] = r.psum_read[t];
            d[py::str("psum_written_" + n)] = r.psum_written[t];
          }
          rows.append(d);
        }
        return rows;
      }, "The tile model's layers: a list of dicts (empty when the schedule leaves it off).")
      .def("transfer_table", [](const Estimate& e) {
        // The plan's transfers in issue order (docs/model/report.md, "Transfers"): kinds as the
        // enum's order (0 stream load, 1 stream store, 2 prefetch, 3 offload, 4 evict).
        const auto& X = e.plan.transfers;
        py::dict d;
        d["tensor"] = column<std::int32_t>(X, [](const Transfer& x) { return x.tensor; });
        d["kind"] = column<std::int32_t>(X, [](const Transfer& x) { return static_cast<std::int32_t>(x.kind); });
        d["bytes"] = column<std::int64_t>(X, [](const Transfer& x) { return x.bytes; });
        d["issue_step"] = column<std::int32_t>(X, [](const Transfer& x) { return x.issue_step; });
        d["deadline"] = column<std::int32_t>(X, [](const Transfer& x) { return x.deadline; });
        return d;
      }, "The plan's transfers: columns tensor, kind, bytes, issue_step, deadline.");

  m.def("estimate", [](std::shared_ptr<const Schedule> s, std::int64_t capacity, double bandwidth,
                       double throughput, const std::string& policy, int ops_per_mac) {
    EstimateOptions o;
    o.policy = policy;
    o.ops_per_mac = ops_per_mac;
    // Touches only C++ objects Python cannot mutate.
    return interruptible([&] { return std::make_shared<Estimate>(estimate(*s, {capacity, bandwidth, throughput}, o)); });
  }, py::arg("schedule"), py::arg("capacity"), py::arg("bandwidth"), py::arg("throughput"),
     py::arg("policy") = "lookahead", py::arg("ops_per_mac") = 2);

  m.def("estimate", [](std::shared_ptr<const Schedule> s, std::int64_t capacity, double bandwidth,
                       double throughput, std::shared_ptr<const PreparedPolicy> policy) {
    return interruptible([&] {
      const Hardware hw{capacity, bandwidth, throughput};
      validate(hw);
      return std::make_shared<Estimate>(estimate(*s, hw, *policy));
    });
  }, py::arg("schedule"), py::arg("capacity"), py::arg("bandwidth"), py::arg("throughput"),
     py::arg("policy"), "Estimate one design point under a prepared composition.");

  m.def("policies", [] {
    py::dict d;
    for (const CachePart* p : cache_parts()) d[py::str(std::string(p->name))] = std::string(p->description);
    return d;
  }, "Cache manager names and descriptions (the thesis's policy names).");
}

}  // namespace dnnmem::bindings
