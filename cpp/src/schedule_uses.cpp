// Stage 2, second half: the tensors in the order of SPEC §3 with their use lists
// (finish_tensors), and the index of full uses every cache manager derives its decisions from
// (index_uses: reuse intervals keyed by their end, reads and writes per step, each in the order
// the planners take them). Split from schedule.cpp, which builds the steps.
#include <algorithm>
#include <tuple>
#include <vector>

#include "dnnmem/schedule.hpp"
#include "dnnmem/interrupt.hpp"
#include "schedulers/steps.hpp"

namespace dnnmem::detail {

// Drops tensors nobody uses, orders the rest as SPEC §3 says, and builds the use lists.
void finish_tensors(Schedule& s) {
  const std::size_t nt = s.tensors.size();
  // Each tensor's uses in step order, grouped by tensor (by counting: one array for all of
  // them, not one vector per tensor, as a serialized schedule has millions of tensors).
  std::vector<int> first(nt + 1, 0);  // tensor t's uses: by_tensor[first[t] .. first[t + 1])
  for (const Step& st : s.steps)
    for (int k = 0; k < st.num_accesses; ++k)
      ++first[static_cast<std::size_t>(s.accesses[static_cast<std::size_t>(st.first_access + k)].tensor) + 1];
  for (std::size_t t = 0; t < nt; ++t) first[t + 1] += first[t];
  std::vector<Use> by_tensor(static_cast<std::size_t>(first[nt]));
  std::vector<int> fill(first.begin(), first.end() - 1);
  std::vector<std::tuple<int, int, int>> key(nt, {-1, 0, 0});  // first full use, role, position
  std::vector<std::tuple<int, int, int>> any_key(nt, {-1, 0, 0});
  for (std::size_t si = 0; si < s.steps.size(); ++si) {
    check_interrupt_every(si);
    const Step& st = s.steps[si];
    for (int k = 0; k < st.num_accesses; ++k) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
      const auto t = static_cast<std::size_t>(a.tensor);
      by_tensor[static_cast<std::size_t>(fill[t]++)] = {static_cast<int>(si), a.read, a.write, a.partial, a.bytes};
      const auto role = static_cast<int>(s.tensors[t].role);
      if (std::get<0>(any_key[t]) < 0) any_key[t] = {static_cast<int>(si), role, k};
      if (!a.partial && std::get<0>(key[t]) < 0) key[t] = {static_cast<int>(si), role, k};
    }
  }
  std::vector<int> order;
  for (std::size_t t = 0; t < nt; ++t) {
    if (first[t] == first[t + 1]) continue;  // e.g. a weight-less layer's gradient nobody reads
    if (std::get<0>(key[t]) < 0) key[t] = any_key[t];  // only partial uses: order by the first
    order.push_back(static_cast<int>(t));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)];
  });
  std::vector<int> new_id(nt, -1);
  std::vector<Tensor> sorted;
  sorted.reserve(order.size());
  s.uses.reserve(s.uses.size() + by_tensor.size());
  for (int t : order) {
    new_id[static_cast<std::size_t>(t)] = static_cast<int>(sorted.size());
    Tensor T = std::move(s.tensors[static_cast<std::size_t>(t)]);
    const auto u = by_tensor.begin() + first[static_cast<std::size_t>(t)];
    const auto u_end = by_tensor.begin() + first[static_cast<std::size_t>(t) + 1];
    T.use_begin = static_cast<int>(s.uses.size());
    s.uses.insert(s.uses.end(), u, u_end);
    T.use_end = static_cast<int>(s.uses.size());
    T.first_use = u->step;
    T.last_use = (u_end - 1)->step;
    for (auto x = u; x != u_end; ++x)
      if (!x->partial) {
        T.first_full_use = x->step;
        break;
      }
    sorted.push_back(std::move(T));
  }
  s.tensors = std::move(sorted);
  for (auto& a : s.accesses) a.tensor = new_id[static_cast<std::size_t>(a.tensor)];
}


