// Stage 3 of the pipeline (SPEC §5): a policy turns a schedule and a design point into a plan —
// what is resident at each step and every transfer with its issue point and deadline. The
// timeline (stage 4) then times the plan; it knows nothing about how the plan was made.
#pragma once

#include <any>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dnnmem/hardware.hpp"
#include "dnnmem/interrupt.hpp"
#include "dnnmem/link.hpp"
#include "dnnmem/options.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem {

enum class TransferKind : std::uint8_t {
  StreamLoad,   // read while its step computes (also embedding rows, and rule 5's demand loads)
  StreamStore,  // written while its step computes
  Prefetch,     // loaded ahead of the step that needs it (rule 4)
  Offload,      // written out after its step (rule 3), final write-outs included (rule 7)
  Evict,        // written out as its step wants to start, before the step's capacity wait,
                // deadline = that step (no-lookahead's lingering tensors, lru's dirty victims)
};

struct Transfer {
  int tensor = -1;
  TransferKind kind = TransferKind::StreamLoad;
  std::int64_t bytes = 0;
  int issue_step = 0;   // issued at the start of this step, or at its end for offloads
  int deadline = 0;     // the step that needs it done (n = the end of the iteration)
  bool is_load() const { return kind == TransferKind::StreamLoad || kind == TransferKind::Prefetch; }
  bool at_end() const { return kind == TransferKind::Offload; }
  // Offloads and evictions: data written out of the cache, counted against capacity until done.
  bool writes_out() const { return kind == TransferKind::Offload || kind == TransferKind::Evict; }
  bool operator==(const Transfer&) const = default;
};

struct PlanCounts {
  int kept = 0;        // reuse intervals kept (rule 2)
  int prefetched = 0;  // prefetch windows (rule 4)
  int born = 0;        // outputs born on-chip (rule 6)
  int offloads = 0;    // offloads (rule 3), final write-outs included (lru: dirty write-outs)
  bool operator==(const PlanCounts&) const = default;
};

// OnSRAM's PinLoc = SPM (docs/model/onsram.md): tensor `tensor` resident over steps
// [start, end], its full uses there moving nothing. Only the pinning managers record pins.
struct Pin {
  int tensor = -1;
  int start = 0, end = 0;
};

// One backward GEMM layer under the tile model (docs/model/interleaved.md, "Report"): the bytes
// its step(s) move per operand, scaled from the GEMM matrices to the tensors (im2col, groups).
struct TileRecord {
  int layer = -1;
  int step = -1, step2 = -1;        // its step(s): a sequential order has two
  std::int64_t m = 0, k = 0, n = 0, count = 1;  // the paper's forward X(M,K)·W(K,N), `count` times
  std::string order;                // the order walked (seq, interleave, dx-major, dw-major)
  std::string reason;               // why (alg1 / alg1-size / best), "" when asked directly
  std::string nest_x, nest_w;       // the loop nests walked
  std::string partition;            // "" (none), "m", "n" or "k"
  std::int64_t parts = 1;           // parts of the partition (cores in lock step when several)
  std::int64_t c_eff = 0;           // the share, bytes
  unsigned streamed = 0;            // bit t: operand t (dY, W, X, dX, dW) went through the walk
  std::array<std::int64_t, 5> read{}, written{}, psum_read{}, psum_written{};  // tensor bytes
  std::array<std::int64_t, 5> size{};  // each operand's tensor bytes
};

struct Plan {
  // Transfers in issue order: by step; at a step's start its evictions (before the capacity
  // wait), then its streamed loads, streamed stores, then prefetches (rule-4 order); at its end
  // its offloads (tensor order). SPEC §6.
  std::vector<Transfer> transfers;
  std::vector<std::int64_t> resident;  // bytes resident during each step (without the space of
                                       // offloads in flight, which the timeline adds)
  PlanCounts counts;
  // Compute added to each step by re-executing earlier steps (OnSRAM-Eager Spec's recovery from
  // a mis-speculation, docs/model/onsram.md): empty, or one entry per step, in ticks.
  std::vector<Ticks> recompute;
  // The pinning managers' decisions (infinite-spm, one-step, onsram-static, onsram-eager-*), in
  // tensor order for the static ones: empty for every other manager.
  std::vector<Pin> pins;

  // The tile model's layers (empty unless the schedule turns it on).
  std::vector<TileRecord> tiles;
};

// Whether two plans give the timeline the same input: the transfers, the resident bytes and the
// recomputed ticks (all it reads of a plan). Counts first: they differ for most pairs.
inline bool same_timeline_input(const Plan& a, const Plan& b) {
  return a.counts == b.counts && a.resident == b.resident && a.recompute == b.recompute &&
         a.transfers == b.transfers;
}

struct PreparedPolicy;  // compose.hpp

// What a cache manager gets: the schedule, the capacity, the time base, each step's compute
// time (from the compute model), the link to ask for a transfer's time (latency-aware prefetch
// and look-ahead offload use it), and its own options.
struct PlanInput {
  const Schedule& schedule;
  std::int64_t capacity = 0;
  TimeBase time;
  int ops_per_mac = 2;
  std::vector<Ticks> compute;  // per step, ticks
  const LinkModel* link = &identity_link();
  const Options* options = nullptr;  // the cache manager's
  // Cache manager `lp-rounded`: the kept intervals it is given (PreparedPolicy::kept_given).
  const std::vector<std::uint8_t>* kept_given = nullptr;

  Ticks transfer_ticks(int tensor, std::int64_t bytes, bool load) const {
    return link->ticks(time, tensor, bytes, load);
  }
};

// Reuses `compute`'s storage (a sweep's per-thread buffer): moved into the result.
PlanInput make_plan_input(const Schedule& s, const Hardware& hw, const PreparedPolicy& policy,
                          std::vector<Ticks>&& compute = {});

