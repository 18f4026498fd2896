// Cuda2DMethod::TransposedPackedFft (PackedFft planned for the transposed array, the
// transposition folded into the tiled reorder and gather and into the postprocess's stores and
// the preprocess's loads): against the float64 definitions at even row counts with rows/2 odd
// and even, odd, prime and single columns, and shapes that leave partial 32 x 32 tiles; against
// OneFft at large sizes, round trip, in place, through host pointers, at unaligned device
// pointers, with zero_below and inside a CUDA graph; and the error of asking for it where it
// does not apply.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"

#if EFIELD_HAS_CUDA
#include "graph_replay.hpp"
#endif

namespace efield::test {
namespace {

constexpr Cuda2DMethod kMethod = Cuda2DMethod::TransposedPackedFft;

// Row counts 4, 6 (rows/2 = 3), 8, 10, 16, 100, 126, 128, 130, 254 and 256; column counts 1, 2,
// 3, 5, 7, 17, 31, 33, 64, 127 and 255.
std::vector<std::pair<int, int>> transposed_sizes() {
  return {{4, 1},    {6, 1},    {254, 1},  {4, 2},    {6, 3},   {8, 5},    {10, 7},   {16, 17},
          {100, 31}, {126, 64}, {128, 127}, {130, 255}, {254, 2}, {256, 100}, {4, 33}, {300, 3}};
}

TEST(Plan2DTransposedPackedFft, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(transposed_sizes(), kMethod);
}
TEST(Plan2DTransposedPackedFft, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(transposed_sizes(), kMethod);
}

TEST(Plan2DTransposedPackedFft, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{10000, 100}, {100, 10000}, {3000, 1001}, {4098, 512}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, kMethod);
  }
}

TEST(Plan2DTransposedPackedFft, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{6, 1}, {130, 7}, {1000, 300}}) {
    expect_round_trip<double>(rows, cols, cuda_options(kMethod));
  }
}

TEST(Plan2DTransposedPackedFft, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    expect_in_place_host_and_reuse<float>(kind, 130, 45, cuda_options(kMethod));
  }
}

TEST(Plan2DTransposedPackedFft, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  expect_unaligned_device_pointers<float>(300, 100, cuda_options(kMethod));
  expect_unaligned_device_pointers<double>(18, 33, cuda_options(kMethod));
}

TEST(Plan2DTransposedPackedFft, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{4, 1}, {34, 31}, {300, 128}}) {
    expect_zero_below<float>(rows, cols, cuda_options(kMethod));
    expect_zero_below<double>(rows, cols, cuda_options(kMethod));
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DTransposedPackedFft, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  expect_method_captured_in_graph(kMethod, 300, 99, {Transform2D::Dct2, Transform2D::IdctIdxst});
}
#endif

TEST(Plan2DTransposedPackedFft, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // Odd row counts, two rows (one complex row of the transposed array), a single row or element.
  for (const auto& [rows, cols] : {std::pair{7, 5}, {255, 64}, {2, 3}, {1, 1}, {1, 8}}) {
    expect_method_rejected(kMethod, Transform2D::Dct2, rows, cols,
                           "TransposedPackedFft needs an even row count of at least 4");
  }
}

TEST(Plan2DTransposedPackedFft, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(kMethod), "transposed_packed_fft");
  expect_cpu_backend_ignores_method(kMethod, Transform2D::Dct2);
}

}  // namespace
}  // namespace efield::test
