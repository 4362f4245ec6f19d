// Stage 2 of the pipeline (SPEC §3): the training iteration as ordered steps, each with its
// tensor accesses, and for every tensor its ordered uses. Depends only on (network, batch,
// element size, scheduler) and is shared by every design point of a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dnnmem/gemm.hpp"
#include "dnnmem/network.hpp"
#include "dnnmem/options.hpp"

namespace dnnmem {

// Role order is part of the tensor order of SPEC §3: activation < W < S < gradient < dW.
enum class Role : std::uint8_t { Activation, Weight, State, Gradient, WeightGrad };
enum class Phase : std::uint8_t { Forward, Loss, Backward };
// Which part of a layer's backward work a step does: all of it (the thesis), or, when a
// scheduler splits it, the gradient of the data input (dX) or of the weight (dW).
enum class StepPart : std::uint8_t { Whole, Data, Weight };

std::string_view role_name(Role r);    // "activation", "weight", "state", "gradient", "weight_grad"
std::string_view role_prefix(Role r);  // "Y", "W", "S", "dY", "dW"
std::string_view phase_name(Phase p);  // "fwd", "loss", "bwd"
std::string_view part_name(StepPart p);  // "", "dx", "dw"

// One tensor access of a step. A read-modify-write (gradient accumulation) is one access with
// both flags. A partial access (embedding rows) moves `bytes` < the tensor's size; it is always
// streamed and is not a use of the whole tensor for residency (SPEC §2).
struct Access {
  int tensor = -1;
  bool read = false;
  bool write = false;
  bool partial = false;
  std::int64_t bytes = 0;
};

struct Step {
  Phase phase = Phase::Forward;
  int layer = -1;          // the layer it runs (loss: the network output it reads)
  StepPart part = StepPart::Whole;
  OpCount ops;             // whole batch: FLOPs = ops.total(ops_per_mac)
  int first_access = 0;    // accesses [first_access, first_access + num_accesses)
  int num_accesses = 0;
  int first_gemm = 0;      // its matrix products [first_gemm, first_gemm + num_gemms) of
  int num_gemms = 0;       // Schedule::gemms (what a shape-aware compute model needs)
};

struct Use {
  int step = 0;
  bool read = false;
  bool write = false;
  bool partial = false;
  std::int64_t bytes = 0;
};

struct Tensor {
  std::string name;        // "Y:conv1_conv", "dW:predictions", ...
  Role role = Role::Activation;
  int layer = -1;          // owning layer (W / dW: the first layer that reads the weight)
  int weight = -1;         // W / dW: index into Network::weights
  std::int64_t bytes = 0;
  bool starts_offchip = false;    // network inputs, weights, states
  bool must_end_offchip = false;  // dW of trainable weights
  bool mask = false;              // a layer's 1-bit mask for its backward pass (fusion.hpp)
  int first_use = -1, last_use = -1;
  int first_full_use = -1;        // -1 if every use is partial
  int use_begin = 0, use_end = 0; // uses [use_begin, use_end) in Schedule::uses
};

struct ScheduleOptions {
  std::int64_t batch = 1;
  int bytes_per_element = 4;
  std::string scheduler = "default";  // a name of scheduler_parts() (compose.hpp)
  OptionMap scheduler_options;
};

// One full use packed with what the thesis planners ask of it at every step, so that a planner
// reads one cache line per use instead of chasing the tensor table (GNMT: 83k full uses of 24k
// tensors, far beyond the L2 cache).
struct FullUse {
  std::int64_t bytes = 0;  // the tensor's size
  int tensor = -1;
  int step = 0;
  int prev_step = -1;      // step of the tensor's previous full use, -1 if none
  std::uint8_t flags = 0;  // FullUse::Read | Write | HasPrev | HasNext | MustEndOffchip
  static constexpr std::uint8_t Read = 1, Write = 2, HasPrev = 4, HasNext = 8, MustEndOffchip = 16;
};

// One candidate of a thesis planner's rule (a reuse interval, a full read or a full write),
// packed with what the rule reads of it, so that each rule walks one array front to back.
struct PlanUse {
  std::int64_t bytes = 0;  // the tensor's size
  int f = 0;               // the full use (an interval: the one it starts at)
  int step = 0;            // interval: its start step; read: the previous full use's step (-1
                           // none); write: its step
  int tensor = -1;
  std::uint8_t flags = 0;  // FullUse's flags of f; intervals also NextLast / NextWrite (of f + 1)
  static constexpr std::uint8_t NextLast = 32;   // f + 1 is the tensor's last full use
  static constexpr std::uint8_t NextWrite = 64;  // f + 1 writes
};

// An access of a step that may be streamed: its tensor, bytes and full use (f = the number of
// full uses for a partial access, whose state the planner keeps 0: always streamed).
struct StreamUse {
  std::int64_t bytes = 0;
  int tensor = -1;
  int f = 0;
};

// A full read at a step: its position in UseIndex::read_uses (rule 4's candidates).
struct ReadAt {
  int step = 0;
  int pos = 0;
};

// A block of consecutive steps [begin, end) that repeats an earlier block, `source` (an index
// into UseIndex::blocks, -1 if none): the same length, and position by position the same steps
// (kind, work, each access's bytes, direction, tensor role and size, full-use flags), each full
// use's previous and next full use at the same place in its block or both outside it, and the
// planners' candidates per step in the same order. A design point may replay such a block from
// its source where it proves the state they read equivalent (docs/performance.md, "Exact
// replay"); the blocks cut the steps in order, every step in exactly one.
struct RepeatBlock {
  int begin = 0, end = 0;
  int source = -1;
};

// What every cache manager derives from the use lists, computed once per schedule so that a
// design point pays only for its own decisions (SPEC §6 note). A "full use" is a use that is not
// partial; full uses are numbered globally, tensor by tensor, in step order, and a reuse
// interval is named by the full use it starts at.
struct UseIndex {
  std::vector<int> full_begin;      // per tensor + 1: its full uses are [full_begin[t], full_begin[t+1])
  std::vector<int> full_tensor;     // per full use
  std::vector<int> full_step;       // per full use
  std::vector<std::uint8_t> full_read, full_write;
  std::vector<FullUse> full;        // per full use, the above packed (plus size and neighbours)
  std::vector<int> access_full;     // per access: its full use, -1 if partial
  // Reuse intervals grouped by end step, each group in the static part of rule 2's order
  // (later start first, then smaller, then tensor order); "dirty first" is decided per point.
  std::vector<int> interval_begin;  // per step + 1: [interval_begin[v], interval_begin[v+1])
  std::vector<PlanUse> interval_uses;
  // Full reads grouped by step in the same static order (rule 4's candidates).
  std::vector<int> read_begin;
  std::vector<PlanUse> read_uses;
  // Per interval (position in interval_uses): the position in read_uses of its end, -1 if the
  // end does not read. The reads of a step that end an interval are in that interval group's
  // order; those without a previous full use come after them.
  std::vector<int> interval_read;
  std::vector<ReadAt> first_reads;  // the reads without a previous full use, in read_uses order
  // Full writes grouped by step, in tensor order (rule 6's candidates).
  std::vector<int> write_begin;
  std::vector<PlanUse> write_uses;
  // Each step's reading accesses and writing accesses, each in access order (the streamed
  // transfers the thesis planners assemble): [load_begin[s], load_begin[s+1]) of loads.
  std::vector<int> load_begin, store_begin;
  std::vector<StreamUse> loads, stores;
  std::vector<RepeatBlock> blocks;  // the steps cut into blocks, each naming an earlier repeat
  // Whether the design points replay (docs/performance.md, "Exact replay"): at least three
  // quarters of the steps lie in blocks with a source. Below that the records cost more than
  // the replays save (callgrind, lookahead: ResNet-50 with 23 % and Transformer with 59 % of
  // their steps repeated ran more instructions per point, BERT-large with 85 %, GPT-2 with 81 %
  // and GNMT with 91 % fewer).
  bool replay = false;
};

// A layer group of a serialized schedule (scheduler `mbs`, docs/model/mbs.md): a run of
// forward positions that share one split of the mini-batch into sub-batches.
struct LayerGroup {
  int first = 0, last = 0;            // forward positions [first, last] (Schedule::forward_order)
  std::int64_t footprint = 0;         // bytes per sample the group plans for (its largest unit)
  std::vector<std::int64_t> bounds;   // sub-batch k is samples [bounds[k], bounds[k + 1])
};

// The intra-layer tile model of backward GEMM steps (docs/model/interleaved.md), set by the
// scheduler `split-backward(order=...)`; order "" (the default) leaves it off and every plan as
// the cache manager made it.
struct TileModelOptions {
  std::string order;             // seq, interleave, dx-major, dw-major, alg1, alg1-size, best, dy-oracle, dy-once
  std::int64_t tile = 128;       // tile edge, elements (the array's rows)
  double buffer_fraction = 0.5;  // the share of the free scratchpad the step's tiles may use
  int psum_bytes = 0;            // a partial sum's bytes per element; 0 = the element size
  bool exact = true;             // the tile walk; false: the closed form
  std::string partition = "none";  // none, m, n, k, best, rule, joint
  std::int64_t parts = 1;        // parts on one core
  int cores = 1;                 // arrays sharing the scratchpad: one part each, in lock step
  bool fixed_nests = false;      // the simpler baseline tiler: output-stationary nests ikj / kji
  bool lru = false;              // the simpler baseline tiler: LRU replacement, not Bélády
  bool no_reuse = false;         // replace=none: nothing kept between tile operations (§6.6's [5])
  bool keep_psum = false;        // partial sums stay on chip to the extent possible (§4.3)
  bool reduce_off_chip = false;  // reduction=dram: a partition's parts summed off chip (§5)
  bool im2col_expanded = false;  // X and dX move as their im2col GEMM matrices, not the tensors
};

struct Schedule {
  std::int64_t batch = 1;
  int bytes_per_element = 4;
  std::string scheduler = "default";  // the scheduler that built it
  unsigned capabilities = 0;          // Capability bits (compose.hpp): what it offers the parts
  std::vector<int> forward_order;  // layers with a forward step, in step order
  std::vector<Kind> layer_kinds;   // per network layer (cache managers that select by kind: vdnn-conv)
  std::vector<Step> steps;
  std::vector<Access> accesses;
  std::vector<Tensor> tensors;     // in the tensor order of SPEC §3
  std::vector<Use> uses;           // grouped by tensor, in step order
  std::vector<Gemm> gemms;         // per step, the GEMMs its MACs are (layer_gemm, gemm.hpp)
  UseIndex index;                  // derived from the above by build_schedule
  TileModelOptions tile_model;     // off unless the scheduler turns it on
  // Serialized schedules only (scheduler `mbs`; empty otherwise): the layer groups, and per step
  // its group and sub-batch (the loss steps belong to the group of their output layer).
  std::vector<LayerGroup> groups;
  std::vector<int> step_group, step_sub_batch;
  // Fused schedules only (docs/model/fusion.md; empty at fusion level `none`, where each step runs
  // its one layer): per step the layers it runs, step_layers[step_layer_begin[s] ..
  // step_layer_begin[s + 1]) in forward order, and the bytes it passes on chip between them
  // without writing them (its intermediates).
  std::string fusion = "none";
  std::vector<int> step_layer_begin, step_layers;
  std::vector<std::int64_t> step_intermediate_bytes;

