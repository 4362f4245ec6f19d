// Cache manager `mbs-strict`: the mini-batch serialization paper's accounting, as fixed rules
// rather than replacement decisions (docs/model/mbs.md, "Strict accounting"):
//   S1  weights, weight gradients and states are never kept: every access moves (W re-read per
//       sub-batch, the dW partial sum read and written back per sub-batch);
//   S2  an activation or gradient is kept from one use to its next when both steps are in the
//       same segment — same layer group, same sub-batch, same pass (forward; loss + backward) —
//       and, by `reuse`: group — anywhere in the segment (MBS2: branch data stays on chip);
//       adjacent — only when no step with accesses lies between (MBS-FS, MBS1: a layer's output
//       to the next layer); fits — adjacent, and both steps' activation and gradient bytes fit
//       the capacity (IL: on a schedule without groups the whole pass is one segment); option
//       fits_footprint=forward measures a backward step by its layer's forward step instead
//       (the paper's per-layer footprint, a layer's input and output, in both passes);
//   S3  a read whose previous use did not keep the tensor is a load; a write is stored at once
//       (write-through) when a later read before the next overwrite is a load, or when nothing
//       overwrites it and it must end off-chip;
//   S4  partial accesses are streamed;
//   (reuse=none keeps nothing: the paper's Baseline under these rules);
//   backward_reuse=group  in the loss + backward pass, keep anywhere in the segment whatever
//       `reuse` says (the paper's MBS1 reading: its multi-branch optimization is the forward
//       provisioning of Eq. 1/2, backward reuse within a sub-batch is MBS's own, §3);
//   S5  the keeps of S2 are admitted in order of their first step (then tensor order) only while
//       the kept bytes stay within the capacity at every step they span; one that does not fit
//       is spilled (stored at its write, loaded at its read) — the paper's plan never overflows
//       in forward, but the grouping does not size the backward pass.
// Options for the paper's encodings (docs/model/mbs.md, "Normalization and what backward
// re-reads"), both off by default:
//   norm_passes=2  a load by a batch-norm step (forward or backward) whose activation and
//                  gradient bytes exceed the capacity moves its bytes norm_passes times:
//                  statistics pass, then normalize pass, the data not fitting on chip between
//                  them (a kept read still costs nothing; a step that fits reads once);
//   relu_mask=on   a ReLU's (ReLU6's, leaky ReLU's) backward load of its own output moves a mask
//                  of 1 bit per element, ceil(elements / 8) bytes (the fusion stage's mask,
//                  dnnmem/fusion.hpp), stored by the layer's forward step;
//                  the output itself is then stored only for the other loads that need it;
//   dy_passes=2    a load of the output gradient by a convolution's or dense layer's backward
//                  step whose activation and gradient bytes exceed the capacity moves its bytes
//                  dy_passes times: the data-gradient GEMM and the weight-gradient GEMM each
//                  read it (paper §2, Tab. 1), the data not fitting on chip between them.
// Transfers are streamed with their step; resident = bytes of the kept intervals spanning each
// step. Counts: kept = intervals kept.
#include <algorithm>
#include <map>
#include <utility>

#include "dnnmem/compose.hpp"
#include "dnnmem/fusion.hpp"
#include "dnnmem/policies.hpp"
#include "range_tree.hpp"

