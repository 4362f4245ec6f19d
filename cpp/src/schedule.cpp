// Stage 2: the steps of the thesis's schedule (SPEC §3) — depth-first forward order with joins,
// one loss step per network output, backward in reverse forward order, gradient accumulation —
// with the variations the schedulers of cpp/src/schedulers/ select (forward only; a GEMM layer's
// backward split into dX and dW steps). The tensor order and the use lists every cache manager
// derives its decisions from are in schedule_uses.cpp.
#include "dnnmem/schedule.hpp"

#include <algorithm>
#include <random>
#include <array>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "dnnmem/compose.hpp"
#include "dnnmem/interrupt.hpp"
#include "limits.hpp"
#include "schedulers/steps.hpp"

namespace dnnmem {

std::string_view role_name(Role r) {
  switch (r) {
    case Role::Activation: return "activation";
    case Role::Weight: return "weight";
    case Role::State: return "state";
    case Role::Gradient: return "gradient";
    case Role::WeightGrad: return "weight_grad";
  }
  return "";
}

std::string_view role_prefix(Role r) {
  switch (r) {
    case Role::Activation: return "Y";
    case Role::Weight: return "W";
    case Role::State: return "S";
    case Role::Gradient: return "dY";
    case Role::WeightGrad: return "dW";
  }
  return "";
}

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::Forward: return "fwd";
    case Phase::Loss: return "loss";
    case Phase::Backward: return "bwd";
  }
  return "";
}

std::string_view part_name(StepPart p) {
  switch (p) {
    case StepPart::Whole: return "";
    case StepPart::Data: return "dx";
    case StepPart::Weight: return "dw";
  }
  return "";
}

std::int64_t Schedule::num_intervals() const {
  std::int64_t n = 0;
  for (const auto& t : tensors) {
    std::int64_t full = 0;
    for (int u = t.use_begin; u < t.use_end; ++u) full += uses[static_cast<std::size_t>(u)].partial ? 0 : 1;
    n += std::max<std::int64_t>(0, full - 1);
  }
  return n;
}

std::int64_t Schedule::peak_alive_bytes() const {
  std::vector<std::int64_t> delta(steps.size() + 1, 0);
  for (const auto& t : tensors) {
    if (t.first_use < 0) continue;
    delta[static_cast<std::size_t>(t.first_use)] += t.bytes;
    delta[static_cast<std::size_t>(t.last_use) + 1] -= t.bytes;
  }
  std::int64_t alive = 0, peak = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) peak = std::max(peak, alive += delta[s]);
  return peak;
}

std::vector<int> Schedule::layers_of(int s) const {
  if (step_layer_begin.empty()) return {steps[static_cast<std::size_t>(s)].layer};
  return {step_layers.begin() + step_layer_begin[static_cast<std::size_t>(s)],
          step_layers.begin() + step_layer_begin[static_cast<std::size_t>(s) + 1]};
}

std::int64_t Schedule::total_ops(int ops_per_mac) const {
  std::int64_t n = 0;
  for (const auto& s : steps) n += s.ops.total(ops_per_mac);
  return n;
}

