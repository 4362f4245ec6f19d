// Stopping long work from outside (Ctrl-C in Python, a cancelled sweep). The core knows no
// Python: whoever runs a long call (building a network or a schedule, planning, a sweep) on a
// thread may install an InterruptScope there, with an atomic flag that any thread may set and,
// optionally, a poll function that this thread calls now and then (the Python bindings check
// signals there, holding the GIL only for that call). The pipeline's long loops call
// check_interrupt_every(i); once the flag is set or the poll answers true, it throws
// Interrupted, which unwinds the call like any error (nothing half-built is returned).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>

namespace dnnmem {

struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

class InterruptScope {
 public:
  // `flag` (may be null): cancels when set. `poll` (may be null): called by check_interrupt()
  // on this thread at most once per `period`, with `context`; returning true cancels (and sets
  // the flag). Scopes nest: the innermost one on a thread is in force until it ends.
  explicit InterruptScope(std::atomic<bool>* flag, bool (*poll)(void*) = nullptr, void* context = nullptr,
                          std::chrono::milliseconds period = std::chrono::milliseconds(20));
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  std::atomic<bool>* flag;
  bool (*poll)(void*);
  void* context;
  std::chrono::steady_clock::duration period;
  std::chrono::steady_clock::time_point next_poll;

 private:
  InterruptScope* previous_;
};

// Throws Interrupted if this thread's scope has been cancelled (or its poll cancels now). Without
// a scope it does nothing.
void check_interrupt();

// check_interrupt() at every 4096th value of a loop's index: the pipeline's loops call it once
// per step, layer or tensor, so a check costs a test and a branch, and a long call stops within
// a few milliseconds.
inline void check_interrupt_every(std::size_t i) {
  if ((i & 4095) == 0) check_interrupt();
}

}  // namespace dnnmem
