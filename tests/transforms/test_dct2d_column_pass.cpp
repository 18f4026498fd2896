// Cuda2DMethod::RowFftColumnPass (cuFFT's batched row FFTs, then one own pass down the columns
// with the 2D pre/postprocess fused): against the float64 definitions at every supported column
// length (64..8192 rows) with odd, prime, even and tiny column counts, against OneFft at large
// sizes, round trip, in place, through host pointers, at unaligned device pointers, with
// zero_below and inside a CUDA graph; and the error of asking for it where it does not apply.
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

// Every supported row count; column counts of 2, odd, prime, even, and such that N/2 + 1 is not
// a multiple of the pass's column tile (so the last block owns fewer columns). Multiples of 4
// from 8 on take the inverse's quad preprocess (8, 12, 16, 20, 100: groups of four columns that
// end past N/2 or start there).
std::vector<std::pair<int, int>> column_pass_sizes() {
  return {{64, 2},    {64, 255},  {128, 127}, {128, 16}, {256, 5},  {256, 100}, {512, 31},  {1024, 17},
          {2048, 3},  {4096, 7},  {8192, 2},  {8192, 3}, {64, 64},  {64, 8},    {256, 12},  {1024, 20},
          {2048, 12}, {4096, 20}};
}

TEST(Plan2DColumnPass, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(column_pass_sizes(), Cuda2DMethod::RowFftColumnPass);
}
TEST(Plan2DColumnPass, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(column_pass_sizes(), Cuda2DMethod::RowFftColumnPass);
}

TEST(Plan2DColumnPass, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{2048, 2048}, {4096, 1001}, {8192, 256}, {512, 4097}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, Cuda2DMethod::RowFftColumnPass);
  }
}

TEST(Plan2DColumnPass, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{64, 3}, {256, 130}, {1024, 512}}) {
    expect_round_trip<double>(rows, cols, cuda_options(Cuda2DMethod::RowFftColumnPass));
  }
}

TEST(Plan2DColumnPass, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    expect_in_place_host_and_reuse<float>(kind, 128, 45, cuda_options(Cuda2DMethod::RowFftColumnPass));
  }
}

// The inverse's preprocess reads 16-byte quads when N % 4 == 0 (a staged copy otherwise).
TEST(Plan2DColumnPass, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  expect_unaligned_device_pointers<float>(256, 100, cuda_options(Cuda2DMethod::RowFftColumnPass));
  expect_unaligned_device_pointers<double>(128, 16, cuda_options(Cuda2DMethod::RowFftColumnPass));
}

TEST(Plan2DColumnPass, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{64, 2}, {128, 33}, {512, 256}}) {
    expect_zero_below<float>(rows, cols, cuda_options(Cuda2DMethod::RowFftColumnPass));
    expect_zero_below<double>(rows, cols, cuda_options(Cuda2DMethod::RowFftColumnPass));
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DColumnPass, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  expect_method_captured_in_graph(Cuda2DMethod::RowFftColumnPass, 256, 99, {Transform2D::Dct2, Transform2D::IdxstIdct});
}
#endif

TEST(Plan2DColumnPass, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // Rows not a power of two, below 64, above 8192; a single column is planned as a single row.
  for (const auto& [rows, cols] : {std::pair{100, 64}, {32, 64}, {16384, 2}, {1, 256}, {256, 1}}) {
    expect_method_rejected(Cuda2DMethod::RowFftColumnPass, Transform2D::Dct2, rows, cols,
                           "RowFftColumnPass needs a power-of-two row count in 64..8192");
  }
}

TEST(Plan2DColumnPass, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(Cuda2DMethod::RowFftColumnPass), "row_fft_column_pass");
  expect_cpu_backend_ignores_method(Cuda2DMethod::RowFftColumnPass, Transform2D::Dct2);
}

}  // namespace
}  // namespace efield::test