namespace {

int element_bytes(DType d, int float_bytes) {
  switch (d) {
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Float: break;
  }
  return float_bytes;
}

// Depth-first from the inputs (file order); a join is entered only when all its inputs are
// done; consumers in file order (thesis 4.2.2). Iterative: deep chains must not overflow the
// stack. Folded layers are walked through but make no step.
std::vector<int> forward_order(const Network& net) {
  const std::size_t n = net.layers.size();
  std::vector<int> remaining(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> ins = net.layers[i].inputs;
    std::sort(ins.begin(), ins.end());
    remaining[i] = static_cast<int>(std::unique(ins.begin(), ins.end()) - ins.begin());
  }
  std::vector<int> order;
  std::vector<std::pair<int, std::size_t>> stack;  // (layer, next consumer to try)
  for (std::size_t root = 0; root < n; ++root) {
    if (net.layers[root].kind != Kind::Input) continue;
    stack.push_back({static_cast<int>(root), 0});
    while (!stack.empty()) {
      auto& [layer, next] = stack.back();
      const auto& cons = net.consumers[static_cast<std::size_t>(layer)];
      if (next == 0) {
        const Layer& l = net.layers[static_cast<std::size_t>(layer)];
        if (l.kind != Kind::Input && !kind_info(l.kind).folded) order.push_back(layer);
      }
      if (next >= cons.size()) {
        stack.pop_back();
        continue;
      }
      const int c = cons[next++];
      if (--remaining[static_cast<std::size_t>(c)] == 0) stack.push_back({c, 0});
    }
  }
  return order;
}

// The other forward orders (docs/model/onsram.md, rule O9): list scheduling over ready layers
// (all inputs done), released in a FIFO queue. `hybrid` runs next the first activation-bound
// layer (no multiply-accumulates) released by the step just scheduled, i.e. one that consumes
// it, else the queue's front (breadth-first); `bfs` always runs the queue's front (the hybrid
// without its depth-first part); `random` draws a ready layer uniformly from a
// 64-bit Mersenne Twister seeded with `seed` (the same order on every platform). Folded layers
// and inputs are released as soon as they are ready and make no step.
std::vector<int> list_forward_order(const Network& net, const detail::StepRules& rules) {
  const std::size_t n = net.layers.size();
  std::vector<int> remaining(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> ins = net.layers[i].inputs;
    std::sort(ins.begin(), ins.end());
    remaining[i] = static_cast<int>(std::unique(ins.begin(), ins.end()) - ins.begin());
  }
  std::vector<int> ready, released, order;
  std::mt19937_64 rng(rules.seed);
  // Marks `layer` done: its consumers whose last input it was join the queue (folded ones are
  // walked through at once); `released` collects them, in release order.
  auto release = [&](int layer) {
    std::vector<int> stack{layer};
    while (!stack.empty()) {
      const int l = stack.back();
      stack.pop_back();
      const auto& cons = net.consumers[static_cast<std::size_t>(l)];
      for (auto it = cons.rbegin(); it != cons.rend(); ++it) {
        const int c = *it;
        if (--remaining[static_cast<std::size_t>(c)] != 0) continue;
        if (kind_info(net.layers[static_cast<std::size_t>(c)].kind).folded) stack.push_back(c);
      }
      for (const int c : cons) {
        if (remaining[static_cast<std::size_t>(c)] != 0) continue;
        if (kind_info(net.layers[static_cast<std::size_t>(c)].kind).folded) continue;
        if (std::find(ready.begin(), ready.end(), c) != ready.end()) continue;
        if (std::find(order.begin(), order.end(), c) != order.end()) continue;
        ready.push_back(c);
        released.push_back(c);
      }
    }
  };
  for (std::size_t i = 0; i < n; ++i)
    if (net.layers[i].kind == Kind::Input) release(static_cast<int>(i));
  while (!ready.empty()) {
    std::size_t pick = 0;
    if (rules.order == detail::StepRules::Order::Random) {
      pick = static_cast<std::size_t>(rng() % ready.size());
    } else if (rules.order == detail::StepRules::Order::Hybrid) {
      for (const int c : released) {
        if (net.layers[static_cast<std::size_t>(c)].fwd.macs != 0) continue;
        pick = static_cast<std::size_t>(std::find(ready.begin(), ready.end(), c) - ready.begin());
        break;
      }
    }
    const int layer = ready[pick];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
    order.push_back(layer);
    released.clear();
    release(layer);
  }
  return order;
}

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  }
  void unite(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
};

class ScheduleBuilder {
 public:
  ScheduleBuilder(const Network& net, const ScheduleOptions& opt, const detail::StepRules& rules,
                  Schedule& out)
      : net_(net), rules_(rules), s_(out) {
    s_.batch = opt.batch;
    s_.bytes_per_element = opt.bytes_per_element;
  }

