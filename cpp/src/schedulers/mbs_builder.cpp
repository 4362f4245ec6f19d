// Mini-batch serialization (docs/model/mbs.md). The serialized iteration is derived from the
// default one: the units and their per-sample footprints come from its forward steps, the
// grouping cost from its weight accesses and boundary tensors, and each serialized step is a
// default step run on one sub-batch, its activation and gradient accesses mapped onto slices.
#include "mbs_builder.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dnnmem/compose.hpp"
#include "dnnmem/interrupt.hpp"
#include "dnnmem/units.hpp"
#include "steps.hpp"

namespace dnnmem::detail {

namespace {

bool sliced(Role r) { return r == Role::Activation || r == Role::Gradient; }

std::int64_t div_up(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Sub-batch bounds of a mini-batch of `batch` split into `n` nearly equal parts, larger first.
std::vector<std::int64_t> balanced_bounds(std::int64_t batch, std::int64_t n) {
  std::vector<std::int64_t> b{0};
  for (std::int64_t k = 0; k < n; ++k) b.push_back(b.back() + batch / n + (k < batch % n ? 1 : 0));
  return b;
}

// Each layer's forward position: the index of the forward step that runs it (-1: none). A fused
// schedule (docs/model/fusion.md) lists one layer per forward step in forward_order, and a
// backward step may name another member of that step's group: its members map to the step too.
std::vector<int> forward_positions(const Network& net, const Schedule& base) {
  const int P = static_cast<int>(base.forward_order.size());
  std::vector<int> pos_of(net.layers.size(), -1);
  for (int p = 0; p < P; ++p) {
    pos_of[static_cast<std::size_t>(base.forward_order[static_cast<std::size_t>(p)])] = p;
    if (base.step_layer_begin.empty()) continue;
    for (int k = base.step_layer_begin[static_cast<std::size_t>(p)]; k < base.step_layer_begin[static_cast<std::size_t>(p) + 1];
         ++k)
      pos_of[static_cast<std::size_t>(base.step_layers[static_cast<std::size_t>(k)])] = p;
  }
  return pos_of;
}

}  // namespace

std::vector<MbsUnit> mbs_units(const Network& net, const Schedule& base, const MbsRules& rules) {
  const std::int64_t batch = base.batch;
  const int P = static_cast<int>(base.forward_order.size());
  const std::size_t nt = base.tensors.size();
  const std::vector<int> pos_of = forward_positions(net, base);
  const auto per_sample = [&](int t) { return base.tensors[static_cast<std::size_t>(t)].bytes / batch; };

  // Forward liveness of every activation: from its producer (-1 for a network input) to its
  // last forward reader; and each position's own footprint (its inputs and output).
  std::vector<int> start(nt, -2), end(nt, -2);
  std::vector<std::int64_t> own(static_cast<std::size_t>(P), 0);
  // A fused step's outputs that only the backward pass reads (its saved tensors and masks) are
  // stored as they are produced and take no buffer (docs/model/fusion.md, "Mini-batch
  // serialization"); the unfused schedule's footprints are unchanged.
  std::vector<int> last_forward_read(nt, -1);
  if (!base.step_layer_begin.empty())
    for (std::size_t i = 0; i < base.steps.size(); ++i) {
      if (base.steps[i].phase == Phase::Backward) continue;
      for (int k = 0; k < base.steps[i].num_accesses; ++k) {
        const Access& a = base.accesses[static_cast<std::size_t>(base.steps[i].first_access + k)];
        if (a.read) last_forward_read[static_cast<std::size_t>(a.tensor)] = static_cast<int>(i);
      }
    }
  for (int p = 0; p < P; ++p) {
    const Step& st = base.steps[static_cast<std::size_t>(p)];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = base.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto t = static_cast<std::size_t>(a.tensor);
      if (base.tensors[t].role != Role::Activation) continue;
      if (!base.step_layer_begin.empty() && a.write && !a.read && last_forward_read[t] <= p) continue;
      own[static_cast<std::size_t>(p)] += per_sample(a.tensor);
      if (start[t] == -2) start[t] = a.write ? p : -1;
      end[t] = p;
    }
  }
  // crossing[p]: tensors alive across the cut after position p; alive[p]: bytes alive at p.
  std::vector<int> crossing(static_cast<std::size_t>(P) + 1, 0);
  std::vector<std::int64_t> crossing_id(static_cast<std::size_t>(P) + 1, 0), alive(static_cast<std::size_t>(P) + 1, 0);
  for (std::size_t t = 0; t < nt; ++t) {
    if (start[t] == -2) continue;
    const int lo = std::max(start[t], 0);
    alive[static_cast<std::size_t>(lo)] += per_sample(static_cast<int>(t));
    alive[static_cast<std::size_t>(end[t]) + 1] -= per_sample(static_cast<int>(t));
    if (end[t] > lo) {
      crossing[static_cast<std::size_t>(lo)] += 1;
      crossing[static_cast<std::size_t>(end[t])] -= 1;
      crossing_id[static_cast<std::size_t>(lo)] += static_cast<std::int64_t>(t);
      crossing_id[static_cast<std::size_t>(end[t])] -= static_cast<std::int64_t>(t);
    }
  }
  for (int p = 1; p <= P; ++p) {
    crossing[static_cast<std::size_t>(p)] += crossing[static_cast<std::size_t>(p) - 1];
    crossing_id[static_cast<std::size_t>(p)] += crossing_id[static_cast<std::size_t>(p) - 1];
    alive[static_cast<std::size_t>(p)] += alive[static_cast<std::size_t>(p) - 1];
  }

