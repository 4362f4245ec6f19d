// The Lagrangian bound of the traffic problem (bound.hpp): dnnmem.optimal builds the chains.
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "dnnmem/bound.hpp"

namespace dnnmem::bindings {

namespace {

template <class T>
std::vector<T> vec(const py::array_t<T, py::array::c_style | py::array::forcecast>& a,
                   const char* name) {
  if (a.ndim() != 1) throw std::invalid_argument(std::string("ChainProblem: ") + name + " must be 1-D");
  std::vector<T> v(static_cast<std::size_t>(a.shape(0)));
  if (!v.empty()) std::memcpy(v.data(), a.data(), v.size() * sizeof(T));
  return v;
}

using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;
using I64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
using I32 = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
using U8 = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

}  // namespace

void bind_bound(py::module_& m) {
  py::class_<ChainProblem>(m, "ChainProblem",
                           "The traffic problem chain by chain, for the Lagrangian bound "
                           "(docs/model/optimal.md); built by dnnmem.optimal.")
      .def(py::init([](int num_steps, double capacity, const I64& chain_start, const I32& step,
                       const F64& size, const F64& keep_cost, const I32& keep_lo, const I32& keep_hi,
                       const U8& has_y, const F64& y_cost, const U8& group, const F64& group_cost) {
             ChainProblem p;
             p.num_steps = num_steps;
             p.capacity = capacity;
             p.chain_start = vec(chain_start, "chain_start");
             p.step = vec(step, "step");
             p.size = vec(size, "size");
             p.keep_cost = vec(keep_cost, "keep_cost");
             p.keep_lo = vec(keep_lo, "keep_lo");
             p.keep_hi = vec(keep_hi, "keep_hi");
             p.has_y = vec(has_y, "has_y");
             p.y_cost = vec(y_cost, "y_cost");
             p.group = vec(group, "group");
             p.group_cost = vec(group_cost, "group_cost");
             p.prepare();
             return p;
           }),
           py::arg("num_steps"), py::arg("capacity"), py::arg("chain_start"), py::arg("step"),
           py::arg("size"), py::arg("keep_cost"), py::arg("keep_lo"), py::arg("keep_hi"),
           py::arg("has_y"), py::arg("y_cost"), py::arg("group"), py::arg("group_cost"))
      .def_readwrite("capacity", &ChainProblem::capacity, "Per step, in the problem's units.")
      .def_readonly("num_steps", &ChainProblem::num_steps)
      .def("lagrangian", [](const ChainProblem& p, const F64& price) {
             const std::vector<double> pr = vec(price, "price");
             LagrangianPoint at;
             {
               py::gil_scoped_release release;  // reads p and pr only, writes `at`
               lagrangian(p, pr, at);
             }
             return py::make_tuple(at.value, to_array(at.kept), to_array(at.occupancy));
           }, py::arg("price"),
           "L(price) (a lower bound on the LP's optimum, units), the minimiser's kept flags (one "
           "per node) and its occupancy (one per step, units).")
      .def("maximize", [](const ChainProblem& p, const F64& start, int max_iterations,
                          double time_limit, double tolerance, double initial_delta,
                          int patience, double step_factor, double averaging, int restarts,
                          double restart_delta) {
             LagrangianOptions o;
             o.start = vec(start, "start");
             o.max_iterations = max_iterations;
             o.time_limit = time_limit;
             o.tolerance = tolerance;
             o.initial_delta = initial_delta;
             o.patience = patience;
             o.step_factor = step_factor;
             o.averaging = averaging;
             o.restarts = restarts;
             o.restart_delta = restart_delta;
             LagrangianResult r;
             {
               py::gil_scoped_release release;  // reads p and o only
               r = maximize_lagrangian(p, o);
             }
             return py::make_tuple(r.value, to_array(r.price), to_array(r.kept), r.iterations);
           }, py::arg("start"), py::arg("max_iterations") = 1000, py::arg("time_limit") = 0.0,
           py::arg("tolerance") = 0.0, py::arg("initial_delta") = 0.0, py::arg("patience") = 40,
           py::arg("step_factor") = 0.2, py::arg("averaging") = 0.03, py::arg("restarts") = 3,
           py::arg("restart_delta") = 0.01,
           "The best L(price) of the volume algorithm from `start` (docs/model/optimal.md): "
           "(value in units, its prices, its kept flags, iterations).");
}

}  // namespace dnnmem::bindings