  void build() {
    s_.forward_order = rules_.order == detail::StepRules::Order::Thesis
                           ? forward_order(net_)
                           : list_forward_order(net_, rules_);
    position_.assign(net_.layers.size(), -1);
    for (std::size_t i = 0; i < s_.forward_order.size(); ++i)
      position_[static_cast<std::size_t>(s_.forward_order[i])] = static_cast<int>(i);
    find_gradients();
    make_tensors();
    for (int l : s_.forward_order) {
      check_interrupt_every(s_.steps.size());
      forward_step(l);
    }
    std::vector<int> outs;
    for (int o : net_.outputs) {
      const int r = net_.resolve(o);
      if (net_.layers[static_cast<std::size_t>(r)].kind == Kind::Input) continue;
      if (std::find(outs.begin(), outs.end(), r) == outs.end()) outs.push_back(r);
    }
    if (rules_.training) {
      for (int o : outs) loss_step(o);
      for (auto it = s_.forward_order.rbegin(); it != s_.forward_order.rend(); ++it) {
        check_interrupt_every(s_.steps.size());
        if (has_grad_[static_cast<std::size_t>(*it)]) backward_step(*it);
      }
    } else {
      // Inference: what the network computes is its outputs, so they must reach off-chip memory.
      for (int o : outs) s_.tensors[static_cast<std::size_t>(y_[static_cast<std::size_t>(o)])].must_end_offchip = true;
    }
    if (rules_.fusion != FusionLevel::None)
      detail::fuse_steps(net_, fusion_groups(net_, s_.forward_order, rules_.fusion,
                                                 rules_.training && rules_.batch_statistics), y_, s_);
    finish_tensors();
  }

 private:
  const Network& net_;
  detail::StepRules rules_;
  Schedule& s_;
  std::vector<int> position_;         // forward position of each layer
  std::vector<char> has_grad_;        // per layer (folded: as its source)
  std::vector<int> y_, dy_, s_t_;     // tensor per layer: Y, dY, S (-1 if none)
  std::vector<int> w_, dw_;           // tensor per weight: W, dW
  std::vector<char> created_;         // gradient tensors already written once
  std::vector<Access> step_acc_;      // accesses of the step being built
  std::vector<Gemm> step_gemms_;      // and its GEMMs

  const Layer& layer(int i) const { return net_.layers[static_cast<std::size_t>(i)]; }
  bool trainable_weight(const Layer& l) const {
    return l.weight >= 0 && net_.weights[static_cast<std::size_t>(l.weight)].trainable;
  }
  std::int64_t act_bytes(const Layer& l) const {
    return s_.batch * l.elements * element_bytes(l.dtype, s_.bytes_per_element);
  }

  // Y_l has a gradient iff l or an ancestor has trainable weights (SPEC §3); none without a
  // backward pass.
  void find_gradients() {
    has_grad_.assign(net_.layers.size(), 0);
    if (!rules_.training) return;
    for (int l : s_.forward_order) {
      const Layer& L = layer(l);
      bool g = trainable_weight(L);
      for (int in : L.inputs) g = g || has_grad_[static_cast<std::size_t>(net_.resolve(in))];
      has_grad_[static_cast<std::size_t>(l)] = g;
    }
    for (std::size_t i = 0; i < net_.layers.size(); ++i)
      has_grad_[i] = has_grad_[static_cast<std::size_t>(net_.resolve(static_cast<int>(i)))];
  }

  int new_tensor(std::string name, Role role, int owner, std::int64_t bytes) {
    Tensor t;
    t.name = std::move(name);
    t.role = role;
    t.layer = owner;
    t.bytes = bytes;
    s_.tensors.push_back(std::move(t));
    return static_cast<int>(s_.tensors.size() - 1);
  }