  // With footprint=training, the backward pass's footprint too, the same way: a step's own
  // activations and gradients, or those alive from their first to their last backward use.
  if (rules.training_footprint) {
    std::vector<int> bstart(nt, -1), bend(nt, -1), bstep;
    std::vector<std::int64_t> bown;
    for (const Step& st : base.steps) {
      if (st.phase != Phase::Backward) continue;
      const int q = static_cast<int>(bstep.size());
      bstep.push_back(pos_of[static_cast<std::size_t>(st.layer)]);
      bown.push_back(0);
      for (int k = 0; k < st.num_accesses; ++k) {
        const Access& a = base.accesses[static_cast<std::size_t>(st.first_access + k)];
        const auto t = static_cast<std::size_t>(a.tensor);
        if (!sliced(base.tensors[t].role)) continue;
        bown.back() += per_sample(a.tensor);
        if (bstart[t] < 0) bstart[t] = q;
        bend[t] = q;
      }
    }
    std::vector<std::int64_t> balive(bstep.size() + 1, 0);
    for (std::size_t t = 0; t < nt; ++t)
      if (bstart[t] >= 0) {
        balive[static_cast<std::size_t>(bstart[t])] += per_sample(static_cast<int>(t));
        balive[static_cast<std::size_t>(bend[t]) + 1] -= per_sample(static_cast<int>(t));
      }
    for (std::size_t q = 1; q < balive.size(); ++q) balive[q] += balive[q - 1];
    for (std::size_t q = 0; q < bstep.size(); ++q) {
      const auto p = static_cast<std::size_t>(bstep[q]);
      const std::int64_t f = rules.variant == MbsVariant::Branch ? balive[q] : bown[q];
      own[p] = std::max(own[p], f);
      alive[p] = std::max(alive[p], f);
    }
  }

  // What the backward pass does with each tensor and layer (for the boundary cost).
  std::vector<char> read_in_bwd(nt, 0), has_bwd(net.layers.size(), 0);
  for (std::size_t i = 0; i < base.steps.size(); ++i) {
    const Step& st = base.steps[i];
    if (st.phase != Phase::Backward) continue;
    for (int l : base.layers_of(static_cast<int>(i))) has_bwd[static_cast<std::size_t>(l)] = 1;
    for (int k = 0; k < st.num_accesses; ++k)
      read_in_bwd[static_cast<std::size_t>(base.accesses[static_cast<std::size_t>(st.first_access + k)].tensor)] = 1;
  }

