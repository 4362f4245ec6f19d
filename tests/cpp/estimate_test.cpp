// SPEC §8 property 6: hand-computed examples that give the exact traffic and time of every rule
// of SPEC §5 (cache management) and §6 (timeline). Each case writes out its schedule, the plan
// (kept intervals, prefetch windows, born outputs, offloads with their deadlines) and the
// timeline (start and end of each step, when each transfer is served), all worked out from the
// SPEC text alone; the CHECKs then compare the engine with those numbers.
//
// Conventions for every case: batch 1, 1 byte per element, dense layers without bias (so a
// dense d_in -> d_out has a weight of d_in·d_out bytes and 2·d_in·d_out forward FLOPs).
// Time is in ticks of 1/(throughput · bandwidth) s: a step of F FLOPs computes for
// F · bandwidth ticks and b bytes move in b · throughput ticks.
//
// Which case covers what:
//   A  add-net, 2 B, lookahead:   rule 2 kept intervals; rule 3 a rejected dirty interval
//                                 offloaded (deadline w, reservation) and a capacity stall on
//                                 it; rule 6 a born output whose next interval is rejected
//                                 (offload + reservation) and an output streamed out for lack
//                                 of space; rule 4 a latency-aware window (k = 2) deferred one
//                                 step, streamed fallbacks (no fit, p* >= v); rule 5 a demand
//                                 load; rule 7 dW written out with no qualifying deadline.
//   A' same, belady:              no prefetch at all; a mid-iteration demand load.
//   B  4-layer chain, 10 B:       rule 6/7 a dW born and written out after its step with
//                                 deadline w; §6 a load served before an offload issued earlier
//                                 with the same deadline, the offload preempting that load
//                                 while the next step waits for capacity (both change the
//                                 total), data being written out counted against capacity.
//   C  3-layer chain, 7 B:        rule 4 "no such k: k = v", lookahead vs prefetch-next vs
//                                 belady (26 < 27 < 28 ticks); a late prefetch; capacity 0 and
//                                 policy `none` (the per-step roofline, §8 P2); capacity =
//                                 peak alive bytes (§8 P1).
// Drain (rule 7) is 0 in every case, and must be under these policies: the last step is always
// B of the first layer with trainable weights, whose dW can never be born (no step follows it),
// so that step streams its dW with deadline n-1; every earlier dW write-out has a deadline
// <= n-1 (rule 6) and an earlier issue, hence is served before that store, which the last step
// waits for; and every other offload precedes a reload of the same tensor that some step waits
// for. So no write is still running when the last step ends.
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"
#include "dnnmem/estimate.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::accesses;
using dnnmem::test::net;

namespace {

long long ticks(Ticks t) { return static_cast<long long>(t); }

Schedule one_byte_schedule(const Network& n) {
  ScheduleOptions o;
  o.batch = 1;
  o.bytes_per_element = 1;
  return build_schedule(n, o);
}

Estimate run(const Schedule& s, std::int64_t capacity, double bandwidth, double throughput,
             const std::string& policy) {
  Hardware hw;
  hw.capacity = capacity;
  hw.bandwidth = bandwidth;
  hw.throughput = throughput;
  EstimateOptions o;
  o.policy = policy;
  return estimate(s, hw, o);
}

std::vector<long long> flops(const Schedule& s) {
  std::vector<long long> out;
  for (const auto& st : s.steps) out.push_back(static_cast<long long>(st.ops.total(2)));
  return out;
}

std::vector<long long> starts(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(ticks(st.start));
  return out;
}

std::vector<long long> ends(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(ticks(st.end));
  return out;
}

std::vector<long long> capacity_stalls(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(ticks(st.capacity_stall));
  return out;
}

std::vector<long long> step_resident(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(static_cast<long long>(st.resident));
  return out;
}

std::vector<long long> plan_resident(const Estimate& e) {
  std::vector<long long> out;
  for (auto r : e.plan.resident) out.push_back(static_cast<long long>(r));
  return out;
}

std::vector<long long> bytes_in(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(static_cast<long long>(st.bytes_in));
  return out;
}

std::vector<long long> bytes_out(const Estimate& e) {
  std::vector<long long> out;
  for (const auto& st : e.timeline.steps) out.push_back(static_cast<long long>(st.bytes_out));
  return out;
}

// "KIND:tensor@issue>deadline ..." in the plan's order (issue order, plan.hpp). KIND: SL
// streamed load (also a demand load), SS streamed store, PF prefetch, OFF offload (issued at the
// end of its issue step), EV eviction.
std::string transfers(const Schedule& s, const Plan& p) {
  static const char* const kinds[] = {"SL", "SS", "PF", "OFF", "EV"};
  std::string out;
  for (const auto& t : p.transfers) {
    if (!out.empty()) out += ' ';
    out += kinds[static_cast<int>(t.kind)];
    out += ':' + s.tensors[static_cast<std::size_t>(t.tensor)].name + '@' +
           std::to_string(t.issue_step) + '>' + std::to_string(t.deadline);
  }
  return out;
}

struct Counts {
  int kept, prefetched, born, offloads;
};

void check_counts(const Estimate& e, Counts c) {
  CHECK(e.plan.counts.kept == c.kept);
  CHECK(e.plan.counts.prefetched == c.prefetched);
  CHECK(e.plan.counts.born == c.born);
  CHECK(e.plan.counts.offloads == c.offloads);
}

// Case A: two dense branches joined by an add, every tensor 1 byte.
//   x[1] -> a dense(1); x -> b dense(1); s = add(a, b); o = dense(1)(s).
// §3 order (depth-first, the join after both inputs): F(a), F(b), F(s), F(o), loss, B(o), B(s),
// B(b), B(a). x has no gradient, so B(a), B(b) write only dW and do not read W; the add's dY is
// one tensor with a's and b's (alias), and B(add) is a step with no FLOPs and no accesses.
const char* kAddNet = R"({"name":"x","kind":"input","shape":[1]},
  {"name":"a","kind":"dense","inputs":["x"],"units":1,"use_bias":false},
  {"name":"b","kind":"dense","inputs":["x"],"units":1,"use_bias":false},
  {"name":"s","kind":"add","inputs":["a","b"]},
  {"name":"o","kind":"dense","inputs":["s"],"units":1,"use_bias":false})";

