// Cuda2DMethod::PrimeFactorFft (TransposedPackedFft's plan with the long axis's complex FFT split
// by the prime-factor map rows/2 = P Q: DFT-P in the reorder and gather, cuFFT's P batched 2D
// FFTs): the index maps of math/prime_factor.hpp against the DFT (CPU); against the float64
// definitions at every P in 2..16 with Q = 3, 5, 17, 25, 63 and odd, prime, single and even
// column counts; against OneFft at large sizes, round trip, in place, through host pointers, at
// unaligned device pointers, with zero_below and inside a CUDA graph; and the error of asking
// for it where it does not apply.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "math/prime_factor.hpp"
#include "support/gpu.hpp"
#include "test_dct2d_common.hpp"

#if EFIELD_HAS_CUDA
#include "graph_replay.hpp"
#endif

namespace efield::test {
namespace {

constexpr Cuda2DMethod kMethod = Cuda2DMethod::PrimeFactorFft;

// The split's maps on their own: every n and every k lands in one position, and the length-P
// DFTs over a followed by the length-Q DFTs over b give the length-L DFT at (k mod P, k mod Q).
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
        for (int b = 0; b < s.Q; ++b) split[k2 * s.Q + k1] += y[k2 * s.Q + b] * root(static_cast<long long>(b) * k1, s.Q);
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

// Row counts 2 P Q: P = 2 (12, 20, 252: Q = 3, 5, 63), 4 (24, 40, 136: Q = 3, 5, 17), 8 (48, 80,
// 400: Q = 3, 5, 25), 16 (96: Q = 3); column counts 1, 2, 3, 5, 7, 16, 17, 31, 64, 100, 127, 255.
std::vector<std::pair<int, int>> prime_factor_sizes() {
  return {{12, 1},  {12, 2},  {20, 3},   {24, 5},   {48, 7},    {80, 17}, {96, 16},
          {136, 31}, {252, 64}, {400, 100}, {40, 127}, {12, 255}, {96, 1}};
}

TEST(Plan2DPrimeFactorFft, MatchesDefinitionFloat) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<float>(prime_factor_sizes(), kMethod);
}
TEST(Plan2DPrimeFactorFft, MatchesDefinitionDouble) {
  EFIELD_REQUIRE_GPU();
  expect_cuda_method_matches_definition<double>(prime_factor_sizes(), kMethod);
}

TEST(Plan2DPrimeFactorFft, AgreesWithOneFftAtLargeSizes) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{10000, 100}, {2000, 100}, {3000, 300}, {6000, 1000}}) {
    expect_float_method_agrees_with_one_fft(rows, cols, kMethod);
  }
}

TEST(Plan2DPrimeFactorFft, RoundTrip) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{12, 1}, {80, 7}, {1000, 300}}) {
    expect_round_trip<double>(rows, cols, cuda_options(kMethod));
  }
}

TEST(Plan2DPrimeFactorFft, InPlaceHostAndReuse) {
  EFIELD_REQUIRE_GPU();
  for (Transform2D kind : kAllKinds) {
    expect_in_place_host_and_reuse<float>(kind, 120, 45, cuda_options(kMethod));
  }
}

TEST(Plan2DPrimeFactorFft, UnalignedDevicePointers) {
  EFIELD_REQUIRE_GPU();
  expect_unaligned_device_pointers<float>(300, 100, cuda_options(kMethod));
  expect_unaligned_device_pointers<double>(24, 33, cuda_options(kMethod));
}

TEST(Plan2DPrimeFactorFft, ZeroBelow) {
  EFIELD_REQUIRE_GPU();
  for (const auto& [rows, cols] : {std::pair{12, 1}, {40, 31}, {300, 128}}) {
    expect_zero_below<float>(rows, cols, cuda_options(kMethod));
    expect_zero_below<double>(rows, cols, cuda_options(kMethod));
  }
}

#if EFIELD_HAS_CUDA
TEST(Plan2DPrimeFactorFft, CapturedInCudaGraph) {
  EFIELD_REQUIRE_GPU();
  expect_method_captured_in_graph(kMethod, 300, 99, {Transform2D::Dct2, Transform2D::IdctIdxst});
}
#endif

TEST(Plan2DPrimeFactorFft, RejectedWhereItDoesNotApply) {
  EFIELD_REQUIRE_GPU();
  // Odd row counts; rows/2 odd (P = 1); rows/2 a power of two (Q = 1); P = 32 (192 = 2 x 32 x 3);
  // too few rows.
  for (const auto& [rows, cols] : {std::pair{7, 5}, {6, 3}, {10002, 100}, {8, 3}, {256, 64}, {192, 10}, {2, 3},
                                   {1, 1}, {1, 8}}) {
    expect_method_rejected(kMethod, Transform2D::Dct2, rows, cols,
                           "PrimeFactorFft needs rows/2 = P Q with P a power of two in 2..16 and Q odd, at least 3");
  }
}

TEST(Plan2DPrimeFactorFft, NameAndCpuBackend) {
  EXPECT_STREQ(to_string(kMethod), "prime_factor_fft");
  expect_cpu_backend_ignores_method(kMethod, Transform2D::Dct2);
}

}  // namespace
}  // namespace efield::test