  std::vector<MbsUnit> units;
  for (int p = 0; p < P; ++p) {
    if (p == 0 || crossing[static_cast<std::size_t>(p) - 1] == 1) units.push_back({p, p});
    MbsUnit& u = units.back();
    u.last = p;
    const std::int64_t f = rules.variant == MbsVariant::Branch ? alive[static_cast<std::size_t>(p)]
                                                               : own[static_cast<std::size_t>(p)];
    if (u.worst_layer < 0 || f > u.footprint) {
      u.footprint = f;
      u.worst_layer = base.forward_order[static_cast<std::size_t>(p)];
    }
  }
  // Weight cost per unit: every W read once per sub-batch, every dW written per sub-batch and
  // read back from the second on: slope = W reads + 2 dW, offset = -dW.
  for (const Step& st : base.steps) {
    if (st.phase == Phase::Loss) continue;
    const int p = pos_of[static_cast<std::size_t>(st.layer)];
    auto it = std::upper_bound(units.begin(), units.end(), p, [](int v, const MbsUnit& u) { return v < u.first; });
    MbsUnit& u = *(it - 1);
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = base.accesses[static_cast<std::size_t>(st.first_access + k)];
      if (a.partial) continue;
      const Role r = base.tensors[static_cast<std::size_t>(a.tensor)].role;
      if (r == Role::Weight) u.weight_slope += a.bytes;
      if (r == Role::WeightGrad) {
        u.weight_slope += 2 * a.bytes;
        u.weight_offset -= a.bytes;
      }
    }
  }
  for (std::size_t i = 0; i + 1 < units.size(); ++i) {
    MbsUnit& u = units[i];
    const auto t = static_cast<std::size_t>(crossing_id[static_cast<std::size_t>(u.last)]);
    const std::int64_t bytes = base.tensors[t].bytes;
    const int producer = base.tensors[t].layer;
    u.boundary = bytes * (1 + (read_in_bwd[t] ? 0 : 1) + (has_bwd[static_cast<std::size_t>(producer)] ? 2 : 0));
  }
  for (MbsUnit& u : units) {
    if (u.footprint > rules.buffer)
      throw std::invalid_argument(
          "scheduler 'mbs': one sample of layer '" + net.layers[static_cast<std::size_t>(u.worst_layer)].name +
          "' needs " + format_bytes_exactly(u.footprint) + " of buffer, more than buffer=" +
          format_bytes_exactly(rules.buffer));
    const std::int64_t fit = u.footprint > 0 ? std::min(batch, rules.buffer / u.footprint) : batch;
    u.iterations = div_up(batch, fit);
  }
  return units;
}

std::int64_t mbs_group_cost(const std::vector<MbsUnit>& units, std::size_t i, std::size_t j) {
  std::int64_t n = 1;
  for (std::size_t u = i; u <= j; ++u) n = std::max(n, units[u].iterations);
  std::int64_t cost = units[j].boundary;
  for (std::size_t u = i; u <= j; ++u) cost += units[u].weight_slope * n + units[u].weight_offset;
  return cost;
}

