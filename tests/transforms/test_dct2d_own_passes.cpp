// The methods whose passes are all our own: Cuda2DMethod::TwoPasses (a row pass with the reorder
// folded in, then the column pass) and ThreePasses (the same row pass, the column FFT as two
// four-step passes): against the float64 definitions and against OneFft (up to 8192 on each
// axis), round trip, in place, through host pointers, at unaligned device pointers, with
// zero_below and inside a CUDA graph; and the error of asking for one where it does not apply.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/device_properties.hpp"
#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"
#include "transforms/cuda2d_policy.hpp"

#if EFIELD_HAS_CUDA
#include "graph_replay.hpp"
#endif

namespace efield::test {
namespace {

// Each method with shapes it takes, small enough for the dense float64 reference: TwoPasses at
// row and column lengths 64..2048 (a row-pass block holds several rows below 4096 columns, so
// 64 rows of 64 columns fill half a block); ThreePasses from 1024 rows (the four-step split
// 64 x 16 .. 64 x 64). 4096 and 8192 on each axis against OneFft below.
struct MethodShapes {
  Cuda2DMethod method;
  std::vector<std::pair<int, int>> definition;  // against the dense definitions
  std::vector<std::pair<int, int>> large;       // against OneFft in double
  std::pair<int, int> small;                    // the other checks
};
std::vector<MethodShapes> own_pass_methods() {
  return {{Cuda2DMethod::TwoPasses,
           {{64, 64}, {64, 128}, {128, 256}, {256, 512}, {64, 1024}, {64, 2048}, {512, 64}, {1024, 128}, {2048, 64}},
           {{2048, 2048}, {4096, 4096}, {8192, 1024}, {512, 8192}, {64, 4096}, {8192, 64}},
           {128, 256}},
          {Cuda2DMethod::ThreePasses,
           {{1024, 64}, {1024, 256}, {2048, 128}, {4096, 64}},
           {{2048, 2048}, {4096, 4096}, {8192, 8192}, {8192, 64}, {1024, 8192}, {4096, 512}},
           {1024, 128}}};
}

TEST(Plan2DOwnPasses, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) expect_cuda_method_matches_definition<float>(m.definition, m.method);
}
TEST(Plan2DOwnPasses, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) expect_cuda_method_matches_definition<double>(m.definition, m.method);
}

TEST(Plan2DOwnPasses, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) {
    for (const auto& [rows, cols] : m.large) expect_float_method_agrees_with_one_fft(rows, cols, m.method);
  }
}

TEST(Plan2DOwnPasses, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{64, 64}, {256, 1024}, {1024, 128}}) {
    expect_round_trip<double>(rows, cols, cuda_options(Cuda2DMethod::TwoPasses));
  }
  for (const auto& [rows, cols] : {std::pair{1024, 64}, {2048, 256}}) {
    expect_round_trip<double>(rows, cols, cuda_options(Cuda2DMethod::ThreePasses));
  }
}

TEST(Plan2DOwnPasses, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) {
    SCOPED_TRACE(to_string(m.method));
    for (Transform2D kind : kAllKinds) {
      expect_in_place_host_and_reuse<float>(kind, m.small.first, m.small.second, cuda_options(m.method));
    }
  }
}

// The row pass reads and writes 16-byte quads, and so does the inverse column pass's preprocess.
TEST(Plan2DOwnPasses, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) {
    SCOPED_TRACE(to_string(m.method));
    expect_unaligned_device_pointers<float>(m.small.first, m.small.second, cuda_options(m.method));
  }
}

TEST(Plan2DOwnPasses, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) {
    SCOPED_TRACE(to_string(m.method));
    expect_zero_below<float>(m.small.first, m.small.second, cuda_options(m.method));
    expect_zero_below<double>(m.small.first, m.small.second, cuda_options(m.method));
  }
}

