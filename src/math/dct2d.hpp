#pragma once
// The per-element formulas of the 2D DCT family via one 2D real FFT (MATH.md 1, Algorithm 2).
// Shared by the CPU backend, the CUDA kernels and the electrostatic pipeline.
//
// Twiddles: tu = exp(-j pi u / 2M), tv = exp(-j pi v / 2N) (see twiddle.hpp).
#include "math/complex.hpp"

namespace efield::detail {

// Forward postprocess, one output:
//   X[u,v] = Re( tv * ( tu * V[u,v] + conj(tu) * V[(M-u) mod M, v] ) ) / 2
// with a = V[u,v] and b = V[(M-u) mod M, v] (read as conjugates of the stored half when v > N/2).
// A thread that owns (u,v), (M-u,v), (u,N-v), (M-u,N-v) reads a and b once and calls:
//   X[u,   v  ] = dct2_post(a,       b,       tu,     tv)
//   X[M-u, v  ] = dct2_post(b,       a,       tMu,    tv)     tMu = exp(-j pi (M-u)/2M)
//   X[u,   N-v] = dct2_post(conj(b), conj(a), tu,     tNv)    tNv = exp(-j pi (N-v)/2N)
//   X[M-u, N-v] = dct2_post(conj(a), conj(b), tMu,    tNv)
template <typename T>
EFIELD_HD T dct2_post(Complex<T> a, Complex<T> b, Complex<T> tu, Complex<T> tv) {
  return T(0.5) * re_mul(tv, tu * a + conj(tu) * b);
}

// Inverse preprocess (idct2), one Hermitian-half input of the C2R:
//   w[m,n] = conj(tm) conj(tn) ( X[m,n] - X[M-m,N-n] - j (X[M-m,n] + X[m,N-n]) )
// with X[M,.] = X[.,N] = 0; the caller passes those four values (0 where out of range).
template <typename T>
EFIELD_HD Complex<T> idct2_pre(T x_mn, T x_Mm_Nn, T x_Mm_n, T x_m_Nn, Complex<T> tm, Complex<T> tn) {
  const Complex<T> z{x_mn - x_Mm_Nn, -(x_Mm_n + x_m_Nn)};
  return conj(tm) * (conj(tn) * z);
}

// Sine axes (idxst along an axis of length K) read the cosine input with the index reversed:
// X'[k] = X[K-k] for k >= 1, X'[0] = 0; the output sample m is then multiplied by (-1)^m.
// Returns the index to read for coefficient k, or -1 when the coefficient is zero.
EFIELD_HD int sine_axis_source(int k, int K) { return k == 0 ? -1 : K - k; }
template <typename T>
EFIELD_HD T alternating_sign(int m) { return (m & 1) ? T(-1) : T(1); }

}  // namespace efield::detail
