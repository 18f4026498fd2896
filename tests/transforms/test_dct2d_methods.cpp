// Every CUDA 2D method of the registry (src/transforms/cuda2d_registry.cpp), one parameterised
// suite: against the float64 definitions, against OneFft in double at large sizes, round trip, in
// place, through host pointers, reused, at unaligned device pointers, with zero_below and inside
// a CUDA graph; its rule and the error of asking for it where it does not apply. The shapes per
// method are in method_cases() below, chosen for what each method does differently (the lengths
// its own passes are compiled for, tiles left partial, packed pairs, the prime-factor split).
// After the suite, the checks that belong to one method only: the prime-factor index maps,
// TwoPasses' spectrum in the output array, the large-size zero_below of the own passes, and Auto
// following the policy table on the device.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/device_properties.hpp"
#include "math/prime_factor.hpp"
#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"
#include "transforms/cuda2d_policy.hpp"
#include "transforms/cuda2d_registry.hpp"

#if EFIELD_HAS_CUDA
#include "graph_replay.hpp"
#endif

namespace efield::test {
namespace {

using Shape = std::pair<int, int>;

// Asking for the method at `shape` (a plan of the case's rejected_kind) throws with `rule` in
// the message.
struct Rejection {
  Shape shape;
  std::string rule;
};

struct MethodCase {
  Cuda2DMethod method;
  std::vector<Shape> definition;  // every transform, float and double, against the definitions
  std::vector<Shape> large;       // every transform, float against OneFft in double
  std::vector<Shape> round_trip;  // dct2 then idct2, double
  Shape in_place;                 // every transform, float: in place, host pointers, reuse
  std::vector<Shape> unaligned_float;
  std::vector<Shape> unaligned_double;
  std::vector<Shape> zero_below;  // float and double
  Shape graph;                    // float, captured once and replayed
  std::vector<Transform2D> graph_kinds;
  Transform2D rejected_kind;
  std::vector<Rejection> rejected;
  Transform2D cpu_kind;  // the CPU backend ignores the method
  const char* name;      // to_string's
};

std::vector<Rejection> with_rule(const std::vector<Shape>& shapes, const std::string& rule) {
  std::vector<Rejection> out;
  for (const Shape& s : shapes) out.push_back({s, rule});
  return out;
}

const std::vector<MethodCase>& method_cases() {
  static const std::vector<MethodCase> cases = [] {
    std::vector<MethodCase> c;
    // OneFft: small power-of-two shapes named explicitly (test_dct2d.cpp sweeps Auto, which runs
    // OneFft at most small shapes, over odd and prime sizes); it takes every shape.
    c.push_back({Cuda2DMethod::OneFft,
                 {{2, 2}, {8, 8}, {4, 64}, {64, 4}, {128, 128}},
                 {},
                 {{1, 9}, {64, 33}},
                 {17, 32},
                 {{64, 100}, {33, 64}},
                 {{33, 18}},
                 {{1, 16}, {33, 64}},
                 {64, 50},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Dct2,
                 {},
                 Transform2D::Dct2,
                 "one_fft"});
    // RowFftColumnPass: every supported row count; column counts of 2, odd, prime, even, and
    // such that N/2 + 1 is not a multiple of the pass's column tile (so the last block owns fewer
    // columns). Multiples of 4 from 8 on take the inverse's quad preprocess (8, 12, 16, 20, 100:
    // groups of four columns that end past N/2 or start there); it reads 16-byte quads when
    // N % 4 == 0 (a staged copy otherwise). Rejected: rows not a power of two, below 64, above
    // 8192; a single column is planned as a single row.
    c.push_back({Cuda2DMethod::RowFftColumnPass,
                 {{64, 2},
                  {64, 255},
                  {128, 127},
                  {128, 16},
                  {256, 5},
                  {256, 100},
                  {512, 31},
                  {1024, 17},
                  {2048, 3},
                  {4096, 7},
                  {8192, 2},
                  {8192, 3},
                  {64, 64},
                  {64, 8},
                  {256, 12},
                  {1024, 20},
                  {2048, 12},
                  {4096, 20}},
                 {{2048, 2048}, {4096, 1001}, {8192, 256}, {512, 4097}},
                 {{64, 3}, {256, 130}, {1024, 512}},
                 {128, 45},
                 {{256, 100}},
                 {{128, 16}},
                 {{64, 2}, {128, 33}, {512, 256}},
                 {256, 99},
                 {Transform2D::Dct2, Transform2D::IdxstIdct},
                 Transform2D::Dct2,
                 with_rule({{100, 64}, {32, 64}, {16384, 2}, {1, 256}, {256, 1}},
                           "RowFftColumnPass needs a power-of-two row count in 64..8192"),
                 Transform2D::Dct2,
                 "row_fft_column_pass"});
    // TwoPasses: row and column lengths 64..2048 against the definitions (a row-pass block holds
    // several rows below 4096 columns, so 64 rows of 64 columns fill half a block); 4096 and 8192
    // on each axis against OneFft. The row pass reads and writes 16-byte quads, and so does the
    // inverse column pass's preprocess. Rejected: a size not a power of two, below 64 or above
    // 8192 on either axis.
    const std::vector<Shape> not_own_pass_lengths{{100, 64},    {64, 100},    {32, 64}, {64, 32},
                                                  {16384, 64}, {64, 16384}, {1, 256}, {256, 1}};
    c.push_back({Cuda2DMethod::TwoPasses,
                 {{64, 64},
                  {64, 128},
                  {128, 256},
                  {256, 512},
                  {64, 1024},
                  {64, 2048},
                  {512, 64},
                  {1024, 128},
                  {2048, 64}},
                 {{2048, 2048}, {4096, 4096}, {8192, 1024}, {512, 8192}, {64, 4096}, {8192, 64}},
                 {{64, 64}, {256, 1024}, {1024, 128}},
                 {128, 256},
                 {{128, 256}},
                 {},
                 {{128, 256}},
                 {128, 256},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Idct2,
                 with_rule(not_own_pass_lengths, "TwoPasses needs both sizes to be powers of two in 64..8192"),
                 Transform2D::Idct2,
                 "two_passes"});
    // ThreePasses: from 1024 rows (the four-step split 64 x 16 .. 64 x 64). Rejected: TwoPasses'
    // shapes, and fewer than 1024 rows.
    std::vector<Rejection> three_rejected = with_rule(
        not_own_pass_lengths, "ThreePasses needs both sizes to be powers of two in 64..8192, and at least 1024 rows");
    for (const Shape& s : {Shape{512, 4096}, Shape{64, 64}}) three_rejected.push_back({s, "at least 1024 rows"});
    c.push_back({Cuda2DMethod::ThreePasses,
                 {{1024, 64}, {1024, 256}, {2048, 128}, {4096, 64}},
                 {{2048, 2048}, {4096, 4096}, {8192, 8192}, {8192, 64}, {1024, 8192}, {4096, 512}},
                 {{1024, 64}, {2048, 256}},
                 {1024, 128},
                 {{1024, 128}},
                 {},
                 {{1024, 128}},
                 {1024, 128},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Idct2,
                 three_rejected,
                 Transform2D::Idct2,
                 "three_passes"});
    // PackedFft: column counts 4, 6 (N/2 = 3), 8, 10, 16, 100, 126, 128, 130, 254 and 256; row
    // counts 1, 2, 3, 5, 7, 17, 31, 64, 127 and 255; 8 x 1 is planned as 1 x 8. Rejected: odd
    // column counts, two columns (one complex column), a single element; 7 x 1 is planned as
    // 1 x 7.
    c.push_back({Cuda2DMethod::PackedFft,
                 {{1, 4},
                  {1, 6},
                  {1, 254},
                  {2, 4},
                  {3, 6},
                  {5, 8},
                  {7, 10},
                  {17, 16},
                  {31, 100},
                  {64, 126},
                  {127, 128},
                  {255, 130},
                  {2, 254},
                  {100, 256},
                  {8, 1},
                  {16, 1},
                  {128, 6},
                  {3, 300}},
                 {{100, 10000}, {10000, 100}, {1001, 3000}, {512, 4098}},
                 {{1, 6}, {7, 130}, {300, 1000}},
                 {45, 130},
                 {{100, 300}},
                 {{33, 18}},
                 {{1, 4}, {31, 34}, {128, 300}},
                 {99, 300},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Dct2,
                 with_rule({{5, 7}, {64, 255}, {3, 2}, {1, 1}, {7, 1}},
                           "PackedFft needs an even column count of at least 4"),
                 Transform2D::Dct2,
                 "packed_fft"});
    // TransposedPackedFft: row counts 4, 6 (rows/2 = 3), 8, 10, 16, 100, 126, 128, 130, 254 and
    // 256; column counts 1, 2, 3, 5, 7, 17, 31, 33, 64, 127 and 255 (partial 32 x 32 tiles).
    // Rejected: odd row counts, two rows (one complex row of the transposed array), a single row
    // or element.
    c.push_back({Cuda2DMethod::TransposedPackedFft,
                 {{4, 1},
                  {6, 1},
                  {254, 1},
                  {4, 2},
                  {6, 3},
                  {8, 5},
                  {10, 7},
                  {16, 17},
                  {100, 31},
                  {126, 64},
                  {128, 127},
                  {130, 255},
                  {254, 2},
                  {256, 100},
                  {4, 33},
                  {300, 3}},
                 {{10000, 100}, {100, 10000}, {3000, 1001}, {4098, 512}},
                 {{6, 1}, {130, 7}, {1000, 300}},
                 {130, 45},
                 {{300, 100}},
                 {{18, 33}},
                 {{4, 1}, {34, 31}, {300, 128}},
                 {300, 99},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Dct2,
                 with_rule({{7, 5}, {255, 64}, {2, 3}, {1, 1}, {1, 8}},
                           "TransposedPackedFft needs an even row count of at least 4"),
                 Transform2D::Dct2,
                 "transposed_packed_fft"});
    // PrimeFactorFft: row counts 2 P Q: P = 2 (12, 20, 252: Q = 3, 5, 63), 4 (24, 40, 136: Q = 3,
    // 5, 17), 8 (48, 80, 400: Q = 3, 5, 25), 16 (96: Q = 3); column counts 1, 2, 3, 5, 7, 16, 17,
    // 31, 64, 100, 127, 255. Rejected: odd row counts; rows/2 odd (P = 1); rows/2 a power of two
    // (Q = 1); P = 32 (192 = 2 x 32 x 3); too few rows.
    c.push_back({Cuda2DMethod::PrimeFactorFft,
                 {{12, 1},
                  {12, 2},
                  {20, 3},
                  {24, 5},
                  {48, 7},
                  {80, 17},
                  {96, 16},
                  {136, 31},
                  {252, 64},
                  {400, 100},
                  {40, 127},
                  {12, 255},
                  {96, 1}},
                 {{10000, 100}, {2000, 100}, {3000, 300}, {6000, 1000}},
                 {{12, 1}, {80, 7}, {1000, 300}},
                 {120, 45},
                 {{300, 100}},
                 {{24, 33}},
                 {{12, 1}, {40, 31}, {300, 128}},
                 {300, 99},
                 {Transform2D::Dct2, Transform2D::IdctIdxst},
                 Transform2D::Dct2,
                 with_rule({{7, 5}, {6, 3}, {10002, 100}, {8, 3}, {256, 64}, {192, 10}, {2, 3}, {1, 1}, {1, 8}},
                           "PrimeFactorFft needs rows/2 = P Q with P a power of two in 2..16 and Q odd, at least 3"),
                 Transform2D::Dct2,
                 "prime_factor_fft"});
    return c;
  }();
  return cases;
}

std::vector<Cuda2DMethod> registered_methods() {
  std::vector<Cuda2DMethod> methods;
  for (const detail::Cuda2DSolver& s : detail::cuda_2d_solvers()) methods.push_back(s.method);
  return methods;
}

class Plan2DMethod : public testing::TestWithParam<Cuda2DMethod> {
 protected:
  void SetUp() override {
    for (const MethodCase& c : method_cases()) {
      if (c.method == GetParam()) case_ = &c;
    }
    ASSERT_NE(case_, nullptr) << "no test shapes for registered method " << to_string(GetParam())
                              << " in method_cases()";
  }
  const MethodCase& cases() const { return *case_; }
  PlanOptions options() const { return cuda_options(GetParam()); }

