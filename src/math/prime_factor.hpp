#pragma once
// The prime-factor (Good-Thomas) split of a DFT of length L = P Q with gcd(P, Q) = 1: no twiddles
// between the two factors, only index maps. Input sample n sits at (a, b), a < P, b < Q, with
//   n = (Q a + P b) mod L,
// and output k at (k mod P, k mod Q). Then W_L^(n k) = W_P^(a k) W_Q^(b k), so
//   X[k] = sum_b W_Q^(b (k mod Q)) sum_a W_P^(a (k mod P)) x[(Q a + P b) mod L]:
// a DFT of length P over a for each b, then one of length Q over b for each (k mod P). The
// inverse DFT splits the same way with the roles of the two maps swapped (input k at (k mod P,
// k mod Q), output n at (a, b)). Cuda2DMethod::PrimeFactorFft runs the length-P DFTs in its own
// first (forward) or last (inverse) pass and leaves P batched FFTs over (b, the other axis) to
// cuFFT: many short lines instead of few long ones.
#include "math/host_device.hpp"

namespace efield::detail {

// P: the power of two in L; Q = L / P is odd, so gcd(P, Q) = 1.
struct PrimeFactorSplit {
  int P = 1;
  int Q = 1;
};
EFIELD_HD PrimeFactorSplit prime_factor_split(int L) {
  const int P = L & -L;
  return {P, L / P};
}

// n for input position (a, b): (Q a + P b) mod L.
EFIELD_HD int prime_factor_input_index(int a, int b, PrimeFactorSplit s) {
  const long long n = static_cast<long long>(s.Q) * a + static_cast<long long>(s.P) * b;
  return static_cast<int>(n % (static_cast<long long>(s.P) * s.Q));
}

// The slot (k mod P) Q + (k mod Q) of output k: the P batched length-Q lines stored one after
// the other (P a power of two).
EFIELD_HD int prime_factor_output_slot(int k, PrimeFactorSplit s) { return (k & (s.P - 1)) * s.Q + k % s.Q; }

}  // namespace efield::detail
