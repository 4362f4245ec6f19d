// The fusion stage's second half (docs/model/fusion.md): each group's steps of the unfused
// iteration become one step. A fused step reads what its layers read from outside it, writes
// what is used outside it, and keeps everything else on chip; its FLOPs and matrix products are
// its layers'. Before merging, each backward read of a forward output that its forward step
// would otherwise keep on chip is settled: recomputed, read as a 1-bit mask, or saved.
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>

#include "dnnmem/fusion.hpp"
#include "dnnmem/schedule.hpp"
#include "schedulers/steps.hpp"

namespace dnnmem::detail {

namespace {

bool accumulated(Role r) { return r == Role::Gradient || r == Role::WeightGrad; }

// Layers whose output the backward pass may recompute from that layer's inputs: point-wise
// work without a random draw or a weight as large as the data (a batch norm's or layer norm's
// statistics and scale are a few values per channel or row).
bool recomputable_kind(Kind k) {
  switch (fusion_class(k)) {
    case FusionClass::Pointwise: return k != Kind::Dropout && k != Kind::PositionEmbedding;
    case FusionClass::BatchNorm:
    case FusionClass::RowReduction: return true;
    default: return false;
  }
}

class StepFuser {
 public:
  StepFuser(const Network& net, const FusionGroups& groups, const std::vector<int>& y, Schedule& s)
      : net_(net), g_(groups), y_(y), s_(s) {}

  void run() {
    assign_units();
    steps_acc_.resize(s_.steps.size());
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      const Step& st = s_.steps[i];
      steps_acc_[i].assign(s_.accesses.begin() + st.first_access,
                           s_.accesses.begin() + st.first_access + st.num_accesses);
    }
    settle_backward_reads();
    merge();
  }

 private:
  const Network& net_;
  const FusionGroups& g_;
  const std::vector<int>& y_;  // per layer: its output tensor (-1 for folded layers)
  Schedule& s_;
  std::vector<int> unit_;      // per step of the unfused iteration: the step it becomes part of
  int num_units_ = 0;
  std::vector<std::vector<Access>> steps_acc_;  // per unfused step, its accesses (settled)
  std::vector<int> fwd_step_;  // per layer: its unfused forward step, -1 if none

  Kind kind(int layer) const { return net_.layers[static_cast<std::size_t>(layer)].kind; }

  // Forward steps join their forward group's step, backward steps their backward group's; each
  // loss step is a step of its own, and so is the second half of a split product's backward
  // (split-backward), which reads the gradient the first half's fused step writes.
  void assign_units() {
    const int F = static_cast<int>(g_.forward.size());
    num_units_ = F + static_cast<int>(g_.backward.size());
    unit_.assign(s_.steps.size(), -1);
    fwd_step_.assign(net_.layers.size(), -1);
    std::vector<char> seen_bwd(net_.layers.size(), 0);
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      const Step& st = s_.steps[i];
      const auto l = static_cast<std::size_t>(st.layer);
      if (st.phase == Phase::Forward) {
        unit_[i] = g_.forward_of[l];
        fwd_step_[l] = static_cast<int>(i);
      } else if (st.phase == Phase::Loss || (st.part != StepPart::Whole && seen_bwd[l])) {
        unit_[i] = num_units_++;
      } else {
        unit_[i] = F + g_.backward_of[l];
        seen_bwd[l] = 1;
      }
    }
  }

  // --- backward reads of forward outputs ------------------------------------------------------

  // The layer whose output `t` is, if it is a forward output of a layer with a forward step.
  int producer(int t) const {
    const Tensor& T = s_.tensors[static_cast<std::size_t>(t)];
    if (T.role != Role::Activation || T.starts_offchip || T.layer < 0) return -1;
    if (fwd_step_[static_cast<std::size_t>(T.layer)] < 0) return -1;
    return y_[static_cast<std::size_t>(T.layer)] == t ? T.layer : -1;
  }