// TwoPasses in float from 2048^2 elements keeps the spectrum in the output array (dct2: a
// cooperative column pass in place; inverses: a compact column pass, then the row pass in
// place) when the output is 16-byte aligned and apart from the input, and the spectrum buffer
// otherwise. Each case against OneFft in double: out of place (in the output array), in place
// and at an unaligned output (the buffer), and in a graph. 8192 rows take no compact inverse
// column pass (two columns a block), so they check the buffer path's choice.
TEST(Plan2DOwnPasses, SpectrumInTheOutputArray) {
  EFIELD_REQUIRE_GPU();
  auto check = [](Transform2D kind, int rows, int cols) {
    SCOPED_TRACE(testing::Message() << to_string(kind) << " " << rows << "x" << cols);
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    Plan2D<float> plan(kind, rows, cols, cuda_options(Cuda2DMethod::TwoPasses));
    Plan2D<double> ref(kind, rows, cols, cuda_options(Cuda2DMethod::OneFft));
    const auto x = random_vector<float>(n, next_seed());
    const auto expected = run_execute(ref, to_double(x));
    EXPECT_LE(relative_l2(run_execute(plan, x), expected), tolerance<float>());
    EXPECT_LE(relative_l2(run_in_place(plan, x), expected), tolerance<float>());
    DeviceArray<float> d_in(x);
    DeviceArray<float> d_out(poisoned<float>(n + 2));
    plan.execute(d_in.get(), d_out.get() + 1, nullptr);
    device_synchronize();
    const auto shifted = d_out.download();
    EXPECT_TRUE(std::isnan(shifted.front()));
    EXPECT_TRUE(std::isnan(shifted.back()));
    EXPECT_LE(relative_l2(std::vector<float>(shifted.begin() + 1, shifted.end() - 1), expected), tolerance<float>());
#if EFIELD_HAS_CUDA
    capture_and_replay<float>(plan, n, cudaStreamCaptureModeGlobal,
                              [&](const std::vector<double>& in) { return run_execute(ref, in); });
#endif
  };
  for (Transform2D kind : {Transform2D::Dct2, Transform2D::Idct2, Transform2D::IdctIdxst, Transform2D::IdxstIdct}) {
    check(kind, 2048, 2048);
  }
  for (const auto& [rows, cols] : {std::pair{512, 8192}, {4096, 1024}, {8192, 512}}) {
    check(Transform2D::Dct2, rows, cols);
    check(Transform2D::IdxstIdct, rows, cols);
  }
}

// The dct2 column kernels are compiled with and without zero_below; ZeroBelow above checks the
// small shapes against the definition. Here the large ones, where other kernels run (TwoPasses'
// column pass in the output array at 2048^2 float, ThreePasses' group pass at 4096 and 8192
// rows): with zero_below, each coefficient is the one the same method gives without it, or 0
// where that one is below zero_below in magnitude.
TEST(Plan2DOwnPasses, ZeroBelowAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [method, rows, cols] : {std::tuple{Cuda2DMethod::TwoPasses, 2048, 2048},
                                           {Cuda2DMethod::ThreePasses, 8192, 256},
                                           {Cuda2DMethod::ThreePasses, 4096, 512}}) {
    SCOPED_TRACE(testing::Message() << to_string(method) << " " << rows << "x" << cols);
    const auto x = random_vector<float>(static_cast<std::size_t>(rows) * cols, next_seed());
    PlanOptions options = cuda_options(method);
    Plan2D<float> plain(Transform2D::Dct2, rows, cols, options);
    const auto expected = run_execute(plain, x);
    double mean_abs = 0;
    for (float e : expected) mean_abs += std::fabs(e) / static_cast<double>(expected.size());
    options.zero_below = mean_abs;
    Plan2D<float> thresholded(Transform2D::Dct2, rows, cols, options);
    EXPECT_GT(expect_thresholded(run_execute(thresholded, x), expected, mean_abs, 1e-6), 0);
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DOwnPasses, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  for (const MethodShapes& m : own_pass_methods()) {
    const auto [rows, cols] = m.small;
    expect_method_captured_in_graph(m.method, rows, cols, {Transform2D::Dct2, Transform2D::IdctIdxst});
  }
}
#endif

