// The fusion stage (docs/model/fusion.md): which layers run as one step at each level. The
// groups are formed greedily along the forward order: a layer that may join (a point-wise layer,
// a row reduction, a batch norm, a global pool) joins the open groups of its inputs, merging
// them, when the rules of its level allow it and the merged group can still run as one step.
#include "dnnmem/fusion.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dnnmem {

std::string_view fusion_level_name(FusionLevel level) {
  switch (level) {
    case FusionLevel::None: return "none";
    case FusionLevel::Pointwise: return "pointwise";
    case FusionLevel::Accelerator: return "accelerator";
  }
  return "";
}

std::optional<FusionLevel> fusion_level_from_name(std::string_view name) {
  for (FusionLevel l : {FusionLevel::None, FusionLevel::Pointwise, FusionLevel::Accelerator})
    if (fusion_level_name(l) == name) return l;
  return std::nullopt;
}

FusionClass fusion_class(Kind kind) {
  switch (kind) {
    case Kind::Conv2D:
    case Kind::DepthwiseConv2D:
    case Kind::Dense:
    case Kind::MatMul: return FusionClass::Product;
    case Kind::Embedding: return FusionClass::Gather;
    case Kind::ReLU:
    case Kind::ReLU6:
    case Kind::LeakyReLU:
    case Kind::GELU:
    case Kind::Sigmoid:
    case Kind::Tanh:
    case Kind::Swish:
    case Kind::HardSwish:
    case Kind::HardSigmoid:
    case Kind::Mish:
    case Kind::Dropout:
    case Kind::Add:
    case Kind::Multiply:
    case Kind::Rescaling:
    case Kind::Normalization:
    case Kind::PositionEmbedding: return FusionClass::Pointwise;
    case Kind::LayerNorm:
    case Kind::Softmax: return FusionClass::RowReduction;
    case Kind::BatchNorm: return FusionClass::BatchNorm;
    case Kind::GlobalAvgPool:
    case Kind::GlobalMaxPool: return FusionClass::Reduction;
    default: return FusionClass::Alone;
  }
}

bool backward_needs_only_sign(Kind kind) {
  return kind == Kind::ReLU || kind == Kind::ReLU6 || kind == Kind::LeakyReLU;
}

namespace {

bool may_join(FusionClass c) {
  return c == FusionClass::Pointwise || c == FusionClass::RowReduction ||
         c == FusionClass::BatchNorm || c == FusionClass::Reduction;
}

class Grouper {
 public:
  Grouper(const Network& net, const std::vector<int>& order, FusionLevel level, bool statistics_cut)
      : net_(net), order_(order), level_(level), statistics_cut_(statistics_cut) {
    const std::size_t n = net.layers.size();
    pos_.assign(n, -1);
    for (std::size_t p = 0; p < order.size(); ++p) pos_[static_cast<std::size_t>(order[p])] = static_cast<int>(p);
    // Consumers through folded layers (a reshape's consumers consume what it re-indexes).
    consumers_.assign(n, {});
    for (std::size_t l = 0; l < n; ++l) {
      if (kind_info(net.layers[l].kind).folded) continue;
      for (int in : net.layers[l].inputs) {
        auto& c = consumers_[static_cast<std::size_t>(net.resolve(in))];
        if (std::find(c.begin(), c.end(), static_cast<int>(l)) == c.end()) c.push_back(static_cast<int>(l));
      }
    }
  }

  // Fills `groups` (in the order of their last member) and `group_of`.
  void run(std::vector<std::vector<int>>& groups, std::vector<int>& group_of) {
    const std::size_t n = net_.layers.size();
    group_.assign(n, -1);
    after_product_.assign(n, 0);
    for (int l : order_) place(l);
    std::vector<int> ids;
    for (std::size_t g = 0; g < groups_.size(); ++g)
      if (!groups_[g].members.empty()) ids.push_back(static_cast<int>(g));
    std::sort(ids.begin(), ids.end(), [&](int a, int b) { return last_pos(a) < last_pos(b); });
    groups.clear();
    group_of.assign(n, -1);
    for (int g : ids) {
      auto members = groups_[static_cast<std::size_t>(g)].members;
      std::sort(members.begin(), members.end(), [&](int a, int b) {
        return pos_[static_cast<std::size_t>(a)] < pos_[static_cast<std::size_t>(b)];
      });
      for (int m : members) group_of[static_cast<std::size_t>(m)] = static_cast<int>(groups.size());
      groups.push_back(std::move(members));
    }
  }

 private:
  struct Group {
    std::vector<int> members;
    bool product = false;  // holds a convolution or matrix product
    bool closed = false;   // no layer may join it any more
  };

