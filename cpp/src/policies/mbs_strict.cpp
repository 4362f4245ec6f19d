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
// Along a sweep's capacity axis the last plan is kept, and the next capacity redoes only the runs
// of S5 whose admissions it changes, S3 for their tensors and the transfers of those tensors'
// steps (docs/performance.md, "mbs-strict, incrementally"): the same plan as from scratch.
#include <algorithm>
#include <limits>
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

// A run of candidates (in S5's order) whose step spans chain into one range of steps that no
// other run's span meets (docs/performance.md, "mbs-strict, incrementally"): the admissions of
// one run never read what another run admitted, so each run decides alone.
struct KeepRun {
  int begin, end;  // candidates [begin, end) of MbsTables::keeps
  int lo, hi;      // the steps the run's spans cover, [lo, hi]
};

// What the last plan on these tables decided (valid while the tables are: the same input), kept
// so that the next capacity redoes only what it changes. Each run's decisions hold for every
// capacity in [lo_cap, hi_cap); a run outside its range is decided again, its candidates' tensors'
// S3 decisions again, and the steps of their uses' transfers again.
struct MbsLast {
  bool valid = false;  // (false until a plan completes: an interrupted one leaves it half-updated)
  std::vector<std::int64_t> lo_cap, hi_cap;  // per run
  std::vector<std::uint8_t> admitted;        // per candidate
  std::vector<std::uint8_t> keep, load, store, mask;  // per use
  std::vector<std::int64_t> resident_diff;   // per step + 1: the kept bytes' difference
  std::int64_t kept = 0, offloads = 0;
  std::vector<Transfer> transfers;  // the last plan's
  std::vector<int> step_begin;      // per step + 1: where its transfers start in `transfers`
  // Work lists of one plan (buffers).
  std::vector<std::uint8_t> tensor_dirty, step_dirty;
  std::vector<int> tensors, steps;
  std::vector<std::int64_t> tree;
  std::vector<Transfer> next;
  std::vector<int> next_begin;
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
  std::vector<int> use_tensor;
  std::vector<Keep> keeps;
  std::vector<KeepRun> runs;
  // The last plan's decisions: state the planner updates through the tables it derived (a
  // sweep's thread owns them), not a table of the input.
  mutable MbsLast last;
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
  d.use_tensor.assign(s.uses.size(), -1);
  for (std::size_t t = 0; t < nt; ++t)
    for (int u = s.tensors[t].use_begin; u < s.tensors[t].use_end; ++u)
      d.use_tensor[static_cast<std::size_t>(u)] = static_cast<int>(t);
  // The runs: in S5's order (by start step), a candidate starts a new run when it starts after
  // every span before it has ended; so no span of one run meets a step of another.
  d.runs.clear();
  for (std::size_t i = 0; i < d.keeps.size(); ++i) {
    const Keep& k = d.keeps[i];
    if (d.runs.empty() || k.from > d.runs.back().hi)
      d.runs.push_back({static_cast<int>(i), static_cast<int>(i), k.from, k.to});
    KeepRun& r = d.runs.back();
    r.end = static_cast<int>(i) + 1;
    r.hi = std::max(r.hi, k.to);
  }
  d.last = {};
}

// The transfers of step i (loads, then stores, in access order) appended to `out`; returns the
// offloads among them.
struct StepEmitter {
  const Schedule& s;
  const MbsTables& tables;
  const MbsLast& last;
  std::int64_t capacity, norm_passes, dy_passes;
  bool relu_mask;

  Kind kind_of(int step) const {
    const int layer = s.steps[static_cast<std::size_t>(step)].layer;
    return layer >= 0 && static_cast<std::size_t>(layer) < s.layer_kinds.size()
               ? s.layer_kinds[static_cast<std::size_t>(layer)]
               : Kind::Input;
  }
  std::int64_t mask_bytes_of(std::int64_t bytes) const { return mask_bytes(bytes / std::max(1, s.bytes_per_element)); }

