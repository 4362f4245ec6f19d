#include "catch.hpp"
#include "dnnmem/kinds.hpp"

using namespace dnnmem;

TEST_CASE("the kind table is indexed by the enum and every name round-trips") {
  const auto& all = all_kinds();
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(static_cast<std::size_t>(all[i].kind) == i);
    auto k = kind_from_name(all[i].name);
    REQUIRE(k.has_value());
    CHECK(*k == all[i].kind);
  }
  CHECK(all.back().kind == Kind::Opaque);
}

TEST_CASE("aliases from Keras and PyTorch spellings") {
  CHECK(kind_from_name("SiLU") == Kind::Swish);
  CHECK(kind_from_name("Hardswish") == Kind::HardSwish);
  CHECK(kind_from_name("LeakyReLU") == Kind::LeakyReLU);
  CHECK(kind_from_name("UpSampling2D") == Kind::Upsample);
  CHECK(kind_from_name("Rescaling") == Kind::Rescaling);
  CHECK(kind_from_name("cls_token") == Kind::ClassToken);
  CHECK(kind_from_name("Conv2D") == Kind::Conv2D);
  CHECK(kind_from_name("BatchNormalization") == Kind::BatchNorm);
  CHECK(kind_from_name("global_average_pooling2d") == Kind::GlobalAvgPool);
  CHECK(kind_from_name("Linear") == Kind::Dense);
  CHECK(kind_from_name("ZeroPadding2D") == Kind::ZeroPadding);
  CHECK_FALSE(kind_from_name("conv3d").has_value());
}

TEST_CASE("SPEC §2 per-kind defaults") {
  CHECK(kind_info(Kind::Conv2D).layer_class == LayerClass::I);
  CHECK(kind_info(Kind::MatMul).layer_class == LayerClass::I);
  CHECK(kind_info(Kind::Embedding).layer_class == LayerClass::I);
  CHECK(kind_info(Kind::BatchNorm).layer_class == LayerClass::II);
  CHECK(kind_info(Kind::BatchNorm).fwd.per_element == 5);
  CHECK(kind_info(Kind::BatchNorm).bwd_dx.per_element == 7);
  CHECK(kind_info(Kind::BatchNorm).bwd_dw.per_element == 2);
  CHECK(kind_info(Kind::GELU).fwd.per_element == 8);
  CHECK(kind_info(Kind::GELU).backward_reads == BackwardReads::X);
  CHECK(kind_info(Kind::ReLU).backward_reads == BackwardReads::Y);
  CHECK(kind_info(Kind::Softmax).fwd.per_element == 5);
  CHECK(kind_info(Kind::Softmax).bwd_dx.per_element == 4);
  CHECK(kind_info(Kind::Dropout).fwd.per_element == 2);
  CHECK(kind_info(Kind::Dropout).bwd_dx.per_element == 1);
  CHECK(kind_info(Kind::Add).backward_reads == BackwardReads::Nothing);
  CHECK(kind_info(Kind::Reshape).folded);
  CHECK(kind_info(Kind::ZeroPadding).folded);
  CHECK_FALSE(kind_info(Kind::Dropout).folded);
}