void require_add_net_schedule(const Schedule& s) {
  REQUIRE(s.steps.size() == 9);
  REQUIRE(accesses(s, 0) == "r:Y:x r:W:a w:Y:a");
  REQUIRE(accesses(s, 1) == "r:Y:x r:W:b w:Y:b");
  REQUIRE(accesses(s, 2) == "r:Y:a r:Y:b w:Y:s");
  REQUIRE(accesses(s, 3) == "r:Y:s r:W:o w:Y:o");
  REQUIRE(accesses(s, 4) == "r:Y:o w:dY:o");
  REQUIRE(accesses(s, 5) == "r:dY:o r:Y:s r:W:o w:dY:s w:dW:o");
  REQUIRE(accesses(s, 6).empty());
  REQUIRE(accesses(s, 7) == "r:dY:s r:Y:x w:dW:b");
  REQUIRE(accesses(s, 8) == "r:dY:s r:Y:x w:dW:a");
  // FLOPs: dense 2·1·1 = 2; add 1 per input per output = 2; loss 3 per logit = 3;
  // B(o) = dX 2 + dW 2 = 4; B(s) 0; B(b), B(a) = dW 2.
  REQUIRE(flops(s) == std::vector<long long>{2, 2, 2, 2, 3, 4, 0, 2, 2});
  for (const auto& t : s.tensors) REQUIRE(t.bytes == 1);
}

}  // namespace

