// A small C++ driver for profiling and timing the sweep engine without Python (valgrind
// --tool=callgrind, perf):
//
//   sweep_driver NETWORK.json BATCH POLICY POINTS [THREADS [REPEAT [SCHEDULER [COMPUTE]]]]
//
// POLICY may carry options like a part (`lookahead:streaming=through-cache`); then, as with
// COMPUTE, the driver prepares the policies itself.
// SCHEDULER and COMPUTE are a part's name with options, `name:key=value,key=value` (e.g.
// `split-backward:order=alg1`, `mbs`, `systolic`), so that the seed issues' compositions get a
// line of their own; `default` and `peak` are the defaults. With COMPUTE the driver prepares the
// policies itself (each with that compute model), else the convenience sweep() does.
//
// POLICY is a cache manager or `all` (every one of cache_parts(), one line each). Capacities
// cycle over 24–1000 MiB (step 2 MiB) at 616 GB/s and 13.45 TFLOPS. Each line gives µs per
// point by the wall clock and by the process's CPU time (the better figure on a shared machine;
// with THREADS > 1 the CPU time is that of all threads), the best of REPEAT runs, and two
// checksums of the totals: a sum (as before) and an exact hash of every column's bits. An
// optimisation must not change either; `all` ends with the hash over every policy. The first line
// is the lower bound of docs/performance.md: one pass over the steps, their accesses and the
// full uses (reading each record, writing a byte per use and a total per step), per point.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "dnnmem/compose.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/sweep.hpp"

