#include "dnnmem/plan.hpp"

#include "dnnmem/compose.hpp"
#include "limits.hpp"

namespace dnnmem {

PlanInput make_plan_input(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy,
                          std::vector<Ticks>&& compute) {
  PlanInput in{s, hw.capacity, time_base(hw), policy.ops_per_mac, std::move(compute),
               &policy.link, &policy.cache_options};
  in.kept_given = &policy.kept_given;
  in.compute.clear();
  in.compute.reserve(s.steps.size());
  // work <= 2^62 (its sum is, prepare_policy), bandwidth <= 2^62: each product < 2^124.
  for (const std::int64_t work : policy.compute.work) in.compute.push_back(in.time.compute(work));
  if (const Ticks spm = policy.compute.spm_bandwidth; spm > 0) {
    // ceil(bytes / spm_bandwidth seconds) in ticks = ceil(bytes · throughput · bandwidth / spm),
    // exactly: q = bytes · throughput < 2^124, then q · bandwidth / spm by parts; a floor beyond
    // 128 bits is saturated (kSaturatedTicks) and refused by check_time_limits below.
    for (std::size_t i = 0; i < in.compute.size(); ++i) {
      const Ticks q = static_cast<Ticks>(policy.compute.spm_bytes[i]) * in.time.throughput;
      const Ticks r = (q % spm) * in.time.bandwidth;  // < 2^60 · 2^62
      Ticks whole = 0;
      const bool wide = __builtin_mul_overflow(q / spm, static_cast<Ticks>(in.time.bandwidth), &whole) ||
                        whole > kSaturatedTicks;
      const Ticks floor = wide ? kSaturatedTicks : whole + r / spm + (r % spm != 0 ? 1 : 0);
      if (floor > in.compute[i]) in.compute[i] = floor;
    }
  }
  check_time_limits(in, policy);
  return in;
}

void set_spm_floor(ComputeModel& m, const Schedule& s, double spm_bandwidth) {
  m.spm_bandwidth = static_cast<std::int64_t>(spm_bandwidth);
  m.spm_bytes.clear();
  if (m.spm_bandwidth <= 0) return;
  m.spm_bytes.reserve(s.steps.size());
  for (const Step& st : s.steps) {
    std::int64_t bytes = 0;
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      bytes += (a.read ? a.bytes : 0) + (a.write ? a.bytes : 0);
    }
    m.spm_bytes.push_back(bytes);
  }
}

void stream_everything(const Schedule& s, Plan& plan) {
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (a.read) plan.transfers.push_back({a.tensor, TransferKind::StreamLoad, a.bytes, step, step});
    }
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (a.write) plan.transfers.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
    }
  }
}

}  // namespace dnnmem
