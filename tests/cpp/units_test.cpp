// dnnmem/units.hpp: sizes in messages, written as dnnmem.units.format_bytes writes them.
#include <cstdint>

#include "catch.hpp"
#include "dnnmem/units.hpp"

using dnnmem::format_bytes;
using dnnmem::format_bytes_exactly;

TEST_CASE("format_bytes: a binary prefix and 4 significant digits, as the Python layer") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(7) == "7 B");
  CHECK(format_bytes(1023) == "1023 B");
  CHECK(format_bytes(1024) == "1 KiB");
  CHECK(format_bytes(1000000) == "976.6 KiB");
  CHECK(format_bytes(3813376) == "3.637 MiB");
  CHECK(format_bytes(10 << 20) == "10 MiB");
  CHECK(format_bytes(std::int64_t{3} << 30) == "3 GiB");
  CHECK(format_bytes(std::int64_t{1} << 62) == "4096 PiB");
  CHECK(format_bytes(-2048) == "-2 KiB");
}

TEST_CASE("format_bytes_exactly: the exact count after a rounded one") {
  CHECK(format_bytes_exactly(7) == "7 B");
  CHECK(format_bytes_exactly(1023) == "1023 B");
  CHECK(format_bytes_exactly(1024) == "1 KiB (1024 bytes)");
  CHECK(format_bytes_exactly(3813376) == "3.637 MiB (3813376 bytes)");
}
