#pragma once
// The per-element formulas of the 1D DCT family via one real FFT (docs/math.md 1, the DCT paper's
// Algorithm 1). Shared by the CPU loops (src/cpu/dct1d_cpu.cpp) and the CUDA kernels
// (kernels/transforms/dct1d_kernels.cuh), so the two backends cannot drift apart.
//
// Twiddles: t[k] = exp(-j pi k / 2N), k = 0..N (quarter_twiddles(N) in twiddle.hpp). All four
// forward algorithms use the same table, because their FFT lengths (N, 2N, 4N) only change which
// part of the spectrum is read, not the phase that aligns it with the cosine.
//
// Constant factors (checked against docs/math.md's unnormalized dct, not the paper's normalization):
//   4N:          X[k] = Re(V[k]) / 2                (the mirror doubles every cosine)
//   mirrored 2N: X[k] = Re(t[k] V[k]) / 2           (likewise)
//   padded 2N:   X[k] = Re(t[k] V[k])
//   N-point:     X[k] = Re(t[k] V[k])
#include "math/complex.hpp"
#include "math/makhoul.hpp"

namespace efield::detail {

// Which length-L real FFT each forward algorithm runs: 4N, 2N, 2N or N. `algorithm` is the
// integer value of efield::DctAlgorithm (NPoint 0, Mirrored2N 1, Padded2N 2, FourN 3).
EFIELD_HD long long dct_fft_length(int algorithm, long long n) {
  return algorithm == 3 ? 4 * n : (algorithm == 1 || algorithm == 2) ? 2 * n : n;
}

// ---- Forward preprocessing: element j of the FFT input built from the row x[0..n) ----------

// 4N: x on the odd entries, mirrored: x'[2i+1] = x[i], x'[4N-2i-1] = x[i], zeros elsewhere.
template <typename T>
EFIELD_HD T dct_expand_four_n(const T* x, int n, int j) {
  if ((j & 1) == 0) return T(0);
  return j < 2 * n ? x[j >> 1] : x[(4 * n - 1 - j) >> 1];
}

// Mirrored 2N: x' = [x, reversed(x)].
template <typename T>
EFIELD_HD T dct_expand_mirrored(const T* x, int n, int j) {
  return j < n ? x[j] : x[2 * n - 1 - j];
}

// Padded 2N: x' = [x, zeros(N)].
template <typename T>
EFIELD_HD T dct_expand_padded(const T* x, int n, int j) {
  return j < n ? x[j] : T(0);
}

// N-point (Makhoul) in pairs, so that reads of x and writes of v are both contiguous:
// v[i] = x[2i] and v[n-1-i] = x[2i+1] for i < ceil(n/2) (the second only when 2i+1 < n).
template <typename T>
EFIELD_HD void makhoul_reorder_pair(const T* x, T* v, int n, int i) {
  v[i] = x[2 * i];
  if (2 * i + 1 < n) v[n - 1 - i] = x[2 * i + 1];
}

// ---- Forward postprocessing: X[k] from the half spectrum V --------------------------------

template <typename T>
EFIELD_HD T dct_post_four_n(Complex<T> v_k) { return T(0.5) * v_k.re; }

template <typename T>
EFIELD_HD T dct_post_mirrored(Complex<T> v_k, Complex<T> t_k) { return T(0.5) * re_mul(t_k, v_k); }

template <typename T>
EFIELD_HD T dct_post_padded(Complex<T> v_k, Complex<T> t_k) { return re_mul(t_k, v_k); }

// N-point: X[k] = Re(t[k] V[k]), where V[k] for k > N/2 is conj(V[N-k]). Both X[k] and X[N-k]
// come from V[k] and t[k] alone: t[N-k] = -j conj(t[k]) makes
// X[N-k] = Re(t[N-k] conj(V[k])) = -Im(t[k] V[k]).
template <typename T>
struct DctMirrorPair {
  T k, N_k;  // X[k], X[N-k] (the latter a distinct element only for k > 0, 2k != N)
};
template <typename T>
EFIELD_HD DctMirrorPair<T> dct_post_npoint_mirror(Complex<T> v_k, Complex<T> t_k) {
  const Complex<T> p = t_k * v_k;
  return {p.re, -p.im};
}
// One call for each k = 0..N/2 writes X[k] and, when N-k is a different index, X[N-k].
template <typename T>
EFIELD_HD void dct_post_npoint_pair(Complex<T> v_k, const Complex<T>* t, T* X, int n, int k) {
  const DctMirrorPair<T> x = dct_post_npoint_mirror(v_k, t[k]);
  X[k] = x.k;
  if (k > 0 && 2 * k != n) X[n - k] = x.N_k;
}

// Fused compression threshold (PlanOptions::zero_below): |X| < threshold becomes exactly 0.
template <typename T>
EFIELD_HD T zero_below(T x, T threshold) {
  return (x < threshold && -x < threshold) ? T(0) : x;
}

// ---- Inverse (idct, idxst) via the N-point algorithm --------------------------------------
// idct: the C2R input is W[k] = conj(t[k]) (X[k] - j X[N-k]) for k = 0..N/2 with X[N] = 0;
// W is Hermitian for every real X, and the unnormalized C2R followed by the inverse Makhoul
// reordering gives exactly docs/math.md's idct (idct(dct(x)) = N x).
// idxst: idxst(X)[n] = (-1)^n idct(X')[n] with X'[k] = X[N-k], X'[0] = 0; both the index
// reversal and the sign are folded in here instead of extra passes.

template <typename T>
EFIELD_HD Complex<T> idct_pre(const T* X, const Complex<T>* t, int n, int k, bool sine) {
  T a, b;  // a = X'[k], b = X'[N-k] (0 when that index is N)
  if (sine) {
    a = k == 0 ? T(0) : X[n - k];
    b = k == 0 ? T(0) : X[k];
  } else {
    a = X[k];
    b = k == 0 ? T(0) : X[n - k];
  }
  const Complex<T> z{a, -b};
  return conj(t[k]) * z;
}

// Inverse Makhoul reordering in pairs: x[2i] = y[i], x[2i+1] = y[n-1-i]; for idxst the odd
// samples change sign ((-1)^n with n = 2i+1).
template <typename T>
EFIELD_HD void idct_post_pair(const T* y, T* x, int n, int i, bool sine) {
  x[2 * i] = y[i];
  if (2 * i + 1 < n) x[2 * i + 1] = sine ? -y[n - 1 - i] : y[n - 1 - i];
}

}  // namespace efield::detail
