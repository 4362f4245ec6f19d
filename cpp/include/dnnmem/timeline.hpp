// Stage 4 of the pipeline (SPEC §6): times a plan. The compute unit runs the steps in order;
// one DMA channel, preemptive earliest-deadline-first (a fluid server), moves the transfers.
#pragma once

#include <any>
#include <array>
#include <cstdint>
#include <vector>

#include "dnnmem/plan.hpp"

namespace dnnmem {

struct StepTiming {
  Ticks start = 0, end = 0;     // end(s) - end(s-1) is the step's execution time
  Ticks compute = 0;
  Ticks capacity_stall = 0;     // waiting for offloads to free space before starting
  std::int64_t bytes_in = 0, bytes_out = 0;  // issued at its start (loads) or end (offloads)
  std::int64_t wire_in = 0, wire_out = 0;    // the same transfers' bytes on the link
  std::array<std::int64_t, 5> in_by_role{}, out_by_role{};  // the same, by Role of the tensor
  // The streamed part (StreamLoad / StreamStore): the step's own accesses that go off-chip,
  // issued at its start with the step as deadline, so end - start >= their link time >= their
  // bytes on the wire / bandwidth (a link's efficiency and cap only lengthen it). That makes
  // FLOPs / streamed wire bytes the operational intensity a roofline bounds per step, for every
  // link. Kept only with the per-step table, like the split by role.
  std::int64_t streamed_in = 0, streamed_out = 0;
  std::int64_t streamed_wire_in = 0, streamed_wire_out = 0;  // the same on the wire
  std::int64_t resident = 0;    // plan residency + data still being written out, at its start
};

struct Timeline {
  std::vector<StepTiming> steps;
  Ticks steps_end = 0;          // end of the last step
  Ticks total = 0;              // + drain: off-chip writes still running
  std::int64_t traffic_in = 0, traffic_out = 0;
  std::int64_t wire_in = 0, wire_out = 0;
};

// What a sweep keeps of a timeline: its exact totals.
struct TimelineTotals {
  Ticks steps_end = 0, total = 0;
  Ticks compute = 0, capacity_stall = 0;  // summed over the steps
  std::int64_t traffic_in = 0, traffic_out = 0;  // bytes that leave / enter the cache
  std::int64_t wire_in = 0, wire_out = 0;        // bytes on the link (= traffic for `raw`)
  // The capacity is read only by the capacity wait. When no step waited, every capacity at
  // least this one (the largest resident + in-flight bytes checked while offloads were
  // pending) runs the same plan through the same events, to the same totals; a sweep reuses
  // them (evaluate_point). INT64_MAX when some step waited.
  std::int64_t wait_free_from = 0;
  // More generally, every capacity in [same_from, same_below) runs the plan through the same
  // events: each capacity wait that served an offload saw more resident + in-flight bytes than
  // same_below - 1 (the least of them), each one that stopped with offloads pending at most
  // the capacity. So same_from = min(wait level, capacity), same_below = INT64_MAX when no step
  // waited. (A sweep's next, larger capacity then reuses the totals even where steps waited.)
  std::int64_t same_from = 0, same_below = 0;
};

// The DMA channel's buffers, reused from one design point to the next (one per thread in a
// sweep). A call leaves them empty (every bucket and count back at its initial value) so that the
// next call of the same size clears nothing; `clean` says so (false after a throw: the next call
// then clears them).
struct TimelineScratch {
  // Per transfer: what the channel reads and writes while it is pending.
  struct Slot {
    Ticks remaining;
    int next, offload_next, tensor_next;  // the next entry of its bucket / offload bucket /
                                          // tensor's pending offloads, -1 at the end
    int done;
  };
  std::vector<Slot> slots;
  std::vector<int> waiting;  // per deadline step: pending loads / streamed transfers
  // Two bucket queues by deadline (all transfers; offloads and evictions): per bucket the first
  // and last entry, and a bitmap of the non-empty buckets.
  std::vector<int> head, tail, offload_head, offload_tail;
  std::vector<std::uint64_t> bits, offload_bits;
  // Pending offloads per tensor, valid where tensor_stamp == epoch (one epoch per call).
  std::vector<int> tensor_head, tensor_tail;
  std::vector<std::uint32_t> tensor_stamp;
  std::uint32_t epoch = 0;
  bool clean = false;
  // Test hook: serve from the bucket queues from the start (no small sorted array first).
  bool bucket_queues_only = false;
  // Records of repeated blocks (docs/performance.md, "Exact replay"): how a block's steps ran
  // from the channel's state at its start, so that a later repeat of it that starts in the
  // same state (shifted in time) runs the same way without simulating (timeline_replay.hpp).
  std::any replay;
  // Test hook: simulate every step (no replay). The totals are the same either way.
  bool no_replay = false;
};

Timeline simulate(const PlanInput& in, const Plan& plan);
// The same event pass, keeping only the totals (and filling `steps`, its totals included, when
// not null).
TimelineTotals simulate(const PlanInput& in, const Plan& plan, TimelineScratch& scratch,
                        Timeline* steps);

}  // namespace dnnmem
