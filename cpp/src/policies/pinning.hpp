// What the OnSRAM-family cache managers share (docs/model/onsram.md, rule O2): which tensors may
// be pinned, and the plan that pins a chosen set for whole live intervals and streams the rest.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "dnnmem/plan.hpp"

namespace dnnmem::detail {

// Rule O2: an activation or a gradient that need not end off-chip, either made on chip (its
// first full use writes it without reading) or a network input (an activation that starts
// off-chip, its first full use a plain read: loaded once, then kept).
inline bool pin_candidate(const Schedule& s, std::size_t t) {
  const Tensor& x = s.tensors[t];
  if (x.role != Role::Activation && x.role != Role::Gradient) return false;
  if (x.must_end_offchip) return false;
  const UseIndex& u = s.index;
  const int f = u.full_begin[t];
  if (f == u.full_begin[t + 1]) return false;
  const bool read = u.full_read[static_cast<std::size_t>(f)], write = u.full_write[static_cast<std::size_t>(f)];
  return x.starts_offchip ? x.role == Role::Activation && read && !write : write && !read;
}

// Whether pinned tensor t's full use f still moves its data: a network input's first read.
inline bool pin_first_load(const Schedule& s, std::size_t t, int f) {
  return s.tensors[t].starts_offchip && f == s.index.full_begin[t];
}

// StartTS and EndTS of a tensor with at least one full use: the steps of its first and last.
inline int pin_start(const Schedule& s, std::size_t t) {
  return s.index.full_step[static_cast<std::size_t>(s.index.full_begin[t])];
}
inline int pin_end(const Schedule& s, std::size_t t) {
  return s.index.full_step[static_cast<std::size_t>(s.index.full_begin[t + 1] - 1)];
}

// The baseline of OnSRAM-Static's figure of merit (rule O6): every access streamed. Per step,
// `streamed` = the ticks of its loads and stores, `base` = its time, max(compute, streamed).
inline void streamed_baseline(const PlanInput& in, std::vector<Ticks>& streamed,
                              std::vector<Ticks>& base) {
  const Schedule& s = in.schedule;
  const std::size_t n = s.steps.size();
  streamed.assign(n, 0);
  base.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      streamed[i] += (a.read ? in.transfer_ticks(a.tensor, a.bytes, true) : 0) +
                     (a.write ? in.transfer_ticks(a.tensor, a.bytes, false) : 0);
    }
    base[i] = std::max(in.compute[i], streamed[i]);
  }
}

// A pinning plan's start: no transfers, pins or counts, and `diff` (resident bytes by
// difference, one entry per step and one past the end) all zero.
inline void start_pin_plan(std::size_t n, std::vector<std::int64_t>& diff, Plan& plan) {
  plan.transfers.clear();
  plan.pins.clear();
  plan.counts = {};
  diff.assign(n + 1, 0);
}

// Flags `emit_pin_plan`'s `moves` returns for an access.
inline constexpr int kLoads = 1, kStores = 2;

// A pinning plan's end: the resident bytes per step (the prefix sums of `diff`), then every
// step's streamed transfers, at each step its loads, then its stores, in access order (as
// stream_everything). `moves(access index, step)` says which of an access's transfers stand
// (kLoads | kStores).
template <class Moves>
void emit_pin_plan(const Schedule& s, const std::vector<std::int64_t>& diff, Plan& plan,
                   Moves moves) {
  const std::size_t n = s.steps.size();
  plan.resident.assign(n, 0);
  std::int64_t level = 0;
  for (std::size_t i = 0; i < n; ++i) plan.resident[i] = level += diff[i];
  for (std::size_t i = 0; i < n; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    for (int pass = 0; pass < 2; ++pass) {
      for (int k = 0; k < st.num_accesses; ++k) {
        const auto ai = static_cast<std::size_t>(st.first_access + k);
        const Access& a = s.accesses[ai];
        const int m = moves(ai, step);
        if (pass == 0 && (m & kLoads)) plan.transfers.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
        if (pass == 1 && (m & kStores)) plan.transfers.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
      }
    }
  }
}

// The plan of a pinned set (rule O2): a pinned tensor is resident over [StartTS, EndTS] and its
// full accesses move nothing (but a network input's first read); every other access is
// streamed. Counts: born = tensors pinned, kept = their full uses after the first.
inline void plan_pinned(const Schedule& s, const std::vector<std::uint8_t>& pinned,
                        std::vector<std::int64_t>& diff, Plan& plan) {
  start_pin_plan(s.steps.size(), diff, plan);
  for (std::size_t t = 0; t < s.tensors.size(); ++t) {
    if (!pinned[t]) continue;
    plan.pins.push_back({static_cast<int>(t), pin_start(s, t), pin_end(s, t)});
    diff[static_cast<std::size_t>(pin_start(s, t))] += s.tensors[t].bytes;
    diff[static_cast<std::size_t>(pin_end(s, t)) + 1] -= s.tensors[t].bytes;
    ++plan.counts.born;
    plan.counts.kept += s.index.full_begin[t + 1] - s.index.full_begin[t] - 1;
  }
  emit_pin_plan(s, diff, plan, [&](std::size_t ai, int step) {
    const Access& a = s.accesses[ai];
    const auto t = static_cast<std::size_t>(a.tensor);
    if (!a.partial && pinned[t] && !(s.tensors[t].starts_offchip && step == pin_start(s, t)))
      return 0;
    return (a.read ? kLoads : 0) | (a.write ? kStores : 0);
  });
}

}  // namespace dnnmem::detail
