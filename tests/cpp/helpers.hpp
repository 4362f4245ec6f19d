// Small helpers for writing networks inline in tests.
#pragma once

#include <cstddef>
#include <string>

#include "catch.hpp"
#include "dnnmem/network_json.hpp"
#include "dnnmem/schedule.hpp"

namespace dnnmem::test {

// One definition each of what several test files use (one file each would clash when a unity
// build compiles several test files as one translation unit).
inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

inline constexpr double k62 = 0x1p62;

// The layer called `name`; fails the test case when there is none.
inline const Layer& layer(const Network& n, const std::string& name) {
  const int i = n.find(name);
  INFO("layer " << name);
  REQUIRE(i >= 0);
  return n.layers[static_cast<std::size_t>(i)];
}

// Wraps a comma-separated list of layer objects into a network document.
inline Network net(const std::string& layers) {
  return parse_network("{\"name\": \"t\", \"layers\": [" + layers + "]}", "test.json");
}

inline std::string step_name(const Network& n, const Schedule& s, std::size_t i) {
  const Step& st = s.steps[i];
  return std::string(st.phase == Phase::Forward ? "F:" : st.phase == Phase::Loss ? "loss:" : "B:") +
         n.layers[static_cast<std::size_t>(st.layer)].name;
}

// "r:Y:a w:Y:b rw:dY:c" — the accesses of step i, in order, with their mode.
inline std::string accesses(const Schedule& s, std::size_t i) {
  const Step& st = s.steps[i];
  std::string out;
  for (int k = 0; k < st.num_accesses; ++k) {
    const Access& a = s.accesses[static_cast<std::size_t>(st.first_access + k)];
    if (!out.empty()) out += ' ';
    out += a.read && a.write ? "rw:" : a.read ? "r:" : "w:";
    if (a.partial) out += "p:";
    out += s.tensors[static_cast<std::size_t>(a.tensor)].name;
  }
  return out;
}

}  // namespace dnnmem::test
