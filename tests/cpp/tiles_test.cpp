// The tile walk (tiles.hpp, docs/model/interleaved.md) on the cases computed by hand in
// tests/python/test_tiles_oracle.py; the Python tests also compare it with the reference walk
// on random shapes.
#include <stdexcept>

#include "catch.hpp"
#include "dnnmem/tiles.hpp"

using namespace dnnmem;

TEST_CASE("tile walk: a share that holds every operand moves each once", "[tiles]") {
  for (BackwardOrder order : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                              BackwardOrder::DxMajor, BackwardOrder::DwMajor}) {
    // M = K = N = 4, 2 x 2 tiles of 1-byte elements: 20 tiles of 4 bytes fit in 80.
    const TileTraffic t = tile_walk(4, 4, 4, order, {2, 80, 1, 1, "ijk", "jik"});
    CHECK(t.read[0] == 16);  // dY
    CHECK(t.read[1] == 16);  // W
    CHECK(t.read[2] == 16);  // X
    CHECK(t.written[3] == 16);  // dX
    CHECK(t.written[4] == 16);  // dW
    CHECK(t.total() == 80);
    CHECK(t.operations == (order == BackwardOrder::Seq || order == BackwardOrder::SeqDwFirst ? 16 : 8));
  }
}

TEST_CASE("tile walk: dx-major on a share of one fused operation, by hand", "[tiles]") {
  // M = 2, K = 1, N = 2, tile 1, 1-byte elements, 5 bytes (the walk is spelled out in
  // tests/python/test_tiles_oracle.py): W is read twice, dW spills and reloads 2 partial sums.
  const TileTraffic t = tile_walk(2, 1, 2, BackwardOrder::DxMajor, {1, 5, 1, 1, "ijk", "jik"});
  CHECK(t.read[0] == 4);
  CHECK(t.read[1] == 4);
  CHECK(t.read[2] == 2);
  CHECK(t.written[3] == 2);
  CHECK(t.written[4] == 2);
  CHECK(t.psum_written[4] == 2);
  CHECK(t.psum_read[4] == 2);
  // seq on a share of one sequential operation reads dY twice.
  CHECK(tile_walk(2, 1, 2, BackwardOrder::Seq, {1, 3, 1, 1, "ijk", "jik"}).read[0] == 8);
}

TEST_CASE("tile walk: bad input is an invalid_argument naming the quantity", "[tiles]") {
  CHECK_THROWS_AS(tile_walk(0, 1, 1, BackwardOrder::Seq, {}), std::invalid_argument);
  CHECK_THROWS_AS(tile_walk(1, 1, 1, BackwardOrder::Seq, {1, 8, 1, 1, "jik", "jik"}), std::invalid_argument);
  CHECK_THROWS_AS(tile_walk(1 << 20, 1, 1 << 20, BackwardOrder::Seq, {1, 8, 1, 1, "ijk", "jik"}),
                  std::invalid_argument);
  CHECK(backward_order_from_name("dw-major") == BackwardOrder::DwMajor);
  CHECK_FALSE(backward_order_from_name("sideways").has_value());
}

TEST_CASE("closed form: equal to the walk where everything fits and where nothing does", "[tiles]") {
  for (BackwardOrder order : {BackwardOrder::Seq, BackwardOrder::SeqDwFirst, BackwardOrder::Interleave,
                              BackwardOrder::DxMajor, BackwardOrder::DwMajor}) {
    TileWalkOptions fits{2, 80, 1, 1, "ijk", "jik"};
    CHECK(tile_estimate(4, 4, 4, order, fits).total() == tile_walk(4, 4, 4, order, fits).total());
    TileWalkOptions none{2, 11, 1, 1, "ijk", "jik"};  // below one operation (3 tiles of 4 bytes)
    const TileTraffic e = tile_estimate(4, 4, 4, order, none), w = tile_walk(4, 4, 4, order, none);
    CHECK(e.read == w.read);
    CHECK(e.psum_written == w.psum_written);
    CHECK(e.psum_read == w.psum_read);
    CHECK(e.dy_read_by_dw == w.dy_read_by_dw);
  }
  TileWalkOptions part{1, 7, 1, 1, "ijk", "jik"};
  part.partition = 0;
  CHECK_THROWS_AS(tile_estimate(2, 1, 1, BackwardOrder::DxMajor, part), std::invalid_argument);
}

TEST_CASE("partitioning: two cores in lock step need both parts on chip, by hand", "[tiles]") {
  // tests/python/test_tiles_closed.py spells the case out: M = 2 cut into two parts.
  TileWalkOptions o{1, 7, 1, 1, "ijk", "jik"};
  o.partition = 0;
  o.parts = 2;
  CHECK(tile_walk(2, 1, 1, BackwardOrder::DxMajor, o).read[0] == 2);
  o.lockstep = true;
  const TileTraffic t = tile_walk(2, 1, 1, BackwardOrder::DxMajor, o);
  CHECK(t.read[0] == 4);
  CHECK(t.read[1] == 2);
  CHECK(t.psum_written[4] == 1);
  CHECK(t.operations == 1);
}

TEST_CASE("LRU replacement: seq reads dY twice where Bélády reads it once, by hand", "[tiles]") {
  // tests/python/test_tiles_closed.py spells the case out: M = K = 1, N = 3, a share of 5 tiles.
  TileWalkOptions o{1, 5, 1, 1, "ijk", "jik"};
  const TileTraffic belady = tile_walk(1, 1, 3, BackwardOrder::Seq, o);
  o.lru = true;
  const TileTraffic lru = tile_walk(1, 1, 3, BackwardOrder::Seq, o);
  CHECK(belady.read[0] == 3);
  CHECK(lru.read[0] == 6);
  CHECK(belady.total() == 11);
  CHECK(lru.total() == 14);
  CHECK_THROWS_AS(tile_estimate(1, 1, 3, BackwardOrder::Seq, o), std::invalid_argument);
}
