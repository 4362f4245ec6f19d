// _core.sweep: many design points of one schedule (sweep.hpp). The C++ sweep runs in a worker
// thread without the GIL; the calling thread wakes every `interval` seconds, takes the GIL,
// lets Python handle signals (Ctrl-C) and calls the progress callback. A KeyboardInterrupt or
// an exception from the callback cancels the sweep (points not started are skipped), waits
// for the worker, and propagates; the `out` arrays then hold every finished point (done = 1).
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "bindings.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/sweep.hpp"

namespace dnnmem::bindings {
namespace {

// Sets the Python error directly: pybind11 restores an error_already_set before any exception
// translator runs, whereas a C++ exception (py::value_error included) could be turned into
// RuntimeError by a global translator that another extension, loaded first, registered.
[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

const char* const kFloatColumns[] = {"seconds", "compute_seconds", "stall_seconds",
                                     "capacity_stall_seconds", "drain_seconds"};
const char* const kIntColumns[] = {"traffic_in", "traffic_out", "wire_in", "wire_out", "kept",
                                   "prefetched", "born", "offloads"};
// The pinning managers' report (PinTotals), kept apart from the thesis's columns above.
const char* const kPinIntColumns[] = {"pinned", "pinned_bytes"};
const char* const kPinFloatColumns[] = {"recompute_seconds"};

// A writable, C-contiguous array of `n` elements of T from out[name] (or a new one).
template <class T>
py::array_t<T> column_of(py::dict out, const char* name, py::ssize_t n) {
  if (!out.contains(name)) {
    py::array_t<T> a(n);
    out[name] = a;
    return a;
  }
  py::object o = out[name];
  if (!py::isinstance<py::array>(o))
    raise(PyExc_TypeError, std::string("out['") + name + "']: expected a NumPy array");
  auto a = py::reinterpret_borrow<py::array>(o);
  if (!a.dtype().is(py::dtype::of<T>()) || a.ndim() != 1 || a.shape(0) != n ||
      !(a.flags() & py::array::c_style) || !a.writeable())
    raise(PyExc_ValueError, std::string("out['") + name + "']: expected a writable contiguous 1-d " +
                                std::string(py::str(py::dtype::of<T>())) + " array of " +
                                std::to_string(n) + " elements");
  return py::reinterpret_borrow<py::array_t<T>>(a);
}

// The worker thread running the C++ sweep, joined on every path (a joinable std::thread that
// is destroyed would terminate the process).
class Worker {
 public:
  std::atomic<bool> cancel{false};
  std::atomic<std::int64_t> done{0};

  template <class F>
  void start(F work) {
    thread_ = std::thread([this, work] {
      try {
        work();
      } catch (...) {
        error_ = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
      cv_.notify_all();
    });
  }
  // Waits (without the GIL) up to `seconds`; true once the sweep has finished.
  bool wait(double seconds) {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return finished_; });
  }
  // Cancels if still running and joins (without the GIL); then rethrows the sweep's error.
  void stop(bool cancelled) {
    if (cancelled) cancel = true;
    if (thread_.joinable()) {
      py::gil_scoped_release release;
      thread_.join();
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }
  ~Worker() {
    if (thread_.joinable()) {  // only on an unexpected path: never leave it running
      cancel = true;
      thread_.join();
    }
  }

 private:
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool finished_ = false;
  std::exception_ptr error_;
};

}  // namespace

void bind_sweep(py::module_& m) {
  using In64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  using InF = py::array_t<double, py::array::c_style | py::array::forcecast>;
  using In32 = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;
  m.def("sweep", [](std::shared_ptr<const Schedule> s, In64 capacity, InF bandwidth, InF throughput,
                    In32 policy, std::int64_t threads, int ops_per_mac, py::object progress,
                    std::optional<py::dict> out, double interval, int chunk,
                    std::optional<std::vector<std::shared_ptr<const PreparedPolicy>>> prepared) {
    const py::ssize_t n = capacity.size();
    const std::pair<const char*, py::ssize_t> sizes[] = {
        {"bandwidth", bandwidth.size()}, {"throughput", throughput.size()}, {"policy", policy.size()}};
    for (const auto& [name, size] : sizes)
      if (size != n)
        raise(PyExc_ValueError, std::string(name) + ": " + std::to_string(size) +
                                    " values, but capacity has " + std::to_string(n));
    if (threads < 0) raise(PyExc_ValueError, "threads: must be >= 0 (0 = the OpenMP default)");
    // Capped (sweep_threads): more threads than points, or than 4 per processor, only add
    // overhead, and thousands of them can exhaust the process's memory.
    const int team = sweep_threads(static_cast<int>(std::min<std::int64_t>(threads, max_sweep_threads())), n);
    if (!(interval > 0)) raise(PyExc_ValueError, "interval: must be > 0 seconds");
    std::vector<SweepPoint> points(static_cast<std::size_t>(n));
    for (py::ssize_t i = 0; i < n; ++i)
      points[static_cast<std::size_t>(i)] = {capacity.at(i), bandwidth.at(i), throughput.at(i),
                                             policy.at(i)};
    // The compositions the points index: the caller's, or the six thesis policies by name.
    std::vector<PreparedPolicy> policies;
    try {
      if (prepared) {
        for (const auto& p : *prepared) {
          if (!p) raise(PyExc_TypeError, "policies: None in the list");
          policies.push_back(*p);
        }
      } else {
        if (ops_per_mac != 1 && ops_per_mac != 2)
          throw std::invalid_argument("ops_per_mac: must be 1 or 2, got " + std::to_string(ops_per_mac));
        for (const CachePart* cache : cache_parts()) {
          PolicySpec spec;
          spec.cache.name = std::string(cache->name);
          policies.push_back(prepare_policy(*s, spec, ops_per_mac));
        }
      }
      validate_sweep(points, static_cast<int>(policies.size()));  // nothing runs if a point is bad
    } catch (const std::invalid_argument& e) {
      raise(PyExc_ValueError, e.what());
    }

    py::dict cols = out ? *out : py::dict();
    std::vector<py::array_t<double>> f;
    std::vector<py::array_t<std::int64_t>> k;
    for (const char* name : kFloatColumns) f.push_back(column_of<double>(cols, name, n));
    for (const char* name : kIntColumns) k.push_back(column_of<std::int64_t>(cols, name, n));
    std::vector<py::array_t<std::int64_t>> pin_k;
    std::vector<py::array_t<double>> pin_f;
    for (const char* name : kPinIntColumns) pin_k.push_back(column_of<std::int64_t>(cols, name, n));
    for (const char* name : kPinFloatColumns) pin_f.push_back(column_of<double>(cols, name, n));
    py::array done_array = column_of<bool>(cols, "done", n);
    SweepColumns c{.seconds = f[0].mutable_data(), .compute_seconds = f[1].mutable_data(),
                   .stall_seconds = f[2].mutable_data(), .capacity_stall_seconds = f[3].mutable_data(),
                   .drain_seconds = f[4].mutable_data(), .traffic_in = k[0].mutable_data(),
                   .traffic_out = k[1].mutable_data(), .kept = k[4].mutable_data(),
                   .prefetched = k[5].mutable_data(), .born = k[6].mutable_data(),
                   .offloads = k[7].mutable_data(),
                   .done = static_cast<std::uint8_t*>(done_array.mutable_data()),
                   .wire_in = k[2].mutable_data(), .wire_out = k[3].mutable_data(),
                   .pinned = pin_k[0].mutable_data(), .pinned_bytes = pin_k[1].mutable_data(),
                   .recompute_seconds = pin_f[0].mutable_data()};
    for (std::size_t r = 0; r < 5; ++r) {
      const std::string role(role_name(static_cast<Role>(r)));
      c.traffic_in_by_role[r] = column_of<std::int64_t>(cols, ("traffic_in_" + role).c_str(), n).mutable_data();
      c.traffic_out_by_role[r] = column_of<std::int64_t>(cols, ("traffic_out_" + role).c_str(), n).mutable_data();
    }
    static_assert(sizeof(bool) == 1);

    Worker w;
    SweepOptions o;
    o.threads = team;
    o.chunk = chunk;
    o.ops_per_mac = ops_per_mac;
    o.cancel = &w.cancel;
    o.done = &w.done;
    // The worker reads only C++ objects Python cannot mutate (the schedule, `points`) and
    // writes only into the column buffers, which `cols` keeps alive.
    try {
      w.start([&s, &policies, &points, c, o] { sweep(*s, policies, points, c, o); });
    } catch (const std::system_error& e) {
      raise(PyExc_RuntimeError, std::string("threads: could not start the sweep's thread (") +
                                    e.what() + ")");
    }
    for (;;) {
      const bool finished = w.wait(interval);
      try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        if (!progress.is_none()) progress(w.done.load());
      } catch (...) {
        w.stop(/*cancelled=*/true);
        throw;
      }
      if (finished) break;
    }
    w.stop(false);
    w.rethrow();
    return cols;
  }, py::arg("schedule"), py::arg("capacity"), py::arg("bandwidth"), py::arg("throughput"),
     py::arg("policy"), py::arg("threads") = 0, py::arg("ops_per_mac") = 2,
     py::arg("progress") = py::none(), py::arg("out") = py::none(), py::arg("interval") = 0.1,
     py::arg("chunk") = 4, py::arg("policies") = py::none(),
     "Evaluate design points of one schedule in parallel; returns (or fills) the column arrays. "
     "`policy` indexes `policies` (prepared compositions) or, without them, the cache managers "
     "with the raw link and the peak compute model.");

  m.def("max_sweep_threads", &max_sweep_threads,
        "The most threads a sweep starts: 4 per processor (a build without OpenMP runs one).");
}

}  // namespace dnnmem::bindings
