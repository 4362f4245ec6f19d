// Links `zvc`, `rle`, `zlib`: the compressed DMA of the cDMA paper (docs/model/cdma.md, rules
// C1–C7), built on the `ratio` link's model (a per-tensor wire size, a compressor cap, a link
// efficiency). Only activations are compressed; every other role crosses as it is.
//   zvc   exact zero-value compression: per window of `window` elements a `window`-bit mask,
//         then the non-zero elements; a tensor of N elements of b bytes with sparsity s puts
//         round(N (1 - s)) b + ceil(N / window) window / 8 bytes on the wire (mask=off: no
//         masks, the paper's "60 % zeros -> 2.5x" arithmetic).
//   rle, zlib  a measured ratio per tensor (the Python layer compresses generated tensors of
//         the tensor's sparsity and layout, or takes the user's table).
// The per-tensor sparsity and ratios arrive in LinkTables; the sparsity options below (first,
// deep, fc, pool, target, uniform, layout, values) are the Python layer's, declared here so that a
// policy string carries them.
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dnnmem/compose.hpp"
#include "../exact.hpp"
#include "common.hpp"

namespace dnnmem {
namespace {

std::vector<OptionSpec> common_options(bool zvc) {
  std::vector<OptionSpec> o;
  if (zvc) {
    o.push_back(integer_option("window", "elements per ZVC window (one mask bit each)", 32, 8, 1 << 16));
    o.push_back(choice_option("mask", "count the masks on the wire (off: the paper's 1/(1-s) arithmetic)",
                              "on", {"on", "off"}));
    o.push_back(choice_option("fallback", "send a tensor raw when compression would expand it",
                              "off", {"off", "on"}));
  } else {
    o.push_back(choice_option("layout", "activation layout the ratios are measured in", "nchw",
                              {"nchw", "nhwc", "chwn"}));
    o.push_back(choice_option("values",
                              "how the measured tensors are generated: random (C3), or pooled "
                              "(a max pool's output is the max pool of a generated map, C3a)",
                              "random", {"random", "pooled"}));
  }
  o.push_back(number_option("cap", "bytes/s",
                            "rate at which the compressor reads (writes) uncompressed data, 0 = unlimited "
                            "(cDMA: 200GB/s performance-optimal, 48GB/s bandwidth-aware)",
                            0, 0, 0x1p62));
  o.push_back(choice_option("throttle",
                            "what the cap limits: both directions, or offloads only (prefetches "
                            "decompress at link speed)",
                            "both", {"both", "offload"}));
  o.push_back(efficiency_option());
  o.push_back(number_option("first", "", "sparsity rule: output of the first conv layer", 0.5, 0, 1));
  o.push_back(number_option("deep", "", "sparsity rule: output of the deepest conv layer", 0.75, 0, 1));
  o.push_back(number_option("fc", "", "sparsity rule: output of a fully-connected layer", 0.9, 0, 1));
  o.push_back(number_option("pool", "", "sparsity rule: sparsity a pooling layer removes", 0.1, 0, 1));
  o.push_back(number_option("target", "",
                            "sparsity rule: calibrate to this size-weighted sparsity (-1 = off)", -1, -1, 1));
  o.push_back(number_option("uniform", "",
                            "one sparsity for every zero-making tensor (-1 = off: the rule)", -1, -1, 1));
  return o;
}

void check_table(const Schedule& s, const std::vector<double>& v, const char* link, const char* what,
                 double lo, double hi) {
  if (v.size() != s.tensors.size())
    throw std::invalid_argument(std::string("link '") + link + "': " + what + " table has " +
                                std::to_string(v.size()) + " entries, the schedule has " +
                                std::to_string(s.tensors.size()) + " tensors");
  for (std::size_t t = 0; t < v.size(); ++t)
    if (!(v[t] >= lo && v[t] <= hi)) {
      std::ostringstream m;
      m << "link '" << link << "': " << what << " of tensor '" << s.tensors[t].name << "' must be in ["
        << lo << ", " << hi << "], got " << v[t];
      throw std::invalid_argument(m.str());
    }
}

void finish(const Schedule& s, const Options& own, LinkModel& m) {
  m.cap = static_cast<std::int64_t>(std::llround(own.number("cap")));
  m.eff_num = efficiency_num(own.number("efficiency"));
  m.cap_loads = own.choice("throttle") == "both";
  std::vector<std::int64_t> sizes(s.tensors.size());
  for (std::size_t t = 0; t < sizes.size(); ++t) sizes[t] = s.tensors[t].bytes;
  m.finish(sizes);
}

}  // namespace

// The exact ZVC size of a tensor (bytes on the wire); public for the tests.
std::int64_t zvc_bytes(std::int64_t bytes, int element_bytes, double sparsity, int window, bool mask) {
  const std::int64_t n = (bytes + element_bytes - 1) / element_bytes;
  const auto nonzero = static_cast<std::int64_t>(std::llround(static_cast<double>(n) * (1.0 - sparsity)));
  const std::int64_t masks = mask ? (n + window - 1) / window * ((window + 7) / 8) : 0;
  return nonzero * element_bytes + masks;
}

namespace {

LinkModel prepare_zvc(const Schedule& s, const Options& own, const LinkTables& tables) {
  const bool given = !tables.sparsity.empty();
  if (given) check_table(s, tables.sparsity, "zvc", "sparsity", 0, 1);
  const double uniform = own.number("uniform");
  const auto window = static_cast<int>(own.integer("window"));
  const bool mask = own.choice("mask") == "on", fallback = own.choice("fallback") == "on";
  LinkModel m;
  m.num.assign(s.tensors.size(), 1);
  m.den.assign(s.tensors.size(), 1);
  for (std::size_t t = 0; t < s.tensors.size(); ++t) {
    const Tensor& x = s.tensors[t];
    if (x.role != Role::Activation || x.bytes == 0) continue;  // C1
    const double sp = given ? tables.sparsity[t] : (uniform >= 0 ? uniform : 0.0);
    std::int64_t wire = zvc_bytes(x.bytes, s.bytes_per_element, sp, window, mask);
    if (fallback && wire > x.bytes) wire = x.bytes;
    m.num[t] = wire < 1 ? 1 : wire;  // never 0 bytes: a transfer still exists
    m.den[t] = x.bytes;
  }
  finish(s, own, m);
  return m;
}

LinkModel prepare_measured(const Schedule& s, const Options& own, const LinkTables& tables,
                           const char* name) {
  if (tables.ratio.empty())
    throw std::invalid_argument(std::string("link '") + name +
                                "': needs a measured ratio per tensor (dnnmem's Python layer measures "
                                "them from the sparsity; the C++ core cannot)");
  check_table(s, tables.ratio, name, "ratio", 0x1p-6, 0x1p20);
  LinkModel m;
  m.num.assign(s.tensors.size(), 1);
  m.den.assign(s.tensors.size(), 1);
  for (std::size_t t = 0; t < s.tensors.size(); ++t)
    if (s.tensors[t].role == Role::Activation) detail::ratio_as_fraction(tables.ratio[t], m.num[t], m.den[t]);
  finish(s, own, m);
  return m;
}

}  // namespace

extern const LinkPart link_zvc{
    "zvc",
    "cDMA zero-value compression of activations: exact size from each tensor's sparsity "
    "(32-element windows, a bit mask each), optional compressor cap and link efficiency",
    common_options(true), &prepare_zvc};
extern const LinkPart link_rle{
    "rle", "cDMA run-length encoding of activations: ratios measured on generated tensors",
    common_options(false),
    [](const Schedule& s, const Options& own, const LinkTables& t) { return prepare_measured(s, own, t, "rle"); }};
extern const LinkPart link_zlib{
    "zlib", "cDMA zlib (DEFLATE) of activations: ratios measured on generated tensors",
    common_options(false),
    [](const Schedule& s, const Options& own, const LinkTables& t) { return prepare_measured(s, own, t, "zlib"); }};

}  // namespace dnnmem