  std::int64_t emit(std::size_t i, std::vector<Transfer>& out) const {
    const Step& st = s.steps[i];
    const int step = static_cast<int>(i);
    std::int64_t offloads = 0;
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto u = static_cast<std::size_t>(tables.access_use[static_cast<std::size_t>(st.first_access + k)]);
      if (!last.load[u]) continue;
      const Tensor& T = s.tensors[static_cast<std::size_t>(a.tensor)];
      std::int64_t bytes = last.mask[u] ? mask_bytes_of(a.bytes) : a.bytes;
      if (norm_passes > 1 && !s.uses[u].partial && kind_of(step) == Kind::BatchNorm && tables.act[i] > capacity &&
          (T.role == Role::Activation || T.role == Role::Gradient))
        bytes *= norm_passes;
      if (dy_passes > 1 && !s.uses[u].partial && !s.uses[u].write && T.role == Role::Gradient &&
          st.phase == Phase::Backward && reads_dy_twice(kind_of(step)) && tables.act[i] > capacity)
        bytes *= dy_passes;
      out.push_back({a.tensor, TransferKind::StreamLoad, bytes, step, step});
    }
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto u = static_cast<std::size_t>(tables.access_use[static_cast<std::size_t>(st.first_access + k)]);
      if (last.store[u]) {
        out.push_back({a.tensor, TransferKind::StreamStore, a.bytes, step, step});
        ++offloads;
      }
      if (last.mask[u] && s.uses[u].write) {  // the ReLU's mask, written beside (or instead of) Y
        out.push_back({a.tensor, TransferKind::StreamStore, mask_bytes_of(a.bytes), step, step});
        ++offloads;
      }
    }
    return offloads;
  }
};