  void make_tensors() {
    const std::size_t n = net_.layers.size();
    y_.assign(n, -1);
    dy_.assign(n, -1);
    s_t_.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
      const Layer& L = net_.layers[i];
      if (kind_info(L.kind).folded) continue;
      const int li = static_cast<int>(i);
      y_[i] = new_tensor("Y:" + L.name, Role::Activation, li, act_bytes(L));
      if (L.kind == Kind::Input) s_.tensors[static_cast<std::size_t>(y_[i])].starts_offchip = true;
      if (L.state_elements > 0) {
        s_t_[i] = new_tensor("S:" + L.name, Role::State, li,
                             L.state_elements * s_.bytes_per_element);
        s_.tensors[static_cast<std::size_t>(s_t_[i])].starts_offchip = true;
      }
    }
    w_.assign(net_.weights.size(), -1);
    dw_.assign(net_.weights.size(), -1);
    for (std::size_t w = 0; w < net_.weights.size(); ++w) {
      const WeightTensor& W = net_.weights[w];
      const std::int64_t bytes = W.elements * s_.bytes_per_element;
      w_[w] = new_tensor("W:" + W.name, Role::Weight, W.layers.front(), bytes);
      s_.tensors[static_cast<std::size_t>(w_[w])].starts_offchip = true;
      s_.tensors[static_cast<std::size_t>(w_[w])].weight = static_cast<int>(w);
      if (W.trainable) {
        dw_[w] = new_tensor("dW:" + W.name, Role::WeightGrad, W.layers.front(), bytes);
        s_.tensors[static_cast<std::size_t>(dw_[w])].must_end_offchip = true;
        s_.tensors[static_cast<std::size_t>(dw_[w])].weight = static_cast<int>(w);
      }
    }
    // One gradient tensor per group of aliased dY: an add's dY is the dY of each of its inputs
    // that has a gradient (SPEC §2 table, "add"). The group is named after its member that runs
    // last in the forward order (the add), where the gradient enters it.
    UnionFind uf(n);
    for (int l : s_.forward_order) {
      const Layer& L = layer(l);
      if (L.kind != Kind::Add || !has_grad_[static_cast<std::size_t>(l)]) continue;
      for (int in : L.inputs) {
        const int r = net_.resolve(in);
        if (has_grad_[static_cast<std::size_t>(r)] && layer(r).kind != Kind::Input) uf.unite(r, l);
      }
    }
    std::vector<int> rep(n, -1);  // group root -> representative layer
    for (int l : s_.forward_order)
      if (has_grad_[static_cast<std::size_t>(l)]) {
        int& r = rep[static_cast<std::size_t>(uf.find(l))];
        if (r < 0 || position_[static_cast<std::size_t>(l)] > position_[static_cast<std::size_t>(r)]) r = l;
      }
    std::vector<int> group_tensor(n, -1);
    for (int l : s_.forward_order) {
      if (!has_grad_[static_cast<std::size_t>(l)]) continue;
      const int root = uf.find(l);
      int& t = group_tensor[static_cast<std::size_t>(root)];
      if (t < 0) {
        const Layer& R = layer(rep[static_cast<std::size_t>(root)]);
        t = new_tensor("dY:" + R.name, Role::Gradient, rep[static_cast<std::size_t>(root)],
                       act_bytes(R));
      }
      dy_[static_cast<std::size_t>(l)] = t;
    }
    created_.assign(s_.tensors.size(), 0);
  }

  int y_of(int l) const { return y_[static_cast<std::size_t>(net_.resolve(l))]; }
  int dy_of(int l) const { return dy_[static_cast<std::size_t>(net_.resolve(l))]; }

  // Adds an access to the step being built; a second access of the same tensor in one step
  // merges into the first (e.g. multiply(x, x)).
  void access(int tensor, bool read, bool write, std::int64_t partial_bytes = 0) {
    const std::int64_t bytes = partial_bytes > 0 ? partial_bytes : s_.tensors[static_cast<std::size_t>(tensor)].bytes;
    for (auto& a : step_acc_)
      if (a.tensor == tensor) {
        a.read = a.read || read;
        a.write = a.write || write;
        if (a.partial && partial_bytes == 0) a.partial = false;
        a.bytes = std::max(a.bytes, bytes);
        return;
      }
    step_acc_.push_back({tensor, read, write, partial_bytes > 0, bytes});
  }

  // A write of an accumulated tensor (dY, dW): the first creates it, later ones read-modify-write.
  // Two contributions in one step (multiply(x, x)) create it together: still a plain write.
  void accumulate(int tensor, std::int64_t partial_bytes = 0) {
    bool existed = created_[static_cast<std::size_t>(tensor)];
    for (const auto& a : step_acc_)
      if (a.tensor == tensor && a.write && !a.read) existed = false;
    created_[static_cast<std::size_t>(tensor)] = 1;
    access(tensor, existed, true, partial_bytes);
  }

  // The step's GEMMs (gemm.hpp): `pass` of layer l, for each input that has a gradient when
  // pass is BackwardData (a matmul has two).
  void gemm(int l, GemmPass pass, int input = -1) {
    const Layer& L = layer(l);
    const auto add = [&](int i) {
      const Gemm g = layer_gemm(net_, L, pass, s_.batch, i);
      if (g.count > 0) step_gemms_.push_back(g);
    };
    if (pass != GemmPass::BackwardData || input >= 0) {
      add(input < 0 ? 0 : input);
      return;
    }
    for (std::size_t i = 0; i < L.inputs.size(); ++i)
      if (has_grad_[static_cast<std::size_t>(net_.resolve(L.inputs[i]))]) add(static_cast<int>(i));
  }

  void emit(Phase phase, int l, OpCount ops, StepPart part = StepPart::Whole) {
    Step st;
    st.phase = phase;
    st.layer = l;
    st.part = part;
    st.first_gemm = static_cast<int>(s_.gemms.size());
    st.num_gemms = static_cast<int>(step_gemms_.size());
    s_.gemms.insert(s_.gemms.end(), step_gemms_.begin(), step_gemms_.end());
    step_gemms_.clear();
    st.ops = ops;
    st.first_access = static_cast<int>(s_.accesses.size());
    st.num_accesses = static_cast<int>(step_acc_.size());
    s_.accesses.insert(s_.accesses.end(), step_acc_.begin(), step_acc_.end());
    step_acc_.clear();
    s_.steps.push_back(st);
  }

  std::int64_t gathered_bytes(const Layer& L) const {
    return s_.batch * L.gathered_rows * L.params.output_dim * s_.bytes_per_element;
  }

  OpCount scaled(OpCount c, std::int64_t k) const { return {c.macs * k, c.flops * k}; }

  void forward_step(int l) {
    const Layer& L = layer(l);
    for (int in : L.inputs) access(y_of(in), true, false);
    if (L.weight >= 0)
      access(w_[static_cast<std::size_t>(L.weight)], true, false,
             L.kind == Kind::Embedding ? gathered_bytes(L) : 0);
    if (s_t_[static_cast<std::size_t>(l)] >= 0) access(s_t_[static_cast<std::size_t>(l)], true, false);
    access(y_[static_cast<std::size_t>(l)], false, true);
    gemm(l, GemmPass::Forward);
    emit(Phase::Forward, l, scaled(L.fwd, s_.batch));
  }

  void loss_step(int out) {
    const Layer& L = layer(out);
    access(y_[static_cast<std::size_t>(out)], true, false);
    if (dy_[static_cast<std::size_t>(out)] >= 0) accumulate(dy_[static_cast<std::size_t>(out)]);
    // Softmax cross-entropy on the logits: 3 FLOPs per logit element (SPEC §2).
    emit(Phase::Loss, out, {0, 3 * L.elements * s_.batch});
  }

  void backward_step(int l) {
    const Layer& L = layer(l);
    if (L.kind == Kind::Add) {  // the add's dY is its inputs' dY: nothing moves, nothing computes
      emit(Phase::Backward, l, {});
      return;
    }
    const bool has_dw = trainable_weight(L);
    std::int64_t n_dx = 0;
    for (int in : L.inputs) n_dx += has_grad_[static_cast<std::size_t>(net_.resolve(in))] ? 1 : 0;
    if (rules_.split_backward && split_backward_step(l, has_dw, n_dx)) return;
    access(dy_[static_cast<std::size_t>(l)], true, false);
    const int w = L.weight >= 0 ? w_[static_cast<std::size_t>(L.weight)] : -1;
    switch (kind_info(L.kind).backward_reads) {
      case BackwardReads::XAndW:
        if (has_dw) access(y_of(L.inputs[0]), true, false);
        if (n_dx > 0 && w >= 0) access(w, true, false);
        break;
      case BackwardReads::AllInputs:
        for (int in : L.inputs) access(y_of(in), true, false);
        break;
      case BackwardReads::XAndScale:
        access(y_of(L.inputs[0]), true, false);
        if (w >= 0) access(w, true, false);
        break;
      case BackwardReads::Y: access(y_[static_cast<std::size_t>(l)], true, false); break;
      case BackwardReads::X:
      case BackwardReads::TokenIds: access(y_of(L.inputs[0]), true, false); break;
      case BackwardReads::GradientOnly:
      case BackwardReads::Nothing: break;
    }
    for (int in : L.inputs)
      if (has_grad_[static_cast<std::size_t>(net_.resolve(in))]) accumulate(dy_of(in));
    if (has_dw)
      accumulate(dw_[static_cast<std::size_t>(L.weight)],
                 L.kind == Kind::Embedding ? gathered_bytes(L) : 0);
    OpCount ops = scaled(L.bwd_dx, n_dx * s_.batch);
    if (has_dw) ops += scaled(L.bwd_dw, s_.batch);
    if (n_dx > 0) gemm(l, GemmPass::BackwardData);
    if (has_dw) gemm(l, GemmPass::BackwardWeight);
    emit(Phase::Backward, l, ops);
  }

  // split-backward: a conv / depthwise / dense layer with both a dX and a dW to compute does them
  // as two steps, each reading dY — dX = dY·Wᵀ (reads W, writes the inputs' dY) and dW = Xᵀ·dY
  // (reads X, writes dW); a matmul A·B with both operands needing a gradient likewise computes
  // dA = dY·Bᵀ (the "dX" step) and dB = Aᵀ·dY (the "dW" step). Other layers, and GEMM layers
  // with only one of the two, keep one step. False if the layer keeps one step.
  bool split_backward_step(int l, bool has_dw, std::int64_t n_dx) {
    const Layer& L = layer(l);
    const int dy = dy_[static_cast<std::size_t>(l)];
    const auto part_order = rules_.weight_first ? std::array{StepPart::Weight, StepPart::Data}
                                                : std::array{StepPart::Data, StepPart::Weight};
    if (L.kind == Kind::Conv2D || L.kind == Kind::DepthwiseConv2D || L.kind == Kind::Dense) {
      if (!has_dw || n_dx == 0) return false;
      const int w = w_[static_cast<std::size_t>(L.weight)];
      for (StepPart part : part_order) {
        access(dy, true, false);
        if (part == StepPart::Data) {
          access(w, true, false);
          for (int in : L.inputs)
            if (has_grad_[static_cast<std::size_t>(net_.resolve(in))]) accumulate(dy_of(in));
          gemm(l, GemmPass::BackwardData);
          emit(Phase::Backward, l, scaled(L.bwd_dx, n_dx * s_.batch), part);
        } else {
          access(y_of(L.inputs[0]), true, false);
          accumulate(dw_[static_cast<std::size_t>(L.weight)]);
          gemm(l, GemmPass::BackwardWeight);
          emit(Phase::Backward, l, scaled(L.bwd_dw, s_.batch), part);
        }
      }
      return true;
    }
    if (L.kind == Kind::MatMul) {
      if (L.inputs.size() != 2 || n_dx != 2 || y_of(L.inputs[0]) == y_of(L.inputs[1])) return false;
      for (StepPart part : part_order) {
        const int grad_of = part == StepPart::Data ? 0 : 1;  // dA, then dB
        access(dy, true, false);
        access(y_of(L.inputs[static_cast<std::size_t>(1 - grad_of)]), true, false);
        accumulate(dy_of(L.inputs[static_cast<std::size_t>(grad_of)]));
        gemm(l, GemmPass::BackwardData, grad_of);
        emit(Phase::Backward, l, scaled(L.bwd_dx, s_.batch), part);
      }
      return true;
    }
    return false;
  }

  void finish_tensors() { detail::finish_tensors(s_); }
};

}  // namespace

