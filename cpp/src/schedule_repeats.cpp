// Repeated blocks of a schedule (docs/performance.md, "Exact replay"): the steps cut into blocks,
// each naming an earlier block of the same length whose steps, accesses and use structure are
// the same position by position. A design point may then replay such a block's decisions and
// timeline from the earlier one where it proves the state they read equivalent; the schedule
// only says which blocks could be (an unrolled LSTM's time steps, a transformer's layers).
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "dnnmem/interrupt.hpp"
#include "dnnmem/schedule.hpp"
#include "schedulers/steps.hpp"

namespace dnnmem::detail {
namespace {

constexpr int kCandidates = 8;    // earlier ranges tried per step
constexpr int kWindow = 8;        // steps hashed together to place a cut

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

class RepeatFinder {
 public:
  RepeatFinder(const Schedule& s, UseIndex& x) : s_(s), x_(x), n_(static_cast<int>(s.steps.size())) {
    full_access_.assign(x.full.size(), -1);
    for (std::size_t a = 0; a < x.access_full.size(); ++a)
      if (x.access_full[a] >= 0) full_access_[static_cast<std::size_t>(x.access_full[a])] = static_cast<int>(a);
    hash_.resize(static_cast<std::size_t>(n_));
    for (int v = 0; v < n_; ++v) {
      check_interrupt_every(static_cast<std::size_t>(v));
      hash_[static_cast<std::size_t>(v)] = step_hash(v);
    }
    prefix_.assign(static_cast<std::size_t>(n_) + 1, 0);
    power_.assign(static_cast<std::size_t>(n_) + 1, 1);
    for (int v = 0; v < n_; ++v) {
      prefix_[static_cast<std::size_t>(v) + 1] = prefix_[static_cast<std::size_t>(v)] * kBase + hash_[static_cast<std::size_t>(v)];
      power_[static_cast<std::size_t>(v) + 1] = power_[static_cast<std::size_t>(v)] * kBase;
    }
  }

  void run() {
    // Content-defined cuts (as deduplicating storage chunks a file): a cut before step v when
    // the hash of the kWindow steps before v is the least of the hashes around it (within
    // `radius`) and the last cut is at least that many steps back, so that cuts depend on the
    // steps around them and the repeats of a stretch of steps are cut alike wherever they lie
    // (a periodic stretch once per period, or per multiple of a short period).
    const int n = n_;
    // Larger blocks on longer schedules: a block's checks cost about as much as a few of its
    // decisions, and an interval that starts before its block is decided one by one (GNMT,
    // callgrind: radius 8 and 16 cost 1.25x the instructions of 32 per point, 64 the same as 32).
    const int radius = std::clamp(n / 512, 8, 32), min_block = radius;
    std::vector<std::uint64_t> key(static_cast<std::size_t>(n) + 1, ~std::uint64_t{0});
    for (int v = kWindow; v < n; ++v) key[static_cast<std::size_t>(v)] = mix(0, range_hash(v - kWindow, v));
    std::vector<int> cuts{0};
    for (int v = kWindow; v < n; ++v) {
      check_interrupt_every(static_cast<std::size_t>(v));
      const std::uint64_t k = key[static_cast<std::size_t>(v)];
      bool least = true;
      for (int w = std::max(kWindow, v - radius); w <= std::min(n - 1, v + radius) && least; ++w)
        if (key[static_cast<std::size_t>(w)] < k) least = false;
      if (least && v - cuts.back() >= min_block) cuts.push_back(v);
    }
    cuts.push_back(n);
    // Each block names the latest earlier block with the same steps and structure.
    std::unordered_map<std::uint64_t, std::vector<int>> by_content;
    std::vector<RepeatBlock>& blocks = x_.blocks;
    blocks.clear();
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
      check_interrupt_every(c);
      const int a = cuts[c], e = cuts[c + 1];
      const std::uint64_t h = mix(range_hash(a, e), static_cast<std::uint64_t>(e - a));
      std::vector<int>& same = by_content[h];
      int source = -1, tried = 0;
      for (auto it = same.rbegin(); it != same.rend() && tried < kCandidates; ++it, ++tried) {
        const RepeatBlock& b = blocks[static_cast<std::size_t>(*it)];
        if (b.end - b.begin == e - a && same_structure(a, b.begin, e - a)) {
          source = *it;
          break;
        }
      }
      same.push_back(static_cast<int>(blocks.size()));
      blocks.push_back({a, e, source});
    }
    int repeated = 0;
    for (const RepeatBlock& b : blocks)
      if (b.source >= 0) repeated += b.end - b.begin;
    x_.replay = blocks.size() > 1 && 4 * static_cast<std::int64_t>(repeated) >= 3 * static_cast<std::int64_t>(n);
  }