 private:
  const MethodCase* case_ = nullptr;
};

TEST_P(Plan2DMethod, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(cases().definition, GetParam());
}
TEST_P(Plan2DMethod, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(cases().definition, GetParam());
}

TEST_P(Plan2DMethod, AgreesWithOneFftAtLargeSizes) {
  if (GetParam() == Cuda2DMethod::OneFft) GTEST_SKIP() << "OneFft is this check's reference";
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : cases().large) expect_float_method_agrees_with_one_fft(rows, cols, GetParam());
}

TEST_P(Plan2DMethod, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : cases().round_trip) expect_round_trip<double>(rows, cols, options());
}

TEST_P(Plan2DMethod, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  const auto [rows, cols] = cases().in_place;
  for (Transform2D kind : kAllKinds) expect_in_place_host_and_reuse<float>(kind, rows, cols, options());
}

TEST_P(Plan2DMethod, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : cases().unaligned_float) {
    expect_unaligned_device_pointers<float>(rows, cols, options());
  }
  for (const auto& [rows, cols] : cases().unaligned_double) {
    expect_unaligned_device_pointers<double>(rows, cols, options());
  }
}

TEST_P(Plan2DMethod, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : cases().zero_below) {
    expect_zero_below<float>(rows, cols, options());
    expect_zero_below<double>(rows, cols, options());
  }
}

