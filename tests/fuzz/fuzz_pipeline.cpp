// libFuzzer harness over the whole pipeline (issue 19): the JSON loader -> the schedule -> every
// policy's estimate -> a one-point sweep of each policy. The input is a network document; the
// design point (batch, element size, capacity, rates) is derived from a hash of the input, so
// every mutation also moves the point, including to the extreme values. A crash, a sanitizer
// report or a broken property is a finding; the properties are:
//   - parse_network throws only NetworkError; build_schedule only std::invalid_argument (its
//     documented limits); estimate() and sweep() nothing, the hardware being valid;
//   - every total is finite and non-negative, the parts add up (compute <= steps <= total), the
//     traffic is at most 4 x the bytes of all accesses (the bound build_schedule's proof
//     states), each step's resident bytes are >= 0 and its end is >= its start;
//   - the sweep's row equals estimate() at the same point, bit for bit.
// Build and run: tests/fuzz/README.md.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dnnmem/errors.hpp"
#include "dnnmem/estimate.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/compose.hpp"
#include "dnnmem/schedule.hpp"
#include "dnnmem/sweep.hpp"

using namespace dnnmem;

namespace {

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_pipeline: property broken: %s\n", what.c_str());
  std::abort();  // libFuzzer saves the input as crash-<sha1>
}

void check(bool ok, const std::string& what) {
  if (!ok) broken(what);
}

// FNV-1a: a stable hash, so a saved input replays at the same design point.
std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ULL;
  return h;
}

// Takes `bits` bits off the hash.
struct Bits {
  std::uint64_t h;
  std::uint64_t take(int bits) {
    const std::uint64_t v = h & ((std::uint64_t{1} << bits) - 1);
    h = (h >> bits) | (h << (64 - bits));
    return v;
  }
};

bool finite_nonneg(double x) { return std::isfinite(x) && x >= 0; }

