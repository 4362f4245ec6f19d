// `lru(hardware=on)` and `fifo(hardware=on)` (docs/model/onsram.md, rule O11, readings H1-H6):
// the scratchpad run as a plain hardware cache, the OnSRAM paper's "cache-based (LRU/FIFO)
// policies" (section IV) as a cache built in hardware would behave, unlike the whole-tensor
// `lru` / `fifo` (L1-L6), which know each tensor's liveness and bypass what does not fit:
//   H1  the SPM holds floor(capacity / line) lines, fully associative; tensor t is cut into
//       ceil(bytes / line) lines, its last holding the remainder (a transfer of a line moves the
//       tensor's bytes in it, so a cache that never hits moves exactly `none`'s bytes);
//   H2  full accesses in access-list order, each tensor's lines in ascending order: a read line
//       hits or is loaded (a demand load, streamed with its step) and stays, clean; a written line
//       is allocated without a fetch (every byte of it is written) and is dirty; a read-modify-
//       write does both;
//   H3  to allocate a line into a full cache the least recently used line (fifo: the earliest
//       allocated) is evicted, whichever tensor and step it belongs to: no bypass, and the lines
//       of the current step are victims too; a dirty victim is written back while the step
//       computes (a streamed store of the step, after the step's own: rule O1; a write buffer,
//       where L3's Evict would hold the step until the space is free);
//   H4  no liveness: a dead line stays until it is evicted, and a dirty one is written back then;
//   H5  partial accesses are streamed and leave the cache alone (as L5);
//   H6  the lines still dirty after the last step are written back with it (streamed stores of
//       the last step): in a run of iterations each dirty line is written back once, whenever.
// Transfers are summed per (tensor, kind) within a step: loads, stores, then write-backs. Counts: kept = full reads whose every
// line hit, born = write-only accesses, offloads = the write-back transfers.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

