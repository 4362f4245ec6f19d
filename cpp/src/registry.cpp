// The four registries of policy parts (compose.hpp). Adding a part: one file in its folder
// defining `extern const <Kind>Part <kind>_<name>{...}`, and its name on one line below.
#include <stdexcept>

#include "dnnmem/compose.hpp"
#include "dnnmem/policies.hpp"

// One line per part, in the order `dnnmem policies` lists them.
#define DNNMEM_SCHEDULERS(X) \
  X(scheduler_default) X(scheduler_inference) X(scheduler_split_backward) X(scheduler_mbs)
#define DNNMEM_CACHE_MANAGERS(X) \
  X(cache_lookahead) X(cache_belady) X(cache_prefetch_next) X(cache_no_lookahead) X(cache_lru) X(cache_none) \
  X(cache_lp_rounded) \
  X(cache_mbs_strict) \
  X(cache_fifo) X(cache_infinite_spm) X(cache_one_step) X(cache_onsram_static) \
  X(cache_onsram_eager_wb) X(cache_onsram_eager_spec) \
  X(cache_vdnn_all) X(cache_vdnn_conv) X(cache_oracle)
#define DNNMEM_LINKS(X) X(link_raw) X(link_ratio) X(link_zvc) X(link_rle) X(link_zlib)
#define DNNMEM_COMPUTE_MODELS(X) X(compute_peak) X(compute_systolic)

namespace dnnmem {

#define DNNMEM_ADDRESS(name) &name,
#define DNNMEM_EXTERN_SCHEDULER(name) extern const SchedulerPart name;
#define DNNMEM_EXTERN_CACHE(name) extern const CachePart name;
#define DNNMEM_EXTERN_LINK(name) extern const LinkPart name;
#define DNNMEM_EXTERN_COMPUTE(name) extern const ComputePart name;
DNNMEM_SCHEDULERS(DNNMEM_EXTERN_SCHEDULER)
DNNMEM_CACHE_MANAGERS(DNNMEM_EXTERN_CACHE)
DNNMEM_LINKS(DNNMEM_EXTERN_LINK)
DNNMEM_COMPUTE_MODELS(DNNMEM_EXTERN_COMPUTE)

const std::vector<const SchedulerPart*>& scheduler_parts() {
  static const std::vector<const SchedulerPart*> all = {DNNMEM_SCHEDULERS(DNNMEM_ADDRESS)};
  return all;
}
const std::vector<const CachePart*>& cache_parts() {
  static const std::vector<const CachePart*> all = {DNNMEM_CACHE_MANAGERS(DNNMEM_ADDRESS)};
  return all;
}
const std::vector<const LinkPart*>& link_parts() {
  static const std::vector<const LinkPart*> all = {DNNMEM_LINKS(DNNMEM_ADDRESS)};
  return all;
}
const std::vector<const ComputePart*>& compute_parts() {
  static const std::vector<const ComputePart*> all = {DNNMEM_COMPUTE_MODELS(DNNMEM_ADDRESS)};
  return all;
}

namespace {

template <class Part>
const Part& find(const std::vector<const Part*>& all, std::string_view kind, std::string_view name) {
  std::string names;
  for (const Part* p : all) {
    if (p->name == name) return *p;
    names += (names.empty() ? "" : ", ") + std::string(p->name);
  }
  throw std::invalid_argument(std::string(kind) + ": unknown " + std::string(kind) + " '" +
                              std::string(name) + "' (valid: " + names + ")");
}

}  // namespace

const SchedulerPart& find_scheduler(std::string_view name) { return find(scheduler_parts(), "scheduler", name); }
const CachePart& find_cache(std::string_view name) { return find(cache_parts(), "cache manager", name); }
const LinkPart& find_link(std::string_view name) { return find(link_parts(), "link", name); }
const ComputePart& find_compute(std::string_view name) { return find(compute_parts(), "compute model", name); }

}  // namespace dnnmem
