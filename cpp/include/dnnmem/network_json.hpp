// The JSON network format (docs/network-format.md): read and written by the core; every
// importer and builder writes it.
#pragma once

#include <string>
#include <string_view>

#include "dnnmem/network.hpp"

namespace dnnmem {

// Parses a network document. `source` names it in error messages (a path or "<dict>").
// Throws NetworkError (never anything else) for any malformed input, including non-JSON text.
Network parse_network(std::string_view text, const std::string& source = "<string>");

// Reads and parses a file.
Network load_network_file(const std::string& path);

}  // namespace dnnmem