TEST(Plan2DOwnPasses, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // A size not a power of two, below 64 or above 8192 on either axis.
  for (const auto& [rows, cols] : {std::pair{100, 64}, {64, 100}, {32, 64}, {64, 32}, {16384, 64}, {64, 16384},
                                   {1, 256}, {256, 1}}) {
    expect_method_rejected(Cuda2DMethod::TwoPasses, Transform2D::Idct2, rows, cols,
                           "TwoPasses needs both sizes to be powers of two in 64..8192");
    expect_method_rejected(Cuda2DMethod::ThreePasses, Transform2D::Idct2, rows, cols,
                    "ThreePasses needs both sizes to be powers of two in 64..8192, and at least 1024 rows");
  }
  // ThreePasses: fewer than 1024 rows.
  for (const auto& [rows, cols] : {std::pair{512, 4096}, {64, 64}}) {
    expect_method_rejected(Cuda2DMethod::ThreePasses, Transform2D::Idct2, rows, cols, "at least 1024 rows");
  }
}

// What Auto runs, as the plan reports it, is the policy table's choice for this device's compute
// capability (test_cuda2d_policy.cpp checks the table's choices themselves on the host).
TEST(Plan2DCudaAuto, RunsThePolicyChoiceForTheDevice) {
  EFIELD_REQUIRE_GPU();
  const int cc = detail::current_compute_capability();
  PlanOptions o;
  o.backend = Backend::Cuda;
  auto check = [&](auto type, Transform2D kind, int rows, int cols) {
    using T = decltype(type);
    SCOPED_TRACE(testing::Message() << type_name<T>() << " " << to_string(kind) << " " << rows << "x" << cols);
    EXPECT_EQ(Plan2D<T>(kind, rows, cols, o).cuda_2d_method(),
              detail::choose_cuda_2d_method(cc, detail::scalar_of<T>(), kind, rows, cols));
  };
  for (const auto& [kind, rows, cols] :
       {std::tuple{Transform2D::Dct2, 2048, 2048}, {Transform2D::Dct2, 2048, 1024}, {Transform2D::Idct2, 2048, 2048},
        {Transform2D::IdxstIdct, 1024, 1024}, {Transform2D::Idct2, 512, 512}, {Transform2D::Dct2, 512, 8192},
        {Transform2D::Dct2, 512, 1000}, {Transform2D::IdctIdxst, 1024, 3000}, {Transform2D::Idct2, 2048, 512},
        {Transform2D::Dct2, 4096, 4096}, {Transform2D::IdctIdxst, 8192, 8192}, {Transform2D::Idct2, 8192, 256},
        {Transform2D::Dct2, 4096, 128}, {Transform2D::Dct2, 4096, 512}, {Transform2D::Idct2, 4096, 1024},
        {Transform2D::IdctIdxst, 1024, 4096}, {Transform2D::IdctIdxst, 8192, 512}, {Transform2D::Idct2, 4096, 2048},
        {Transform2D::Dct2, 4096, 4000}, {Transform2D::Dct2, 100, 10000}, {Transform2D::IdxstIdct, 10000, 100},
        {Transform2D::Dct2, 3000, 300}, {Transform2D::Idct2, 6000, 300}, {Transform2D::Dct2, 2000, 1000},
        {Transform2D::Dct2, 20000, 500}, {Transform2D::Dct2, 12000, 200}, {Transform2D::Dct2, 10001, 100},
        {Transform2D::Idct2, 300, 255}, {Transform2D::Idct2, 300, 1001}, {Transform2D::Dct2, 3000, 1},
        {Transform2D::Dct2, 100, 300}, {Transform2D::Dct2, 256, 256}, {Transform2D::Dct2, 128, 128},
        {Transform2D::Dct2, 2048, 100}, {Transform2D::Dct2, 1024, 100}, {Transform2D::Dct2, 1000, 1024}}) {
    check(0.0f, kind, rows, cols);
    check(0.0, kind, rows, cols);
  }
}

TEST(Plan2DOwnPasses, NamesAndCpuBackend) {
  EXPECT_STREQ(to_string(Cuda2DMethod::TwoPasses), "two_passes");
  EXPECT_STREQ(to_string(Cuda2DMethod::ThreePasses), "three_passes");
  for (Cuda2DMethod method : {Cuda2DMethod::TwoPasses, Cuda2DMethod::ThreePasses}) {
    expect_cpu_backend_ignores_method(method, Transform2D::Idct2);
  }
}

}  // namespace
}  // namespace efield::test
