// `vdnn-all`, `vdnn-conv` and `oracle` (docs/model/cdma.md): the virtualised-DNN memory manager
// that the cDMA paper compresses, and the paper's oracular normalisation. The cache is GPU
// memory, off-chip memory is host memory, the link is PCIe. Rules V1–V6 of docs/model/cdma.md:
//   V1  weights, non-trainable state and weight gradients stay in GPU memory (no transfers);
//   V2  an activation is offloaded when a forward step of a selected layer reads it (vdnn-all:
//       every layer; vdnn-conv: conv / depthwise conv) and it is used again later: the offload
//       runs during its last forward use (a transfer issued at that step's start, which the
//       step waits for before it ends: t = max(compute, offload));
//   V3  it is prefetched back one step ahead: issued at the start of the step before its next
//       use, due by that use (t = max(compute, prefetch) on the step it overlaps);
//   V4  an activation whose next use is the step right after its last forward use is kept;
//   V5  residency: every tensor from its first to its last use (V1's all iteration long), less
//       the offloaded ones between their offload and their prefetch; the capacity is not looked
//       at (vDNN sizes GPU memory to fit: the report's peak residency says how much it needs);
//   V6  `oracle`: no transfers at all (every transfer hidden), the time is the compute time.
#include <algorithm>
#include <vector>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

namespace dnnmem {
namespace {

enum class Select { All, Conv, None };

bool is_conv(Kind k) { return k == Kind::Conv2D || k == Kind::DepthwiseConv2D; }

void plan_vdnn(const PlanInput& in, PlanScratch& w, Plan& plan, Select select) {
  const Schedule& s = in.schedule;
  const int n = static_cast<int>(s.steps.size());
  plan.transfers.clear();
  plan.counts = {};
  std::vector<std::int64_t>& diff = w.resident_diff;
  diff.assign(static_cast<std::size_t>(n) + 1, 0);
  std::vector<Transfer>& offloads = w.offloads;  // the V2 stores, by step
  std::vector<Transfer>& prefetches = w.prefetches;
  offloads.clear();
  prefetches.clear();
  auto add = [&](int from, int to, std::int64_t bytes) {  // resident over steps [from, to]
    if (from > to) return;
    diff[static_cast<std::size_t>(from)] += bytes;
    diff[static_cast<std::size_t>(to) + 1] -= bytes;
  };
  for (std::size_t t = 0; t < s.tensors.size(); ++t) {
    const Tensor& x = s.tensors[t];
    // Full uses only: a partial access (embedding rows) is streamed in every policy.
    int first = -1, last = -1, last_fwd = -1, next = -1;
    bool selected = false;
    for (int u = x.use_begin; u < x.use_end; ++u) {
      const Use& use = s.uses[static_cast<std::size_t>(u)];
      if (use.partial) continue;
      if (first < 0) first = use.step;
      last = use.step;
      const Step& st = s.steps[static_cast<std::size_t>(use.step)];
      if (st.phase == Phase::Forward) {
        last_fwd = use.step;
        next = -1;
        if (use.read && select != Select::None &&
            (select == Select::All ||
             (st.layer >= 0 && is_conv(s.layer_kinds[static_cast<std::size_t>(st.layer)]))))
          selected = true;
      } else if (next < 0 && use.step > last_fwd) {
        next = use.step;
      }
    }
    if (first < 0) continue;
    if (x.role != Role::Activation) {  // V1
      if (x.starts_offchip) add(0, n - 1, x.bytes);
      else add(first, last, x.bytes);
      continue;
    }
    if (!selected || next < 0 || next - 1 <= last_fwd) {  // V4
      add(first, last, x.bytes);
      continue;
    }
    add(first, last_fwd, x.bytes);  // V5
    add(next - 1, last, x.bytes);
    offloads.push_back({static_cast<int>(t), TransferKind::StreamStore, x.bytes, last_fwd, last_fwd});
    prefetches.push_back({static_cast<int>(t), TransferKind::Prefetch, x.bytes, next - 1, next});
  }
  plan.resident.assign(static_cast<std::size_t>(n), 0);
  std::int64_t r = 0;
  for (int i = 0; i < n; ++i) plan.resident[static_cast<std::size_t>(i)] = r += diff[static_cast<std::size_t>(i)];
  // Issue order (plan.hpp): by step; at a step's start its stores, then its prefetches (each
  // group in tensor order, as built).
  std::stable_sort(offloads.begin(), offloads.end(),
                   [](const Transfer& a, const Transfer& b) { return a.issue_step < b.issue_step; });
  std::stable_sort(prefetches.begin(), prefetches.end(),
                   [](const Transfer& a, const Transfer& b) { return a.issue_step < b.issue_step; });
  plan.transfers.reserve(offloads.size() + prefetches.size());
  std::size_t a = 0, b = 0;
  for (int i = 0; i < n; ++i) {
    for (; a < offloads.size() && offloads[a].issue_step == i; ++a) plan.transfers.push_back(offloads[a]);
    for (; b < prefetches.size() && prefetches[b].issue_step == i; ++b) plan.transfers.push_back(prefetches[b]);
  }
  plan.counts.offloads = static_cast<int>(offloads.size());
  plan.counts.prefetched = static_cast<int>(prefetches.size());
}

}  // namespace

void plan_vdnn_all(const PlanInput& in, PlanScratch& w, Plan& out) { plan_vdnn(in, w, out, Select::All); }
void plan_vdnn_conv(const PlanInput& in, PlanScratch& w, Plan& out) { plan_vdnn(in, w, out, Select::Conv); }
void plan_oracle(const PlanInput& in, PlanScratch& w, Plan& out) { plan_vdnn(in, w, out, Select::None); }

extern const CachePart cache_vdnn_all{
    "vdnn-all",
    "vDNN: every layer's input activation offloaded during its forward step, prefetched one "
    "step ahead of its backward use; weights stay on chip (cDMA paper's baseline)",
    {}, kTraining, &plan_vdnn_all, /*capacity_free=*/true};
extern const CachePart cache_vdnn_conv{
    "vdnn-conv", "vDNN: as vdnn-all, offloading only the inputs of convolution layers", {},
    kTraining, &plan_vdnn_conv, /*capacity_free=*/true};
extern const CachePart cache_oracle{
    "oracle", "every transfer hidden: no transfers, time = compute time (the cDMA paper's "
    "oracular baseline; residency = every tensor alive)", {}, 0, &plan_oracle, /*capacity_free=*/true};

}  // namespace dnnmem