void check_estimate(const Estimate& e, const Schedule& s, const std::string& where) {
  check(finite_nonneg(e.seconds), where + ": seconds " + std::to_string(e.seconds));
  for (double part : {e.steps_seconds, e.drain_seconds, e.stall_seconds, e.capacity_stall_seconds,
                      e.compute_seconds})
    check(finite_nonneg(part), where + ": a part of the time is negative or not finite");
  const double slack = 1 + 1e-9;  // the seconds are rounded from exact ticks
  check(e.steps_seconds <= e.seconds * slack, where + ": steps take longer than the iteration");
  check(e.compute_seconds <= e.steps_seconds * slack, where + ": compute beyond the steps");
  check(e.capacity_stall_seconds <= e.stall_seconds * slack + 1e-300, where + ": capacity stall > stall");
  check(e.traffic_in >= 0 && e.traffic_out >= 0, where + ": negative traffic");
  __extension__ __int128 access_bytes = 0;
  for (const Access& a : s.accesses) access_bytes += a.bytes;
  check(static_cast<__int128>(e.traffic_in) + e.traffic_out <= 4 * access_bytes,
        where + ": traffic above 4 x the bytes of all accesses");
  check(e.timeline.steps.size() == s.steps.size(), where + ": one timing per step");
  for (const StepTiming& t : e.timeline.steps) {
    check(t.end >= t.start && t.start >= 0, where + ": a step ends before it starts");
    check(t.resident >= 0 && t.bytes_in >= 0 && t.bytes_out >= 0, where + ": negative bytes");
    check(t.compute >= 0 && t.capacity_stall >= 0, where + ": negative ticks");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Network net;
  try {
    net = parse_network(text, "fuzz.json");
  } catch (const NetworkError&) {
    return 0;  // a malformed document, reported: fine
  } catch (const std::exception& e) {
    broken(std::string("parse_network threw something other than NetworkError: ") + e.what());
  }

  Bits bits{fnv1a(data, size)};
  static const std::int64_t kBatches[] = {1, 2, 3, 8, 32, 1000, 4096, std::int64_t{1} << 24};
  static const int kElement[] = {4, 2, 1, 16};
  ScheduleOptions so;
  so.batch = kBatches[bits.take(3)];
  so.bytes_per_element = kElement[bits.take(2)];
  Schedule s;
  try {
    s = build_schedule(net, so);
  } catch (const std::invalid_argument&) {
    return 0;  // beyond the limits at this batch (documented): fine
  } catch (const std::exception& e) {
    broken(std::string("build_schedule threw something other than invalid_argument: ") + e.what());
  }
  if (s.steps.empty()) return 0;

  // Capacity relative to what the schedule holds: none, a part, all of it, beyond.
  const std::int64_t peak = s.peak_alive_bytes();
  const std::int64_t capacities[] = {0, peak / 3, peak / 2 + 1, peak, std::int64_t{1} << 62,
                                     static_cast<std::int64_t>(bits.take(40)), peak / 7, 1};
  static const double kRates[] = {1.0, 1e9, 0x1p62, 616e9, 13.45e12, 3.0, 1e15, 0x1p40};
  const Hardware hw{capacities[bits.take(3)], kRates[bits.take(3)], kRates[bits.take(3)]};
  const int ops_per_mac = bits.take(1) ? 2 : 1;

  const auto& all = cache_parts();
  std::vector<SweepPoint> points;
  std::vector<Estimate> estimates;
  for (std::size_t p = 0; p < all.size(); ++p) {
    if (all[p]->needs_kept_intervals) continue;  // lp-rounded: its kept intervals come from Python
    EstimateOptions eo;
    eo.policy = std::string(all[p]->name);
    eo.ops_per_mac = ops_per_mac;
    try {
      estimates.push_back(estimate(s, hw, eo));
    } catch (const std::exception& e) {
      broken(eo.policy + ": estimate threw: " + e.what());
    }
    check_estimate(estimates.back(), s, eo.policy);
    points.push_back({hw.capacity, hw.bandwidth, hw.throughput, static_cast<int>(p)});
  }

  // The sweep, one point per policy; each row must equal estimate(), bit for bit.
  const std::size_t n = points.size();
  std::vector<double> seconds(n), compute(n), stall(n), capacity_stall(n), drain(n);
  std::vector<std::int64_t> in(n), out(n), kept(n), prefetched(n), born(n), offloads(n);
  std::vector<std::uint8_t> done(n);
  const SweepColumns cols{seconds.data(), compute.data(), stall.data(), capacity_stall.data(),
                          drain.data(), in.data(), out.data(), kept.data(), prefetched.data(),
                          born.data(), offloads.data(), done.data()};
  SweepOptions o;
  o.threads = 1;
  o.ops_per_mac = ops_per_mac;
  try {
    check(sweep(s, points, cols, o) == static_cast<std::int64_t>(n), "the sweep skipped points");
  } catch (const std::exception& e) {
    broken(std::string("sweep threw: ") + e.what());
  }
  const auto same = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); };
  for (std::size_t i = 0; i < n; ++i) {
    const Estimate& e = estimates[i];
    const std::string where(all[static_cast<std::size_t>(points[i].policy)]->name);
    check(done[i] == 1, where + ": sweep row not done");
    check(same(seconds[i], e.seconds) && same(compute[i], e.compute_seconds) &&
              same(stall[i], e.stall_seconds) && same(capacity_stall[i], e.capacity_stall_seconds) &&
              same(drain[i], e.drain_seconds),
          where + ": sweep seconds differ from estimate()");
    check(in[i] == e.traffic_in && out[i] == e.traffic_out, where + ": sweep traffic differs");
    check(kept[i] == e.plan.counts.kept && prefetched[i] == e.plan.counts.prefetched &&
              born[i] == e.plan.counts.born && offloads[i] == e.plan.counts.offloads,
          where + ": sweep counts differ");
  }
  return 0;
}
