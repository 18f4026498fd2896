#pragma once
// A real FFT of even length N as one complex FFT of length L = N/2 (the textbook packing of
// even and odd samples): z[p] = v[2p] + i v[2p+1], Z = FFT_L(z), and the spectrum of v is
//   V[k] = E[k] + W^k O[k],  E[k] = (Z[k] + conj Z[L-k]) / 2,  O[k] = (Z[k] - conj Z[L-k]) / 2i,
// W = exp(-2 pi i / N), indices mod L. Each formula below handles the pair k, L-k at once
// (0 <= k <= L/2), which share E, O up to conjugation. The inverse (C2R) is the same algebra
// backwards and gives 2 Z, so that an unnormalized IFFT_L returns N v (cuFFT's C2R scale).
// Shared by the CUDA row pass (kernels/transforms/dct2d_row_pass.cuh) and its tests.
#include "math/complex.hpp"

namespace efield::detail {

template <typename T>
struct SpectrumPair {
  Complex<T> k, L_k;  // the values at k and at L - k
};

// V[k] and V[L-k] from Z[k], Z[L-k] and wk = W^k. With P = W^k O[k]:
// V[k] = E + P and V[L-k] = conj(E - P) (W^(L-k) = -conj(W^k), E[L-k] = conj E, O[L-k] = conj O).
// k = 0 gives V[0] and V[L] = V[N/2].
template <typename T>
EFIELD_HD SpectrumPair<T> real_fft_split(Complex<T> Zk, Complex<T> ZLk, Complex<T> wk) {
  const Complex<T> E = T(0.5) * (Zk + conj(ZLk));
  const Complex<T> D = Zk - conj(ZLk);
  const Complex<T> P = wk * Complex<T>{T(0.5) * D.im, T(-0.5) * D.re};  // W^k D / 2i
  return {E + P, conj(E - P)};
}

// The inverse: 2 Z[k] and 2 Z[L-k] from the half spectrum's V[k] and V[L-k] (V[L] = V[N/2]).
// With S = V[k] + conj V[L-k] = 2E and Q = i conj(W^k) (V[k] - conj V[L-k]) = 2i O:
// 2 Z[k] = S + Q and 2 Z[L-k] = conj(S - Q).
template <typename T>
EFIELD_HD SpectrumPair<T> real_ifft_merge(Complex<T> Vk, Complex<T> VLk, Complex<T> wk) {
  const Complex<T> S = Vk + conj(VLk);
  const Complex<T> D = conj(wk) * (Vk - conj(VLk));
  const Complex<T> Q{-D.im, D.re};  // i D
  return {S + Q, conj(S - Q)};
}

}  // namespace efield::detail
