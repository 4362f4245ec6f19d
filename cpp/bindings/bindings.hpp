// Shared helpers of the binding files: one bind_<area> per area, and vector → NumPy copies.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dnnmem/interrupt.hpp"
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

// Runs `work` (C++ objects only) without the GIL, stoppable by Ctrl-C: the core's long loops
// poll (check_interrupt) and, every 20 ms, take the GIL to let Python run its signal handlers
// (PyErr_CheckSignals: on the main thread only; elsewhere it does nothing). A handler's
// exception (KeyboardInterrupt) stops the work and is raised here once it has unwound.
// Safe without the GIL for every caller: `work` must touch no Python object.
template <class F>
auto interruptible(F&& work) -> decltype(work()) {
  struct Poll {
    std::optional<py::error_already_set> error;
    static bool check(void* self) {
      const py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() == 0) return false;
      static_cast<Poll*>(self)->error.emplace();  // takes the pending exception
      return true;
    }
  } poll;
  std::atomic<bool> cancel{false};
  try {
    const py::gil_scoped_release release;
    const InterruptScope scope(&cancel, &Poll::check, &poll);
    return work();
  } catch (const Interrupted&) {  // (the GIL is held again here)
    if (poll.error) throw std::move(*poll.error);
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

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