 private:
  static constexpr std::uint64_t kBase = 0x100000001b3ULL;
  const Schedule& s_;
  UseIndex& x_;
  int n_;
  std::vector<int> full_access_;  // per full use: its access
  std::vector<std::uint64_t> hash_, prefix_, power_;

  std::uint64_t range_hash(int a, int b) const {
    return prefix_[static_cast<std::size_t>(b)] - prefix_[static_cast<std::size_t>(a)] * power_[static_cast<std::size_t>(b - a)];
  }

  const Access& access(int a) const { return s_.accesses[static_cast<std::size_t>(a)]; }
  const Tensor& tensor_of(const Access& a) const { return s_.tensors[static_cast<std::size_t>(a.tensor)]; }

  std::uint64_t step_hash(int v) const {
    const Step& st = s_.steps[static_cast<std::size_t>(v)];
    std::uint64_t h = mix(0, static_cast<std::uint64_t>(st.phase) | static_cast<std::uint64_t>(st.part) << 8 |
                                 static_cast<std::uint64_t>(kind_of(st)) << 16);
    h = mix(h, static_cast<std::uint64_t>(st.ops.macs));
    h = mix(h, static_cast<std::uint64_t>(st.ops.flops));
    h = mix(h, static_cast<std::uint64_t>(st.num_accesses));
    for (int k = 0; k < st.num_accesses; ++k) {
      const int a = st.first_access + k;
      const Access& acc = access(a);
      const int f = x_.access_full[static_cast<std::size_t>(a)];
      h = mix(h, static_cast<std::uint64_t>(acc.bytes));
      h = mix(h, static_cast<std::uint64_t>(acc.read) | static_cast<std::uint64_t>(acc.write) << 1 |
                     static_cast<std::uint64_t>(acc.partial) << 2 |
                     static_cast<std::uint64_t>(tensor_of(acc).role) << 3 |
                     static_cast<std::uint64_t>(f < 0 ? 255 : x_.full[static_cast<std::size_t>(f)].flags) << 8);
      h = mix(h, static_cast<std::uint64_t>(tensor_of(acc).bytes));
    }
    return h;
  }

  int kind_of(const Step& st) const {
    return st.layer >= 0 && static_cast<std::size_t>(st.layer) < s_.layer_kinds.size()
               ? static_cast<int>(s_.layer_kinds[static_cast<std::size_t>(st.layer)])
               : -1;
  }

  // The same step apart from which tensors it names: kind, work, a fused step's intermediate
  // bytes (through-cache reserves them), and each access's bytes, direction, tensor role and
  // size, and full-use flags.
  bool same_step(int v, int w) const {
    const Step& a = s_.steps[static_cast<std::size_t>(v)];
    const Step& b = s_.steps[static_cast<std::size_t>(w)];
    const auto& inside = s_.step_intermediate_bytes;
    if (!inside.empty() && inside[static_cast<std::size_t>(v)] != inside[static_cast<std::size_t>(w)]) return false;
    if (a.phase != b.phase || a.part != b.part || kind_of(a) != kind_of(b) || a.ops.macs != b.ops.macs ||
        a.ops.flops != b.ops.flops || a.num_accesses != b.num_accesses || a.num_gemms != b.num_gemms)
      return false;
    for (int k = 0; k < a.num_gemms; ++k)
      if (!(s_.gemms[static_cast<std::size_t>(a.first_gemm + k)] == s_.gemms[static_cast<std::size_t>(b.first_gemm + k)]))
        return false;
    for (int k = 0; k < a.num_accesses; ++k) {
      const Access& p = access(a.first_access + k);
      const Access& q = access(b.first_access + k);
      const Tensor& tp = tensor_of(p);
      const Tensor& tq = tensor_of(q);
      if (p.bytes != q.bytes || p.read != q.read || p.write != q.write || p.partial != q.partial ||
          tp.role != tq.role || tp.bytes != tq.bytes || tp.starts_offchip != tq.starts_offchip ||
          tp.must_end_offchip != tq.must_end_offchip)
        return false;
      const int fp = x_.access_full[static_cast<std::size_t>(a.first_access + k)];
      const int fq = x_.access_full[static_cast<std::size_t>(b.first_access + k)];
      if ((fp < 0) != (fq < 0)) return false;
      if (fp >= 0 && x_.full[static_cast<std::size_t>(fp)].flags != x_.full[static_cast<std::size_t>(fq)].flags) return false;
    }
    return true;
  }

