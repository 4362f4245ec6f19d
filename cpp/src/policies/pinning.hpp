// What the OnSRAM-family cache managers share (docs/model/onsram.md, rule O2): which tensors may
// be pinned, and the plan that pins a chosen set for whole live intervals and streams the rest.
#pragma once

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

// The plan of a pinned set (rule O2): a pinned tensor is resident over [StartTS, EndTS] and its
// full accesses move nothing (but a network input's first read); every other access is streamed (at each step its loads, then its
// stores, in access order, as stream_everything). Counts: born = tensors pinned, kept = their
// full uses after the first.
inline void plan_pinned(const Schedule& s, const std::vector<std::uint8_t>& pinned,
                        std::vector<std::int64_t>& diff, Plan& plan) {
  const std::size_t n = s.steps.size();
  plan.transfers.clear();
  plan.pins.clear();
  plan.counts = {};
  diff.assign(n + 1, 0);
  for (std::size_t t = 0; t < s.tensors.size(); ++t) {
    if (!pinned[t]) continue;
    plan.pins.push_back({static_cast<int>(t), pin_start(s, t), pin_end(s, t)});
    diff[static_cast<std::size_t>(pin_start(s, t))] += s.tensors[t].bytes;
    diff[static_cast<std::size_t>(pin_end(s, t)) + 1] -= s.tensors[t].bytes;
    ++plan.counts.born;
    plan.counts.kept += s.index.full_begin[t + 1] - s.index.full_begin[t] - 1;
  }
  plan.resident.assign(n, 0);
  std::int64_t level = 0;
  for (std::size_t i = 0; i < n; ++i) plan.resident[i] = level += diff[i];
  for (std::size_t i = 0; i < n; ++i) {
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    for (int pass = 0; pass < 2; ++pass) {
      for (int k = 0; k < st.num_accesses; ++k) {
        const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
        if (!a.partial && pinned[static_cast<std::size_t>(a.tensor)] &&
            !(s.tensors[static_cast<std::size_t>(a.tensor)].starts_offchip && step == pin_start(s, static_cast<std::size_t>(a.tensor))))
          continue;
        if (pass == 0 && a.read) plan.transfers.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
        if (pass == 1 && a.write) plan.transfers.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
      }
    }
  }
}

}  // namespace dnnmem::detail