namespace dnnmem {

namespace {

// The layers whose backward step is two GEMMs reading the output gradient (dy_passes).
bool reads_dy_twice(Kind k) {
  return k == Kind::Conv2D || k == Kind::DepthwiseConv2D || k == Kind::Dense;
}

// Candidate keeps (S2) of one use to the next.
struct Keep {
  int from, to, use;
  std::int64_t bytes;
  bool gated;  // reuse=fits' capacity test applies (not a backward keep of backward_reuse=group)
};

// What mbs-strict derives from the schedule and its options alone, once per input
// (PlanScratch::same_input: a sweep's capacity axis): each step's activation and gradient bytes,
// the use of each access, and the candidate keeps of S2 in S5's order. With reuse=fits the
// candidates are those that pass every test but the capacity's; a point skips the ones whose
// steps' bytes exceed its capacity, which leaves the order of the rest what a stable sort of
// those alone would give.
struct MbsTables {
  std::vector<std::int64_t> act;
  std::vector<std::int64_t> footprint;  // the bytes reuse=fits compares with the capacity
  std::vector<int> access_use;
  std::vector<Keep> keeps;
};

void derive_tables(const PlanInput& in, MbsTables& d) {
  const Schedule& s = in.schedule;
  const std::string& reuse = in.options->choice("reuse");
  const bool backward_group = in.options->choice("backward_reuse") == "group";
  const std::size_t ns = s.steps.size(), nt = s.tensors.size();
  // Segment of each step, the next step with accesses, and each step's activation bytes.
  std::vector<long long> segment(ns, 0);
  std::vector<int> next_busy(ns + 1, static_cast<int>(ns));
  std::vector<std::int64_t>& act = d.act;
  act.assign(ns, 0);
  for (std::size_t i = 0; i < ns; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    const long long pass = st.phase == Phase::Forward ? 0 : 1;
    segment[i] = s.step_group.empty()
                     ? pass
                     : (static_cast<long long>(s.step_group[i]) << 33) + (static_cast<long long>(s.step_sub_batch[i]) << 1) + pass;
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const Role r = s.tensors[static_cast<std::size_t>(a.tensor)].role;
      if (r == Role::Activation || r == Role::Gradient) act[i] += a.bytes;
    }
  }
  // reuse=fits' footprint of each step: its own bytes, or (fits_footprint=forward) for a
  // backward step, the bytes of its layer's forward step in the same group and sub-batch.
  d.footprint = act;
  if (in.options->choice("fits_footprint") == "forward") {
    std::map<std::pair<int, long long>, std::int64_t> forward;  // (layer, segment) -> bytes
    for (std::size_t i = 0; i < ns; ++i)
      if (s.steps[i].phase == Phase::Forward && s.steps[i].layer >= 0) {
        std::int64_t& f = forward[{s.steps[i].layer, segment[i]}];
        f = std::max(f, act[i]);
      }
    for (std::size_t i = 0; i < ns; ++i) {
      if (s.steps[i].phase != Phase::Backward) continue;
      const auto it = forward.find({s.steps[i].layer, segment[i] - 1});
      if (it != forward.end()) d.footprint[i] = it->second;
    }
  }
  for (std::size_t i = ns; i-- > 0;)
    next_busy[i] = s.steps[i].num_accesses > 0 ? static_cast<int>(i) : next_busy[i + 1];
  // Whether a keep from step a to step b of one segment is a backward keep of
  // backward_reuse=group (the segment's pass bit is 1 in the loss + backward pass).
  const auto backward_keep = [&](int a) { return backward_group && (segment[static_cast<std::size_t>(a)] & 1) != 0; };
  // Every test of S2 but reuse=fits' capacity test.
  const auto candidate = [&](const Tensor& T, int a, int b) {
    if (T.role != Role::Activation && T.role != Role::Gradient) return false;
    if (segment[static_cast<std::size_t>(a)] != segment[static_cast<std::size_t>(b)]) return false;
    if (backward_keep(a)) return true;
    if (reuse == "none") return false;
    if (reuse == "group") return true;
    return next_busy[static_cast<std::size_t>(a) + 1] == b;
  };
  d.keeps.clear();
  for (std::size_t t = 0; t < nt; ++t) {
    const Tensor& T = s.tensors[t];
    int prev = -1;  // previous full use
    for (int u = T.use_begin; u < T.use_end; ++u) {
      const Use& U = s.uses[static_cast<std::size_t>(u)];
      if (U.partial) continue;
      const int from = prev >= 0 ? s.uses[static_cast<std::size_t>(prev)].step : -1;
      if (prev >= 0 && candidate(T, from, U.step)) d.keeps.push_back({from, U.step, u, T.bytes, !backward_keep(from)});
      prev = u;
    }
  }
  std::stable_sort(d.keeps.begin(), d.keeps.end(), [](const Keep& a, const Keep& b) { return a.from < b.from; });
  // The use of each access: a tensor's accesses are its uses, in step order.
  std::vector<int> cursor(nt);
  for (std::size_t t = 0; t < nt; ++t) cursor[t] = s.tensors[t].use_begin;
  d.access_use.assign(s.accesses.size(), -1);
  for (std::size_t a = 0; a < s.accesses.size(); ++a)
    d.access_use[a] = cursor[static_cast<std::size_t>(s.accesses[a].tensor)]++;
}

void plan_mbs_strict(const PlanInput& in, PlanScratch& scratch, Plan& plan) {
  const Schedule& s = in.schedule;
  const bool fits = in.options->choice("reuse") == "fits";
  const auto norm_passes = static_cast<std::int64_t>(in.options->number("norm_passes"));
  const bool relu_mask = in.options->choice("relu_mask") == "on";
  const auto dy_passes = static_cast<std::int64_t>(in.options->number("dy_passes"));
  const std::size_t ns = s.steps.size(), nt = s.tensors.size();
  const MbsTables& tables = derived_tables<MbsTables>(scratch, [&](MbsTables& d) { derive_tables(in, d); });
  const std::vector<std::int64_t>& act = tables.act;
  const std::vector<std::int64_t>& footprint = tables.footprint;
  plan.transfers.clear();
  plan.counts = {};
  plan.resident.assign(ns, 0);
  std::vector<std::int64_t> resident_diff(ns + 1, 0);

  // Probing (PlanScratch::probe_capacity): the admissions are the only decisions that read the
  // capacity (but for reuse=fits, norm_passes and dy_passes, where probing is off), each
  // compares the kept bytes before it with the capacity, and only a rejection can flip at a larger
  // one; so the plan at probe_capacity is this one unless some rejected keep would fit there.
  const bool probing = !fits && norm_passes == 1 && dy_passes == 1;
  std::int64_t probe = scratch.probe_capacity > in.capacity && probing ? scratch.probe_capacity : -1;
  // The candidates admitted in order of their start step (then tensor order) while the kept
  // bytes fit the capacity at every step they span (S5).
  detail::RangeTree tree(ns, scratch.tree);
  std::vector<std::uint8_t> keep(s.uses.size(), 0);
  for (const Keep& k : tables.keeps) {
    if (fits && k.gated &&
        (footprint[static_cast<std::size_t>(k.from)] > in.capacity || footprint[static_cast<std::size_t>(k.to)] > in.capacity))
      continue;  // reuse=fits: both steps' bytes must fit (S2)
    const std::int64_t need = tree.max(k.from, k.to) + k.bytes;
    if (need > in.capacity) {
      if (need <= probe) probe = -1;  // admitted at the probed capacity: the plans differ
      continue;
    }
    tree.add(k.from, k.to, k.bytes);
    keep[static_cast<std::size_t>(k.use)] = 1;
    ++plan.counts.kept;
    resident_diff[static_cast<std::size_t>(k.from)] += k.bytes;
    resident_diff[static_cast<std::size_t>(k.to) + 1] -= k.bytes;
  }

  // The encodings: a use is a mask read when it is a ReLU backward step reading the ReLU's
  // own output; a batch-norm step's loads move norm_passes times their bytes.
  const auto kind_of = [&](int step) {
    const int layer = s.steps[static_cast<std::size_t>(step)].layer;
    return layer >= 0 && static_cast<std::size_t>(layer) < s.layer_kinds.size()
               ? s.layer_kinds[static_cast<std::size_t>(layer)]
               : Kind::Input;
  };
  // The mask is the fusion stage's (dnnmem/fusion.hpp, docs/model/fusion.md): one bit per
  // element of a ReLU-family output, read by that layer's backward step (in a fused schedule,
  // by the step that runs it) instead of the output. A fused schedule's own masks are already
  // masks.
  const auto runs = [&](int step, int layer) {
    if (s.step_layer_begin.empty()) return s.steps[static_cast<std::size_t>(step)].layer == layer;
    const auto b = s.step_layers.begin();
    return std::find(b + s.step_layer_begin[static_cast<std::size_t>(step)],
                     b + s.step_layer_begin[static_cast<std::size_t>(step) + 1], layer) !=
           b + s.step_layer_begin[static_cast<std::size_t>(step) + 1];
  };
  const auto mask_read = [&](const Tensor& T, const Use& U) {
    return relu_mask && U.read && !U.write && T.role == Role::Activation && !T.mask && T.layer >= 0 &&
           s.steps[static_cast<std::size_t>(U.step)].phase == Phase::Backward &&
           static_cast<std::size_t>(T.layer) < s.layer_kinds.size() &&
           backward_needs_only_sign(s.layer_kinds[static_cast<std::size_t>(T.layer)]) && runs(U.step, T.layer);
  };
  const auto mask_bytes_of = [&](std::int64_t bytes) {
    return mask_bytes(bytes / std::max(1, s.bytes_per_element));
  };
  // Per use: load / store decisions (S3, S4).
  std::vector<std::uint8_t> load(s.uses.size(), 0), store(s.uses.size(), 0), mask(s.uses.size(), 0);
  for (std::size_t t = 0; t < nt; ++t) {
    const Tensor& T = s.tensors[t];
    for (int u = T.use_begin; u < T.use_end; ++u) {
      const Use& U = s.uses[static_cast<std::size_t>(u)];
      load[static_cast<std::size_t>(u)] = U.read && !keep[static_cast<std::size_t>(u)];
      if (U.partial) store[static_cast<std::size_t>(u)] = U.write;
    }
    for (int w = T.use_begin; w < T.use_end; ++w) {
      const Use& W = s.uses[static_cast<std::size_t>(w)];
      if (W.partial || !W.write) continue;
      bool loaded = false, overwritten = false;
      for (int v = w + 1; v < T.use_end; ++v) {
        const Use& V = s.uses[static_cast<std::size_t>(v)];
        if (V.partial) continue;
        if (V.read && load[static_cast<std::size_t>(v)]) {
          if (mask_read(T, V)) {  // the mask is stored instead of the output for this load
            mask[static_cast<std::size_t>(w)] = 1;
            mask[static_cast<std::size_t>(v)] = 1;
            continue;
          }
          loaded = true;
          if (!relu_mask) break;  // (with masks: go on, a mask read may follow)
          continue;
        }
        if (V.write) {
          overwritten = true;
          break;
        }
      }
      const bool out = loaded || (!overwritten && T.must_end_offchip);
      store[static_cast<std::size_t>(w)] = out;
    }
  }
  std::int64_t r = 0;
  for (std::size_t i = 0; i < ns; ++i) plan.resident[i] = r += resident_diff[i];

  // Transfers, step by step: loads then stores, in access order.
  const std::vector<int>& access_use = tables.access_use;
  for (std::size_t i = 0; i < ns; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto u = static_cast<std::size_t>(access_use[static_cast<std::size_t>(st.first_access + k)]);
      if (!load[u]) continue;
      const Tensor& T = s.tensors[static_cast<std::size_t>(a.tensor)];
      std::int64_t bytes = mask[u] ? mask_bytes_of(a.bytes) : a.bytes;
      if (norm_passes > 1 && !s.uses[u].partial && kind_of(step) == Kind::BatchNorm &&
          act[i] > in.capacity && (T.role == Role::Activation || T.role == Role::Gradient))
        bytes *= norm_passes;
      if (dy_passes > 1 && !s.uses[u].partial && !s.uses[u].write && T.role == Role::Gradient &&
          st.phase == Phase::Backward && reads_dy_twice(kind_of(step)) && act[i] > in.capacity)
        bytes *= dy_passes;
      plan.transfers.push_back({a.tensor, TransferKind::StreamLoad, bytes, step, step});
    }
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto u = static_cast<std::size_t>(access_use[static_cast<std::size_t>(st.first_access + k)]);
      if (store[u]) {
        plan.transfers.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
        ++plan.counts.offloads;
      }
      if (mask[u] && s.uses[u].write) {  // the ReLU's mask, written beside (or instead of) Y
        plan.transfers.push_back({a.tensor, TransferKind::StreamStore, mask_bytes_of(a.bytes), step, step});
        ++plan.counts.offloads;
      }
    }
  }
  scratch.probe_same = probe >= 0;
}

}  // namespace