  // The layers step `s` runs: its fused group, or its one layer.
  std::vector<int> layers_of(int s) const;

  // Consecutive full-use pairs (the reuse intervals of SPEC §5 rule 1).
  std::int64_t num_intervals() const;
  // Largest total of tensors alive at one step (alive from first to last use, SPEC §8 P1).
  std::int64_t peak_alive_bytes() const;
  std::int64_t total_ops(int ops_per_mac = 2) const;
};

// The limits that keep every later count exact (checked by build_schedule; the proof is in
// cpp/src/limits.cpp, docs/estimator.md lists them): per iteration, the bytes of all tensor accesses
// and the bytes of all tensors, the FLOPs of all steps, and the number of accesses.
inline constexpr std::int64_t kMaxIterationBytes = std::int64_t{1} << 58;   // 256 PiB
inline constexpr std::int64_t kMaxIterationFlops = std::int64_t{1} << 62;   // about 4.6e18
inline constexpr std::int64_t kMaxIterationAccesses = std::int64_t{1} << 28;

// Throws std::invalid_argument for a batch < 1 or > 2^24, an element size not in 1..16, a
// layer whose step exceeds 2^62 bytes or FLOPs at this batch, an iteration beyond the limits
// above (the message names the quantity and the batch), an unknown scheduler or a bad
// scheduler option.
Schedule build_schedule(const Network& net, const ScheduleOptions& options);

}  // namespace dnnmem