TEST_CASE("estimate: add-net at 2 B, lookahead: born output, offloads, deferred prefetch, "
          "capacity stalls", "[estimate]") {
  // Hardware: capacity 2 B, bandwidth 1 B/s, throughput 1 FLOP/s: 1 tick = 1 s, a step computes
  // for its FLOPs, a 1-byte transfer takes 1 tick. n = 9 steps, compute c = [2,2,2,2,3,4,0,2,2].
  //
  // Uses (step r/w) and reuse intervals, tensors in §3 order:
  //   Y:x  0r 1r 7r 8r   [0,1] [1,7] [7,8]   (clean: never written)
  //   Y:a  0w 2r         [0,2] dirty
  //   W:a  0r            -
  //   Y:b  1w 2r         [1,2] dirty
  //   W:b  1r            -
  //   Y:s  2w 3r 5r      [2,3] dirty, [3,5] dirty if [2,3] is kept
  //   Y:o  3w 4r         [3,4] dirty
  //   W:o  3r 5r         [3,5] clean
  //   dY:o 4w 5r         [4,5] dirty
  //   dY:s 5w 7r 8r      [5,7] dirty, [7,8]
  //   dW:o 5w, dW:b 7w, dW:a 8w   (must end off-chip)
  //
  // Rule 2, intervals by end v (dirty first, then later start, smaller, tensor order); occ =
  // bytes accepted or reserved per step:
  //   v=1 Y:x [0,1]: fits -> kept.                                 occ 1 1 . . . . . . .
  //   v=2 Y:b [1,2] (u=1 first): 1+1 at step 1 -> kept.            occ 1 2 1 . . . . . .
  //       Y:a [0,2]: step 1 would hold 3 > 2 -> rejected. Y:a is not resident at 0 yet (its
  //       use 0 is a write: rule 6 decides), so no offload now.
  //   v=3 Y:s [2,3] kept.                                          occ 1 2 2 1 . . . . .
  //   v=4 Y:o [3,4] kept.                                          occ 1 2 2 2 1 . . . .
  //   v=5 dY:o [4,5] (dirty, u=4) kept.                            occ 1 2 2 2 2 1 . . .
  //       Y:s [3,5] (dirty: [2,3] kept and dirty): step 4 would hold 3 -> rejected. Y:s is
  //       resident and dirty at 3 -> rule 3 offload after 3: write = 1 tick; w = first step
  //       with compute(4..w-1) >= 1: w=4 sums nothing, w=5 sums c4 = 3 -> w = 5. Reserve
  //       step 4 without a fit check.                             occ 1 2 2 2 3 1 . . .
  //       W:o [3,5] (clean): step 3 would hold 3 -> rejected (not resident yet: nothing to do).
  //   v=7 dY:s [5,7] (dirty) kept.                                 occ 1 2 2 2 3 2 1 1 .
  //       Y:x [1,7] (clean): step 2 would hold 3 -> rejected; clean, dropped after 1 at no cost.
  //   v=8 dY:s [7,8] kept; Y:x [7,8] kept.                         occ 1 2 2 2 3 2 1 2 2
  //   kept = 8.
  //
  // Rule 4 (reads at v not resident before v, same order), p* = max(v-k, u+1):
  //   v=0 Y:x, W:a (u=-1): no step before 0, so k = v = 0 and p* = 0 >= v -> streamed. Y:x is
  //       resident from 0 on ([0,1] kept) with no prefetch -> a demand load (rule 5).
  //   v=1 W:b: load 1 <= c0 = 2 -> k=1, p* = 0; [0,1] would hold 2, 3 -> no fit; no p <= 0
  //       left to defer to -> streamed at 1.
  //   v=2 Y:a (u=0): k=1, p* = max(1, 1) = 1; step 1 would hold 3 -> streamed at 2.
  //   v=3 W:o: k=1, p* = 2; step 2 would hold 3 -> streamed at 3.
  //   v=5 Y:s (dirty, first), W:o (u=3): k=1 (c4 = 3), p* = max(4, 4) = 4; step 4 holds 3 already
  //       -> both streamed at 5.
  //   v=7 Y:x (u=1): c6 = 0 < 1, c5 + c6 = 4 >= 1 -> k = 2, p* = max(5, 2) = 5. Step 7 is already
  //       counted (kept [7,8] begins there). Step 5 would hold 3 -> deferred: from p=6, step 6
  //       holds 1+1 = 2 -> prefetch window [6,7].                   occ . . . . . . 2 . .
  //   prefetched = 1.
  //
  // Rule 6 (outputs not resident, step order):
  //   step 0 Y:a: step 0 holds 1+1 = 2 <= 2 -> born. Next interval rejected -> offload after 0,
  //       write 1 tick, w: compute(1..1) = 2 >= 1 -> w = 2; reserve step 1 (occ 1 -> 3).
  //   step 5 dW:o: w would be 8 (c6 + c7 = 2 >= 1), but step 5 holds 2+1 = 3 -> streamed out.
  //   step 7 dW:b, step 8 dW:a: no step w <= n-1 = 8 has compute(u+1..w-1) >= 1 -> streamed.
  //   born = 1; offloads = Y:a, Y:s = 2.
  //
  // Plan residency: every step 2 (0: Y:x Y:a, 1: Y:x Y:b, 2: Y:b Y:s, 3: Y:s Y:o, 4: Y:o dY:o,
  // 5: dY:o dY:s, 6: dY:s Y:x(prefetch), 7-8: dY:s Y:x).
  //
  // Timeline (ticks; one channel, preemptive EDF):
  //   0: start 0. SL Y:x 0-1, SL W:a 1-2. end max(0+2, 2) = 2. OFF Y:a issued at 2 (deadline 2).
  //   1: resident 2 + Y:a being written 1 = 3 > 2 -> waits; Y:a 2-3. start 3 (capacity stall 1).
  //      SL W:b 3-4. end max(3+2, 4) = 5.
  //   2: start 5. SL Y:a 5-6. end 7.
  //   3: start 7. SL W:o 7-8. end 9. OFF Y:s issued at 9 (deadline 5).
  //   4: 2 + 1 in flight > 2 -> waits; Y:s 9-10. start 10 (capacity stall 1). end 10+3 = 13.
  //   5: start 13. SL Y:s 13-14, SL W:o 14-15, SS dW:o 15-16. end max(17, 16) = 17.
  //   6: start 17. PF Y:x issued (deadline 7), served 17-18. No compute: end 17.
  //   7: start 17. The prefetch has not completed: the step waits for it. SS dW:b 18-19.
  //      end max(17+2, 18, 19) = 19.
  //   8: start 19. SS dW:a 19-20. end 21.
  //   total 21 ticks = 21 s, drain 0, capacity stall 2 ticks = 2 s.
  //   traffic in = Y:x W:a W:b Y:a W:o Y:s W:o Y:x = 8 B; out = Y:a Y:s dW:o dW:b dW:a = 5 B.
  const auto n = net(kAddNet);
  const auto s = one_byte_schedule(n);
  require_add_net_schedule(s);
  const auto e = run(s, 2, 1.0, 1.0, "lookahead");

  CHECK(transfers(s, e.plan) ==
        "SL:Y:x@0>0 SL:W:a@0>0 OFF:Y:a@0>2 SL:W:b@1>1 SL:Y:a@2>2 SL:W:o@3>3 OFF:Y:s@3>5 "
        "SL:Y:s@5>5 SL:W:o@5>5 SS:dW:o@5>5 PF:Y:x@6>7 SS:dW:b@7>7 SS:dW:a@8>8");
  check_counts(e, {8, 1, 1, 2});
  CHECK(plan_resident(e) == std::vector<long long>{2, 2, 2, 2, 2, 2, 2, 2, 2});
  CHECK(starts(e) == std::vector<long long>{0, 3, 5, 7, 10, 13, 17, 17, 19});
  CHECK(ends(e) == std::vector<long long>{2, 5, 7, 9, 13, 17, 17, 19, 21});
  CHECK(capacity_stalls(e) == std::vector<long long>{0, 1, 0, 0, 1, 0, 0, 0, 0});
  CHECK(ticks(e.timeline.steps_end) == 21);
  CHECK(ticks(e.timeline.total) == 21);
  CHECK(e.traffic_in == 8);
  CHECK(e.traffic_out == 5);
  CHECK(e.seconds == 21.0);
  CHECK(e.capacity_stall_seconds == 2.0);
  CHECK(e.drain_seconds == 0.0);
}

