// The JSON network format (docs/network-format.md): read and written by the core; every
// importer and builder writes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "dnnmem/network.hpp"

namespace dnnmem {

// Parses a network document. `source` names it in error messages (a path or "<dict>").
// Throws NetworkError (never anything else) for any malformed input, including non-JSON text.
Network parse_network(std::string_view text, const std::string& source = "<string>");

// The largest network file read (256 MiB; a chain of a million layers takes about 60 MB).
inline constexpr std::size_t kMaxNetworkFileBytes = std::size_t{1} << 28;

// Reads and parses a file; one larger than `max_bytes` (or a device that never ends) is a
// NetworkError.
Network load_network_file(const std::string& path, std::size_t max_bytes = kMaxNetworkFileBytes);

}  // namespace dnnmem
