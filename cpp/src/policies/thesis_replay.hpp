// What the thesis planners keep to replay repeated blocks (PlanScratch::replay; the argument of
// exactness is in docs/performance.md, "Exact replay"). Each of the planner's three passes
// (rule 2 by reuse interval end, rule 4 by read, rule 6 by write) goes block by block
// (UseIndex::blocks). A block decided in full whose decisions a later block may repeat leaves a
// record: the occupancy over its region when the pass reached it, what its decisions added
// there, each decision's outcome and the maximum it compared, and the range of uniform shifts
// of the occupancy under which every decision would come out the same. A later block that
// repeats it (the same structure, the same capacity-free tables relative to its start) whose
// region now reads the record's occupancy plus one constant c within that range takes the
// same decisions: it applies them and the record's additions without a query.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "dnnmem/schedule.hpp"

namespace dnnmem::detail {

struct ThesisReplay {
  static constexpr std::int64_t kLow = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t kHigh = std::numeric_limits<std::int64_t>::max();
  // Where a block's record lies in the pools, for one pass: -1 when it has none.
  struct At {
    int values = -1, bits = -1, ints = -1;
  };

  // Of the schedule (recomputed when it changes):
  const Schedule* schedule = nullptr;
  std::size_t blocks = 0;
  std::vector<std::uint8_t> is_source;  // per block: a later block names it as its source
  // Of the input apart from the capacity (valid while PlanScratch::same_input):
  std::vector<std::int8_t> link;  // per block: 1 if its capacity-free tables match its source's
                                  // relative to the start (rule 3's write-out deadlines, rule 4's
                                  // earliest prefetch steps), 0 if not, -1 not yet known
  std::vector<int> back;          // per block: how many steps before it rule 4's windows may start
  // Per pass and block: a replay used its record at the previous point (useful) / at this one
  // (used). A block is recorded only where that paid at the previous point of the same input, or
  // every kRetry points (a record costs more than deciding: where no repeat replays, as on
  // networks with few repeated blocks, recording would only cost).
  static constexpr unsigned kRetry = 16;
  std::vector<std::uint8_t> useful[3], used[3];
  unsigned points = 0;  // points of this input so far
  // Of the point: per pass (0: rule 2, 1: rule 4, 2: rule 6) and block, the block whose record
  // it replays or is (-1 none), and where each record lies.
  std::vector<int> record[3];
  std::vector<At> at[3];
  std::vector<std::int64_t> values;  // margins, occupancy before, occupancy added, maxima compared
  std::vector<std::uint8_t> bits;    // per decision: its outcome and the state bits it read
  std::vector<int> ints;             // rule 4: per candidate its place and window start
  std::vector<std::int64_t> deferred;  // rule 2: adds made while checking a replay (lo, hi, bytes)
  long replayed[3] = {};               // blocks replayed per pass, since this was made (tests)
};

}  // namespace dnnmem::detail