// S3 and S4 for tensor t's uses, from its keeps (last.keep).
void decide_tensor(const Schedule& s, bool relu_mask, std::size_t t, MbsLast& last) {
  const Tensor& T = s.tensors[t];
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
  const auto mask_read = [&](const Use& U) {
    return relu_mask && U.read && !U.write && T.role == Role::Activation && !T.mask && T.layer >= 0 &&
           s.steps[static_cast<std::size_t>(U.step)].phase == Phase::Backward &&
           static_cast<std::size_t>(T.layer) < s.layer_kinds.size() &&
           backward_needs_only_sign(s.layer_kinds[static_cast<std::size_t>(T.layer)]) && runs(U.step, T.layer);
  };
  for (int u = T.use_begin; u < T.use_end; ++u) {
    const Use& U = s.uses[static_cast<std::size_t>(u)];
    last.load[static_cast<std::size_t>(u)] = U.read && !last.keep[static_cast<std::size_t>(u)];
    last.store[static_cast<std::size_t>(u)] = U.partial && U.write;
    last.mask[static_cast<std::size_t>(u)] = 0;
  }
  for (int w = T.use_begin; w < T.use_end; ++w) {
    const Use& W = s.uses[static_cast<std::size_t>(w)];
    if (W.partial || !W.write) continue;
    bool loaded = false, overwritten = false;
    for (int v = w + 1; v < T.use_end; ++v) {
      const Use& V = s.uses[static_cast<std::size_t>(v)];
      if (V.partial) continue;
      if (V.read && last.load[static_cast<std::size_t>(v)]) {
        if (mask_read(V)) {  // the mask is stored instead of the output for this load
          last.mask[static_cast<std::size_t>(w)] = 1;
          last.mask[static_cast<std::size_t>(v)] = 1;
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
    last.store[static_cast<std::size_t>(w)] = loaded || (!overwritten && T.must_end_offchip);
  }
}

// S5 for one run at `capacity`, from an empty occupancy (no other run's keeps meet its steps):
// admits its candidates in order while they fit, records the capacities over which every
// decision comes out the same, and marks the tensors whose keeps changed.
void decide_run(const MbsTables& tables, std::size_t r, std::int64_t capacity, bool fits, MbsLast& last) {
  const KeepRun& run = tables.runs[r];
  detail::RangeTree tree(static_cast<std::size_t>(run.hi - run.lo + 1), last.tree);
  std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  for (int i = run.begin; i < run.end; ++i) {
    const Keep& k = tables.keeps[static_cast<std::size_t>(i)];
    bool skipped = false, admit = false;
    if (fits && k.gated) {  // reuse=fits: both steps' bytes must fit (S2)
      const std::int64_t both = std::max(tables.footprint[static_cast<std::size_t>(k.from)],
                                         tables.footprint[static_cast<std::size_t>(k.to)]);
      skipped = both > capacity;
      if (skipped) hi = std::min(hi, both);
      else lo = std::max(lo, both);
    }
    if (!skipped) {
      const std::int64_t need = tree.max(k.from - run.lo, k.to - run.lo) + k.bytes;
      admit = need <= capacity;
      if (admit) {
        lo = std::max(lo, need);
        tree.add(k.from - run.lo, k.to - run.lo, k.bytes);
      } else {
        hi = std::min(hi, need);
      }
    }
    if (admit == (last.admitted[static_cast<std::size_t>(i)] != 0)) continue;
    last.admitted[static_cast<std::size_t>(i)] = admit;
    const std::int64_t bytes = admit ? k.bytes : -k.bytes;
    last.resident_diff[static_cast<std::size_t>(k.from)] += bytes;
    last.resident_diff[static_cast<std::size_t>(k.to) + 1] -= bytes;
    last.keep[static_cast<std::size_t>(k.use)] = admit;
    last.kept += admit ? 1 : -1;
    const int t = tables.use_tensor[static_cast<std::size_t>(k.use)];
    if (!last.tensor_dirty[static_cast<std::size_t>(t)]) {
      last.tensor_dirty[static_cast<std::size_t>(t)] = 1;
      last.tensors.push_back(t);
    }
  }
  last.lo_cap[r] = lo;
  last.hi_cap[r] = hi;
}

void plan_mbs_strict(const PlanInput& in, PlanScratch& scratch, Plan& plan) {
  const Schedule& s = in.schedule;
  const bool fits = in.options->choice("reuse") == "fits";
  const auto norm_passes = static_cast<std::int64_t>(in.options->number("norm_passes"));
  const bool relu_mask = in.options->choice("relu_mask") == "on";
  const auto dy_passes = static_cast<std::int64_t>(in.options->number("dy_passes"));
  const std::size_t ns = s.steps.size(), nt = s.tensors.size(), nu = s.uses.size();
  const MbsTables& tables = derived_tables<MbsTables>(scratch, [&](MbsTables& d) { derive_tables(in, d); });
  // The last plan on these tables, updated to this capacity: what it changes and nothing else
  // (docs/performance.md, "mbs-strict, incrementally"). A first plan decides everything.
  MbsLast& last = tables.last;
  const bool fresh = !last.valid;
  last.valid = false;
  if (fresh) {
    last.lo_cap.assign(tables.runs.size(), 1);  // (an empty range: every run decides)
    last.hi_cap.assign(tables.runs.size(), 0);
    last.admitted.assign(tables.keeps.size(), 0);
    last.keep.assign(nu, 0);
    last.load.assign(nu, 0);
    last.store.assign(nu, 0);
    last.mask.assign(nu, 0);
    last.resident_diff.assign(ns + 1, 0);
    last.kept = last.offloads = 0;
    last.tensor_dirty.assign(nt, 0);
    last.step_dirty.assign(ns, 0);
  }
  last.tensors.clear();
  last.steps.clear();

  // S5, run by run: a run whose decisions hold at this capacity keeps them.
  std::int64_t first_flip = std::numeric_limits<std::int64_t>::max();  // the least capacity above
  for (std::size_t r = 0; r < tables.runs.size(); ++r) {               // this one where one flips
    check_interrupt_every(r);
    if (!(last.lo_cap[r] <= in.capacity && in.capacity < last.hi_cap[r]))
      decide_run(tables, r, in.capacity, fits, last);
    first_flip = std::min(first_flip, last.hi_cap[r]);
  }
  // Probing (PlanScratch::probe_capacity): the admissions are the only decisions that read the
  // capacity (but for reuse=fits, norm_passes and dy_passes, where probing is off); the plan at
  // probe_capacity is this one unless some run's decisions flip at or below it.
  const bool probing = !fits && norm_passes == 1 && dy_passes == 1;
  scratch.probe_same = probing && scratch.probe_capacity > in.capacity && scratch.probe_capacity < first_flip;

  // S3 and S4 for the tensors whose keeps changed (every tensor at first); their uses' steps
  // are the steps whose transfers change.
  if (fresh) {
    for (std::size_t t = 0; t < nt; ++t) decide_tensor(s, relu_mask, t, last);
  } else {
    for (const int t : last.tensors) {
      decide_tensor(s, relu_mask, static_cast<std::size_t>(t), last);
      const Tensor& T = s.tensors[static_cast<std::size_t>(t)];
      for (int u = T.use_begin; u < T.use_end; ++u) {
        const auto step = static_cast<std::size_t>(s.uses[static_cast<std::size_t>(u)].step);
        if (!last.step_dirty[step]) {
          last.step_dirty[step] = 1;
          last.steps.push_back(static_cast<int>(step));
        }
      }
    }
  }
  for (const int t : last.tensors) last.tensor_dirty[static_cast<std::size_t>(t)] = 0;
  plan.resident.resize(ns);
  std::int64_t r = 0;
  for (std::size_t i = 0; i < ns; ++i) plan.resident[i] = r += last.resident_diff[i];

  // Transfers, step by step: the changed steps' made again, the rest copied from the last plan
  // (norm_passes > 1 and dy_passes > 1 read the capacity in every batch-norm, convolution and
  // dense step: all made again).
  const StepEmitter emitter{s, tables, last, in.capacity, norm_passes, dy_passes, relu_mask};
  std::vector<Transfer>& next = last.next;
  std::vector<int>& begin = last.next_begin;
  next.clear();
  begin.resize(ns + 1);
  if (fresh || norm_passes > 1 || dy_passes > 1) {
    last.offloads = 0;
    for (std::size_t i = 0; i < ns; ++i) {
      check_interrupt_every(i);
      begin[i] = static_cast<int>(next.size());
      last.offloads += emitter.emit(i, next);
    }
    for (const int i : last.steps) last.step_dirty[static_cast<std::size_t>(i)] = 0;
  } else {
    std::sort(last.steps.begin(), last.steps.end());
    std::size_t copied = 0;  // the steps before it are in `next`
    const auto copy_until = [&](std::size_t end) {
      const int from = last.step_begin[copied], shift = static_cast<int>(next.size()) - from;
      next.insert(next.end(), last.transfers.begin() + from, last.transfers.begin() + last.step_begin[end]);
      for (std::size_t i = copied; i < end; ++i) begin[i] = last.step_begin[i] + shift;
    };
    for (const int step : last.steps) {
      const auto i = static_cast<std::size_t>(step);
      copy_until(i);
      for (int x = last.step_begin[i]; x < last.step_begin[i + 1]; ++x)
        last.offloads -= last.transfers[static_cast<std::size_t>(x)].kind == TransferKind::StreamStore;
      begin[i] = static_cast<int>(next.size());
      last.offloads += emitter.emit(i, next);
      last.step_dirty[i] = 0;
      copied = i + 1;
    }
    copy_until(ns);
  }
  begin[ns] = static_cast<int>(next.size());
  std::swap(last.transfers, next);
  std::swap(last.step_begin, begin);
  plan.transfers = last.transfers;
  plan.counts = {};
  plan.counts.kept = static_cast<int>(last.kept);
  plan.counts.offloads = static_cast<int>(last.offloads);
  last.valid = true;
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
