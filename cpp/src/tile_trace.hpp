// The tile walk's trace (cpp/src/tile_trace.cpp): everything the walk of docs/model/interleaved.md
// derives before its replacement loop (rules 1-3: the operations, their touches, each tile's next
// touch, size and contributions, each operation's bytes), and what follows from it alone: the
// walk's traffic when no live tile ever leaves, and the least c_eff from which none does
// (docs/performance.md, "Walks that never evict a live tile"; "A walk's floor from its trace"),
// kept apart (TraceStats).
// None of it reads c_eff or the replacement rule, so the walks of one GEMM at other capacities
// share it: it is kept per thread by the rest of the input (WalkKey with lru, keep_psum and
// no_reuse cleared).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "dnnmem/tiles.hpp"

namespace dnnmem::detail {

// What follows from an input's trace alone (docs/performance.md, "A walk's floor from its trace").
struct TraceStats {
  // The compulsory traffic: each input tile read once (at its first touch), each output tile with
  // contributions written once, final. Every walk (any c_eff, any replacement) moves these bytes
  // and more only by reloads and partial sums; a Bélády walk that evicts no live tile and fits
  // every operation moves exactly these (docs/performance.md, "Walks that never evict a live tile").
  TileTraffic compulsory;
  std::int64_t compulsory_total = 0;
  // The least c_eff at which a Bélády walk evicts no live tile and fits every operation (the
  // walk's `live_floor` when it holds): the largest need (need_max) and, over the first touches,
  // the largest bytes of the resident live tiles, the operation's tiles already dead, and the new
  // one (live_max). At a c_eff in [need_max, live_max) every walk moves more than the compulsory
  // bytes.
  std::int64_t floor = 0, need_max = 0, live_max = 0;
};

// The off-chip reduction of an input (TileWalkOptions::reduce_off_chip; docs/model/interleaved.md,
// "Reading (off-chip reduction)"): a partition that cuts M (N) gives each part its own copy of dW
// (dX), unless the cache keeps that output whole (its skip mask). The trace holds the copies as
// tiles of their own (part 0 keeps the output's tiles, the copies of parts 1, 2, ... come after
// every tensor's); the walk writes each copy once, final, like any output, and the reduction then
// rewrites those bytes (apply). It follows from the input alone, without the trace.
struct OffChipReduction {
  int cut = -1;                // the TileTensor each part keeps a copy of; -1: none
  std::int64_t copies = 1;     // the parts
  std::int64_t cut_elems = 0;  // the elements of one copy (the output's GEMM matrix)
  // The bytes the reduction adds to the walk's total (negative where partial sums are narrower
  // than elements): each copy's final write (elem_bytes) becomes a partial sum written and read
  // back (psum_bytes each), and the summed output is written once.
  std::int64_t extra(const TileWalkOptions& o) const {
    if (cut < 0) return 0;
    const std::int64_t copy_elems = copies * cut_elems;
    return cut_elems * o.elem_bytes - copy_elems * o.elem_bytes + 2 * copy_elems * o.psum_bytes;
  }
  // The walk's traffic made the reduction's (its total grows by extra(o)).
  void apply(TileTraffic& t, const TileWalkOptions& o) const {
    if (cut < 0) return;
    const auto c = static_cast<std::size_t>(cut);
    const std::int64_t finals = t.written[c] / o.elem_bytes;  // elements: every copy's, once
    t.psum_written[c] += finals * o.psum_bytes;
    t.psum_read[c] += finals * o.psum_bytes;
    t.written[c] = cut_elems * o.elem_bytes;
  }
};

OffChipReduction off_chip_reduction(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o);

// A std::allocator that leaves trivial elements uninitialised when a vector grows by resize: the
// trace's per-tile arrays are written whole right after (zeroing them first cost about as many
// instructions as filling them).
template <class T>
struct Uninitialised : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = Uninitialised<U>;
  };
  Uninitialised() = default;
  template <class U>
  Uninitialised(const Uninitialised<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using RawVector = std::vector<T, Uninitialised<T>>;

struct Trace {
  struct Hit {
    std::int32_t tile;      // global tile id
    std::int32_t key;       // the tile's Bélády key after it (see the walk): its next touch, or
                            // touches + 1 + the tile when never touched again
    std::uint8_t tensor;    // TileTensor
    bool accumulate, by_dw;
  };
  RawVector<Hit> touches;
  RawVector<std::uint32_t> op_begin;  // operation op's touches: [op_begin[op], op_begin[op + 1])
  RawVector<std::int64_t> need;       // per operation: the on-chip bytes of its distinct tiles
  // Per tile (the tensors some product touches: the skip masks leave the others out of the ids):
  RawVector<std::uint8_t> tensor_of;     // its tensor
  RawVector<std::int64_t> elems, chip;   // its elements; its on-chip bytes
  std::vector<std::int32_t> contributions;  // per tile: its accumulating touches
  std::int64_t tiles = 0;
  TraceStats stats;
  std::size_t bytes() const {
    return touches.capacity() * sizeof(Hit) + op_begin.capacity() * 4 + need.size() * 8 + tensor_of.size() +
           elems.size() * 16 + contributions.size() * 4 + sizeof(Trace);
  }
};

// The thread's trace of this input (built and kept when new).
std::shared_ptr<const Trace> cached_trace(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order,
                                          const TileWalkOptions& o);

// The thread's stats of this input (computed from its trace and kept when new; kept after the
// trace is forgotten).
TraceStats cached_stats(std::int64_t m, std::int64_t k, std::int64_t n, BackwardOrder order, const TileWalkOptions& o);

// The compulsory bytes of this input without its trace: every tensor some product touches (the
// skip masks leave it in) read or written once, whole, and each copy of an off-chip reduction's
// output written once (the walk's bytes: stats.compulsory_total, before the reduction's extra).
std::int64_t compulsory_bytes(std::int64_t m, std::int64_t k, std::int64_t n, const TileWalkOptions& o);

}  // namespace dnnmem::detail