  // Full use g of block [a, a + len) and full use h of block [b, b + len): both outside their
  // blocks, or at the same step and access of each.
  bool same_place(int g, int h, int a, int b, int len) const {
    const int sg = x_.full[static_cast<std::size_t>(g)].step, sh = x_.full[static_cast<std::size_t>(h)].step;
    const bool in_g = sg >= a && sg < a + len, in_h = sh >= b && sh < b + len;
    if (in_g != in_h) return false;
    if (!in_g) return true;
    if (sg - a != sh - b) return false;
    const int pg = full_access_[static_cast<std::size_t>(g)] - s_.steps[static_cast<std::size_t>(sg)].first_access;
    const int ph = full_access_[static_cast<std::size_t>(h)] - s_.steps[static_cast<std::size_t>(sh)].first_access;
    return pg == ph;
  }

  // Block [a, a + len) repeats block [b, b + len): the same steps (same_step), each full use's
  // neighbours (previous and next full use of its tensor) at the same places or both outside,
  // and the planners' candidates of each step (reuse intervals by end, reads, writes) in the
  // same order, position by position.
  bool same_structure(int a, int b, int len) const {
    for (int k = 0; k < len; ++k) {
      const int v = a + k, w = b + k;
      if (!same_step(v, w)) return false;
      const Step& sv = s_.steps[static_cast<std::size_t>(v)];
      const Step& sw = s_.steps[static_cast<std::size_t>(w)];
      for (int j = 0; j < sv.num_accesses; ++j) {
        const int f = x_.access_full[static_cast<std::size_t>(sv.first_access + j)];
        if (f < 0) continue;
        const int g = x_.access_full[static_cast<std::size_t>(sw.first_access + j)];
        const std::uint8_t flags = x_.full[static_cast<std::size_t>(f)].flags;
        if ((flags & FullUse::HasPrev) && !same_place(f - 1, g - 1, a, b, len)) return false;
        if ((flags & FullUse::HasNext) && !same_place(f + 1, g + 1, a, b, len)) return false;
      }
      const auto same_group = [&](const std::vector<int>& begin, const std::vector<PlanUse>& items, int end_offset) {
        const int bv = begin[static_cast<std::size_t>(v)], ev = begin[static_cast<std::size_t>(v) + 1];
        const int bw = begin[static_cast<std::size_t>(w)], ew = begin[static_cast<std::size_t>(w) + 1];
        if (ev - bv != ew - bw) return false;
        for (int i = 0; i < ev - bv; ++i) {
          const int f = items[static_cast<std::size_t>(bv + i)].f, g = items[static_cast<std::size_t>(bw + i)].f;
          if (!same_place(f + end_offset, g + end_offset, a, b, len) || !same_place(f, g, a, b, len)) return false;
        }
        return true;
      };
      if (!same_group(x_.interval_begin, x_.interval_uses, 1) || !same_group(x_.read_begin, x_.read_uses, 0) ||
          !same_group(x_.write_begin, x_.write_uses, 0))
        return false;
    }
    return true;
  }
};

}  // namespace

void find_repeats(const Schedule& s, UseIndex& x) { RepeatFinder(s, x).run(); }

}  // namespace dnnmem::detail
