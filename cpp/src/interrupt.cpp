#include "dnnmem/interrupt.hpp"

namespace dnnmem {
namespace {

thread_local InterruptScope* current = nullptr;  // the innermost scope on this thread

}  // namespace

InterruptScope::InterruptScope(std::atomic<bool>* f, bool (*p)(void*), void* c, std::chrono::milliseconds t)
    : flag(f), poll(p), context(c), period(t), next_poll(std::chrono::steady_clock::now() + t),
      previous_(current) {
  current = this;
}

InterruptScope::~InterruptScope() { current = previous_; }

void check_interrupt() {
  InterruptScope* s = current;
  if (s == nullptr) return;
  if (s->flag != nullptr && s->flag->load(std::memory_order_relaxed)) throw Interrupted();
  if (s->poll == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < s->next_poll) return;
  if (s->poll(s->context)) {
    if (s->flag != nullptr) s->flag->store(true, std::memory_order_relaxed);
    throw Interrupted();
  }
  s->next_poll = std::chrono::steady_clock::now() + s->period;
}

}  // namespace dnnmem
