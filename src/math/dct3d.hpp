#pragma once
// The per-element formulas of dct3d / idct3d via one 3D real FFT: the 2D formulas of dct2d.hpp
// with one more axis. Shared by the CPU backend and the CUDA kernels.
//
// Dimensions M x N x K (last fastest), twiddles ta = exp(-j pi a / 2M), tb, tc likewise.
// Forward: v[p(a), q(b), r(c)] = x[a, b, c] (Makhoul order on every axis), V = RFFT3(v), and
//   X[a,b,c] = Re( tc ( ta tb V[a,b,c] + conj(ta) tb V[-a,b,c]
//                     + ta conj(tb) V[a,-b,c] + conj(ta) conj(tb) V[-a,-b,c] ) ) / 4
// with -a = (M-a) mod M etc. Derivation: a DCT along an axis of a complex sequence is
// (t V[k] + conj(t) V[-k]) / 2; over three axes that is a sum of 8 terms, and the 4 with the
// last index negated are the conjugates of the other 4 (V is the spectrum of real data).
// Inverse: the 1D inverse preprocess conj(t_k) (X[k] - j X[K-k]) applied along each axis,
//   w = conj(ta tb tc) prod_axes (1 - j R_axis) X,   R_axis: index k -> K-k, X[K] = 0,
// expanded below; y = IRFFT3(w) unnormalized; x[a,b,c] = y[p(a), q(b), r(c)].
#include "math/complex.hpp"

namespace efield::detail {

// One forward output from the four spectrum values V[a,b,c], V[-a,b,c], V[a,-b,c], V[-a,-b,c]
// (each read from the stored half as the conjugate of V[-a,-b,-c] when c > K/2).
template <typename T>
EFIELD_HD T dct3_post(Complex<T> v_ab, Complex<T> v_Ab, Complex<T> v_aB, Complex<T> v_AB,
                      Complex<T> ta, Complex<T> tb, Complex<T> tc) {
  const Complex<T> s = ta * (tb * v_ab) + conj(ta) * (tb * v_Ab) + ta * (conj(tb) * v_aB) +
                       conj(ta) * (conj(tb) * v_AB);
  return T(0.25) * re_mul(tc, s);
}

// One Hermitian-half input w[a,b,c] of the inverse C2R from the eight values X[a|A, b|B, c|C]
// (capital = mirrored index M-a, N-b, K-c; 0 when the mirrored index equals the dimension).
// Name x_abc: digit 1 = mirrored along that axis.
template <typename T>
EFIELD_HD Complex<T> idct3_pre(T x000, T x100, T x010, T x001, T x110, T x101, T x011, T x111,
                               Complex<T> ta, Complex<T> tb, Complex<T> tc) {
  const Complex<T> z{x000 - x110 - x101 - x011, x111 - x100 - x010 - x001};
  return conj(ta) * (conj(tb) * (conj(tc) * z));
}

// V[a, b, c] of the full spectrum read from the stored half [M][N][K/2+1]:
// V[a,b,c] = conj(V[-a,-b,K-c]) for c > K/2.
template <typename T>
EFIELD_HD Complex<T> half_spectrum_3d(const Complex<T>* V, int a, int b, int c, int M, int N, int K) {
  const int Kh = K / 2 + 1;
  if (c < Kh) return V[(static_cast<long long>(a) * N + b) * Kh + c];
  const int na = a == 0 ? 0 : M - a, nb = b == 0 ? 0 : N - b;
  return conj(V[(static_cast<long long>(na) * N + nb) * Kh + (K - c)]);
}

// X[a, b, c] with the convention that an index equal to its dimension reads 0.
template <typename T>
EFIELD_HD T padded_3d(const T* X, int a, int b, int c, int M, int N, int K) {
  if (a >= M || b >= N || c >= K) return T(0);
  return X[(static_cast<long long>(a) * N + b) * K + c];
}

// dct3d output (a, b, c) from the stored half spectrum (four reads).
template <typename T>
EFIELD_HD T dct3_output(const Complex<T>* V, int a, int b, int c, int M, int N, int K,
                        const Complex<T>* ta, const Complex<T>* tb, const Complex<T>* tc) {
  const int na = a == 0 ? 0 : M - a, nb = b == 0 ? 0 : N - b;
  return dct3_post(half_spectrum_3d(V, a, b, c, M, N, K), half_spectrum_3d(V, na, b, c, M, N, K),
                   half_spectrum_3d(V, a, nb, c, M, N, K), half_spectrum_3d(V, na, nb, c, M, N, K),
                   ta[a], tb[b], tc[c]);
}

// idct3d C2R input w[a, b, c], c <= K/2, from the eight mirrored coefficients.
template <typename T>
EFIELD_HD Complex<T> idct3_input(const T* X, int a, int b, int c, int M, int N, int K,
                                 const Complex<T>* ta, const Complex<T>* tb, const Complex<T>* tc) {
  const int A = M - a, B = N - b, C = K - c;
  return idct3_pre(padded_3d(X, a, b, c, M, N, K), padded_3d(X, A, b, c, M, N, K),
                   padded_3d(X, a, B, c, M, N, K), padded_3d(X, a, b, C, M, N, K),
                   padded_3d(X, A, B, c, M, N, K), padded_3d(X, A, b, C, M, N, K),
                   padded_3d(X, a, B, C, M, N, K), padded_3d(X, A, B, C, M, N, K), ta[a], tb[b], tc[c]);
}

}  // namespace efield::detail
