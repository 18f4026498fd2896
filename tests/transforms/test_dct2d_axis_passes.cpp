// The two CUDA methods of Plan2D side by side: Cuda2DMethod::AxisPasses (one shared-memory pass
// per axis, powers of two) against the float64 definitions at every power-of-two shape from 2 to
// the largest supported length, against OneFft at large sizes, in place, through host pointers,
// with zero_below and inside a CUDA graph; OneFft forced on power-of-two sizes; and the errors of
// asking for AxisPasses where it does not apply.
#include <gtest/gtest.h>

#include <cmath>
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

// Every power of two on each axis at least once, square and both non-square ways, and the
// largest supported length against the smallest (the dense reference stays cheap there).
template <typename T>
std::vector<std::pair<int, int>> axis_pass_sizes() {
  constexpr int kMax = sizeof(T) == sizeof(float) ? 8192 : 4096;
  std::vector<std::pair<int, int>> sizes{{2, 2},   {2, 4},    {4, 2},   {4, 4},    {8, 8},   {2, 16}, {16, 2},
                                         {8, 32},  {32, 8},   {64, 64}, {16, 128}, {128, 16}, {256, 256},
                                         {4, 512}, {512, 4},  {2, 1024}, {1024, 2}, {2, 2048}, {2048, 2}};
  sizes.push_back({2, 4096});
  sizes.push_back({4096, 2});
  if (kMax == 8192) {
    sizes.push_back({2, 8192});
    sizes.push_back({8192, 2});
  }
  return sizes;
}

TEST(Plan2DAxisPasses, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(axis_pass_sizes<float>(), Cuda2DMethod::AxisPasses);
}
TEST(Plan2DAxisPasses, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(axis_pass_sizes<double>(), Cuda2DMethod::AxisPasses);
}

// OneFft named explicitly, on the power-of-two shapes AxisPasses also takes.
TEST(Plan2DAxisPasses, OneFftStillMatchesDefinition) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{2, 2}, {8, 8}, {4, 64}, {64, 4}, {128, 128}}) {
    for (Transform2D kind : kAllKinds) {
      expect_2d_matches_definition<float>(kind, rows, cols, Backend::Cuda, Cuda2DMethod::OneFft);
      expect_2d_matches_definition<double>(kind, rows, cols, Backend::Cuda, Cuda2DMethod::OneFft);
    }
  }
}

// Large sizes against the OneFft path (float against double keeps the comparison meaningful).
TEST(Plan2DAxisPasses, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{2048, 2048}, {512, 4096}, {8192, 256}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, Cuda2DMethod::AxisPasses);
  }
}

TEST(Plan2DAxisPasses, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{2, 2}, {16, 256}, {1024, 512}}) {
    expect_round_trip<double>(rows, cols, cuda_options(Cuda2DMethod::AxisPasses));
  }
}

TEST(Plan2DAxisPasses, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    expect_in_place_host_and_reuse<float>(kind, 32, 64, cuda_options(Cuda2DMethod::AxisPasses));
  }
}

TEST(Plan2DAxisPasses, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{2, 2}, {64, 32}, {256, 512}}) {
    expect_zero_below<float>(rows, cols, cuda_options(Cuda2DMethod::AxisPasses));
    expect_zero_below<double>(rows, cols, cuda_options(Cuda2DMethod::AxisPasses));
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DAxisPasses, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  expect_method_captured_in_graph(Cuda2DMethod::AxisPasses, 128, 256, {Transform2D::IdctIdxst});
}
#endif

TEST(Plan2DAxisPasses, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{3, 4}, {4, 3}, {1, 8}, {8, 1}, {16384, 2}}) {
    expect_method_rejected(Cuda2DMethod::AxisPasses, Transform2D::Dct2, rows, cols,
                           "AxisPasses needs both sizes to be powers of two in 2..8192");
  }
  expect_method_rejected<double>(Cuda2DMethod::AxisPasses, Transform2D::Dct2, 8192, 2, "2..4096");
}

TEST(Plan2DAxisPasses, InvalidMethodValue) {
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cuda_2d_method = static_cast<Cuda2DMethod>(99);
  try {
    Plan2D<float>(Transform2D::Dct2, 4, 4, o);
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda_2d_method"), std::string::npos) << e.what();
  }
}

TEST(Plan2DAxisPasses, CpuBackendIgnoresTheMethod) {
  expect_cpu_backend_ignores_method(Cuda2DMethod::AxisPasses, Transform2D::Dct2);
  EXPECT_STREQ(to_string(Cuda2DMethod::AxisPasses), "axis_passes");
  EXPECT_STREQ(to_string(Cuda2DMethod::OneFft), "one_fft");
  EXPECT_STREQ(to_string(Cuda2DMethod::Auto), "auto");
}

}  // namespace
}  // namespace efield::test
