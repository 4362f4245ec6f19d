// Amounts in messages, written as the Python layer writes them (dnnmem.units.format_bytes): an
// error that prints a size prints it with its unit.
#pragma once

#include <cstdint>
#include <string>

namespace dnnmem {

// Bytes with a binary prefix and 4 significant digits: 3813376 -> "3.637 MiB", 7 -> "7 B",
// 2^20 -> "1 MiB" (B, KiB, MiB, GiB, TiB, PiB).
std::string format_bytes(std::int64_t bytes);

// As format_bytes, with the exact count after a rounded one, for a message whose reader may
// need the exact figure: "3.637 MiB (3813376 bytes)"; "7 B" below 1 KiB.
std::string format_bytes_exactly(std::int64_t bytes);

}  // namespace dnnmem
