// The thesis planners' replay of repeated blocks (docs/performance.md, "Exact replay"; the
// records: thesis_replay.hpp): per pass, whether a block repeats a record in an equivalent state,
// taking its decisions if so, and recording it otherwise where later blocks repeat it.
#include <algorithm>
#include <any>

#include "thesis_planner.hpp"

namespace dnnmem::detail {

void ThesisPlanner::prepare_replay(bool same) {
  Replay& r = *rp_;
  const std::size_t nb = x_.blocks.size();
  if (r.schedule != &s_ || r.blocks != nb) {
    r.schedule = &s_;
    r.blocks = nb;
    r.is_source.assign(nb, 0);
    for (const RepeatBlock& b : x_.blocks)
      if (b.source >= 0) r.is_source[static_cast<std::size_t>(b.source)] = 1;
    same = false;
  }
  if (!same) {
    r.link.assign(nb, -1);
    r.back.assign(nb, -1);
    for (auto& u : r.used) u.assign(nb, 1);
    r.points = 0;
  } else {
    ++r.points;
  }
  for (int p = 0; p < 3; ++p) {
    std::swap(r.useful[p], r.used[p]);
    r.used[p].assign(nb, 0);
  }
  for (auto& rec : r.record) rec.assign(nb, -1);
  for (auto& at : r.at) at.assign(nb, {});
  r.values.clear();
  r.bits.clear();
  r.ints.clear();
}

bool ThesisPlanner::worth_recording(int pass, int j) const {
  const auto k = static_cast<std::size_t>(j);
  return rp_->is_source[k] && (rp_->useful[pass][k] || tried_ || rp_->points % Replay::kRetry == 0);
}

bool ThesisPlanner::link(int j) {
  std::int8_t& known = rp_->link[static_cast<std::size_t>(j)];
  if (known < 0) known = derive_link(j) ? 1 : 0;
  return known != 0;
}

bool ThesisPlanner::derive_link(int j) {
  const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
  const RepeatBlock& S = x_.blocks[static_cast<std::size_t>(B.source)];
  const int a = B.begin, as = S.begin, len = B.end - B.begin;
  // Deadline w after step u: the same distance w - u, and both n (no step qualifies) or not.
  const auto same_deadline = [&](const PlanUse& r, int u, const PlanUse& q, int us) {
    const int w = deadline(r, u), ws = deadline(q, us);
    return w - u == ws - us && (w == n_) == (ws == n_);
  };
  const PlanUse* iv = x_.interval_uses.data();
  const int di = x_.interval_begin[static_cast<std::size_t>(as)] - x_.interval_begin[static_cast<std::size_t>(a)];
  for (int v = a; v < a + len; ++v)
    for (int i = x_.interval_begin[static_cast<std::size_t>(v)]; i < x_.interval_begin[static_cast<std::size_t>(v) + 1]; ++i) {
      const PlanUse& r = iv[i];
      const PlanUse& q = iv[i + di];
      // Starts before its block in both or in neither (same_structure holds it; replay_intervals
      // checks condition 2 only for the record's intervals from before the block).
      if ((r.step >= a) != (q.step >= as)) return false;
      if (r.step >= a) {
        if (!same_deadline(r, r.step, q, q.step)) return false;
      } else {
        // From before the block: its write-out's reservation [u + 1, w - 1] reaches both
        // blocks or neither, and then from the same step to the same step relative to them.
        const int w = deadline(r, r.step), ws = deadline(q, q.step);
        if ((w > a) != (ws > as) ||
            (w > a && (std::max(r.step + 1, a) - a != std::max(q.step + 1, as) - as || w - a != ws - as))) return false;
      }
      if ((r.flags & FullUse::MustEndOffchip) && (r.flags & PlanUse::NextLast)) {
        const FullUse& e = x_.full[static_cast<std::size_t>(r.f) + 1];
        const FullUse& es = x_.full[static_cast<std::size_t>(q.f) + 1];
        const int w = deadline(r.f + 1, e.step, e.tensor, e.bytes), ws = deadline(q.f + 1, es.step, es.tensor, es.bytes);
        if (w - e.step != ws - es.step || (w == n_) != (ws == n_)) return false;
      }
    }
  const PlanUse* rd = x_.read_uses.data();
  const int dr = x_.read_begin[static_cast<std::size_t>(as)] - x_.read_begin[static_cast<std::size_t>(a)];
  for (int v = a; v < a + len; ++v)
    for (int i = x_.read_begin[static_cast<std::size_t>(v)]; i < x_.read_begin[static_cast<std::size_t>(v) + 1]; ++i) {
      const PlanUse& r = rd[i];
      const PlanUse& q = rd[i + dr];
      if (prefetch_ != Prefetch::None) {
        const int p = p_star(r, i, v), ps = p_star(q, i + dr, v - a + as);
        if (p - a != ps - as) return false;
      }
      if ((r.flags & FullUse::Write) && !same_deadline(r, v, q, v - a + as)) return false;
    }
  const PlanUse* wr = x_.write_uses.data();
  const int dw = x_.write_begin[static_cast<std::size_t>(as)] - x_.write_begin[static_cast<std::size_t>(a)];
  for (int i = x_.write_begin[static_cast<std::size_t>(a)]; i < x_.write_begin[static_cast<std::size_t>(a + len)]; ++i)
    if (!same_deadline(wr[i], wr[i].step, wr[i + dw], wr[i + dw].step)) return false;
  return true;
}

const ThesisPlanner::Replay::At* ThesisPlanner::replay_record(int pass, int j) {
  tried_ = false;
  const int source = x_.blocks[static_cast<std::size_t>(j)].source;
  if (source < 0) return nullptr;
  const int r = rp_->record[pass][static_cast<std::size_t>(source)];
  if (r < 0 || !link(j)) return nullptr;
  replaying_from_ = r;
  tried_ = true;
  return &rp_->at[pass][static_cast<std::size_t>(r)];
}

bool ThesisPlanner::shifted_by_constant(const std::int64_t* margin, const std::int64_t* before) {
  std::int64_t c = 0;
  if (!occ_.shifted_from(lo_, b_ - 1, before, c)) return false;
  if (!(c > margin[0] && c <= margin[1])) return false;
  c_ = c;
  if (probe_ >= 0 && margin[0] != Replay::kLow && c - (probe_ - in_.capacity) <= margin[0]) probe_ = -1;
  return true;
}

void ThesisPlanner::start_record(int pass, int j, int decisions, int per, int bits, int extra) {
  Replay& r = *rp_;
  Replay::At& at = r.at[pass][static_cast<std::size_t>(j)];
  const int len = b_ - lo_;
  at.values = static_cast<int>(r.values.size());
  at.bits = static_cast<int>(r.bits.size());
  at.ints = static_cast<int>(r.ints.size());
  r.values.resize(r.values.size() + 2 + 2 * static_cast<std::size_t>(len) + static_cast<std::size_t>(decisions * per + extra));
  r.bits.resize(r.bits.size() + static_cast<std::size_t>(bits));
  std::int64_t* v = r.values.data() + at.values;
  v[0] = Replay::kLow;
  v[1] = Replay::kHigh;
  occ_.values(lo_, b_ - 1, v + 2);
  r.record[pass][static_cast<std::size_t>(j)] = j;
  rec_ = at;
  margin_ = v;
}

void ThesisPlanner::finish_record() {
  std::int64_t* v = rp_->values.data() + rec_.values;
  const int len = b_ - lo_;
  occ_.values(lo_, b_ - 1, v + 2 + len);
  for (int k = 0; k < len; ++k) v[2 + len + k] -= v[2 + k];
  margin_ = nullptr;
}

void ThesisPlanner::add_record(int pass, int j) {
  // the record's additions over the region, then the block takes the record's place
  const int len = b_ - lo_;
  occ_.add_values(lo_, b_ - 1, record_values() + 2 + len);
  const int source = x_.blocks[static_cast<std::size_t>(j)].source;
  rp_->record[pass][static_cast<std::size_t>(j)] = rp_->record[pass][static_cast<std::size_t>(source)];
}

void ThesisPlanner::record_intervals(int j, int first, int count) {
  const int len = b_ - a_;
  start_record(0, j, count, 1, count, len + 1);
  std::int64_t* res = rp_->values.data() + rec_.values + 2 + 2 * len + count;
  const std::int64_t* diff = plan_.resident.data() + a_;
  for (int k = 0; k <= len; ++k) res[k] = diff[k];
  std::vector<int>& ints = rp_->ints;
  const std::size_t head = ints.size();
  ints.push_back(plan_.counts.kept);
  ints.push_back(0);
  const std::size_t cand0 = candidates_.size();
  ext_resident_.clear();
  intervals_of<Mode::Record>(a_, b_);
  (void)first;
  finish_record();
  res = rp_->values.data() + rec_.values + 2 + 2 * len + count;
  for (int k = 0; k <= len; ++k) res[k] = diff[k] - res[k];
  for (std::size_t k = 0; k < ext_resident_.size(); k += 3)
    occupy_resident(static_cast<int>(ext_resident_[k]), static_cast<int>(ext_resident_[k + 1]), ext_resident_[k + 2]);
  ints[head] = plan_.counts.kept - ints[head];
  ints[head + 1] = static_cast<int>((ints.size() - head - 2) / 2);
  ints.push_back(static_cast<int>(candidates_.size() - cand0));
  const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
  for (std::size_t k = cand0; k < candidates_.size(); ++k) {
    ints.push_back(candidates_[k].step - a_);
    ints.push_back(candidates_[k].pos - read0);
  }
}

bool ThesisPlanner::replay_intervals(int j, int first, int count) {
  const Replay::At* at = replay_record(0, j);
  if (at == nullptr) return false;
  rec_ = *at;
  const std::uint8_t* rb = record_bits();
  const PlanUse* r = x_.interval_uses.data() + first;
  const int* ip = rp_->ints.data() + rec_.ints;
  const int kept_count = ip[0], externals = ip[1];
  const int* ext = ip + 2;
  // Condition 2 for the intervals from before the block: the record's list of them (its
  // externals) is the block's, as link() checked that each interval starts before its block
  // in both or in neither; those inside the block read no state from before it.
  for (int e = 0; e < externals; ++e) {
    const int k = ext[2 * e];
    if ((bits(r[k].f) & (KeptIn | DirtyIn)) != (rb[k] & (KeptIn | DirtyIn))) return false;
  }
  const std::int64_t* v = record_values();
  if (!shifted_by_constant(v, v + 2)) return false;
  const int len = b_ - a_;
  const std::int64_t* inside_max = v + 2 + 2 * len;
  // The intervals from before the block, in the record's order: each adds outside the block
  // (kept: [lo, a - 1]; a write-out's reservation from before it) before the next asks.
  std::vector<std::int64_t>& undo = rp_->deferred;
  undo.clear();
  const auto add = [&](int lo, int hi, std::int64_t bytes) {
    if (lo > hi) return;
    occ_.add_up(lo, hi, bytes);
    undo.push_back(lo);
    undo.push_back(hi);
    undo.push_back(bytes);
  };
  for (int e = 0; e < externals; ++e) {
    const int k = ext[2 * e];
    const PlanUse& q = r[k];
    const int u = q.step;
    const int lo = is(q.f, KeptIn) ? u + 1 : u;
    const std::int64_t level = in_.capacity - q.bytes;
    const std::int64_t inside = inside_max[k] + c_;
    const bool recorded = (rb[k] & kRecKeep) != 0;
    bool keep;
    if (inside > level) {
      keep = false;
    } else if (!recorded && lo <= ext[2 * e + 1]) {
      // The record's interval was rejected for a step before its block; this one's range
      // before the block holds all of that one's, and no step's occupancy has fallen since.
      keep = false;
    } else {
      keep = !(occ_.max_all() > level && occ_.any_above(lo, a_ - 1, level));
    }
    if (keep != recorded) {
      for (std::size_t m = undo.size(); m >= 3; m -= 3)
        occ_.add(static_cast<int>(undo[m - 3]), static_cast<int>(undo[m - 2]), -undo[m - 1]);
      undo.clear();
      return false;
    }
    if (keep) {
      add(lo, a_ - 1, q.bytes);
    } else {
      if (probe_ >= 0 && inside + q.bytes <= probe_ && !occ_.any_above(lo, a_ - 1, probe_ - q.bytes)) probe_ = -1;
      if (rb[k] & kRecRule3) add(u + 1, std::min(deadline(q, u) - 1, a_ - 1), q.bytes);
    }
  }
  undo.clear();
  // The block's decisions: the record's additions over it, each interval's state bits and
  // write-outs, the resident bytes, rule 4's candidates.
  occ_.add_values(a_, b_ - 1, v + 2 + len);
  std::int64_t* diff = plan_.resident.data();
  const std::int64_t* res = inside_max + count;
  for (int k = 0; k <= len; ++k) diff[a_ + k] += res[k];
  for (int e = 0; e < externals; ++e) {
    const int k = ext[2 * e];
    if (!(rb[k] & kRecKeep)) continue;
    const PlanUse& q = r[k];
    occupy_resident(is(q.f, KeptIn) ? q.step + 1 : q.step, x_.full[static_cast<std::size_t>(q.f) + 1].step, q.bytes);
  }
  for (int k = 0; k < count; ++k) {
    const PlanUse& q = r[k];
    const std::uint8_t b = rb[k];
    set(q.f + 1, static_cast<std::uint8_t>(((b & kRecKeep) ? KeptIn : 0) | ((b & kRecDirty) ? DirtyIn : 0)));
    if (b & kRecKeep) set(q.f, Kept);
    if (b & kRecRule3) write_out_from(q.f, q.step, q.tensor, q.bytes);
    if (b & kRecRule7) {
      const FullUse& next = x_.full[static_cast<std::size_t>(q.f) + 1];
      write_out_from(q.f + 1, next.step, next.tensor, next.bytes);
    }
  }
  plan_.counts.kept += kept_count;
  const int* cand = ext + 2 * externals;
  const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
  for (int k = 0; k < cand[0]; ++k) candidates_.push_back({a_ + cand[1 + 2 * k], read0 + cand[2 + 2 * k]});
  const ReadAt* first_end = x_.first_reads.data() + x_.first_reads.size();
  while (first_read_ != first_end && first_read_->step < b_) ++first_read_;
  rp_->record[0][static_cast<std::size_t>(j)] = rp_->record[0][static_cast<std::size_t>(x_.blocks[static_cast<std::size_t>(j)].source)];
  return true;
}

void ThesisPlanner::write_out_from(int f, int u, int tensor, std::int64_t bytes) {
  const int w = deadline(f, u, tensor, bytes);
  const int lo = std::max(u + 1, b_);
  if (lo <= w - 1) occ_.add_up(lo, w - 1, bytes);
  offloads_.push_back({tensor, TransferKind::Offload, bytes, u, w});
  ++plan_.counts.offloads;
}

int ThesisPlanner::reach_back(int j) {
  int& back = rp_->back[static_cast<std::size_t>(j)];
  if (back < 0) {
    const RepeatBlock& B = x_.blocks[static_cast<std::size_t>(j)];
    back = 0;
    if (prefetch_ != Prefetch::None)
      for (int v = B.begin; v < B.end; ++v)
        for (int i = x_.read_begin[static_cast<std::size_t>(v)]; i < x_.read_begin[static_cast<std::size_t>(v) + 1]; ++i)
          back = std::max(back, B.begin - p_star(x_.read_uses[static_cast<std::size_t>(i)], i, v));
  }
  return back;
}

bool ThesisPlanner::start_replay_prefetches(int j, const ReadAt* c, int count) {
  const Replay::At* at = replay_record(1, j);
  if (at == nullptr) return false;
  rec_ = *at;
  const int* p = rp_->ints.data() + rec_.ints;
  const int back = reach_back(j);
  if (p[0] != count || p[1] != back) return false;
  p += 2;
  const int read0 = x_.read_begin[static_cast<std::size_t>(a_)];
  for (int k = 0; k < count; ++k) {
    if (c[k].step - a_ != p[4 * k] || c[k].pos - read0 != p[4 * k + 1]) return false;
    if ((kept(x_.read_uses[static_cast<std::size_t>(c[k].pos)].f) ? 1 : 0) != p[4 * k + 3]) return false;
  }
  lo_ = a_ - back;
  const std::int64_t* v = record_values();
  if (!shifted_by_constant(v, v + 2)) return false;
  rec_.ints += 2;
  return true;
}

bool ThesisPlanner::start_replay_outputs(int j, int first, int count) {
  const Replay::At* at = replay_record(2, j);
  if (at == nullptr) return false;
  rec_ = *at;
  const std::uint8_t* rb = record_bits();
  const PlanUse* r = x_.write_uses.data() + first;
  for (int k = 0; k < count; ++k)
    if ((bits(r[k].f) & (KeptIn | Loaded | Kept)) != (rb[k] & (KeptIn | Loaded | Kept))) return false;
  const std::int64_t* v = record_values();
  if (!shifted_by_constant(v, v + 2)) return false;
  return true;
}

}  // namespace dnnmem::detail