namespace dnnmem {

namespace {
// Dense line -> slot table: 4 bytes per line of every tensor.
constexpr std::int64_t kMaxLines = std::int64_t{1} << 26;
}  // namespace

void plan_hardware_cache(const PlanInput& in, Plan& plan, bool fifo) {
  const Schedule& s = in.schedule;
  const std::size_t nt = s.tensors.size();
  const int n = static_cast<int>(s.steps.size());
  const std::int64_t line = in.options->integer("line");
  plan.transfers.clear();
  plan.counts = {};
  plan.resident.assign(s.steps.size(), 0);

  std::vector<std::int64_t> first_line(nt + 1, 0);  // H1: tensor t's lines
  for (std::size_t t = 0; t < nt; ++t) first_line[t + 1] = first_line[t] + (s.tensors[t].bytes + line - 1) / line;
  const std::int64_t total_lines = first_line[nt];
  if (total_lines > kMaxLines)
    throw std::invalid_argument("cache manager " + std::string(fifo ? "fifo" : "lru") + "(hardware=on): the tensors make " +
                                std::to_string(total_lines) + " lines of " + std::to_string(line) +
                                " bytes, more than the " + std::to_string(kMaxLines) +
                                " this model tracks; choose a larger option 'line'");
  const std::int64_t slots = std::min(in.capacity / line, total_lines);
  auto line_bytes = [&](int t, std::int64_t l) {  // bytes of tensor t in its line l (global index)
    const auto i = static_cast<std::size_t>(t);
    return std::min(line, s.tensors[i].bytes - (l - first_line[i]) * line);
  };

  std::vector<int> slot_of(static_cast<std::size_t>(total_lines), -1);
  const auto ns = static_cast<std::size_t>(slots);
  std::vector<std::int64_t> slot_line(ns, -1);
  std::vector<int> slot_tensor(ns, -1), prev(ns, -1), next(ns, -1);
  std::vector<std::uint8_t> dirty(ns, 0);
  int head = -1, tail = -1, filled = 0;
  std::int64_t used = 0;
  auto unlink = [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    (prev[i] < 0 ? head : next[static_cast<std::size_t>(prev[i])]) = next[i];
    (next[i] < 0 ? tail : prev[static_cast<std::size_t>(next[i])]) = prev[i];
    prev[i] = next[i] = -1;
  };
  auto append = [&](int k) {
    const auto i = static_cast<std::size_t>(k);
    prev[i] = tail;
    next[i] = -1;
    (tail < 0 ? head : next[static_cast<std::size_t>(tail)]) = k;
    tail = k;
  };

  // Per-step sums per tensor, in first-touch order.
  std::vector<std::int64_t> evict_bytes(nt, 0);
  std::vector<int> evicted;
  std::vector<Transfer> loads, stores;
  auto evict_one = [&]() -> int {  // H3: frees the head slot, returns it
    const int k = head;
    const auto i = static_cast<std::size_t>(k);
    unlink(k);
    const int vt = slot_tensor[i];
    const std::int64_t b = line_bytes(vt, slot_line[i]);
    if (dirty[i]) {
      if (evict_bytes[static_cast<std::size_t>(vt)] == 0) evicted.push_back(vt);
      evict_bytes[static_cast<std::size_t>(vt)] += b;
    }
    slot_of[static_cast<std::size_t>(slot_line[i])] = -1;
    used -= b;
    return k;
  };

  for (int step = 0; step < n; ++step) {
    check_interrupt_every(static_cast<std::size_t>(step));
    const Step& st = s.steps[static_cast<std::size_t>(step)];
    loads.clear();
    stores.clear();
    evicted.clear();
    for (int a_i = 0; a_i < st.num_accesses; ++a_i) {
      const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + a_i)];
      const int t = a.tensor;
      if (a.partial || slots == 0) {  // H5 (and a cache of no line streams everything)
        if (a.read) loads.push_back({t, TransferKind::StreamLoad, a.bytes, step, step});
        if (a.write) stores.push_back({t, TransferKind::StreamStore, a.bytes, step, step});
        continue;
      }
      const auto ti = static_cast<std::size_t>(t);
      std::int64_t missed = 0;
      for (std::int64_t l = first_line[ti]; l < first_line[ti + 1]; ++l) {
        int k = slot_of[static_cast<std::size_t>(l)];
        if (k >= 0) {  // a hit (fifo: the line keeps its place)
          if (!fifo) {
            unlink(k);
            append(k);
          }
        } else {
          const std::int64_t b = line_bytes(t, l);
          if (a.read) missed += b;  // H2: a demand load; a write-only line needs no fetch
          k = filled < slots ? filled++ : evict_one();
          const auto i = static_cast<std::size_t>(k);
          slot_line[i] = l;
          slot_tensor[i] = t;
          dirty[i] = 0;
          slot_of[static_cast<std::size_t>(l)] = k;
          used += b;
          append(k);
        }
        if (a.write) dirty[static_cast<std::size_t>(k)] = 1;
      }
      if (missed > 0) loads.push_back({t, TransferKind::StreamLoad, missed, step, step});
      if (a.read && missed == 0) ++plan.counts.kept;
      if (a.write && !a.read) ++plan.counts.born;
    }
    plan.resident[static_cast<std::size_t>(step)] = used;
    plan.transfers.insert(plan.transfers.end(), loads.begin(), loads.end());
    plan.transfers.insert(plan.transfers.end(), stores.begin(), stores.end());
    for (int vt : evicted) {
      auto& b = evict_bytes[static_cast<std::size_t>(vt)];
      plan.transfers.push_back({vt, TransferKind::StreamStore, b, step, step});
      ++plan.counts.offloads;
      b = 0;
    }
  }
  // H6, in tensor order, with the last step.
  std::vector<std::int64_t> drain(nt, 0);
  for (std::size_t k = 0; k < ns; ++k)
    if (slot_line[k] >= 0 && dirty[k])
      drain[static_cast<std::size_t>(slot_tensor[k])] += line_bytes(slot_tensor[k], slot_line[k]);
  for (std::size_t t = 0; t < nt; ++t) {
    if (drain[t] == 0) continue;
    plan.transfers.push_back({static_cast<int>(t), TransferKind::StreamStore, drain[t], n - 1, n - 1});
    ++plan.counts.offloads;
  }
}

}  // namespace dnnmem
