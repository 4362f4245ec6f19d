// A policy is a composition of four parts, each from a registry of its own (docs/policies.md):
//   scheduler      network -> steps and their accesses            (cpp/src/schedulers/)
//   cache manager  steps -> plan: what stays on chip, every transfer (cpp/src/policies/)
//   link           what a transfer costs: wire bytes and time       (cpp/src/links/)
//   compute model  how long a step computes                         (cpp/src/compute/)
// Adding a part is one file in its folder plus one line in cpp/src/registry.cpp. The timeline
// never changes when a part is added: it times whatever plan it is given, asking the link for
// each transfer's time and taking each step's compute time from the compute model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dnnmem/compute.hpp"
#include "dnnmem/link.hpp"
#include "dnnmem/options.hpp"
#include "dnnmem/plan.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem {

// What a schedule offers, and what a cache manager may require of it.
enum Capability : unsigned {
  kTraining = 1,  // a loss and a backward pass (gradients, weight gradients)
};

struct SchedulerPart {
  std::string_view name, description;
  std::vector<OptionSpec> options;
  // Fills `out` (empty on entry) with the steps and accesses; build_schedule does the rest.
  void (*build)(const Network& net, const ScheduleOptions& options, const Options& own, Schedule& out);
};

struct CachePart {
  std::string_view name, description;
  std::vector<OptionSpec> options;
  unsigned requires_capabilities = 0;
  // Writes the plan into `out` (its storage reused), with `scratch` for working buffers; its
  // options are in in.options.
  void (*plan)(const PlanInput& in, PlanScratch& scratch, Plan& out);
  // The plan never reads in.capacity (none, vDNN, the oracle, the infinite scratchpad): a
  // sweep's points that differ only in capacity share one plan (evaluate_point).
  bool capacity_free = false;
  // The manager models an on-chip memory of unlimited size (infinite-spm, rule O4): what it
  // keeps never crowds out the tile model's share, which holds every operand of a step.
  bool unbounded = false;
  // The plan needs data computed outside the core (lp-rounded: the kept intervals of the LP
  // relaxation, from dnnmem.optimal); loops over every manager with no such data skip it.
  bool needs_kept_intervals = false;
};

struct LinkPart {
  std::string_view name, description;
  std::vector<OptionSpec> options;
  // Throws std::invalid_argument when the options make no sense for this schedule.
  LinkModel (*prepare)(const Schedule& s, const Options& own, const LinkTables& tables);
};

struct ComputePart {
  std::string_view name, description;
  std::vector<OptionSpec> options;
  ComputeModel (*prepare)(const Schedule& s, const Options& own, int ops_per_mac);
};

const std::vector<const SchedulerPart*>& scheduler_parts();
const std::vector<const CachePart*>& cache_parts();
const std::vector<const LinkPart*>& link_parts();
const std::vector<const ComputePart*>& compute_parts();

// Throw std::invalid_argument listing the valid names of that registry.
const SchedulerPart& find_scheduler(std::string_view name);
const CachePart& find_cache(std::string_view name);
const LinkPart& find_link(std::string_view name);
const ComputePart& find_compute(std::string_view name);

// A part as a user names it: the name and the options given.
struct PartSpec {
  std::string name;
  OptionMap options;
};

// The parts after the scheduler (the schedule carries its scheduler).
struct PolicySpec {
  PartSpec cache{"lookahead", {}};
  PartSpec link{"raw", {}};
  PartSpec compute{"peak", {}};
  LinkTables link_tables;  // the link's per-tensor inputs (zvc, rle, zlib)
};

// A policy ready to evaluate design points of one schedule: options checked, the link's and the
// compute model's per-schedule tables built once and shared by every point of a sweep.
struct PreparedPolicy {
  const CachePart* cache = nullptr;
  Options cache_options;
  LinkModel link;
  ComputeModel compute;
  int ops_per_mac = 2;
  std::string_view link_name = "raw", compute_name = "peak";  // the parts' names, for messages
  // Cache manager `lp-rounded` only: per full use, 1 if the reuse interval it starts is kept
  // (the Python side's rounding of the LP relaxation, docs/model/optimal.md); empty otherwise.
  std::vector<std::uint8_t> kept_given;
};

// Throws std::invalid_argument naming the part and the option, or both parts and why for a
// combination that makes no sense (a cache manager that needs a backward pass on an inference
// schedule); ops_per_mac not 1 or 2.
PreparedPolicy prepare_policy(const Schedule& s, const PolicySpec& spec, int ops_per_mac);

// Throws std::invalid_argument naming both parts when `cache` needs what the schedule lacks.
void check_capabilities(const CachePart& cache, const Schedule& s);

// "scheduler 'inference'", "link 'ratio'", ... for messages.
std::string part_label(std::string_view kind, std::string_view name);

}  // namespace dnnmem