  // Settles every backward read of a forward output (docs/model/fusion.md, "What the backward
  // pass reads"): at `pointwise` read it where a product's backward reads it anyway (what the
  // compilers save), else recompute it where that costs no read, read a 1-bit mask instead (a
  // ReLU's sign, a dropout's draw), or save it: the forward step writes it for the backward pass.
  void settle_backward_reads() {
    const std::size_t nt = s_.tensors.size();
    const bool accelerator = g_.level == FusionLevel::Accelerator;
    // saved_[t]: the backward step of a product reads forward output t (an input it needs for
    // its weight gradient, a matmul's operand).
    saved_.assign(nt, 0);
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      const Step& st = s_.steps[i];
      if (st.phase != Phase::Backward || fusion_class(kind(st.layer)) != FusionClass::Product) continue;
      for (const Access& a : steps_acc_[i])
        if (a.read && producer(a.tensor) >= 0) saved_[static_cast<std::size_t>(a.tensor)] = 1;
    }
    // What each backward step reads anyway: network inputs, forward outputs no backward step can
    // recompute (a dropout's own output aside: its mask is read), and at `pointwise` the saved.
    base_.assign(static_cast<std::size_t>(num_units_), {});
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      const Step& st = s_.steps[i];
      if (st.phase != Phase::Backward) continue;
      for (const Access& a : steps_acc_[i]) {
        const Tensor& T = s_.tensors[static_cast<std::size_t>(a.tensor)];
        if (!a.read || a.write || T.role != Role::Activation) continue;
        const int p = producer(a.tensor);
        const bool anyway = p < 0 ? T.starts_offchip
                                  : (!recomputable_kind(kind(p)) && !(p == st.layer && kind(p) == Kind::Dropout)) ||
                                        (!accelerator && saved_[static_cast<std::size_t>(a.tensor)]);
        if (anyway) base_[static_cast<std::size_t>(unit_[i])].push_back(a.tensor);
      }
    }
    mask_.assign(net_.layers.size(), -1);
    for (std::size_t i = 0; i < s_.steps.size(); ++i) {
      const Step& st = s_.steps[i];
      if (st.phase != Phase::Backward) continue;
      const int u = unit_[i];
      std::vector<Access> kept;
      for (const Access& a : steps_acc_[i]) {
        const int p = a.read && !a.write ? producer(a.tensor) : -1;
        if (p < 0) {
          kept.push_back(a);
          continue;
        }
        const bool own = p == st.layer;
        if (own && kind(p) == Kind::Dropout) {
          kept.push_back(mask_read(p));
        } else if (!accelerator && saved_[static_cast<std::size_t>(a.tensor)]) {
          kept.push_back(a);
        } else if (recomputable(a.tensor, u, 0)) {
          continue;  // recomputed from what the step reads anyway
        } else if (own && backward_needs_only_sign(kind(p))) {
          kept.push_back(mask_read(p));
        } else {
          kept.push_back(a);  // read as it is: saved by its forward step
        }
      }
      steps_acc_[i] = std::move(kept);
    }
  }

  std::vector<char> saved_;             // per tensor: a product's backward reads it
  std::vector<std::vector<int>> base_;  // per unit: the forward outputs it reads anyway
  std::vector<int> mask_;               // per layer: its mask tensor, -1 if none

  // Whether the backward step `unit` can recompute forward output `t` without reading anything
  // it does not read anyway (depth-limited: a recomputation is a short point-wise chain).
  bool recomputable(int t, int unit, int depth) const {
    if (depth > 16) return false;
    const auto& base = base_[static_cast<std::size_t>(unit)];
    const int p = producer(t);
    if (p < 0 || !recomputable_kind(kind(p))) return false;
    for (int in : net_.layers[static_cast<std::size_t>(p)].inputs) {
      const int x = y_[static_cast<std::size_t>(net_.resolve(in))];
      if (x < 0) return false;
      if (std::find(base.begin(), base.end(), x) != base.end()) continue;
      if (!recomputable(x, unit, depth + 1)) return false;
    }
    return true;
  }

  // The read of layer p's mask (made on first use; its forward step writes it).
  Access mask_read(int p) {
    int& m = mask_[static_cast<std::size_t>(p)];
    if (m < 0) {
      const Layer& L = net_.layers[static_cast<std::size_t>(p)];
      Tensor T;
      T.name = "M:" + L.name;
      T.role = Role::Activation;
      T.layer = p;
      T.mask = true;
      T.bytes = s_.batch * mask_bytes(L.elements);
      m = static_cast<int>(s_.tensors.size());
      s_.tensors.push_back(std::move(T));
      steps_acc_[static_cast<std::size_t>(fwd_step_[static_cast<std::size_t>(p)])].push_back(
          {m, false, true, false, s_.tensors.back().bytes});
    }
    return {m, true, false, false, s_.tensors[static_cast<std::size_t>(m)].bytes};
  }

  // --- merging ---------------------------------------------------------------------------------

  struct Merged {
    int tensor = -1;
    bool genuine_read = false;  // needs the value from before the step (not an accumulation)
    bool accumulate_read = false;
    bool write = false;
    bool partial = true;
    std::int64_t bytes = 0;
  };

  void merge() {
    const std::size_t ns = s_.steps.size(), nt = s_.tensors.size();
    const auto U = static_cast<std::size_t>(num_units_);
    // Which steps use each tensor: a write is kept only if another step uses the tensor.
    std::vector<int> first_unit(nt, -1);
    std::vector<char> shared(nt, 0);
    for (std::size_t i = 0; i < ns; ++i)
      for (const Access& a : steps_acc_[i]) {
        int& f = first_unit[static_cast<std::size_t>(a.tensor)];
        if (f < 0) f = unit_[i];
        else if (f != unit_[i]) shared[static_cast<std::size_t>(a.tensor)] = 1;
      }
    // Each unit's steps, and where it runs: a forward group where its last layer's forward step
    // was, a backward group where its first backward step was (the last layer's), so that its
    // inputs are ready and its outputs come before their readers.
    std::vector<std::vector<int>> parts(U);
    for (std::size_t i = 0; i < ns; ++i) parts[static_cast<std::size_t>(unit_[i])].push_back(static_cast<int>(i));
    std::vector<int> at(U, -1), units;
    for (std::size_t u = 0; u < U; ++u) {
      if (parts[u].empty()) continue;
      const bool fwd = s_.steps[static_cast<std::size_t>(parts[u].front())].phase == Phase::Forward;
      at[u] = fwd ? parts[u].back() : parts[u].front();
      units.push_back(static_cast<int>(u));
    }
    std::sort(units.begin(), units.end(), [&](int a, int b) {
      return at[static_cast<std::size_t>(a)] < at[static_cast<std::size_t>(b)];
    });

    Schedule out;
    std::vector<char> created(nt, 0);
    std::vector<int> slot(nt, -1);
    for (int u : units) {
      const auto& members = parts[static_cast<std::size_t>(u)];
      std::vector<Merged> acc;
      std::int64_t inside = 0;
      Step st;
      const Step& head = s_.steps[static_cast<std::size_t>(members.front())];
      st.phase = head.phase;
      st.part = StepPart::Whole;
      st.first_gemm = static_cast<int>(out.gemms.size());
      std::vector<int> layers;
      for (int i : members) {
        const Step& m = s_.steps[static_cast<std::size_t>(i)];
        st.ops += m.ops;
        if (m.part != StepPart::Whole) st.part = m.part;
        out.gemms.insert(out.gemms.end(), s_.gemms.begin() + m.first_gemm,
                         s_.gemms.begin() + m.first_gemm + m.num_gemms);
        if (std::find(layers.begin(), layers.end(), m.layer) == layers.end()) layers.push_back(m.layer);
        for (const Access& a : steps_acc_[static_cast<std::size_t>(i)]) {
          const auto t = static_cast<std::size_t>(a.tensor);
          if (slot[t] < 0) {
            slot[t] = static_cast<int>(acc.size());
            acc.push_back({a.tensor, false, false, false, true, 0});
          }
          Merged& x = acc[static_cast<std::size_t>(slot[t])];
          if (a.read && !x.write) {
            if (a.write && accumulated(s_.tensors[t].role)) x.accumulate_read = true;
            else x.genuine_read = true;
          }
          x.write = x.write || a.write;
          x.partial = x.partial && a.partial;
          x.bytes = std::max(x.bytes, a.bytes);
        }
      }
      st.num_gemms = static_cast<int>(out.gemms.size()) - st.first_gemm;
      // Members in forward order; the step is named after the first (its anchor).
      std::sort(layers.begin(), layers.end(), [&](int a, int b) { return order_pos(a) < order_pos(b); });
      st.layer = layers.front();
      st.first_access = static_cast<int>(out.accesses.size());
      for (Merged& x : acc) {
        const auto t = static_cast<std::size_t>(x.tensor);
        slot[t] = -1;
        const Tensor& T = s_.tensors[t];
        const bool keep_write = x.write && (shared[t] || T.must_end_offchip);
        if (x.write && !keep_write) inside += x.bytes;  // passed on chip inside the step
        bool read = x.genuine_read;
        if (accumulated(T.role) && keep_write) read = read || created[t];
        if (keep_write) created[t] = 1;
        if (!read && !keep_write) continue;
        out.accesses.push_back({x.tensor, read, keep_write, x.partial, x.bytes});
      }
      st.num_accesses = static_cast<int>(out.accesses.size()) - st.first_access;
      out.step_layer_begin.push_back(static_cast<int>(out.step_layers.size()));
      out.step_layers.insert(out.step_layers.end(), layers.begin(), layers.end());
      out.step_intermediate_bytes.push_back(inside);
      if (st.phase == Phase::Forward) out.forward_order.push_back(st.layer);
      out.steps.push_back(st);
    }
    out.step_layer_begin.push_back(static_cast<int>(out.step_layers.size()));
    s_.steps = std::move(out.steps);
    s_.accesses = std::move(out.accesses);
    s_.gemms = std::move(out.gemms);
    s_.forward_order = std::move(out.forward_order);
    s_.step_layer_begin = std::move(out.step_layer_begin);
    s_.step_layers = std::move(out.step_layers);
    s_.step_intermediate_bytes = std::move(out.step_intermediate_bytes);
  }

  std::vector<int> order_pos_;
  int order_pos(int layer) {
    if (order_pos_.empty()) {
      order_pos_.assign(net_.layers.size(), 0);
      for (std::size_t p = 0; p < s_.forward_order.size(); ++p)
        order_pos_[static_cast<std::size_t>(s_.forward_order[p])] = static_cast<int>(p);
    }
    return order_pos_[static_cast<std::size_t>(layer)];
  }
};

}  // namespace

void fuse_steps(const Network& net, const FusionGroups& groups, const std::vector<int>& y, Schedule& s) {
  StepFuser(net, groups, y, s).run();
  s.fusion = std::string(fusion_level_name(groups.level));
}

}  // namespace dnnmem::detail