#if EFIELD_HAS_CUDA
TEST_P(Plan2DMethod, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  const auto [rows, cols] = cases().graph;
  for (Transform2D kind : cases().graph_kinds) expect_method_captured_in_graph(GetParam(), rows, cols, {kind});
}
#endif

// The registry's rule on the host: it takes every shape the definition checks run, and none of
// the shapes the error names; the requirement text holds the rule the message is checked for.
TEST_P(Plan2DMethod, RuleTakesTheTestedShapesAndRejectsTheOthers) {
  const detail::Cuda2DSolver& solver = detail::cuda_2d_solver(GetParam());
  const std::string message = std::string(solver.name) + " " + solver.requirement;
  for (detail::Scalar scalar : {detail::Scalar::Float, detail::Scalar::Double}) {
    for (const auto& [rows, cols] : cases().definition) {
      for (Transform2D kind : kAllKinds) {
        EXPECT_TRUE(solver.applies(kind, rows, cols, scalar)) << to_string(kind) << " " << rows << "x" << cols;
      }
    }
    for (const Rejection& r : cases().rejected) {
      EXPECT_FALSE(solver.applies(cases().rejected_kind, r.shape.first, r.shape.second, scalar))
          << r.shape.first << "x" << r.shape.second;
      EXPECT_NE(message.find(r.rule), std::string::npos) << message;
    }
  }
}

