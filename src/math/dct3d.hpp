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
#include "math/dct2d.hpp"

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

// ---- One thread (or loop iteration) per group of mirrored indices ----------------------------
// A group is (a, b, c) with 0 <= a <= M/2, 0 <= b <= N/2, 0 <= c <= K/2; its members are the
// indices a_i, b_j, c_k with a_0 = a, a_1 = M - a (b, c likewise). Every value the group's
// outputs need is read once, and every output belongs to exactly one group: the mirrored member
// is written only when has_distinct_mirror holds (a = 0 has none, a = M/2 is its own).

// Twiddle of the mirrored member M - a (unused, so any valid entry, when a = 0).
template <typename T>
EFIELD_HD Complex<T> mirror_twiddle(const Complex<T>* t, int a, int M) {
  return t[a == 0 ? 0 : M - a];
}

// The eight forward outputs x[i][j][k] = X[a_i, b_j, c_k] from the four stored spectrum values
// s[i][j] = V[a_i mod M, b_j mod N, c] (c <= K/2, in the stored half). The members at K - c read
// V[a_i, b_j, K-c] = conj(V[-a_i, -b_j, c]) = conj(s[1-i][1-j]) (V is the spectrum of real data).
template <typename T>
struct Dct3Octet {
  T x[2][2][2];
};
template <typename T>
EFIELD_HD Dct3Octet<T> dct3_post_octet(const Complex<T> (&s)[2][2], const Complex<T> (&ta)[2],
                                       const Complex<T> (&tb)[2], const Complex<T> (&tc)[2]) {
  Dct3Octet<T> out;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      out.x[i][j][0] = dct3_post(s[i][j], s[i ^ 1][j], s[i][j ^ 1], s[i ^ 1][j ^ 1], ta[i], tb[j], tc[0]);
      out.x[i][j][1] = dct3_post(conj(s[i ^ 1][j ^ 1]), conj(s[i][j ^ 1]), conj(s[i ^ 1][j]), conj(s[i][j]),
                                 ta[i], tb[j], tc[1]);
    }
  }
  return out;
}

// The four C2R inputs w[i][j] = W[a_i, b_j, c] (c <= K/2) from the eight coefficients
// x[i][j][k] = X[a_i, b_j, c_k] (0 where an index equals its dimension): each member's mirror
// along an axis is the other member of the group on that axis.
template <typename T>
struct Idct3Quad {
  Complex<T> w[2][2];
};
template <typename T>
EFIELD_HD Idct3Quad<T> idct3_pre_quad(const T (&x)[2][2][2], const Complex<T> (&ta)[2], const Complex<T> (&tb)[2],
                                      Complex<T> tc) {
  Idct3Quad<T> out;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      out.w[i][j] = idct3_pre(x[i][j][0], x[i ^ 1][j][0], x[i][j ^ 1][0], x[i][j][1], x[i ^ 1][j ^ 1][0],
                              x[i ^ 1][j][1], x[i][j ^ 1][1], x[i ^ 1][j ^ 1][1], ta[i], tb[j], tc);
    }
  }
  return out;
}

// X[a, b, c] with the convention that an index equal to its dimension reads 0.
template <typename T>
EFIELD_HD T padded_3d(const T* X, int a, int b, int c, int M, int N, int K) {
  if (a >= M || b >= N || c >= K) return T(0);
  return X[(static_cast<long long>(a) * N + b) * K + c];
}

// dct3d postprocess of group (a, b, c): four reads of the stored half spectrum V [M][N][K/2+1],
// up to eight thresholded outputs into X [M][N][K].
template <typename T>
EFIELD_HD void dct3_group(const Complex<T>* V, T* X, int a, int b, int c, int M, int N, int K,
                          const Complex<T>* ta, const Complex<T>* tb, const Complex<T>* tc, T zero_below) {
  const int Kh = K / 2 + 1;
  const int as[2] = {a, a == 0 ? 0 : M - a}, bs[2] = {b, b == 0 ? 0 : N - b}, cs[2] = {c, K - c};
  Complex<T> s[2][2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) s[i][j] = V[(static_cast<long long>(as[i]) * N + bs[j]) * Kh + c];
  }
  const Complex<T> tai[2] = {ta[a], mirror_twiddle(ta, a, M)}, tbj[2] = {tb[b], mirror_twiddle(tb, b, N)},
                   tck[2] = {tc[c], mirror_twiddle(tc, c, K)};
  const Dct3Octet<T> out = dct3_post_octet(s, tai, tbj, tck);
  // Fixed trip counts and a condition (not a bound of 1 + distinct) keep out.x in registers.
  const bool distinct[3] = {has_distinct_mirror(a, M), has_distinct_mirror(b, N), has_distinct_mirror(c, K)};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) {
        if ((i == 0 || distinct[0]) && (j == 0 || distinct[1]) && (k == 0 || distinct[2])) {
          X[(static_cast<long long>(as[i]) * N + bs[j]) * K + cs[k]] =
              threshold_coefficient(out.x[i][j][k], zero_below);
        }
      }
    }
  }
}

// idct3d preprocess of group (a, b, c): eight reads of X [M][N][K] (0 past the end), up to four
// C2R inputs into W [M][N][K/2+1].
template <typename T>
EFIELD_HD void idct3_group(const T* X, Complex<T>* W, int a, int b, int c, int M, int N, int K,
                           const Complex<T>* ta, const Complex<T>* tb, const Complex<T>* tc) {
  const int Kh = K / 2 + 1;
  const int as[2] = {a, M - a}, bs[2] = {b, N - b}, cs[2] = {c, K - c};
  T x[2][2][2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k) x[i][j][k] = padded_3d(X, as[i], bs[j], cs[k], M, N, K);
    }
  }
  const Complex<T> tai[2] = {ta[a], mirror_twiddle(ta, a, M)}, tbj[2] = {tb[b], mirror_twiddle(tb, b, N)};
  const Idct3Quad<T> out = idct3_pre_quad(x, tai, tbj, tc[c]);
  const bool distinct[2] = {has_distinct_mirror(a, M), has_distinct_mirror(b, N)};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      if ((i == 0 || distinct[0]) && (j == 0 || distinct[1])) {
        W[(static_cast<long long>(as[i]) * N + bs[j]) * Kh + c] = out.w[i][j];
      }
    }
  }
}

}  // namespace efield::detail
