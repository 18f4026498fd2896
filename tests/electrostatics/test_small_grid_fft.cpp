// The small-grid block FFT's steps (kernels/electrostatics/small_grid_fft_steps.hpp) run on the
// host, item by item in the order the block runs them between barriers, against a direct DFT in
// long double: rows and columns of every power-of-two length the one-block kernel takes (4 to
// 128), both directions, float and double, and 2D transforms of non-square arrays. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <utility>
#include <random>
#include <vector>

#include "electrostatics/small_grid_fft_steps.hpp"
#include "math/twiddle.hpp"

namespace efield::test {
namespace {

using detail::Complex;
using detail::SmallFftLines;

template <bool Inverse, typename T>
void host_fft_lines(std::vector<Complex<T>>& a, const SmallFftLines& s, const std::vector<Complex<T>>& tw) {
  detail::small_fft_steps<Inverse>(a.data(), s, tw.data(), [](int items, const auto& item) {
    for (int k = 0; k < items; ++k) item(k);
  });
}

// Direct DFT of each line of `s` (sign -1 forward, +1 inverse, unnormalized).
template <typename T>
std::vector<std::complex<long double>> direct_lines(const std::vector<Complex<T>>& a, const SmallFftLines& s,
                                                    bool inverse) {
  std::vector<std::complex<long double>> out(a.size());
  const int lines = 1 << s.log_lines, L = 1 << s.log_length;
  const long double pi = 3.141592653589793238462643383279502884L, sign = inverse ? 1 : -1;
  for (int l = 0; l < lines; ++l)
    for (int k = 0; k < L; ++k) {
      std::complex<long double> sum = 0;
      for (int n = 0; n < L; ++n) {
        const Complex<T> v = a[s.at(l, n)];
        sum += std::complex<long double>(v.re, v.im) * std::polar(1.0L, sign * 2 * pi * k * n / L);
      }
      out[s.at(l, k)] = sum;
    }
  return out;
}

template <typename T>
double relative_error(const std::vector<Complex<T>>& got, const std::vector<std::complex<long double>>& want) {
  long double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    num += std::norm(std::complex<long double>(got[i].re, got[i].im) - want[i]);
    den += std::norm(want[i]);
  }
  return static_cast<double>(std::sqrt(num / den));
}

template <typename T>
std::vector<Complex<T>> random_array(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Complex<T>> a(n);
  for (auto& v : a) v = {static_cast<T>(u(gen)), static_cast<T>(u(gen))};
  return a;
}

template <typename T>
void check_lines(double tol) {
  for (int log_len = 2; log_len <= 7; ++log_len)
    for (int log_lines : {0, 2, 3})
      for (bool columns : {false, true})
        for (bool inverse : {false, true}) {
          const int lines = 1 << log_lines, L = 1 << log_len;
          const SmallFftLines s = columns ? SmallFftLines{log_lines, log_len, 1, lines}
                                          : SmallFftLines{log_lines, log_len, L, 1};
          std::vector<Complex<T>> a = random_array<T>(static_cast<std::size_t>(lines) * L, 7 + log_len);
          const auto want = direct_lines(a, s, inverse);
          const std::vector<Complex<T>> tw = detail::root_twiddles<T>(L, L / 2);
          if (inverse) host_fft_lines<true>(a, s, tw);
          else host_fft_lines<false>(a, s, tw);
          EXPECT_LE(relative_error(a, want), tol) << "length " << L << ", " << lines << (columns ? " columns" : " rows")
                                                 << (inverse ? ", inverse" : ", forward");
        }
}

TEST(SmallGridFft, LinesMatchADirectDftFloat) { check_lines<float>(1e-6); }
TEST(SmallGridFft, LinesMatchADirectDftDouble) { check_lines<double>(1e-14); }

// Rows then columns of non-square arrays: the 2D DFT.
TEST(SmallGridFft, TwoDimensionsMatchADirectDft) {
  for (const auto& [log_m, log_n] : {std::pair{2, 7}, std::pair{6, 6}, std::pair{5, 3}, std::pair{7, 2}}) {
    const int M = 1 << log_m, N = 1 << log_n;
    std::vector<Complex<double>> a = random_array<double>(static_cast<std::size_t>(M) * N, 3 + log_m * 8 + log_n);
    const SmallFftLines rows = detail::small_fft_rows(log_m, log_n), cols = detail::small_fft_columns(log_m, log_n);
    // The direct 2D DFT as a direct DFT of the rows, then of the columns (separable).
    auto want = direct_lines(a, rows, false);
    std::vector<Complex<double>> mid(want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      mid[i] = {static_cast<double>(want[i].real()), static_cast<double>(want[i].imag())};
    want = direct_lines(mid, cols, false);
    host_fft_lines<false>(a, rows, detail::root_twiddles<double>(N, N / 2));
    host_fft_lines<false>(a, cols, detail::root_twiddles<double>(M, M / 2));
    EXPECT_LE(relative_error(a, want), 1e-14) << M << " x " << N;
  }
}

}  // namespace
}  // namespace efield::test
