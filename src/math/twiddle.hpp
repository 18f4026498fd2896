#pragma once
// Twiddle tables, made once at plan construction (in double, then rounded to T).
#include <cmath>
#include <vector>

#include "math/complex.hpp"

namespace efield::detail {

// t[k] = exp(-j pi k / (2 n)) for k = 0..n (n+1 entries, so that t[n] = -j is addressable).
template <typename T>
std::vector<Complex<T>> quarter_twiddles(int n) {
  std::vector<Complex<T>> t(static_cast<size_t>(n) + 1);
  const double pi = 3.14159265358979323846;
  for (int k = 0; k <= n; ++k) {
    const double a = -pi * k / (2.0 * n);
    t[k] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return t;
}

// t[k] = exp(-2 pi j k / n) for k < count: the roots of unity of an FFT of length n (the
// register FFT's line_twiddles, the real-FFT split of math/real_fft.hpp).
template <typename T>
std::vector<Complex<T>> root_twiddles(int n, int count) {
  std::vector<Complex<T>> t(static_cast<size_t>(count));
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < count; ++k) {
    const double a = -2.0 * pi * k / n;
    t[k] = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return t;
}

}  // namespace efield::detail