UseIndex index_uses(const Schedule& s) {
  UseIndex x;
  const std::size_t nt = s.tensors.size(), ns = s.steps.size();
  x.full_begin.assign(nt + 1, 0);
  std::vector<int> use_full(s.uses.size(), -1);
  for (std::size_t t = 0; t < nt; ++t) {
    x.full_begin[t] = static_cast<int>(x.full_step.size());
    for (int u = s.tensors[t].use_begin; u < s.tensors[t].use_end; ++u) {
      const Use& use = s.uses[static_cast<std::size_t>(u)];
      if (use.partial) continue;
      use_full[static_cast<std::size_t>(u)] = static_cast<int>(x.full_step.size());
      x.full_tensor.push_back(static_cast<int>(t));
      x.full_step.push_back(use.step);
      x.full_read.push_back(use.read);
      x.full_write.push_back(use.write);
    }
  }
  x.full_begin[nt] = static_cast<int>(x.full_step.size());
  x.full.resize(x.full_step.size());
  for (std::size_t t = 0; t < nt; ++t) {
    const auto b = static_cast<std::size_t>(x.full_begin[t]), e = static_cast<std::size_t>(x.full_begin[t + 1]);
    for (std::size_t f = b; f < e; ++f) {
      FullUse& u = x.full[f];
      u.bytes = s.tensors[t].bytes;
      u.tensor = static_cast<int>(t);
      u.step = x.full_step[f];
      u.prev_step = f > b ? x.full_step[f - 1] : -1;
      u.flags = static_cast<std::uint8_t>((x.full_read[f] ? FullUse::Read : 0) | (x.full_write[f] ? FullUse::Write : 0) |
                                          (f > b ? FullUse::HasPrev : 0) | (f + 1 < e ? FullUse::HasNext : 0) |
                                          (s.tensors[t].must_end_offchip ? FullUse::MustEndOffchip : 0));
    }
  }
  // Accesses and uses are in the same step order per tensor: match them up by (tensor, step).
  x.access_full.assign(s.accesses.size(), -1);
  std::vector<int> cursor(nt, 0);
  for (std::size_t t = 0; t < nt; ++t) cursor[t] = x.full_begin[t];
  for (std::size_t i = 0; i < ns; ++i) {
    check_interrupt_every(i);
    const Step& st = s.steps[i];
    for (int k = 0; k < st.num_accesses; ++k) {
      const auto a = static_cast<std::size_t>(st.first_access + k);
      const Access& acc = s.accesses[a];
      if (acc.partial) continue;
      const auto t = static_cast<std::size_t>(acc.tensor);
      x.access_full[a] = cursor[t]++;
    }
  }
  const auto size_of = [&](int f) { return s.tensors[static_cast<std::size_t>(x.full_tensor[static_cast<std::size_t>(f)])].bytes; };
  const auto step_of = [&](int f) { return x.full_step[static_cast<std::size_t>(f)]; };
  // later start first, then smaller, then tensor order
  const auto static_order = [&](int a, int b) {
    if (step_of(a) != step_of(b)) return step_of(a) > step_of(b);
    if (size_of(a) != size_of(b)) return size_of(a) < size_of(b);
    return x.full_tensor[static_cast<std::size_t>(a)] < x.full_tensor[static_cast<std::size_t>(b)];
  };
  // The selected full uses by step key_step(f), each step's in f order (a counting sort).
  auto group = [&](std::vector<int>& begin, std::vector<int>& items, auto key_step, auto select) {
    const int nf = static_cast<int>(x.full_step.size());
    begin.assign(ns + 1, 0);
    for (int f = 0; f < nf; ++f)
      if (select(f)) ++begin[static_cast<std::size_t>(key_step(f)) + 1];
    for (std::size_t v = 0; v < ns; ++v) begin[v + 1] += begin[v];
    items.resize(static_cast<std::size_t>(begin[ns]));
    std::vector<int> fill(begin.begin(), begin.end() - 1);
    for (int f = 0; f < nf; ++f)
      if (select(f)) items[static_cast<std::size_t>(fill[static_cast<std::size_t>(key_step(f))]++)] = f;
  };
  const auto next_is_same_tensor = [&](int f) {
    return f + 1 < x.full_begin[static_cast<std::size_t>(x.full_tensor[static_cast<std::size_t>(f)]) + 1];
  };
  // Intervals: keyed by their end (the next full use), ordered by the previous use.
  std::vector<int> intervals, reads, writes;
  group(x.interval_begin, intervals, [&](int f) { return step_of(f + 1); }, next_is_same_tensor);
  for (std::size_t v = 0; v < ns; ++v)
    std::sort(intervals.begin() + x.interval_begin[v], intervals.begin() + x.interval_begin[v + 1], static_order);
  // Reads: the previous use is what "start" means for rule 4 (-1 for a first use).
  const auto prev_step = [&](int f) {
    return f > x.full_begin[static_cast<std::size_t>(x.full_tensor[static_cast<std::size_t>(f)])] ? step_of(f - 1) : -1;
  };
  group(x.read_begin, reads, step_of, [&](int f) { return x.full_read[static_cast<std::size_t>(f)] != 0; });
  for (std::size_t v = 0; v < ns; ++v)
    std::sort(reads.begin() + x.read_begin[v], reads.begin() + x.read_begin[v + 1], [&](int a, int b) {
      if (prev_step(a) != prev_step(b)) return prev_step(a) > prev_step(b);
      if (size_of(a) != size_of(b)) return size_of(a) < size_of(b);
      return x.full_tensor[static_cast<std::size_t>(a)] < x.full_tensor[static_cast<std::size_t>(b)];
    });
  group(x.write_begin, writes, step_of, [&](int f) { return x.full_write[static_cast<std::size_t>(f)] != 0; });
  // (full uses are numbered tensor by tensor, so each step's writes are already in tensor order)
  const auto records = [&x](const std::vector<int>& fs, std::vector<PlanUse>& out, int which) {
    out.clear();
    out.reserve(fs.size());
    for (int f : fs) {
      const FullUse& u = x.full[static_cast<std::size_t>(f)];
      PlanUse r{u.bytes, f, which == 1 ? u.prev_step : u.step, u.tensor, u.flags};
      if (which == 0) {  // an interval: what rule 2 asks of its end f + 1
        const FullUse& next = x.full[static_cast<std::size_t>(f) + 1];
        if (!(next.flags & FullUse::HasNext)) r.flags |= PlanUse::NextLast;
        if (next.flags & FullUse::Write) r.flags |= PlanUse::NextWrite;
      }
      out.push_back(r);
    }
  };
  records(intervals, x.interval_uses, 0);
  records(reads, x.read_uses, 1);
  records(writes, x.write_uses, 2);
  std::vector<int> read_pos(x.full.size(), -1);
  for (std::size_t i = 0; i < reads.size(); ++i) read_pos[static_cast<std::size_t>(reads[i])] = static_cast<int>(i);
  x.interval_read.resize(intervals.size());
  for (std::size_t i = 0; i < intervals.size(); ++i)
    x.interval_read[i] = read_pos[static_cast<std::size_t>(intervals[i]) + 1];
  for (std::size_t v = 0; v < ns; ++v)
    for (int i = x.read_begin[v]; i < x.read_begin[v + 1]; ++i)
      if (x.read_uses[static_cast<std::size_t>(i)].step < 0) x.first_reads.push_back({static_cast<int>(v), i});
  const int nf = static_cast<int>(x.full.size());
  x.load_begin.assign(ns + 1, 0);
  x.store_begin.assign(ns + 1, 0);
  for (std::size_t i = 0; i < ns; ++i) {
    const Step& st = s.steps[i];
    x.load_begin[i] = static_cast<int>(x.loads.size());
    x.store_begin[i] = static_cast<int>(x.stores.size());
    for (int k = 0; k < st.num_accesses; ++k) {
      const auto a = static_cast<std::size_t>(st.first_access + k);
      const Access& acc = s.accesses[a];
      const StreamUse u{acc.bytes, acc.tensor, x.access_full[a] < 0 ? nf : x.access_full[a]};
      if (acc.read) x.loads.push_back(u);
      if (acc.write) x.stores.push_back(u);
    }
  }
  x.load_begin[ns] = static_cast<int>(x.loads.size());
  x.store_begin[ns] = static_cast<int>(x.stores.size());
  return x;
}


}  // namespace dnnmem::detail