namespace detail {

void build_steps(const Network& net, const ScheduleOptions& options, const StepRules& rules,
                 Schedule& out) {
  ScheduleBuilder(net, options, rules, out).build();
  out.capabilities = rules.training ? kTraining : 0u;
}

}  // namespace detail

Schedule build_schedule(const Network& net, const ScheduleOptions& options) {
  if (options.batch < 1 || options.batch > (std::int64_t{1} << 24))
    throw std::invalid_argument("batch must be an integer in [1, 2^24], got " + std::to_string(options.batch));
  if (options.bytes_per_element < 1 || options.bytes_per_element > 16)
    throw std::invalid_argument("bytes_per_element must be in [1, 16], got " +
                                std::to_string(options.bytes_per_element));
  // Byte and FLOP counts must stay exact in 64 bits, and in the time arithmetic downstream:
  // refuse what is too large instead of overflowing (limits.cpp: the bounds and their proof).
  check_layer_limits(net, options);
  const SchedulerPart& part = find_scheduler(options.scheduler);
  const Options own = resolve_options(part_label("scheduler", part.name), part.options,
                                      options.scheduler_options);
  Schedule s;
  part.build(net, options, own, s);
  s.scheduler = std::string(part.name);
  s.layer_kinds.reserve(net.layers.size());
  for (const Layer& l : net.layers) s.layer_kinds.push_back(l.kind);
  check_iteration_limits(s);
  s.index = detail::index_uses(s);
  detail::find_repeats(s, s.index);
  return s;
}

}  // namespace dnnmem
