// What a transfer costs on the link between the cache and off-chip memory: the bytes on the wire
// and the time they take. A link part prepares one LinkModel per schedule (its per-tensor
// factors depend on the tensors' roles and sizes, never on the design point); the planners and
// the timeline then ask it for every transfer's time, so latency-aware prefetch and look-ahead
// offload use the real cost.
#pragma once

#include <cstdint>
#include <vector>

#include "dnnmem/hardware.hpp"

namespace dnnmem {

struct LinkModel {
  // Per tensor: a transfer of b bytes of it puts ceil(b · num / den) bytes on the wire. Empty:
  // the bytes themselves (num = den = 1), the thesis's link.
  std::vector<std::int64_t> num, den;
  // Per tensor: its size and the wire bytes of a whole-tensor transfer, precomputed (most
  // transfers move whole tensors; this spares them a 128-bit division). Filled by finish().
  std::vector<std::int64_t> size, size_wire;
  // The largest num / den of any tensor (1 / 1 when num is empty): a transfer of b bytes puts
  // at most ceil(b · max_num / max_den) bytes on the wire. Filled by finish(); read by the
  // time limit (limits.cpp).
  std::int64_t max_num = 1, max_den = 1;
  // The rate at which the link's front end (a compressor) reads uncompressed data, whole
  // bytes/s; 0 = no such limit. A transfer then takes max(wire / bandwidth, bytes / cap).
  std::int64_t cap = 0;
  // Whether the cap also limits loads (decompression into the cache); offloads always obey it.
  bool cap_loads = true;
  // The share of the bandwidth the link delivers, eff_num / kEfficiencyDen (a DMA engine's
  // protocol overhead: vDNN measured 12.8 of PCIe gen3's 16 GB/s, 0.8): the wire time is
  // ceil(wire ticks · kEfficiencyDen / eff_num).
  static constexpr std::int64_t kEfficiencyDen = 10000;
  std::int64_t eff_num = kEfficiencyDen;

  bool identity() const { return num.empty() && cap == 0 && eff_num == kEfficiencyDen; }
  std::int64_t wire_bytes(int tensor, std::int64_t bytes) const {
    if (num.empty()) return bytes;
    const auto t = static_cast<std::size_t>(tensor);
    if (bytes == size[t]) return size_wire[t];
    const Ticks q = static_cast<Ticks>(bytes) * num[t];
    return static_cast<std::int64_t>((q + den[t] - 1) / den[t]);
  }
  // Fills size / size_wire from the tensors' sizes (a link part's prepare calls it last).
  void finish(const std::vector<std::int64_t>& tensor_bytes);

  // Exact: wire · throughput ticks for the wire, ceil(bytes · bandwidth · throughput / cap) for
  // the cap (1 tick = 1 / (bandwidth · throughput) s).
  Ticks ticks(const TimeBase& time, int tensor, std::int64_t bytes, bool load = false) const {
    if (identity()) return time.transfer(bytes);
    Ticks wire = time.transfer(wire_bytes(tensor, bytes));
    if (eff_num != kEfficiencyDen) wire = (wire * kEfficiencyDen + eff_num - 1) / eff_num;
    if (cap == 0 || (load && !cap_loads)) return wire;
    return wire > cap_ticks(time, bytes) ? wire : cap_ticks(time, bytes);
  }

 private:
  Ticks cap_ticks(const TimeBase& time, std::int64_t bytes) const;
};

// Per-tensor inputs a link may take, in the schedule's tensor order (empty: not given). The
// Python layer fills them: `sparsity` (fraction of zero elements, zvc), `ratio` (a measured
// compression ratio, rle / zlib).
struct LinkTables {
  std::vector<double> sparsity, ratio;
};

// Zero-value compression (cDMA paper, §V-A): the bytes on the wire for a tensor of `bytes`
// bytes, elements of `element_bytes`, a fraction `sparsity` of them zero (rounded to whole
// elements), a `window`-bit mask per `window` elements when `mask` (cpp/src/links/cdma.cpp).
std::int64_t zvc_bytes(std::int64_t bytes, int element_bytes, double sparsity, int window, bool mask);

// The thesis's link: bytes / bandwidth.
const LinkModel& identity_link();

}  // namespace dnnmem