TEST_P(Plan2DMethod, RejectedWhereItDoesNotApply) {
  if (cases().rejected.empty()) GTEST_SKIP() << to_string(GetParam()) << " takes every shape";
  EFIELD_REQUIRE_GPU();
  for (const Rejection& r : cases().rejected) {
    expect_method_rejected(GetParam(), cases().rejected_kind, r.shape.first, r.shape.second, r.rule);
  }
}

TEST_P(Plan2DMethod, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(GetParam()), cases().name);
  expect_cpu_backend_ignores_method(GetParam(), cases().cpu_kind);
}

INSTANTIATE_TEST_SUITE_P(Registry, Plan2DMethod, testing::ValuesIn(registered_methods()),
                         [](const testing::TestParamInfo<Cuda2DMethod>& info) {
                           return std::string(detail::cuda_2d_solver(info.param).name);
                         });

// ---- one method each ---------------------------------------------------------------------------

// PrimeFactorFft's split (math/prime_factor.hpp) on its own: every n and every k lands in one
// position, and the length-P DFTs over a followed by the length-Q DFTs over b give the length-L
// DFT at (k mod P, k mod Q).
TEST(PrimeFactorSplit, MapsGiveTheDft) {
  const double pi = 3.14159265358979323846;
  for (int L : {6, 10, 12, 24, 40, 48, 120}) {
    SCOPED_TRACE("L = " + std::to_string(L));
    const detail::PrimeFactorSplit s = detail::prime_factor_split(L);
    ASSERT_EQ(s.P * s.Q, L);
    ASSERT_EQ(s.Q % 2, 1);
    std::vector<int> seen_n(L, 0), seen_k(L, 0);
    for (int a = 0; a < s.P; ++a) {
      for (int b = 0; b < s.Q; ++b) ++seen_n[detail::prime_factor_input_index(a, b, s)];
    }
    for (int k = 0; k < L; ++k) ++seen_k[detail::prime_factor_output_slot(k, s)];
    EXPECT_EQ(seen_n, std::vector<int>(L, 1));
    EXPECT_EQ(seen_k, std::vector<int>(L, 1));

    const auto x_real = random_vector<double>(2 * static_cast<size_t>(L), next_seed());
    std::vector<std::complex<double>> x(L), split(L), direct(L);
    for (int n = 0; n < L; ++n) x[n] = {x_real[2 * n], x_real[2 * n + 1]};
    auto root = [&](long long e, int len) { return std::polar(1.0, -2.0 * pi * static_cast<double>(e % len) / len); };
    for (int k = 0; k < L; ++k) {
      for (int n = 0; n < L; ++n) direct[k] += x[n] * root(static_cast<long long>(n) * k, L);
    }
    // y[k2][b] = DFT-P over a; then DFT-Q over b into slot k2 Q + k1.
    std::vector<std::complex<double>> y(L);
    for (int k2 = 0; k2 < s.P; ++k2) {
      for (int b = 0; b < s.Q; ++b) {
        for (int a = 0; a < s.P; ++a) {
          y[k2 * s.Q + b] += x[detail::prime_factor_input_index(a, b, s)] * root(static_cast<long long>(a) * k2, s.P);
        }
      }
    }
    for (int k2 = 0; k2 < s.P; ++k2) {
      for (int k1 = 0; k1 < s.Q; ++k1) {
        for (int b = 0; b < s.Q; ++b) {
          split[k2 * s.Q + k1] += y[k2 * s.Q + b] * root(static_cast<long long>(b) * k1, s.Q);
        }
      }
    }
    double err = 0, norm = 0;
    for (int k = 0; k < L; ++k) {
      err += std::norm(split[detail::prime_factor_output_slot(k, s)] - direct[k]);
      norm += std::norm(direct[k]);
    }
    EXPECT_LE(std::sqrt(err / norm), 1e-13);
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

}  // namespace
}  // namespace efield::test
