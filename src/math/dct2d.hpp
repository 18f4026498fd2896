#pragma once
// The per-element formulas of the 2D DCT family via one 2D real FFT (docs/math.md 1, Algorithm 2).
// Shared by the CPU backend, the CUDA kernels and the electrostatic pipeline.
//
// Twiddles: tu = exp(-j pi u / 2M), tv = exp(-j pi v / 2N) (see twiddle.hpp).
#include "math/complex.hpp"
#include "math/dct1d.hpp"

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

// ---- Quad helpers: one thread (or loop iteration) per group of mirrored indices ----------------

// True when index K-k is a different element from k (k = 0 has no mirror inside [0, K), and
// k = K/2 is its own mirror). The forward postprocess and the inverse preprocess write the
// mirrored outputs only when this holds, so every element is written exactly once.
EFIELD_HD bool has_distinct_mirror(int k, int K) { return k != 0 && 2 * k != K; }

// Forward-transform threshold (PlanOptions::zero_below): |x| < zero_below becomes exactly 0
// (math/dct1d.hpp's zero_below, the one formula for every dimension).
template <typename T>
EFIELD_HD T threshold_coefficient(T x, T threshold) {
  return zero_below(x, threshold);
}
// The same where a kernel is compiled with and without zero_below: Threshold = false returns x
// untouched (no comparisons). A complex value is two coefficients (an output pair).
template <bool Threshold, typename T>
EFIELD_HD T kept_coefficient(T x, T zero_below) {
  if constexpr (Threshold) {
    return threshold_coefficient(x, zero_below);
  } else {
    return x;
  }
}
template <bool Threshold, typename T>
EFIELD_HD Complex<T> kept_coefficient(Complex<T> x, T zero_below) {
  return {kept_coefficient<Threshold>(x.re, zero_below), kept_coefficient<Threshold>(x.im, zero_below)};
}

// The four dct2 outputs of one quad (u, v), 0 <= u <= M/2, 0 <= v <= N/2, from the two stored
// spectrum values a = V[u, v] and b = V[(M-u) mod M, v]; tu = exp(-j pi u/2M), tv likewise.
template <typename T>
struct Dct2Quad {
  T uv, Mu_v, u_Nv, Mu_Nv;
};
// The four dct2_post calls above share most of their work: with tMu = -j conj(tu) and
// tNv = -j conj(tv) (exact for the quarter twiddles), A = tu a, B = conj(tu) b, P = A + B and
// Q = j (A - B):
//   X[u,v] = Re(tv P)/2, X[M-u,v] = Re(tv Q)/2, X[u,N-v] = -Im(tv P)/2, X[M-u,N-v] = -Im(tv Q)/2.
// Four complex products instead of sixteen (the CPU postprocess is compute-bound otherwise).
template <typename T>
EFIELD_HD Dct2Quad<T> dct2_post_quad(Complex<T> a, Complex<T> b, Complex<T> tu, Complex<T> tv) {
  const Complex<T> A = tu * a;
  const Complex<T> B = conj(tu) * b;
  const Complex<T> P = A + B;
  const Complex<T> Q{B.im - A.im, A.re - B.re};  // j (A - B)
  const Complex<T> tvP = tv * P;
  const Complex<T> tvQ = tv * Q;
  return {T(0.5) * tvP.re, T(0.5) * tvQ.re, T(-0.5) * tvP.im, T(-0.5) * tvQ.im};
}

// One output row at a time: X[u, v] and X[u, N-v] from a = V[u, v], b = V[(M-u) mod M, v]. With
// P = tu a + conj(tu) b: X[u,v] = Re(tv P)/2 and X[u,N-v] = -Im(tv P)/2 (the first and third
// entries of dct2_post_quad; the row M-u is dct2_post_pair(b, a, tMu, tv)). Used where writing
// one row per loop keeps the loop simple enough to vectorize (the CPU backend).
template <typename T>
struct Dct2Pair {
  T v, Nv;
};
template <typename T>
EFIELD_HD Dct2Pair<T> dct2_post_pair(Complex<T> a, Complex<T> b, Complex<T> tu, Complex<T> tv) {
  const Complex<T> tvP = tv * (tu * a + conj(tu) * b);
  return {T(0.5) * tvP.re, T(-0.5) * tvP.im};
}