std::vector<std::size_t> mbs_group_units(const std::vector<MbsUnit>& units, const MbsRules& rules) {
  const std::size_t U = units.size();
  if (U == 0 || rules.variant == MbsVariant::FixedSize) return {0};
  if (rules.grouping == MbsGrouping::Exact) {
    // best[j]: the cheapest grouping of units [0, j); from[j]: where its last group starts.
    std::vector<std::int64_t> best(U + 1, 0);
    std::vector<std::size_t> from(U + 1, 0);
    for (std::size_t j = 1; j <= U; ++j) {
      std::int64_t n = 1, slope = 0, offset = 0;
      bool any = false;
      for (std::size_t i = j; i-- > 0;) {
        n = std::max(n, units[i].iterations);
        slope += units[i].weight_slope;
        offset += units[i].weight_offset;
        const std::int64_t c = best[i] + slope * n + offset + units[j - 1].boundary;
        if (!any || c <= best[j]) {  // ties: the longer last group
          best[j] = c;
          from[j] = i;
          any = true;
        }
      }
    }
    std::vector<std::size_t> starts;
    for (std::size_t j = U; j > 0; j = from[j]) starts.push_back(from[j]);
    std::reverse(starts.begin(), starts.end());
    return starts;
  }
  // Greedy (the paper's): runs of equal iteration counts, then merge the adjacent pair that
  // saves the most while one saves anything (ties: the leftmost).
  std::vector<std::size_t> starts;
  for (std::size_t u = 0; u < U; ++u)
    if (u == 0 || units[u].iterations != units[u - 1].iterations) starts.push_back(u);
  const auto end_of = [&](std::size_t g) { return g + 1 < starts.size() ? starts[g + 1] - 1 : U - 1; };
  while (starts.size() > 1) {
    std::int64_t best = 0;
    std::size_t at = 0;
    for (std::size_t g = 0; g + 1 < starts.size(); ++g) {
      const std::int64_t saved = mbs_group_cost(units, starts[g], end_of(g)) +
                                 mbs_group_cost(units, starts[g + 1], end_of(g + 1)) -
                                 mbs_group_cost(units, starts[g], end_of(g + 1));
      if (saved > best) {
        best = saved;
        at = g;
      }
    }
    if (best <= 0) break;
    starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  return starts;
}

void build_mbs(const Network& net, const ScheduleOptions& options, const MbsRules& rules, Schedule& out) {
  const std::int64_t batch = options.batch;
  StepRules steps;
  steps.fusion = rules.fusion;
  steps.batch_statistics = false;  // batch norm runs per sub-batch as group norm (docs/model/mbs.md)
  Schedule base;
  build_steps(net, options, steps, base);
  const std::vector<MbsUnit> units = mbs_units(net, base, rules);
  const std::vector<std::size_t> starts = mbs_group_units(units, rules);

  out.batch = batch;
  out.bytes_per_element = options.bytes_per_element;
  out.forward_order = base.forward_order;
  const int P = static_cast<int>(base.forward_order.size());
  std::vector<int> group_at(static_cast<std::size_t>(P), 0);  // forward position -> group
  std::vector<std::int64_t> sub_batches;                      // per group
  for (std::size_t g = 0; g < starts.size(); ++g) {
    const std::size_t last_unit = g + 1 < starts.size() ? starts[g + 1] - 1 : units.size() - 1;
    LayerGroup G;
    G.first = units[starts[g]].first;
    G.last = units[last_unit].last;
    std::int64_t n = 1;
    for (std::size_t u = starts[g]; u <= last_unit; ++u) {
      n = std::max(n, units[u].iterations);
      G.footprint = std::max(G.footprint, units[u].footprint);
    }
    sub_batches.push_back(n);
    for (int p = G.first; p <= G.last; ++p) group_at[static_cast<std::size_t>(p)] = static_cast<int>(g);
    out.groups.push_back(std::move(G));
  }
  const std::vector<int> pos_of = forward_positions(net, base);
  const auto group_of_step = [&](const Step& st) {
    return group_at[static_cast<std::size_t>(pos_of[static_cast<std::size_t>(st.layer)])];
  };
  // Every step runs once per sub-batch of its group, with at least its accesses: refuse up front
  // an iteration of more than kMaxSerializedAccesses rather than build it (millions of
  // one-sample sub-batches would take all the memory first).
  Ticks at_least = 0;  // (a 128-bit count)
  for (const Step& st : base.steps)
    at_least += static_cast<Ticks>(sub_batches[static_cast<std::size_t>(group_of_step(st))]) * st.num_accesses;
  if (at_least > kMaxSerializedAccesses)
    throw std::invalid_argument(
        "scheduler 'mbs': the serialized iteration at batch " + std::to_string(batch) + " would make at least " +
        std::to_string(static_cast<std::int64_t>(at_least)) + " tensor accesses (up to " +
        std::to_string(*std::max_element(sub_batches.begin(), sub_batches.end())) +
        " sub-batches a group), more than the 2^25 a serialized iteration may make (a schedule takes about "
        "180 bytes per access: 6 GB there): raise buffer or lower the batch");
  for (std::size_t g = 0; g < out.groups.size(); ++g) out.groups[g].bounds = balanced_bounds(batch, sub_batches[g]);

  // Slices: each activation or gradient is cut at the sub-batch bounds of every group that
  // touches it, so that every step's range is a union of whole slices.
  const std::size_t nt = base.tensors.size();
  // (Each group's bounds once per tensor, not once per access: a group's bounds are a cut per
  // sub-batch, and several steps of a group touch the same tensor.)
  std::vector<std::pair<std::size_t, int>> touched;  // (tensor, group)
  for (const Step& st : base.steps)
    for (int k = 0; k < st.num_accesses; ++k) {
      const auto t = static_cast<std::size_t>(base.accesses[static_cast<std::size_t>(st.first_access + k)].tensor);
      if (sliced(base.tensors[t].role)) touched.emplace_back(t, group_of_step(st));
    }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<std::vector<std::int64_t>> cuts(nt);
  for (const auto& [t, g] : touched) {
    const LayerGroup& G = out.groups[static_cast<std::size_t>(g)];
    cuts[t].insert(cuts[t].end(), G.bounds.begin(), G.bounds.end());
  }
  std::vector<int> first_slice(nt + 1, 0);
  for (std::size_t t = 0; t < nt; ++t) {
    first_slice[t] = static_cast<int>(out.tensors.size());
    const Tensor& T = base.tensors[t];
    auto& c = cuts[t];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    if (!sliced(T.role) || c.size() <= 2) {
      if (sliced(T.role)) c = {0, batch};
      Tensor S = T;
      S.use_begin = S.use_end = 0;
      out.tensors.push_back(std::move(S));
      continue;
    }
    for (std::size_t k = 0; k + 1 < c.size(); ++k) {
      Tensor S = T;
      // (appended piece by piece: GCC 12's -Wrestrict misfires on "[" + std::to_string(...))
      S.name.append(1, '[').append(std::to_string(c[k])).append(1, ':').append(std::to_string(c[k + 1])).append(1, ']');
      S.bytes = T.bytes / batch * (c[k + 1] - c[k]);
      S.use_begin = S.use_end = 0;
      out.tensors.push_back(std::move(S));
    }
  }
  first_slice[nt] = static_cast<int>(out.tensors.size());

  std::map<std::int64_t, Schedule> at_size;  // the default schedule at each sub-batch size (GEMMs)
  std::vector<char> written(out.tensors.size(), 0);
  const auto emit = [&](std::size_t i, int g, std::size_t k) {
    check_interrupt_every(out.steps.size());
    const Step& b = base.steps[i];
    const LayerGroup& G = out.groups[static_cast<std::size_t>(g)];
    const std::int64_t lo = G.bounds[k], hi = G.bounds[k + 1], size = hi - lo;
    Step st = b;
    st.ops = {b.ops.macs / batch * size, b.ops.flops / batch * size};
    st.first_access = static_cast<int>(out.accesses.size());
    for (int a = 0; a < b.num_accesses; ++a) {
      const Access& A = base.accesses[static_cast<std::size_t>(b.first_access + a)];
      const auto t = static_cast<std::size_t>(A.tensor);
      const Tensor& T = base.tensors[t];
      if (sliced(T.role)) {
        // The slices inside [lo, hi): from the cut at lo (a cut: every group touching the
        // tensor cut it at its bounds) while they end by hi. A binary search, not a scan of
        // every cut: a tensor has a cut per sub-batch, and each sub-batch's step reads it.
        const auto& c = cuts[t];
        for (auto s = static_cast<std::size_t>(std::lower_bound(c.begin(), c.end(), lo) - c.begin());
             s + 1 < c.size() && c[s + 1] <= hi; ++s)
          out.accesses.push_back({first_slice[t] + static_cast<int>(s), A.read, A.write, A.partial,
                                  out.tensors[static_cast<std::size_t>(first_slice[t]) + s].bytes});
        continue;
      }
      Access S = A;
      S.tensor = first_slice[t];
      if (A.partial) S.bytes = A.bytes / batch * size;
      // dW accumulates across sub-batches: every write after the first reads the partial sum.
      if (T.role == Role::WeightGrad && A.write && written[static_cast<std::size_t>(S.tensor)]) S.read = true;
      if (A.write) written[static_cast<std::size_t>(S.tensor)] = 1;
      out.accesses.push_back(S);
    }
    st.num_accesses = static_cast<int>(out.accesses.size()) - st.first_access;
    auto it = at_size.find(size);
    if (it == at_size.end()) {
      ScheduleOptions o = options;
      o.batch = size;
      it = at_size.emplace(size, Schedule{}).first;
      build_steps(net, o, steps, it->second);
    }
    const Step& same = it->second.steps[i];
    st.first_gemm = static_cast<int>(out.gemms.size());
    st.num_gemms = same.num_gemms;
    out.gemms.insert(out.gemms.end(), it->second.gemms.begin() + same.first_gemm,
                     it->second.gemms.begin() + same.first_gemm + same.num_gemms);
    if (!base.step_layer_begin.empty()) {
      out.step_layer_begin.push_back(static_cast<int>(out.step_layers.size()));
      out.step_layers.insert(out.step_layers.end(), base.step_layers.begin() + base.step_layer_begin[i],
                             base.step_layers.begin() + base.step_layer_begin[i + 1]);
      out.step_intermediate_bytes.push_back(base.step_intermediate_bytes[i] / batch * size);
    }
    out.steps.push_back(st);
    out.step_group.push_back(g);
    out.step_sub_batch.push_back(static_cast<int>(k));
  };

  const int G = static_cast<int>(out.groups.size());
  for (int g = 0; g < G; ++g)  // forward: group by group, each sub-batch through the group
    for (std::size_t k = 0; k + 1 < out.groups[static_cast<std::size_t>(g)].bounds.size(); ++k)
      for (int p = out.groups[static_cast<std::size_t>(g)].first; p <= out.groups[static_cast<std::size_t>(g)].last; ++p)
        emit(static_cast<std::size_t>(p), g, k);
  std::vector<std::vector<std::size_t>> backward(static_cast<std::size_t>(G));  // per group, in step order
  for (std::size_t i = static_cast<std::size_t>(P); i < base.steps.size(); ++i) {
    const Step& st = base.steps[i];
    if (st.phase == Phase::Loss) {  // one loss step per sub-batch of its output's group
      const int g = group_of_step(st);
      for (std::size_t k = 0; k + 1 < out.groups[static_cast<std::size_t>(g)].bounds.size(); ++k) emit(i, g, k);
    } else {
      backward[static_cast<std::size_t>(group_of_step(st))].push_back(i);
    }
  }
  for (int g = G; g-- > 0;)  // backward: groups in reverse, each sub-batch back through the group
    for (std::size_t k = 0; k + 1 < out.groups[static_cast<std::size_t>(g)].bounds.size(); ++k)
      for (std::size_t i : backward[static_cast<std::size_t>(g)]) emit(i, g, k);
  if (!base.step_layer_begin.empty()) out.step_layer_begin.push_back(static_cast<int>(out.step_layers.size()));
  out.fusion = base.fusion;
  finish_tensors(out);
  out.capabilities = kTraining;
}

}  // namespace dnnmem::detail