namespace {

// "name:key=value,key=value" -> the part's name and options (a value that reads as a number is
// one).
dnnmem::PartSpec parse_part(const std::string& text) {
  dnnmem::PartSpec spec;
  const std::size_t colon = text.find(':');
  spec.name = text.substr(0, colon);
  std::size_t at = colon == std::string::npos ? text.size() : colon + 1;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string kv = text.substr(at, end - at);
    const std::size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    char* rest = nullptr;
    const double number = std::strtod(value.c_str(), &rest);
    if (!value.empty() && rest != nullptr && *rest == '\0')
      spec.options.emplace_back(key, number);
    else
      spec.options.emplace_back(key, value);
    at = end + 1;
  }
  return spec;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// FNV-1a over the bytes of a value.
template <class T>
void mix(std::uint64_t& h, const T& v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (unsigned char c : b) h = (h ^ c) * 1099511628211ULL;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dnnmem;
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s NETWORK.json BATCH POLICY|all POINTS [THREADS [REPEAT [SCHEDULER [COMPUTE]]]]\n",
                 argv[0]);
    return 2;
  }
  const Network net = load_network_file(argv[1]);
  ScheduleOptions so;
  so.batch = std::atoll(argv[2]);
  if (argc > 7) {
    const PartSpec sched = parse_part(argv[7]);
    so.scheduler = sched.name;
    so.scheduler_options = sched.options;
  }
  const Schedule s = build_schedule(net, so);
  const PartSpec which_spec = parse_part(argv[3]);  // POLICY may carry options: `lookahead:streaming=through-cache`
  const std::string which = which_spec.name;
  const bool custom = argc > 8 || !which_spec.options.empty();  // prepare the policies here
  const PartSpec compute_spec = argc > 8 ? parse_part(argv[8]) : PartSpec{"peak", {}};
  std::vector<int> policies;
  for (std::size_t i = 0; i < cache_parts().size(); ++i)
    if (which == "all" || cache_parts()[i]->name == which) policies.push_back(static_cast<int>(i));
  if (policies.empty()) {
    std::fprintf(stderr, "unknown policy %s\n", argv[3]);
    return 2;
  }
  {  // the lower bound: one pass over steps, accesses and uses
    std::vector<std::uint8_t> state(s.index.full.size());
    std::vector<std::int64_t> per_step(s.steps.size());
    std::int64_t sink = 0;
    double best = 1e300;
    for (int r = 0; r < 20; ++r) {
      const double c0 = cpu_seconds();
      for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const Step& st = s.steps[i];
        std::int64_t b = 0;
        for (int k = 0; k < st.num_accesses; ++k) {
          const auto a = static_cast<std::size_t>(st.first_access + k);
          const int f = s.index.access_full[a];
          b += s.accesses[a].bytes;
          if (f >= 0) state[static_cast<std::size_t>(f)] = static_cast<std::uint8_t>(s.index.full[static_cast<std::size_t>(f)].flags + r);
        }
        per_step[i] = b;
      }
      for (const FullUse& u : s.index.full) sink += u.bytes * (u.flags & 1);
      best = std::min(best, cpu_seconds() - c0);
    }
    std::printf("%s: one pass over %zu steps, %zu accesses, %zu full uses: %.2f us (sink %lld)\n", argv[1],
                s.steps.size(), s.accesses.size(), s.index.full.size(), best * 1e6,
                static_cast<long long>(sink + per_step.back() + state.back()));
  }
  const auto n = static_cast<std::size_t>(std::atoll(argv[4]));
  const int threads = argc > 5 ? std::atoi(argv[5]) : 1;
  const int repeat = argc > 6 ? std::max(1, std::atoi(argv[6])) : 1;
  std::vector<PreparedPolicy> prepared;  // with COMPUTE: every cache manager, that compute model
  if (custom) {
    PolicySpec spec;
    spec.compute = compute_spec;
    spec.cache.options = which_spec.options;
    for (const int policy : policies) {
      spec.cache.name = std::string(cache_parts()[static_cast<std::size_t>(policy)]->name);
      try {
        prepared.push_back(prepare_policy(s, spec, 2));
      } catch (const std::exception&) {
        prepared.push_back(PreparedPolicy{});  // (its sweep below says why)
      }
    }
  }
  std::uint64_t all = 1469598103934665603ULL;
  for (std::size_t k = 0; k < policies.size(); ++k) {
    const int policy = policies[k];
    std::vector<SweepPoint> pts(n);
    const int index = prepared.empty() ? policy : static_cast<int>(k);
    for (std::size_t i = 0; i < n; ++i)
      pts[i] = {static_cast<std::int64_t>(24 + 2 * (i % 489)) << 20, 616e9, 13.45e12, index};
    std::vector<double> sec(n), comp(n), stall(n), cap(n), drain(n);
    std::vector<std::int64_t> tin(n), tout(n), win(n), wout(n), kept(n), pre(n), born(n), off(n);
    SweepColumns out;
    out.seconds = sec.data();
    out.compute_seconds = comp.data();
    out.stall_seconds = stall.data();
    out.capacity_stall_seconds = cap.data();
    out.drain_seconds = drain.data();
    out.traffic_in = tin.data();
    out.traffic_out = tout.data();
    out.wire_in = win.data();
    out.wire_out = wout.data();
    out.kept = kept.data();
    out.prefetched = pre.data();
    out.born = born.data();
    out.offloads = off.data();
    SweepOptions o;
    o.threads = threads;
    double wall = 1e300, cpu = 1e300;
    try {
      if (!prepared.empty() && prepared[k].cache == nullptr) {  // prepare again, to throw its reason
        PolicySpec spec;
        spec.compute = compute_spec;
        spec.cache.options = which_spec.options;
        spec.cache.name = std::string(cache_parts()[static_cast<std::size_t>(policy)]->name);
        (void)prepare_policy(s, spec, 2);
      }
      for (int r = 0; r < repeat; ++r) {
        const double c0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        if (prepared.empty())
          sweep(s, pts, out, o);
        else
          sweep(s, prepared, pts, out, o);
        wall = std::min(wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        cpu = std::min(cpu, cpu_seconds() - c0);
      }
    } catch (const std::exception& e) {  // e.g. a cache manager that needs another scheduler
      std::printf("%s %s: not evaluated (%s)\n", argv[1],
                  std::string(cache_parts()[static_cast<std::size_t>(policy)]->name).c_str(), e.what());
      continue;
    }
    double check = 0;
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t i = 0; i < n; ++i) {
      check += sec[i] * 1e3 + static_cast<double>(tin[i] + tout[i]) * 1e-9;
      for (const double d : {sec[i], comp[i], stall[i], cap[i], drain[i]}) mix(h, d);
      for (const std::int64_t v : {tin[i], tout[i], win[i], wout[i], kept[i], pre[i], born[i], off[i]}) mix(h, v);
    }
    mix(all, h);
    const double per = 1e6 / static_cast<double>(n);
    std::printf("%s %s: %.2f us/point wall, %.2f us/point cpu (%zu points, %d threads, best of %d), "
                "checksum %.17g, hash %016llx\n",
                argv[1], std::string(cache_parts()[static_cast<std::size_t>(policy)]->name).c_str(),
                wall * per, cpu * per, n, threads, repeat, check, static_cast<unsigned long long>(h));
  }
  if (policies.size() > 1)
    std::printf("%s all policies: hash %016llx\n", argv[1], static_cast<unsigned long long>(all));
  return 0;
}
