// Cuda2DMethod::PackedFft (OneFft with the real FFT taken as one complex FFT of the rows x cols/2
// packed pairs, the split fused into the postprocess and the merge into the preprocess): against
// the float64 definitions at even column counts with N/2 odd and even, odd and prime row counts
// and single rows; against OneFft at large sizes, round trip, in place, through host pointers, at
// unaligned device pointers, with zero_below and inside a CUDA graph; and the error of asking for
// it where it does not apply.
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

// Column counts 4, 6 (N/2 = 3), 8, 10, 16, 100, 126, 128, 130, 254 and 256; row counts 1, 2, 3,
// 5, 7, 17, 31, 64, 127 and 255; 8 x 1 is planned as 1 x 8.
std::vector<std::pair<int, int>> packed_sizes() {
  return {{1, 4},    {1, 6},    {1, 254},  {2, 4},   {3, 6},   {5, 8},    {7, 10},  {17, 16},
          {31, 100}, {64, 126}, {127, 128}, {255, 130}, {2, 254}, {100, 256}, {8, 1},  {16, 1},
          {128, 6},  {3, 300}};
}

TEST(Plan2DPackedFft, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(packed_sizes(), Cuda2DMethod::PackedFft);
}
TEST(Plan2DPackedFft, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(packed_sizes(), Cuda2DMethod::PackedFft);
}

TEST(Plan2DPackedFft, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{100, 10000}, {10000, 100}, {1001, 3000}, {512, 4098}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, Cuda2DMethod::PackedFft);
  }
}

TEST(Plan2DPackedFft, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{1, 6}, {7, 130}, {300, 1000}}) {
    expect_round_trip<double>(rows, cols, cuda_options(Cuda2DMethod::PackedFft));
  }
}

TEST(Plan2DPackedFft, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    expect_in_place_host_and_reuse<float>(kind, 45, 130, cuda_options(Cuda2DMethod::PackedFft));
  }
}

TEST(Plan2DPackedFft, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  expect_unaligned_device_pointers<float>(100, 300, cuda_options(Cuda2DMethod::PackedFft));
  expect_unaligned_device_pointers<double>(33, 18, cuda_options(Cuda2DMethod::PackedFft));
}

TEST(Plan2DPackedFft, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{1, 4}, {31, 34}, {128, 300}}) {
    expect_zero_below<float>(rows, cols, cuda_options(Cuda2DMethod::PackedFft));
    expect_zero_below<double>(rows, cols, cuda_options(Cuda2DMethod::PackedFft));
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DPackedFft, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  expect_method_captured_in_graph(Cuda2DMethod::PackedFft, 99, 300, {Transform2D::Dct2, Transform2D::IdctIdxst});
}
#endif

TEST(Plan2DPackedFft, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // Odd column counts, two columns (one complex column), a single element; 7 x 1 is planned as
  // 1 x 7.
  for (const auto& [rows, cols] : {std::pair{5, 7}, {64, 255}, {3, 2}, {1, 1}, {7, 1}}) {
    expect_method_rejected(Cuda2DMethod::PackedFft, Transform2D::Dct2, rows, cols,
                           "PackedFft needs an even column count of at least 4");
  }
}

TEST(Plan2DPackedFft, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(Cuda2DMethod::PackedFft), "packed_fft");
  expect_cpu_backend_ignores_method(Cuda2DMethod::PackedFft, Transform2D::Dct2);
}

}  // namespace
}  // namespace efield::test
