// Cuda2DMethod::TwoPasses (an own row pass with the reorder folded in, then the column pass):
// against the float64 definitions (lengths 64..2048) and against OneFft (up to 8192 on each
// axis), round trip, in place, through host pointers, at unaligned device pointers, with
// zero_below and inside a CUDA graph; and the error of asking for it where it does not apply.
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

PlanOptions two_passes() {
  PlanOptions o;
  o.backend = Backend::Cuda;
  o.cuda_2d_method = Cuda2DMethod::TwoPasses;
  return o;
}

// Row and column lengths 64..2048 against the definitions (a row-pass block holds several rows
// below 4096 columns, so 64 rows of 64 columns fill half a block); 4096 and 8192 on each axis
// against OneFft below, where the dense reference would be slow.
std::vector<std::pair<int, int>> two_pass_sizes() {
  return {{64, 64}, {64, 128}, {128, 256}, {256, 512}, {64, 1024}, {64, 2048}, {512, 64}, {1024, 128}, {2048, 64}};
}

TEST(Plan2DTwoPasses, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(two_pass_sizes(), Cuda2DMethod::TwoPasses);
}
TEST(Plan2DTwoPasses, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(two_pass_sizes(), Cuda2DMethod::TwoPasses);
}

TEST(Plan2DTwoPasses, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] :
       {std::pair{2048, 2048}, {4096, 4096}, {8192, 1024}, {512, 8192}, {64, 4096}, {8192, 64}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, Cuda2DMethod::TwoPasses);
  }
}

TEST(Plan2DTwoPasses, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{64, 64}, {256, 1024}, {1024, 128}}) {
    expect_round_trip<double>(rows, cols, two_passes());
  }
}

TEST(Plan2DTwoPasses, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) expect_in_place_host_and_reuse<float>(kind, 128, 256, two_passes());
}

// Arrays that start one element past an allocation (4 or 8 bytes off the row pass's 16-byte
// quads) go through the plan's staging buffer: same result, nothing written outside the array.
TEST(Plan2DTwoPasses, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  const int rows = 64, cols = 128;
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  for (Transform2D kind : kAllKinds) {
    SCOPED_TRACE(to_string(kind));
    Plan2D<float> plan(kind, rows, cols, two_passes());
    const auto x = random_vector<float>(n, next_seed());
    std::vector<float> shifted_in(n + 1, 7.0f);
    std::copy(x.begin(), x.end(), shifted_in.begin() + 1);
    DeviceArray<float> d_in(shifted_in);
    DeviceArray<float> d_out(poisoned<float>(n + 2));
    plan.execute(d_in.get() + 1, d_out.get() + 1, nullptr);
    device_synchronize();
    auto out = d_out.download();
    EXPECT_TRUE(std::isnan(out.front()));
    EXPECT_TRUE(std::isnan(out.back()));
    const std::vector<float> result(out.begin() + 1, out.end() - 1);
    EXPECT_LE(relative_l2(result, dense_2d(kind, to_double(x), rows, cols)), tolerance<float>());
  }
}

TEST(Plan2DTwoPasses, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{64, 64}, {128, 512}}) {
    expect_zero_below<float>(rows, cols, two_passes());
    expect_zero_below<double>(rows, cols, two_passes());
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DTwoPasses, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  const int rows = 256, cols = 128;
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::IdctIdxst}) {
    SCOPED_TRACE(to_string(kind));
    Plan2D<float> plan(kind, rows, cols, two_passes());
    capture_and_replay<float>(plan, static_cast<size_t>(rows) * cols, cudaStreamCaptureModeGlobal,
                              [&](const std::vector<double>& x) { return dense_2d(kind, x, rows, cols); });
  }
}
#endif

TEST(Plan2DTwoPasses, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // A size not a power of two, below 64 or above 8192 on either axis.
  for (const auto& [rows, cols] : {std::pair{100, 64}, {64, 100}, {32, 64}, {64, 32}, {16384, 64}, {64, 16384},
                                   {1, 256}, {256, 1}}) {
    std::string msg;
    try {
      Plan2D<float>(Transform2D::Idct2, rows, cols, two_passes());
    } catch (const Error& e) {
      msg = e.what();
    }
    EXPECT_NE(msg.find("TwoPasses needs both sizes to be powers of two in 64..8192"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(rows) + "x" + std::to_string(cols)), std::string::npos) << msg;
  }
}

// What Auto runs, as reported by the plan (resolve_cuda_2d_method's measured rule): rows
// 512..2048 (256..2048 in float) and at least 1024 columns or as many columns as rows; there TwoPasses for powers of
// two (in double from 1024 columns), else RowFftColumnPass for dct2 and float inverses; else
// OneFft.
TEST(Plan2DCudaAuto, ResolvesByMeasuredRule) {
  EFIELD_REQUIRE_GPU();
  PlanOptions o;
  o.backend = Backend::Cuda;
  auto method = [&](auto type, Transform2D kind, int rows, int cols) {
    return Plan2D<decltype(type)>(kind, rows, cols, o).cuda_2d_method();
  };
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 2048, 2048), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0f, Transform2D::IdxstIdct, 1024, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0f, Transform2D::Idct2, 512, 512), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0, Transform2D::Idct2, 1024, 1024), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0, Transform2D::Dct2, 512, 8192), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0, Transform2D::Dct2, 512, 512), Cuda2DMethod::RowFftColumnPass);
  EXPECT_EQ(method(0.0, Transform2D::Idct2, 512, 512), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0, Transform2D::Dct2, 512, 1000), Cuda2DMethod::RowFftColumnPass);
  EXPECT_EQ(method(0.0f, Transform2D::IdctIdxst, 1024, 3000), Cuda2DMethod::RowFftColumnPass);
  EXPECT_EQ(method(0.0, Transform2D::IdctIdxst, 1024, 3000), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Idct2, 2048, 512), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 4096, 4096), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 256, 256), Cuda2DMethod::TwoPasses);
  EXPECT_EQ(method(0.0, Transform2D::Dct2, 256, 256), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 128, 128), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 2048, 100), Cuda2DMethod::OneFft);
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 1000, 1024), Cuda2DMethod::OneFft);
  o.cuda_2d_method = Cuda2DMethod::AxisPasses;
  EXPECT_EQ(method(0.0f, Transform2D::Dct2, 64, 64), Cuda2DMethod::AxisPasses);
}

TEST(Plan2DTwoPasses, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(Cuda2DMethod::TwoPasses), "two_passes");
  PlanOptions o;
  o.backend = Backend::Cpu;
  o.cuda_2d_method = Cuda2DMethod::TwoPasses;
  const int rows = 3, cols = 5;  // the option is for the CUDA backend only
  Plan2D<double> plan(Transform2D::Idct2, rows, cols, o);
  EXPECT_EQ(plan.cuda_2d_method(), Cuda2DMethod::Auto);
  const auto x = random_vector<double>(rows * cols, next_seed());
  EXPECT_LE(relative_l2(run_execute(plan, x), dense_2d(Transform2D::Idct2, x, rows, cols)), tolerance<double>());
}

}  // namespace
}  // namespace efield::test