TEST_CASE("estimate: add-net at 2 B, belady: no prefetch, a mid-iteration demand load",
          "[estimate]") {
  // Same point as above with `belady` (rules 1-3, 5-7, no prefetch at all). Rule 2 and rule 6
  // decide exactly as above (they come before rule 4 and only Y:x's prefetch took space, at
  // step 6, where nothing is born). Rule 4 is skipped: W:b, Y:a, W:o, Y:s, W:o were streamed
  // anyway; Y:x at 7 is now streamed at 7 and, its interval [7,8] being kept, stays: a demand
  // load (rule 5), issued with step 7's streamed transfers.
  // Plan residency: step 6 holds only dY:s (1); the others as above (2).
  // Timeline: steps 0-5 as above; 6: start 17, nothing to move, end 17; 7: start 17,
  // SL Y:x 17-18, SS dW:b 18-19, end max(19, 19) = 19; 8: 19-21. Total 21 ticks.
  // Traffic unchanged: in 8 B, out 5 B.
  const auto n = net(kAddNet);
  const auto s = one_byte_schedule(n);
  require_add_net_schedule(s);
  const auto e = run(s, 2, 1.0, 1.0, "belady");

  CHECK(transfers(s, e.plan) ==
        "SL:Y:x@0>0 SL:W:a@0>0 OFF:Y:a@0>2 SL:W:b@1>1 SL:Y:a@2>2 SL:W:o@3>3 OFF:Y:s@3>5 "
        "SL:Y:s@5>5 SL:W:o@5>5 SS:dW:o@5>5 SL:Y:x@7>7 SS:dW:b@7>7 SS:dW:a@8>8");
  check_counts(e, {8, 0, 1, 2});
  CHECK(plan_resident(e) == std::vector<long long>{2, 2, 2, 2, 2, 2, 1, 2, 2});
  CHECK(ends(e) == std::vector<long long>{2, 5, 7, 9, 13, 17, 17, 19, 21});
  CHECK(capacity_stalls(e) == std::vector<long long>{0, 1, 0, 0, 1, 0, 0, 0, 0});
  CHECK(ticks(e.timeline.total) == 21);
  CHECK(e.traffic_in == 8);
  CHECK(e.traffic_out == 5);
  CHECK(e.capacity_stall_seconds == 2.0);
  CHECK(e.drain_seconds == 0.0);
}

