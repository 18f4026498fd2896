#pragma once
// Fresh random inputs and error norms for tests (never zeros: they hide unwritten outputs).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace efield::test {

// A new seed per call unless EFIELD_TEST_SEED pins it; printed by the tests on failure.
std::uint64_t next_seed();

template <typename T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

template <typename T>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n, std::numeric_limits<T>::quiet_NaN());
}

// ||a - b|| / ||b|| in double; NaN anywhere gives +inf so that it never passes.
template <typename A, typename B>
double relative_l2(const std::vector<A>& a, const std::vector<B>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
    num += d * d;
    den += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  if (den == 0) return std::sqrt(num);
  return std::sqrt(num / den);
}

}  // namespace efield::test
