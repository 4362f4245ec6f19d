// Link `ratio`: a fixed compression ratio per tensor role. A transfer of b bytes of a tensor of
// role r puts ceil(b / ratio_r) bytes on the wire (its on-chip footprint stays b); with a
// compressor that reads uncompressed data at most at `cap` bytes/s, it takes
// max(wire / bandwidth, b / cap). The compressed-DMA links (ZVC, RLE, zlib) build on it.
#include <stdexcept>

#include "dnnmem/compose.hpp"
#include "../exact.hpp"
#include "common.hpp"

namespace dnnmem {
namespace {

constexpr const char* kRoles[] = {"activation", "weight", "state", "gradient", "weight_grad"};

OptionSpec role_ratio(std::string_view role, std::string_view description) {
  // Down to 0.5: a link may expand data (zero-value compression of dense data costs 1/32 more),
  // but wire totals must stay within twice the byte totals, which the schedule bounds.
  return number_option(role, "", description, 1.0, 0.5, 1 << 20);
}

LinkModel prepare_ratio(const Schedule& s, const Options& own, const LinkTables&) {
  std::int64_t num[5], den[5];
  for (int r = 0; r < 5; ++r) {
    double ratio = own.number(kRoles[r]);
    if (!own.given(kRoles[r]) && own.given("all")) ratio = own.number("all");
    detail::ratio_as_fraction(ratio, num[r], den[r]);
  }
  // A ratio for gradients with a scheduler that makes none (inference) is a mistake in the
  // composition: say so rather than ignore it. (A network that happens to lack a role, e.g. no
  // weights, is not: the same policy must sweep over many networks.)
  if (!(s.capabilities & kTraining))
    for (int r : {3, 4})
      if (own.given(kRoles[r]))
        throw std::invalid_argument("link 'ratio' with scheduler '" + s.scheduler + "': option '" +
                                    kRoles[r] + "' has no effect, the schedule has no " +
                                    kRoles[r] + " tensor (no backward pass)");
  LinkModel m;
  m.num.resize(s.tensors.size());
  m.den.resize(s.tensors.size());
  for (std::size_t t = 0; t < s.tensors.size(); ++t) {
    const auto r = static_cast<std::size_t>(s.tensors[t].role);
    m.num[t] = num[r];
    m.den[t] = den[r];
  }
  m.cap = static_cast<std::int64_t>(std::llround(own.number("cap")));
  m.eff_num = efficiency_num(own.number("efficiency"));
  std::vector<std::int64_t> sizes(s.tensors.size());
  for (std::size_t t = 0; t < sizes.size(); ++t) sizes[t] = s.tensors[t].bytes;
  m.finish(sizes);
  return m;
}

}  // namespace

extern const LinkPart link_ratio{
    "ratio",
    "a fixed compression ratio per tensor role (wire bytes = bytes / ratio), optionally capped "
    "by the compressor's rate",
    {role_ratio("all", "the ratio of every role not given on its own"),
     role_ratio("activation", "ratio for activations (Y)"),
     role_ratio("weight", "ratio for weights (W)"),
     role_ratio("state", "ratio for non-trainable state (S)"),
     role_ratio("gradient", "ratio for activation gradients (dY)"),
     role_ratio("weight_grad", "ratio for weight gradients (dW)"),
     number_option("cap", "bytes/s",
                   "rate at which the compressor reads uncompressed data (0 = unlimited)", 0, 0, 0x1p62),
     efficiency_option()},
    &prepare_ratio};

}  // namespace dnnmem