// The dct2 with its rows transformed first (the 1D dct along each row, in the rows' Makhoul
// order), then the columns two at a time: column pair c of the row-transformed y is one
// complex column z = y[., 2c] + j y[., 2c+1], and its FFT Z gives both columns' 1D dct from
// Z[u] and Z[(M-u) mod M]. The FFTs of the two real columns are A = (Z[u] + conj Z[M-u]) / 2
// and B = (Z[u] - conj Z[M-u]) / 2j, and dct_post_npoint_mirror gives X[u] and X[M-u] of each:
// with P = tu Z[u] and Q = tu conj(Z[M-u]),
//   X[u, 2c]   = Re(P + Q)/2,   X[M-u, 2c]   = -Im(P + Q)/2,
//   X[u, 2c+1] = Im(P - Q)/2,   X[M-u, 2c+1] =  Re(P - Q)/2,
// two complex products a pair instead of dct2_post_quad's four. Each element of the result is
// the two adjacent outputs (2c, 2c+1) of its row.
template <typename T>
struct Dct2PackedPair {
  Complex<T> u, Mu;  // {X[u, 2c], X[u, 2c+1]} and {X[M-u, 2c], X[M-u, 2c+1]}
};
template <typename T>
EFIELD_HD Dct2PackedPair<T> dct2_packed_column_pair(Complex<T> z_u, Complex<T> z_Mu, Complex<T> tu) {
  const Complex<T> P = tu * z_u;
  const Complex<T> Q = tu * conj(z_Mu);
  return {{T(0.5) * (P.re + Q.re), T(0.5) * (P.im - Q.im)}, {T(-0.5) * (P.im + Q.im), T(0.5) * (P.re - Q.re)}};
}

// Index of X read for index k of the cosine-equivalent input X' of the inverse pipelines
// along an axis of length K, or -1 where X' is 0 (docs/math.md 1): k == K is the convention
// X[K] = 0, and a sine axis reads X with its index reversed, X'[k] = X[K-k], X'[0] = 0.
template <bool Sine>
EFIELD_HD int idct2_source(int k, int K) {
  if (k >= K) return -1;
  if (Sine) return k == 0 ? -1 : K - k;
  return k;
}

// For a loader that holds the pair X[k] and X[(K-k) mod K] (0 <= k <= K/2): which of the two X'
// at target (k or K-k) reads, 0 for X[k], 1 for X[K-k], or -1 where X' is 0 (idct2_source).
template <bool Sine>
EFIELD_HD int idct2_pair_source(int target, int k, int K) {
  const int s = idct2_source<Sine>(target, K);
  return s < 0 ? -1 : s == k ? 0 : 1;
}

// X'[m, n] (0 <= m <= M, 0 <= n <= N). SineRows/SineCols select idxst along that axis. X's
// element (m, n) sits at X[m row_stride + n col_stride]: (N, 1) for a row-major M x N array,
// (1, M) for its transpose (Cuda2DMethod::TransposedPackedFft).
template <bool SineRows, bool SineCols, typename T>
EFIELD_HD T idct2_input(const T* X, int m, int n, int M, int N, long long row_stride, long long col_stride) {
  const int sm = idct2_source<SineRows>(m, M);
  const int sn = idct2_source<SineCols>(n, N);
  if (sm < 0 || sn < 0) return T(0);
  return X[sm * row_stride + sn * col_stride];
}
template <bool SineRows, bool SineCols, typename T>
EFIELD_HD T idct2_input(const T* X, int m, int n, int M, int N) {
  return idct2_input<SineRows, SineCols>(X, m, n, M, N, N, 1);
}

// Inverse preprocess of one quad (m, n), 0 <= m <= M/2, 0 <= n <= N/2: the two Hermitian-half
// inputs w[m, n] and w[M-m, n] from the four values X'[m,n], X'[M-m,N-n], X'[M-m,n], X'[m,N-n].
template <typename T>
struct Idct2Pair {
  Complex<T> m_n, Mm_n;
};
template <typename T>
EFIELD_HD Idct2Pair<T> idct2_pre_pair(T x_mn, T x_Mm_Nn, T x_Mm_n, T x_m_Nn, Complex<T> tm,
                                      Complex<T> tMm, Complex<T> tn) {
  return {idct2_pre(x_mn, x_Mm_Nn, x_Mm_n, x_m_Nn, tm, tn),
          idct2_pre(x_Mm_n, x_m_Nn, x_mn, x_Mm_Nn, tMm, tn)};
}

// Sign of output (m, n) of the inverse pipelines: (-1)^m on a sine first axis, (-1)^n on a sine
// second axis.
template <bool SineRows, bool SineCols, typename T>
EFIELD_HD T idct2_output_sign(int m, int n) {
  T s = T(1);
  if (SineRows) s *= alternating_sign<T>(m);
  if (SineCols) s *= alternating_sign<T>(n);
  return s;
}

}  // namespace efield::detail