TEST_CASE("estimate: 4-layer chain at 10 B: dW write-out, a load before an offload at equal "
          "deadline, preemption during a capacity wait", "[estimate]") {
  // x[1] -> fc1 dense(4) -> fc2 dense(1) -> r relu -> fc3 dense(2).
  // Hardware: capacity 10 B, bandwidth 2 B/s, throughput 1 FLOP/s: 1 tick = 1/2 s; a step of F
  // FLOPs computes for 2F ticks, b bytes move in b ticks.
  // Sizes: Y:x 1, Y:fc1 4, W:fc1 4, Y:fc2 1, W:fc2 4, Y:r 1, Y:fc3 2, W:fc3 2, dY:fc3 2,
  // dY:r 1, dW:fc3 2, dY:fc2 1, dY:fc1 4, dW:fc2 4, dW:fc1 4.
  // FLOPs: F(fc1) 2·1·4 = 8, F(fc2) 2·4·1 = 8, F(r) 1, F(fc3) 2·1·2 = 4, loss 3·2 = 6,
  // B(fc3) 4+4 = 8, B(r) 1, B(fc2) 8+8 = 16, B(fc1) dW only 8.
  // Compute c = [16, 16, 2, 8, 12, 16, 2, 32, 16] ticks, n = 9.
  //
  // Uses and intervals:
  //   Y:x   0r 8r            [0,8] clean
  //   Y:fc1 0w 1r 7r         [0,1] dirty, [1,7]
  //   Y:fc2 1w 2r            [1,2] dirty
  //   W:fc2 1r 7r            [1,7] clean
  //   Y:r   2w 3r 5r 6r      [2,3] dirty, [3,5], [5,6]
  //   Y:fc3 3w 4r            [3,4] dirty
  //   W:fc3 3r 5r            [3,5] clean
  //   dY:fc3 4w 5r, dY:r 5w 6r, dY:fc2 6w 7r, dY:fc1 7w 8r: each one dirty interval.
  //
  // Rule 2 (occ per step 0..8):
  //   v=1 Y:fc1 [0,1] kept                                        occ 4 4 . . . . . . .
  //   v=2 Y:fc2 [1,2] kept                                        occ 4 5 1 . . . . . .
  //   v=3 Y:r [2,3] kept                                          occ 4 5 2 1 . . . . .
  //   v=4 Y:fc3 [3,4] kept                                        occ 4 5 2 3 2 . . . .
  //   v=5 dY:fc3 [4,5] (u=4) kept, Y:r [3,5] (dirty) kept, W:fc3 [3,5] kept
  //                                                               occ 4 5 2 5 7 5 . . .
  //   v=6 Y:r [5,6] and dY:r [5,6]: both dirty, u=5, 1 B -> tensor order, Y:r first; both kept.
  //                                                               occ 4 5 2 5 7 6 2 . .
  //   v=7 dY:fc2 [6,7] kept                                       occ 4 5 2 5 7 6 3 1 .
  //       Y:fc1 [1,7] (dirty): step 4 would hold 7+4 = 11 -> rejected. Resident and dirty at 1
  //       -> offload after 1: write 4 ticks; w: compute(2..2) = 2 < 4, compute(2..3) = 10 >= 4
  //       -> w = 4; reserve steps 2..3.                           occ 4 5 6 9 7 6 3 1 .
  //       W:fc2 [1,7] (clean): step 3 would hold 13 -> rejected, dropped after 1.
  //   v=8 dY:fc1 [7,8] kept; Y:x [0,8] (1 B): fits everywhere -> kept.
  //                                                               occ 5 6 7 10 8 7 4 6 5
  //   kept = 12.
  // Rule 4:
  //   v=0 Y:x, W:fc1: k = v = 0, p* = 0 >= v -> streamed; Y:x stays ([0,8] kept): demand load.
  //   v=1 W:fc2 (4 ticks): c0 = 16 >= 4 -> k=1, p* = 0; steps 0,1 would hold 9, 10 -> prefetch
  //       [0,1].                                                  occ 9 10 7 10 8 7 4 6 5
  //   v=3 W:fc3 (2 ticks): c2 = 2 >= 2 -> k=1, p* = 2; step 3 already counted (kept [3,5]),
  //       step 2 would hold 9 -> prefetch [2,3].                  occ 9 10 9 10 8 7 4 6 5
  //   v=7 Y:fc1 (dirty [1,7], first) and W:fc2 (clean), both u=1, 4 ticks: c6 = 2 < 4,
  //       c5 + c6 = 18 -> k = 2, p* = max(5, 2) = 5.
  //       Y:fc1: step 5 would hold 11 -> deferred to p=6: steps 6, 7 hold 8, 10 -> prefetch
  //       [6,7].                                                  occ 9 10 9 10 8 7 8 10 5
  //       W:fc2: p=5 holds 11, p=6 holds 12 -> no step fits: streamed at 7.
  //   prefetched = 3.
  // Rule 6:
  //   step 5 dW:fc3 (2 ticks): w: compute(6..6) = 2 >= 2 -> w = 7 <= 8; step 5 holds 7+2 = 9
  //       -> born; written out after 5 with deadline 7 (rule 7), reserving step 6 (occ 10).
  //   step 7 dW:fc2, step 8 dW:fc1: no w <= 8 qualifies -> streamed.
  //   born = 1; offloads = Y:fc1, dW:fc3 = 2.
  // Plan residency: 0: Y:x Y:fc1 W:fc2 = 9; 1: + Y:fc2 = 10; 2: Y:x Y:fc2 Y:r W:fc3 = 5;
  // 3: Y:x Y:r Y:fc3 W:fc3 = 6; 4: + dY:fc3 = 8; 5: Y:x Y:r W:fc3 dY:fc3 dY:r dW:fc3 = 9;
  // 6: Y:x Y:r dY:r dY:fc2 Y:fc1 = 8; 7: Y:x dY:fc2 Y:fc1 dY:fc1 = 10; 8: Y:x dY:fc1 = 5.
  //
  // Timeline:
  //   0: start 0. SL Y:x 0-1, SL W:fc1 1-5, then PF W:fc2 5-9. end max(16, 5) = 16.
  //   1: start 16 (prefetch done). end 32. OFF Y:fc1 issued at 32 (deadline 4).
  //   2: 5 + 4 being written = 9 <= 10: start 32. PF W:fc3 (deadline 3) goes before the offload
  //      (deadline 4): W:fc3 32-34, Y:fc1 34-38. end 32+2 = 34.
  //   3: 6 + 4 still being written = 10 <= 10: start 34. end 42.
  //   4: start 42, end 54.   5: start 54, end 70. OFF dW:fc3 issued at 70 (deadline 7).
  //   6: 8 + 2 = 10: start 70. PF Y:fc1 issued (deadline 7). Equal deadline 7: the load goes
  //      before the offload although the offload was issued first: Y:fc1 70-72 (2 of 4 ticks).
  //      end 70+2 = 72.
  //   7: 10 + 2 still being written = 12 > 10 -> waits. While it waits, the pending offload goes
  //      before every transfer with deadline >= 7: dW:fc3 preempts the Y:fc1 prefetch, 72-74.
  //      start 74 (capacity stall 2 ticks = 1 s). Deadline 7, loads first, then issue order:
  //      Y:fc1 (rest) 74-76, SL W:fc2 76-80, SS dW:fc2 80-84. end max(74+32, 84) = 106.
  //   8: start 106. SS dW:fc1 106-110. end max(122, 110) = 122.
  //   total 122 ticks = 61 s, drain 0. (Serving the offload first at 70 would give 120; not
  //   preempting the prefetch during the wait would give 124.)
  //   traffic in = 1+4+4+2+4+4 = 19 B; out = 4+2+4+4 = 14 B.
  //   Bytes per step (at issue): in 9 . 2 . . . 4 4 .; out . 4 . . . 2 . 4 4.
  //   Resident at each start, with data being written out: 9 10 9 10 8 9 10 10 5.
  const auto n = net(R"({"name":"x","kind":"input","shape":[1]},
    {"name":"fc1","kind":"dense","inputs":["x"],"units":4,"use_bias":false},
    {"name":"fc2","kind":"dense","inputs":["fc1"],"units":1,"use_bias":false},
    {"name":"r","kind":"relu","inputs":["fc2"]},
    {"name":"fc3","kind":"dense","inputs":["r"],"units":2,"use_bias":false})");
  const auto s = one_byte_schedule(n);
  REQUIRE(s.steps.size() == 9);
  REQUIRE(accesses(s, 0) == "r:Y:x r:W:fc1 w:Y:fc1");
  REQUIRE(accesses(s, 1) == "r:Y:fc1 r:W:fc2 w:Y:fc2");
  REQUIRE(accesses(s, 2) == "r:Y:fc2 w:Y:r");
  REQUIRE(accesses(s, 3) == "r:Y:r r:W:fc3 w:Y:fc3");
  REQUIRE(accesses(s, 4) == "r:Y:fc3 w:dY:fc3");
  REQUIRE(accesses(s, 5) == "r:dY:fc3 r:Y:r r:W:fc3 w:dY:r w:dW:fc3");
  REQUIRE(accesses(s, 6) == "r:dY:r r:Y:r w:dY:fc2");
  REQUIRE(accesses(s, 7) == "r:dY:fc2 r:Y:fc1 r:W:fc2 w:dY:fc1 w:dW:fc2");
  REQUIRE(accesses(s, 8) == "r:dY:fc1 r:Y:x w:dW:fc1");
  REQUIRE(flops(s) == std::vector<long long>{8, 8, 1, 4, 6, 8, 1, 16, 8});
  const auto e = run(s, 10, 2.0, 1.0, "lookahead");

  CHECK(transfers(s, e.plan) ==
        "SL:Y:x@0>0 SL:W:fc1@0>0 PF:W:fc2@0>1 OFF:Y:fc1@1>4 PF:W:fc3@2>3 OFF:dW:fc3@5>7 "
        "PF:Y:fc1@6>7 SL:W:fc2@7>7 SS:dW:fc2@7>7 SS:dW:fc1@8>8");
  check_counts(e, {12, 3, 1, 2});
  CHECK(plan_resident(e) == std::vector<long long>{9, 10, 5, 6, 8, 9, 8, 10, 5});
  CHECK(step_resident(e) == std::vector<long long>{9, 10, 9, 10, 8, 9, 10, 10, 5});
  CHECK(starts(e) == std::vector<long long>{0, 16, 32, 34, 42, 54, 70, 74, 106});
  CHECK(ends(e) == std::vector<long long>{16, 32, 34, 42, 54, 70, 72, 106, 122});
  CHECK(capacity_stalls(e) == std::vector<long long>{0, 0, 0, 0, 0, 0, 0, 2, 0});
  CHECK(bytes_in(e) == std::vector<long long>{9, 0, 2, 0, 0, 0, 4, 4, 0});
  CHECK(bytes_out(e) == std::vector<long long>{0, 4, 0, 0, 0, 2, 0, 4, 4});
  CHECK(ticks(e.timeline.steps_end) == 122);
  CHECK(ticks(e.timeline.total) == 122);
  CHECK(e.traffic_in == 19);
  CHECK(e.traffic_out == 14);
  CHECK(e.seconds == 61.0);
  CHECK(e.capacity_stall_seconds == 1.0);
  CHECK(e.drain_seconds == 0.0);
}