extern const CachePart cache_mbs_strict{
    "mbs-strict",
    "the MBS paper's accounting: keep inside a group's sub-batch, write through, stream weights",
    {choice_option("reuse",
                   "group: anywhere inside a group's sub-batch (MBS2); adjacent: to the next step only "
                   "(MBS-FS, MBS1); fits: to the next step when both fit the capacity (IL); none: nothing "
                   "(Baseline)",
                   "group", {"group", "adjacent", "fits", "none"}),
     choice_option("backward_reuse",
                   "same: the loss and backward pass keep by `reuse`; group: they keep anywhere inside a "
                   "group's sub-batch whatever `reuse` (the paper's MBS1: no inter-branch reuse in forward "
                   "only)",
                   "same", {"same", "group"}),
     choice_option("fits_footprint",
                   "what reuse=fits compares with the capacity: step: each step's own activation and "
                   "gradient bytes; forward: a backward step's layer's forward bytes (its input and output, "
                   "the paper's per-layer footprint)",
                   "step", {"step", "forward"}),
     integer_option("norm_passes",
                    "passes of a batch-norm step over its data when loaded (2: statistics, then "
                    "normalize)", 1, 1, 2),
     choice_option("relu_mask",
                   "on: ReLU backward loads a 1-bit-per-element mask instead of the ReLU's output",
                   "off", {"off", "on"}),
     integer_option("dy_passes",
                    "reads of its output gradient by a convolution's or dense layer's backward step when "
                    "loaded (2: the data-gradient and the weight-gradient GEMM each read it)", 1, 1, 2)},
    0,
    &plan_mbs_strict};

}  // namespace dnnmem
