// network.cpp's graph helpers (network_graph.cpp).
#pragma once

#include <string>
#include <vector>

#include "dnnmem/network.hpp"

namespace dnnmem::detail {

// Appends an lstm_cell's primitive layers (its gate FCs and point-wise parts) to `out`;
// NetworkError naming `source` and the cell for a bad cell.
void expand_lstm(const LayerSpec& cell, std::vector<LayerSpec>& out, const std::string& source);

// Fills net.consumers from the layers' inputs and returns the layers in topological order
// (Kahn, ties by file order); NetworkError naming net.source and a layer of the cycle, or a layer
// that reads its own output.
std::vector<int> topological_order(Network& net);

// The name among `names` closest to `name` by edit distance, if that distance is at most a third
// of `name`'s length (and at least 1); "" if none is. For error messages: "did you mean ...?".
std::string closest_name(const std::string& name, const std::vector<std::string>& names);

}  // namespace dnnmem::detail