namespace {

// Case C: x[1] -> fc1 dense(1) -> r relu -> fc2 dense(2).
// Hardware: bandwidth 1 B/s, throughput 2 FLOP/s: 1 tick = 1/2 s; a step of F FLOPs computes for
// F ticks, b bytes move in 2b ticks.
// Sizes: Y:x 1, Y:fc1 1, W:fc1 1, Y:r 1, Y:fc2 2, W:fc2 2, dY:fc2 2, dY:r 1, dW:fc2 2, dY:fc1 1,
// dW:fc1 1. FLOPs: F(fc1) 2, F(r) 1, F(fc2) 2·1·2 = 4, loss 3·2 = 6, B(fc2) 4+4 = 8, B(r) 1,
// B(fc1) dW only 2 -> compute c = [2, 1, 4, 6, 8, 1, 2] ticks, n = 7.
// Uses and intervals:
//   Y:x 0r 6r [0,6] clean;  Y:fc1 0w 1r [0,1] dirty;  Y:r 1w 2r 4r 5r [1,2] [2,4] [4,5] dirty;
//   Y:fc2 2w 3r [2,3] dirty;  W:fc2 2r 4r [2,4] clean;  dY:fc2 3w 4r;  dY:r 4w 5r;  dY:fc1 5w 6r.
// Peak alive bytes (§8 P1) at step 4: Y:x 1 + Y:r 1 + W:fc2 2 + dY:fc2 2 + dY:r 1 + dW:fc2 2 = 9.
const char* kChain3 = R"({"name":"x","kind":"input","shape":[1]},
  {"name":"fc1","kind":"dense","inputs":["x"],"units":1,"use_bias":false},
  {"name":"r","kind":"relu","inputs":["fc1"]},
  {"name":"fc2","kind":"dense","inputs":["r"],"units":2,"use_bias":false})";

void require_chain3_schedule(const Schedule& s) {
  REQUIRE(s.steps.size() == 7);
  REQUIRE(accesses(s, 0) == "r:Y:x r:W:fc1 w:Y:fc1");
  REQUIRE(accesses(s, 1) == "r:Y:fc1 w:Y:r");
  REQUIRE(accesses(s, 2) == "r:Y:r r:W:fc2 w:Y:fc2");
  REQUIRE(accesses(s, 3) == "r:Y:fc2 w:dY:fc2");
  REQUIRE(accesses(s, 4) == "r:dY:fc2 r:Y:r r:W:fc2 w:dY:r w:dW:fc2");
  REQUIRE(accesses(s, 5) == "r:dY:r r:Y:r w:dY:fc1");
  REQUIRE(accesses(s, 6) == "r:dY:fc1 r:Y:x w:dW:fc1");
  REQUIRE(flops(s) == std::vector<long long>{2, 1, 4, 6, 8, 1, 2});
  REQUIRE(s.peak_alive_bytes() == 9);
}