// A thesis planner's bits about one full use. An enum, not std::uint8_t: a store through a
// character type may alias any object, so the compiler would reload the planner's other state
// after every update of these bits.
enum class UseState : std::uint8_t {};

// Buffers the policies reuse from one design point to the next (one per thread in a sweep,
// so a warm point allocates nothing). What they hold between calls means nothing: every policy
// sizes and fills what it uses. A fresh one is always correct, only slower.
struct PlanScratch {
  // Set by the caller when this call's PlanInput equals the previous call's on this scratch in
  // everything but the capacity (the same schedule, cache manager, link, time base and compute
  // times: a sweep's points along the capacity axis). A planner may then reuse what it derived
  // from those alone last time, instead of deriving it again; it clears the flag, so a cache
  // manager that calls others with inputs of its own makes them derive afresh. false (the
  // default) is always correct.
  bool same_input = false;
  // A larger capacity to probe (a sweep's next point of the same input), or -1. A planner that
  // supports it sets probe_same when its plan at probe_capacity would equal this one (no
  // decision would change); the sweep then reuses the plan there. Every other planner leaves
  // probe_same false (the caller clears it), which is always correct. A cache manager that
  // calls a planner with inputs of its own clears probe_capacity first.
  std::int64_t probe_capacity = -1;
  bool probe_same = false;
  // With probe_same, a planner may also say how far up its plan holds: the same plan at every
  // capacity up to probe_holds_to (>= probe_capacity), so that a sweep reuses it at its later
  // points too; -1 (the caller clears it): up to probe_capacity.
  std::int64_t probe_holds_to = -1;
  // The thesis's planners (policies/thesis.cpp).
  std::vector<std::int64_t> tree, resident_diff;  // tree: RangeTree's nodes
  std::vector<Ticks> prefix;
  std::vector<int> deadline, prefetch_from;  // capacity-free: rule 3's deadline per full use,
                                             // rule 4's p* per read (-1: not derived yet)
  std::vector<UseState> use_state;  // per full use (+ 1): kept / kept in / dirty in / loaded / born
  std::vector<std::uint8_t> state;  // (onsram-static)
  std::vector<Transfer> prefetches, offloads, pending;
  std::vector<int> group, bucket;
  bool bucket_clean = false;  // bucket holds -1 everywhere (the thesis planners' assemble() leaves it so)
  std::vector<std::uint8_t> group_first;
  std::vector<ReadAt> candidates;  // rule 4's, in its order
  // no-lookahead's lingering tensors.
  std::vector<int> lingering, entries, touched, left;
  // lru.
  std::vector<int> last_full, last_access, prev, next, used_now;
  std::vector<std::uint8_t> cached, dirty_now, listed;
  std::vector<Transfer> evicts, loads, stores;  // and `offloads` above
  // A planner's own tables derived from its input but the capacity (onsram-eager's predictions,
  // onsram-static's candidate order, mbs-strict's candidates), valid while same_input; the
  // planner checks the type it stored.
  std::any derived;
  // The thesis planners' records of repeated blocks (docs/performance.md, "Exact replay"): what
  // a block decided and the state it read, so that a later repeat in an equivalent state takes
  // the same decisions without deciding (policies/thesis_replay.hpp).
  std::any replay;
  // Test hook: decide every block (no replay). The plans are the same either way.
  bool no_replay = false;
};

// A planner's tables of type T derived from its input but the capacity (PlanScratch::derived):
// `derive(T&)` fills them unless the previous call on this scratch had the same input
// (same_input) and left a T there. Consumes same_input.
template <class T, class Derive>
const T& derived_tables(PlanScratch& scratch, Derive derive) {
  T* tables = std::any_cast<T>(&scratch.derived);
  if (!scratch.same_input || tables == nullptr) {
    tables = &scratch.derived.emplace<T>();
    derive(*tables);
  }
  scratch.same_input = false;
  return *tables;
}

// Transfers every step makes when nothing is kept (policy `none`, capacity 0): each access
// streamed, a read-modify-write as a load and a store. Policies build on it.
void stream_everything(const Schedule& s, Plan& plan);

// The tile model's pass (docs/model/interleaved.md, "Timing"): for each backward GEMM layer whose
// streamed operands go through the tile model, the streamed transfers of its step(s) carry the
// walk's bytes instead of one read of each operand, plus partial-sum spills. Nothing when the
// schedule leaves the model off. Throws std::invalid_argument naming the layer on a bad shape.
// `unbounded`: the cache manager models a scratchpad of unlimited size (CachePart::unbounded,
// infinite-spm): every step's share holds all its operands, whatever the plan keeps.
// `units`: where the layers of in.schedule that the model tiles are kept from one call to the
// next (they depend on the schedule alone); a sweep's workspace passes one, its schedule fixed
// for the sweep's call. Found again when the schedule is another object; the cache compares
// addresses only, so it must not outlive the schedules it was used with (another schedule could
// take a freed one's address).
struct TileUnitCache;
void apply_tile_model(const PlanInput& in, Plan& plan, bool unbounded = false, TileUnitCache* units = nullptr);

// One backward GEMM layer to tile: its steps and its operands' tensors (-1: none).
struct TileUnit {
  int layer = -1, first = -1, second = -1;  // second: the other step of a sequential pair
  bool weight_first = false;                // the pair's first step is the dW step
  std::array<int, 5> tensor{-1, -1, -1, -1, -1};
  Gemm gemm;
};
struct TileUnitCache {
  const Schedule* schedule = nullptr;  // the schedule `units` were found in (nullptr: none yet)
  bool fused = false;                  // found for fused steps (the tile model's order)
  std::vector<TileUnit> units;
};

}  // namespace dnnmem