  const Network& net_;
  const std::vector<int>& order_;
  FusionLevel level_;
  bool statistics_cut_;
  std::vector<int> pos_;
  std::vector<std::vector<int>> consumers_;
  std::vector<Group> groups_;
  std::vector<int> group_;
  std::vector<char> after_product_;  // the layer's output depends on a product of its group

  int last_pos(int g) const {
    int p = -1;
    for (int m : groups_[static_cast<std::size_t>(g)].members) p = std::max(p, pos_[static_cast<std::size_t>(m)]);
    return p;
  }

  // The merged group runs as one step at the position of `l`, its last member: every layer that
  // consumes a member and is not in the group must run after `l`.
  bool runs_as_one_step(const std::vector<int>& candidates, int l) const {
    for (int g : candidates)
      for (int m : groups_[static_cast<std::size_t>(g)].members)
        for (int c : consumers_[static_cast<std::size_t>(m)]) {
          if (c == l) continue;
          const int cg = group_[static_cast<std::size_t>(c)];
          if (cg >= 0 && std::find(candidates.begin(), candidates.end(), cg) != candidates.end()) continue;
          if (pos_[static_cast<std::size_t>(c)] < pos_[static_cast<std::size_t>(l)]) return false;
        }
    return true;
  }

  void place(int l) {
    const Layer& L = net_.layers[static_cast<std::size_t>(l)];
    const FusionClass cls = fusion_class(L.kind);
    std::vector<int> candidates;
    if (level_ != FusionLevel::None && may_join(cls)) {
      for (std::size_t i = 0; i < L.inputs.size(); ++i) {
        const int in = net_.resolve(L.inputs[i]);
        const int g = group_[static_cast<std::size_t>(in)];
        if (g < 0 || groups_[static_cast<std::size_t>(g)].closed) continue;
        if (std::find(candidates.begin(), candidates.end(), g) != candidates.end()) continue;
        // A batch norm's statistics are over its whole input: that input cannot be a product
        // computed in the same step (docs/model/fusion.md, "Batch-norm statistics").
        if (cls == FusionClass::BatchNorm && i == 0 && statistics_cut_ && after_product_[static_cast<std::size_t>(in)])
          continue;
        // The group must still run as one step where `l` runs.
        if (!runs_as_one_step({g}, l)) continue;
        // One product per step: a second product's group stays apart.
        if (groups_[static_cast<std::size_t>(g)].product &&
            std::any_of(candidates.begin(), candidates.end(),
                        [&](int c) { return groups_[static_cast<std::size_t>(c)].product; }))
          continue;
        candidates.push_back(g);
      }
      // Together too (a consumer of one candidate's member may sit in another): drop the last.
      while (!candidates.empty() && !runs_as_one_step(candidates, l)) candidates.pop_back();
    }
    int g;
    if (candidates.empty()) {
      g = static_cast<int>(groups_.size());
      groups_.push_back({});
      Group& G = groups_.back();
      G.product = cls == FusionClass::Product;
      // At `pointwise` a product is a library kernel: nothing joins it. Layers that never fuse
      // close their group at once.
      G.closed = cls == FusionClass::Alone || level_ == FusionLevel::None ||
                 (cls == FusionClass::Product && level_ == FusionLevel::Pointwise);
    } else {
      g = candidates.front();
      for (std::size_t k = 1; k < candidates.size(); ++k) {
        Group& from = groups_[static_cast<std::size_t>(candidates[k])];
        for (int m : from.members) group_[static_cast<std::size_t>(m)] = g;
        Group& into = groups_[static_cast<std::size_t>(g)];
        into.members.insert(into.members.end(), from.members.begin(), from.members.end());
        into.product = into.product || from.product;
        from.members.clear();
      }
    }
    Group& G = groups_[static_cast<std::size_t>(g)];
    G.members.push_back(l);
    group_[static_cast<std::size_t>(l)] = g;
    if (cls == FusionClass::Reduction) G.closed = true;  // a global pool ends its group
    bool after = cls == FusionClass::Product;
    for (int in : L.inputs) {
      const int r = net_.resolve(in);
      after = after || (group_[static_cast<std::size_t>(r)] == g && after_product_[static_cast<std::size_t>(r)]);
    }
    after_product_[static_cast<std::size_t>(l)] = after;
  }
};

}  // namespace

FusionGroups fusion_groups(const Network& net, const std::vector<int>& forward_order, FusionLevel level,
                           bool training) {
  FusionGroups out;
  out.level = level;
  Grouper(net, forward_order, level, /*statistics_cut=*/training).run(out.forward, out.forward_of);
  if (level == FusionLevel::Accelerator) {
    Grouper(net, forward_order, level, /*statistics_cut=*/false).run(out.backward, out.backward_of);
  } else {
    out.backward = out.forward;
    out.backward_of = out.forward_of;
  }
  return out;
}

}  // namespace dnnmem
