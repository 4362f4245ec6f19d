#include "catch.hpp"
#include "helpers.hpp"

using namespace dnnmem;
using dnnmem::test::net;

TEST_CASE("smoke") {
  auto n = net(R"({"name":"x","kind":"input","shape":[8,8,3]},
               {"name":"c","kind":"conv2d","inputs":["x"],"filters":4,"kernel_size":3,"padding":"same"})");
  REQUIRE(n.layers.size() == 2);
  CHECK(n.layers[1].shape == Shape{8, 8, 4});
}
