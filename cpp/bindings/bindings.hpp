// Shared helpers of the binding files: one bind_<area> per area, and vector → NumPy copies.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "dnnmem/options.hpp"

namespace dnnmem::bindings {

namespace py = pybind11;

void bind_network(py::module_& m);
void bind_schedule(py::module_& m);
void bind_estimate(py::module_& m);
void bind_sweep(py::module_& m);
void bind_compose(py::module_& m);

// A part's options from a dict {name: float | int | str} (units already applied by Python).
// Throws std::invalid_argument naming `part` for a value of another type.
OptionMap option_map(const py::dict& options, const std::string& part);
void bind_compute(py::module_& m);
void bind_bound(py::module_& m);

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// A column of a table: field f of every element of v, as a NumPy array.
template <class Out, class Vec, class F>
py::array_t<Out> column(const Vec& v, F f) {
  py::array_t<Out> a(static_cast<py::ssize_t>(v.size()));
  Out* p = a.mutable_data();
  for (const auto& x : v) *p++ = static_cast<Out>(f(x));
  return a;
}

}  // namespace dnnmem::bindings
