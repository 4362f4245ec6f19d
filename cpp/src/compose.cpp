#include "dnnmem/compose.hpp"

#include "dnnmem/policies.hpp"

#include <stdexcept>

namespace dnnmem {

Plan make_plan(const CachePart& cache, const PlanInput& in) {
  PlanScratch scratch;
  Plan p;
  cache.plan(in, scratch, p);
  apply_tile_model(in, p, cache.unbounded);
  return p;
}

std::string part_label(std::string_view kind, std::string_view name) {
  return std::string(kind) + " '" + std::string(name) + "'";
}

void check_capabilities(const CachePart& cache, const Schedule& s) {
  const unsigned missing = cache.requires_capabilities & ~s.capabilities;
  if (missing & kTraining)
    throw std::invalid_argument(part_label("cache manager", cache.name) + " needs a training "
                                "schedule (loss and backward pass); " +
                                part_label("scheduler", s.scheduler) + " has none");
}

PreparedPolicy prepare_policy(const Schedule& s, const PolicySpec& spec, int ops_per_mac) {
  if (ops_per_mac != 1 && ops_per_mac != 2)
    throw std::invalid_argument("ops_per_mac: must be 1 or 2, got " + std::to_string(ops_per_mac));
  PreparedPolicy p;
  p.ops_per_mac = ops_per_mac;
  p.cache = &find_cache(spec.cache.name);
  p.cache_options = resolve_options(part_label("cache manager", p.cache->name), p.cache->options,
                                    spec.cache.options);
  check_capabilities(*p.cache, s);
  const LinkPart& link = find_link(spec.link.name);
  p.link = link.prepare(s, resolve_options(part_label("link", link.name), link.options, spec.link.options),
                        spec.link_tables);
  p.link_name = link.name;
  const ComputePart& compute = find_compute(spec.compute.name);
  p.compute_name = compute.name;
  p.compute = compute.prepare(
      s, resolve_options(part_label("compute model", compute.name), compute.options, spec.compute.options),
      ops_per_mac);
  // Time is counted exactly in ticks of 1 / (bandwidth · throughput): the iteration's compute
  // must stay within the bound the schedule puts on its FLOPs (kMaxIterationFlops), which a
  // slow vector unit or a poorly used array can exceed.
  Ticks total = 0;
  for (const std::int64_t w : p.compute.work) total += w;
  if (total > kMaxIterationFlops)
    throw std::invalid_argument(part_label("compute model", compute.name) +
                                ": the iteration's compute time is too large to count exactly "
                                "(more than 2^62 peak-equivalent FLOPs)");
  return p;
}

}  // namespace dnnmem
