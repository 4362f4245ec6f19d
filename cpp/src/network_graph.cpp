// The network's graph before inference: the LSTM cell's expansion into primitive layers and the
// topological order (with the consumers lists and the cycle error). Split from network.cpp.
#include "network_graph.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "dnnmem/errors.hpp"

namespace dnnmem::detail {

// lstm_cell(x[, h_prev[, c_prev]]) → its FC and point-wise parts (SPEC §2, thesis 3.3.4). The
// cell's own name is h; "<name>/c" is the cell state. The four gate FCs read weights named
// "<weights>/W_i" etc., so cells of one LSTM layer that give the same `weights` share them and
// the recurrent weight reuse of the unrolled timesteps is visible to the cache.
void expand_lstm(const LayerSpec& cell, std::vector<LayerSpec>& out, const std::string& source) {
  if (cell.inputs.empty() || cell.inputs.size() > 3)
    throw NetworkError(source, cell.name, "inputs",
                       "an lstm_cell takes [x], [x, h_prev] or [x, h_prev, c_prev], got " +
                           std::to_string(cell.inputs.size()) + " inputs");
  if (cell.params.units <= 0)
    throw NetworkError(source, cell.name, "units", "must be a positive integer");
  const std::string& n = cell.name;
  const std::string wp = cell.params.weights.empty() ? n : cell.params.weights;
  auto make = [&](std::string name, Kind k, std::vector<std::string> ins) {
    LayerSpec s;
    s.name = std::move(name);
    s.kind = k;
    s.inputs = std::move(ins);
    s.params.trainable = cell.params.trainable;
    return s;
  };
  std::string gate_in = cell.inputs[0];
  if (cell.inputs.size() >= 2) {
    out.push_back(make(n + "/xh", Kind::Concat, {cell.inputs[0], cell.inputs[1]}));
    gate_in = n + "/xh";
  }
  const bool has_c = cell.inputs.size() == 3;
  for (const char* g : {"i", "f", "g", "o"}) {
    if (!has_c && std::string(g) == "f") continue;  // f·c_prev is zero without a cell state
    LayerSpec d = make(n + "/" + g, Kind::Dense, {gate_in});
    d.params.units = cell.params.units;
    d.params.use_bias = cell.params.use_bias;
    d.params.weights = wp + "/W_" + g;
    out.push_back(d);
    out.push_back(make(n + "/" + g + "_act", std::string(g) == "g" ? Kind::Tanh : Kind::Sigmoid,
                       {n + "/" + g}));
  }
  if (has_c) {
    out.push_back(make(n + "/fc", Kind::Multiply, {n + "/f_act", cell.inputs[2]}));
    out.push_back(make(n + "/ig", Kind::Multiply, {n + "/i_act", n + "/g_act"}));
    out.push_back(make(n + "/c", Kind::Add, {n + "/fc", n + "/ig"}));
  } else {
    out.push_back(make(n + "/c", Kind::Multiply, {n + "/i_act", n + "/g_act"}));
  }
  out.push_back(make(n + "/c_act", Kind::Tanh, {n + "/c"}));
  out.push_back(make(n, Kind::Multiply, {n + "/o_act", n + "/c_act"}));
}

std::vector<int> topological_order(Network& net) {
  // Topological order (Kahn, ties by file order) for inference; a leftover layer is on a cycle.
  const std::size_t n = net.layers.size();
  const std::string& source = net.source;
  net.consumers.assign(n, {});
  std::vector<int> pending(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> seen;
    for (int in : net.layers[i].inputs) {
      if (in == static_cast<int>(i))
        throw NetworkError(source, net.layers[i].name, "inputs", "the layer reads its own output");
      if (std::find(seen.begin(), seen.end(), in) != seen.end()) continue;
      seen.push_back(in);
      net.consumers[static_cast<std::size_t>(in)].push_back(static_cast<int>(i));
      ++pending[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  std::vector<int> topo;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    topo.push_back(i);
    for (int c : net.consumers[static_cast<std::size_t>(i)])
      if (--pending[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (topo.size() != n) {
    // Every unfinished layer has an unfinished input; walking those must repeat a layer, and
    // the layers from its first visit on are a cycle.
    int at = 0;
    while (pending[static_cast<std::size_t>(at)] == 0) ++at;
    std::vector<int> path, seen_at(n, -1);
    while (seen_at[static_cast<std::size_t>(at)] < 0) {
      seen_at[static_cast<std::size_t>(at)] = static_cast<int>(path.size());
      path.push_back(at);
      for (int in : net.layers[static_cast<std::size_t>(at)].inputs)
        if (pending[static_cast<std::size_t>(in)] > 0) {
          at = in;
          break;
        }
    }
    // The walk went from consumer to input; reverse it to read in the direction data flows,
    // starting at the cycle's earliest layer in the file.
    std::vector<int> cycle(path.begin() + seen_at[static_cast<std::size_t>(at)], path.end());
    std::reverse(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string names;
    for (int c : cycle) names += "'" + net.layers[static_cast<std::size_t>(c)].name + "' -> ";
    names += "'" + net.layers[static_cast<std::size_t>(cycle.front())].name + "'";
    throw NetworkError(source, net.layers[static_cast<std::size_t>(cycle.front())].name, "inputs",
                       "the graph has a cycle: " + names);
  }
  return topo;
}

std::string closest_name(const std::string& name, const std::vector<std::string>& names) {
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  std::vector<std::size_t> row, previous;
  for (const std::string& candidate : names) {
    const std::size_t gap = candidate.size() > name.size() ? candidate.size() - name.size()
                                                           : name.size() - candidate.size();
    if (gap >= best_distance) continue;  // the distance is at least the difference in length
    // Levenshtein distance, one row at a time.
    previous.resize(candidate.size() + 1);
    row.resize(candidate.size() + 1);
    for (std::size_t j = 0; j <= candidate.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= name.size(); ++i) {
      row[0] = i;
      for (std::size_t j = 1; j <= candidate.size(); ++j) {
        const std::size_t change = previous[j - 1] + (name[i - 1] == candidate[j - 1] ? 0 : 1);
        row[j] = std::min({change, previous[j] + 1, row[j - 1] + 1});
      }
      std::swap(row, previous);
    }
    if (previous[candidate.size()] < best_distance) {
      best_distance = previous[candidate.size()];
      best = candidate;
    }
  }
  return best;
}

}  // namespace dnnmem::detail
