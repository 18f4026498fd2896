#pragma once
// The synthetic generator's random numbers: SplitMix64 and formulas of our own on top of it, so
// that a seed gives the same design on every platform (<random>'s distributions are not
// specified bit for bit across standard libraries).
#include <cmath>
#include <cstdint>

namespace efield::synthetic {

class RandomStream {
 public:
  // `phase` separates the streams of the generator's steps, so that changing one step (say the
  // nets) leaves the others' numbers alone.
  RandomStream(std::uint64_t seed, std::uint64_t phase) : state_(seed * 0x9e3779b97f4a7c15ULL ^ (phase + 1) * 0xd1b54a32d192ed03ULL) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), n >= 1 (the tiny modulo bias is irrelevant here).
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
  // Standard normal (Box-Muller, one value per call).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

}  // namespace efield::synthetic
