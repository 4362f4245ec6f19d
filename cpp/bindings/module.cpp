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
    py::object type = py::exception<dnnmem::NetworkError>(m, "NetworkError", PyExc_ValueError);
    type.attr("__doc__") =
        "A malformed network: the message names the file, the layer and the field; the "
        "attributes source, layer, field and detail hold them separately.";
    return type;
  });
  // Module-local: tried before any global translator another extension (e.g. one mapping every
  // std::runtime_error to RuntimeError) may have registered.
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dnnmem::NetworkError& e) {
      // Files may hold any bytes: decode leniently (a bad byte becomes U+FFFD) and by length,
      // so neither invalid UTF-8 nor a NUL can break or cut the message. e.what() is a C
      // string, so the message is rebuilt from its parts.
      const auto text = [](const std::string& s) {
        return py::reinterpret_steal<py::str>(
            PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
      };
      std::string message = (e.source().empty() ? std::string("<network>") : e.source()) + ": ";
      if (!e.layer().empty()) message += "layer '" + e.layer() + "'";
      if (!e.field().empty())
        message += (e.layer().empty() ? "field '" : ", field '") + e.field() + "'";
      if (!e.layer().empty() || !e.field().empty()) message += ": ";
      message += e.detail();
      const py::object& type = network_error.get_stored();
      py::object exc = type(text(message));
      exc.attr("source") = text(e.source());
      exc.attr("layer") = text(e.layer());
      exc.attr("field") = text(e.field());
      exc.attr("detail") = text(e.detail());
      PyErr_SetObject(type.ptr(), exc.ptr());
    }
  });

  dnnmem::bindings::bind_network(m);
  dnnmem::bindings::bind_schedule(m);
  dnnmem::bindings::bind_estimate(m);
  dnnmem::bindings::bind_sweep(m);
  dnnmem::bindings::bind_compose(m);
  dnnmem::bindings::bind_compute(m);
  dnnmem::bindings::bind_bound(m);
}