// What one policy does on the 3-layer chain at 7 B (hand-derived in the test case below).
struct Chain3At7 {
  std::string transfers;
  Counts counts;
  std::vector<long long> resident, ends;
  long long total;
};

// Checks one policy's run against its expectation, plus what all three share: traffic in 5 B,
// out 3 B, no drain.
void check_chain3_at_7(const Schedule& s, const Estimate& e, const Chain3At7& x) {
  CHECK(transfers(s, e.plan) == x.transfers);
  check_counts(e, x.counts);
  CHECK(plan_resident(e) == x.resident);
  CHECK(ends(e) == x.ends);
  CHECK(ticks(e.timeline.total) == x.total);
  CHECK(e.traffic_in == 5);
  CHECK(e.traffic_out == 3);
  CHECK(e.drain_seconds == 0.0);
}

}  // namespace

TEST_CASE("estimate: 3-layer chain at 7 B: lookahead, prefetch-next and belady, exactly",
          "[estimate]") {
  // Rule 2 at 7 B (occ per step 0..6):
  //   v=1 Y:fc1 [0,1]; v=2 Y:r [1,2]; v=3 Y:fc2 [2,3]: kept.       occ 1 2 3 2 . . .
  //   v=4 dY:fc2 [3,4] (dirty, u=3) kept; Y:r [2,4] (dirty) kept; W:fc2 [2,4] (clean, 2 B):
  //       steps 2,3,4 would hold 5, 7, 5 -> kept.                   occ 1 2 5 7 5 . .
  //   v=5 Y:r [4,5] and dY:r [4,5]: dirty, u=4, 1 B -> tensor order, Y:r first; both kept.
  //                                                                 occ 1 2 5 7 6 2 .
  //   v=6 dY:fc1 [5,6] kept                                         occ 1 2 5 7 6 3 1
  //       Y:x [0,6]: step 3 would hold 8 > 7 -> rejected (clean: dropped after 0).
  //   kept = 9 for every policy below (rule 2 does not depend on prefetching).
  // Rule 6: dW:fc2 at 4 (2 B = 4 ticks): compute(5..5) = 1 < 4 and no step after 6 -> no
  // w <= 6: streamed. dW:fc1 at 6: streamed. Nothing else is written off the cache: born 0,
  // offloads 0. Traffic in = Y:x, W:fc1 (step 0), W:fc2, Y:x again = 5 B; out = dW:fc2 + dW:fc1
  // = 3 B, for all three policies.
  const auto n = net(kChain3);
  const auto s = one_byte_schedule(n);
  require_chain3_schedule(s);

  SECTION("lookahead") {
    // Rule 4:
    //   v=0 Y:x, W:fc1: k = v = 0 -> p* = 0 >= v: streamed (Y:x not kept after 0: plain stream).
    //   v=2 W:fc2 (2 B = 4 ticks): c1 = 1, c0 + c1 = 3 < 4: no such k -> k = v = 2, p* = 0.
    //       Steps 0, 1 would hold 3, 4 (step 2 counted by [2,4]) -> prefetch [0,2].
    //   v=6 Y:x (u=0, 2 ticks): c5 = 1 < 2, c4 + c5 = 9 -> k = 2, p* = max(4, 1) = 4; steps
    //       4, 5, 6 would hold 7, 4, 2 -> prefetch [4,6].
    //   Residency: 3 4 5 7 7 4 2.
    // Timeline:
    //   0: start 0. SL Y:x 0-2, SL W:fc1 2-4, then PF W:fc2 4-8. end max(2, 4) = 4.
    //   1: 4-5.
    //   2: start 5; its prefetch is late (done at 8): end max(5+4, 8) = 9.
    //   3: 9-15.
    //   4: start 15. SS dW:fc2 (deadline 4) 15-19, then PF Y:x (deadline 6) 19-21. end 15+8 = 23.
    //   5: 23-24.
    //   6: start 24 (Y:x already in). SS dW:fc1 24-26. end 26. Total 26 ticks = 13 s.
    const auto e = run(s, 7, 1.0, 2.0, "lookahead");
    check_chain3_at_7(
        s, e,
        {"SL:Y:x@0>0 SL:W:fc1@0>0 PF:W:fc2@0>2 SS:dW:fc2@4>4 PF:Y:x@4>6 SS:dW:fc1@6>6",
         {9, 2, 0, 0},
         {3, 4, 5, 7, 7, 4, 2},
         {4, 5, 9, 15, 23, 24, 26},
         26});
    CHECK(e.seconds == 13.0);
    CHECK(e.capacity_stall_seconds == 0.0);
  }
  SECTION("prefetch-next") {
    // Rule 4 with k = 1: W:fc2 p* = max(1, 0) = 1, step 1 would hold 4 -> prefetch [1,2];
    // Y:x p* = max(5, 1) = 5, steps 5, 6 would hold 4, 2 -> prefetch [5,6].
    // Residency: 1 4 5 7 6 4 2.
    // Timeline: 0: 0-4 (Y:x 0-2, W:fc1 2-4). 1: start 4, PF W:fc2 4-8, end 5. 2: end
    // max(9, 8) = 9. 3: 9-15. 4: SS dW:fc2 15-19, end 23. 5: start 23, PF Y:x 23-25, end 24.
    // 6: start 24, the prefetch is late (1 tick left) and a load: Y:x 24-25, then SS dW:fc1
    // 25-27. end max(26, 25, 27) = 27.
    const auto e = run(s, 7, 1.0, 2.0, "prefetch-next");
    check_chain3_at_7(
        s, e,
        {"SL:Y:x@0>0 SL:W:fc1@0>0 PF:W:fc2@1>2 SS:dW:fc2@4>4 PF:Y:x@5>6 SS:dW:fc1@6>6",
         {9, 2, 0, 0},
         {1, 4, 5, 7, 6, 4, 2},
         {4, 5, 9, 15, 23, 24, 27},
         27});
  }
  SECTION("belady") {
    // No prefetch: W:fc2 at 2 is streamed and stays ([2,4] kept): a demand load; Y:x at 6
    // streamed. Residency: 1 2 5 7 6 3 1.
    // Timeline: 0: 0-4. 1: 4-5. 2: start 5, SL W:fc2 5-9, end max(9, 9) = 9. 3: 9-15.
    // 4: SS dW:fc2 15-19, end 23. 5: 23-24. 6: start 24, SL Y:x 24-26, SS dW:fc1 26-28, end 28.
    const auto e = run(s, 7, 1.0, 2.0, "belady");
    check_chain3_at_7(
        s, e,
        {"SL:Y:x@0>0 SL:W:fc1@0>0 SL:W:fc2@2>2 SS:dW:fc2@4>4 SL:Y:x@6>6 SS:dW:fc1@6>6",
         {9, 0, 0, 0},
         {1, 2, 5, 7, 6, 3, 1},
         {4, 5, 9, 15, 23, 24, 28},
         28});
  }
}

