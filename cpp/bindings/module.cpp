// Wiring only: each area binds itself in bind_<area>.cpp.
#include <pybind11/gil_safe_call_once.h>
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "dnnmem/errors.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "dnnmem's compiled core (private: use the dnnmem package).";
  m.attr("__version__") = DNNMEM_VERSION;
  m.def("openmp_enabled", [] {
#ifdef DNNMEM_HAVE_OPENMP
    return true;
#else
    return false;
#endif
  }, "Whether the core was built with OpenMP.");

  // NetworkError is a ValueError carrying .source, .layer and .field, so callers can point at
  // the offending spot without parsing the message.
  PYBIND11_CONSTINIT static py::gil_safe_call_once_and_store<py::object> network_error;
  network_error.call_once_and_store_result([&] {
    return py::object(py::exception<dnnmem::NetworkError>(m, "NetworkError", PyExc_ValueError));
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dnnmem::NetworkError& e) {
      const py::object& type = network_error.get_stored();
      py::object exc = type(e.what());
      exc.attr("source") = e.source();
      exc.attr("layer") = e.layer();
      exc.attr("field") = e.field();
      exc.attr("detail") = e.detail();
      PyErr_SetObject(type.ptr(), exc.ptr());
    }
  });

  dnnmem::bindings::bind_network(m);
  dnnmem::bindings::bind_schedule(m);
  dnnmem::bindings::bind_estimate(m);
}