TEST_CASE("estimate: 3-layer chain, capacity 0 and policy none: the per-step roofline",
          "[estimate]") {
  // Every access streamed; each step takes max(FLOPs / throughput, bytes accessed / bandwidth)
  // (§8 P2), in ticks max(c, 2·bytes):
  //   0: c 2, bytes Y:x W:fc1 Y:fc1 = 3 -> 6             end 6
  //   1: c 1, bytes Y:fc1 Y:r = 2 -> 4                   end 10
  //   2: c 4, bytes Y:r 1 + W:fc2 2 + Y:fc2 2 = 5 -> 10  end 20
  //   3: c 6, bytes Y:fc2 2 + dY:fc2 2 = 4 -> 8          end 28
  //   4: c 8, bytes dY:fc2 2 + Y:r 1 + W:fc2 2 + dY:r 1 + dW:fc2 2 = 8 -> 16   end 44
  //   5: c 1, bytes dY:r Y:r dY:fc1 = 3 -> 6             end 50
  //   6: c 2, bytes dY:fc1 Y:x dW:fc1 = 3 -> 6           end 56
  // Traffic in (reads) 2+1+3+2+5+2+2 = 17 B; out (writes) 1+1+2+2+3+1+1 = 11 B.
  const auto n = net(kChain3);
  const auto s = one_byte_schedule(n);
  require_chain3_schedule(s);
  const std::vector<long long> expect{6, 10, 20, 28, 44, 50, 56};
  const std::vector<std::pair<std::int64_t, std::string>> points{
      {0, "lookahead"}, {0, "belady"}, {0, "prefetch-next"}, {7, "none"}, {1000, "none"}};
  for (const auto& [capacity, policy] : points) {
    INFO("capacity " << capacity << ", policy " << policy);
    const auto e = run(s, capacity, 1.0, 2.0, policy);
    CHECK(ends(e) == expect);
    CHECK(ticks(e.timeline.total) == 56);
    CHECK(e.traffic_in == 17);
    CHECK(e.traffic_out == 11);
    check_counts(e, {0, 0, 0, 0});
    CHECK(e.capacity_stall_seconds == 0.0);
    CHECK(e.drain_seconds == 0.0);
  }
}

TEST_CASE("estimate: 3-layer chain at the peak alive bytes: inputs and weights in once, dW out "
          "once", "[estimate]") {
  // Capacity 9 B = peak alive bytes (§8 P1). Rule 2 as at 7 B, and now Y:x [0,6] fits too
  // (occ 2 3 6 8 7 4 2): kept = 10. Rule 4: Y:x at 0 is a demand load (kept from 0 on);
  // W:fc1 streamed; W:fc2 (k = v = 2, p* = 0) prefetched [0,2]. dW:fc2, dW:fc1 streamed (no w).
  // Traffic in = Y:x 1 + W:fc1 1 + W:fc2 2 = 4 B (input + weights once); out = dW:fc2 2 +
  // dW:fc1 1 = 3 B.
  // Timeline: 0: Y:x 0-2, W:fc1 2-4, end 4; PF W:fc2 4-8. 1: 4-5. 2: end max(9, 8) = 9.
  // 3: 9-15. 4: SS dW:fc2 15-19, end 23. 5: 23-24. 6: SS dW:fc1 24-26, end 26.
  const auto n = net(kChain3);
  const auto s = one_byte_schedule(n);
  require_chain3_schedule(s);
  const auto e = run(s, s.peak_alive_bytes(), 1.0, 2.0, "lookahead");
  CHECK(transfers(s, e.plan) == "SL:Y:x@0>0 SL:W:fc1@0>0 PF:W:fc2@0>2 SS:dW:fc2@4>4 SS:dW:fc1@6>6");
  check_counts(e, {10, 1, 0, 0});
  CHECK(ends(e) == std::vector<long long>{4, 5, 9, 15, 23, 24, 26});
  CHECK(ticks(e.timeline.total) == 26);
  CHECK(e.traffic_in == 4);
  CHECK(e.traffic_out == 3);
  CHECK(e.drain_seconds == 0.0);
}
