#pragma once
// Building blocks of the column pass's FFT (dct2d_column_pass.cuh): a thread holds V = 16 (or 8)
// complex values of one line in registers and runs whole radix-V butterflies on them (Stockham
// stages), so a length-2048 line takes three stages (16, 16, 8) and three trips through shared
// memory.
// With V = 8 a line takes twice the threads at half the registers each (the forward four-step
// passes, dct2d_column_four_step.cuh).
//
// Stage with radix R after stages whose radices multiply to ns (Stockham autosort):
//   butterfly j in [0, L/R), k = j mod ns:
//     v[r] = x[j + r L/R] * w^(r k),  w = exp(-+ 2 pi i / (ns R)),  v = DFT_R(v),
//     x'[(j - k) R + k + r ns] = v[r].
// Forward exp(-i...), inverse exp(+i...) without the 1/L (cuFFT's convention).
//
// Twiddles: one table t[q] = exp(-2 pi i q / L), q < L, made at plan construction
// (line_twiddles below); a butterfly reads its base w = t[k L / (ns R)] once and forms the other
// powers by products (at most four deep, so float keeps about 1e-7 relative accuracy).
#include <cuda_runtime.h>

#include <vector>

#include "math/complex.hpp"
#include "math/twiddle.hpp"
#include "transforms/shared_fft.cuh"

namespace efield::detail::cuda_nd {

// exp(-+ 2 pi i e / 16) * z for a compile-time e in [0, 9] (the radix-16 inner twiddles).
template <int E, bool Inverse, typename T>
__device__ __forceinline__ Complex<T> rotate16(Complex<T> z) {
  const T c1 = T(0.92387953251128675613), s1 = T(0.38268343236508977173), h = T(0.70710678118654752440);
  // (cos, -sin) of 2 pi e / 16 for the forward direction; the inverse conjugates.
  T re, im;
  if constexpr (E == 0) {
    return z;
  } else if constexpr (E == 4) {
    return quarter_turn<Inverse>(z);
  } else {
    if constexpr (E == 1) { re = c1; im = -s1; }
    if constexpr (E == 2) { re = h; im = -h; }
    if constexpr (E == 3) { re = s1; im = -c1; }
    if constexpr (E == 6) { re = -h; im = -h; }
    if constexpr (E == 9) { re = -c1; im = s1; }
    return z * Complex<T>{re, Inverse ? -im : im};
  }
}

// DFT of 16 values in place, natural order in and out: four DFT-4 over n1 (n = 4 n1 + n2), the
// inner twiddles w16^(n2 k1), four DFT-4 over n2; the result's transposition is a renaming.
template <bool Inverse, typename T>
__device__ __forceinline__ void dft16(Complex<T>* v) {
#pragma unroll
  for (int n2 = 0; n2 < 4; ++n2) dft4<Inverse>(v[n2], v[4 + n2], v[8 + n2], v[12 + n2]);
  // v[4 k1 + n2] now holds A[n2][k1]: multiply by w16^(n2 k1).
  v[5] = rotate16<1, Inverse>(v[5]);
  v[6] = rotate16<2, Inverse>(v[6]);
  v[7] = rotate16<3, Inverse>(v[7]);
  v[9] = rotate16<2, Inverse>(v[9]);
  v[10] = rotate16<4, Inverse>(v[10]);
  v[11] = rotate16<6, Inverse>(v[11]);
  v[13] = rotate16<3, Inverse>(v[13]);
  v[14] = rotate16<6, Inverse>(v[14]);
  v[15] = rotate16<9, Inverse>(v[15]);
#pragma unroll
  for (int k1 = 0; k1 < 4; ++k1) dft4<Inverse>(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3]);
  // v[4 k1 + k2] holds X[k1 + 4 k2].
  Complex<T> t[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) t[k] = v[4 * (k & 3) + (k >> 2)];
#pragma unroll
  for (int k = 0; k < 16; ++k) v[k] = t[k];
}

template <int R, bool Inverse, typename T>
__device__ __forceinline__ void register_dft(Complex<T>* v) {
  if constexpr (R == 16) {
    dft16<Inverse>(v);
  } else {
    small_dft<R, Inverse>(v);
  }
}

// p[r] = w^r for r < R, each power a product of two earlier ones.
template <int R, typename T>
__device__ __forceinline__ void twiddle_powers(Complex<T> w, Complex<T>* p) {
  p[0] = Complex<T>{T(1), T(0)};
  p[1] = w;
#pragma unroll
  for (int r = 2; r < R; ++r) p[r] = p[r / 2] * p[r - r / 2];
}

// w[q] = t[a (j + q J)], q < V, for a twiddle table t (line_twiddles) longer than every
// a (j + q J), from two reads of t: t[a j] times the powers of t[a J] (twiddle_powers, products
// at most four deep). A pass that multiplies its V values by such strided twiddles after its FFT
// then waits on two reads instead of V.
template <int V, typename T>
__device__ __forceinline__ void strided_twiddles(const Complex<T>* __restrict__ t, int a, int j, int J,
                                                 Complex<T>* w) {
  const Complex<T> base = t[a * j];
  twiddle_powers<V>(t[a * J], w);
#pragma unroll
  for (int q = 0; q < V; ++q) w[q] = base * w[q];
}

// The twiddle table of a line of length n, forward sign: exp(-2 pi i q / n), q < n.
template <typename T>
std::vector<Complex<T>> line_twiddles(int n) {
  return root_twiddles<T>(n, n);
}

// One Stockham stage on the V values a thread holds of a line of length L = V J, thread j in
// [0, J): v[q] = x[j + q J]. Radix V: one butterfly (inputs r = q). Radix R < V (the last
// stage, ns = L / R): butterflies i < V / R with j_i = j + i J and inputs q = i + r V / R.
// Afterwards v[q] holds the output of (i, r) with the same q, and out_position(j, q) says where
// it belongs. `twiddles`: line_twiddles(L).
template <int R, bool Inverse, int L, int V, typename T>
struct RegisterStage {
  static constexpr int J = L / V;
  static constexpr int kButterflies = V / R;

  __device__ __forceinline__ static void run(Complex<T>* v, int j, int ns, const Complex<T>* __restrict__ twiddles) {
#pragma unroll
    for (int i = 0; i < kButterflies; ++i) {
      Complex<T> x[R];
#pragma unroll
      for (int r = 0; r < R; ++r) x[r] = v[i + r * kButterflies];
      const int ji = j + i * J;
      const int k = ji & (ns - 1);
      if (ns > 1) {
        Complex<T> w = twiddles[k * (L / (ns * R))];
        if (Inverse) w = conj(w);
        Complex<T> p[R];
        twiddle_powers<R>(w, p);
#pragma unroll
        for (int r = 1; r < R; ++r) x[r] = x[r] * p[r];
      }
      register_dft<R, Inverse>(x);
#pragma unroll
      for (int r = 0; r < R; ++r) v[i + r * kButterflies] = x[r];
    }
  }

  // Position in the line of output q of thread j after the stage with ns.
  __device__ __forceinline__ static int out_position(int j, int q, int ns) {
    const int i = q % kButterflies, r = q / kButterflies;
    const int ji = j + i * J;
    const int k = ji & (ns - 1);
    return (ji - k) * R + k + r * ns;
  }
};

// Every stage of the FFT of a line of length L (V <= L, a power of two) held by J = L / V
// threads of the block, each with v[q] = x[j + q J] on entry (thread j of its line). Between
// stages the values cross `line` (the thread's line in shared memory, element p at
// shared_fft_slot(p)); on return v[q] = X[j + q J] and `line` holds the last stage's inputs.
// Every thread of the block calls it (it synchronizes the block between stages).
template <bool Inverse, int L, int V = 16, typename T, int NS = 1>
__device__ __forceinline__ void register_line_fft(Complex<T>* v, int j, Complex<T>* line,
                                                  const Complex<T>* __restrict__ twiddles) {
  static_assert(V == 8 || V == 16, "register FFT: 8 or 16 values a thread");
  constexpr int J = L / V;
  constexpr int R = L / NS >= V ? V : L / NS;
  using Stage = RegisterStage<R, Inverse, L, V, T>;
  Stage::run(v, j, NS, twiddles);
  if constexpr (NS * R < L) {
    __syncthreads();  // every thread has read this stage's inputs from `line`
#pragma unroll
    for (int q = 0; q < V; ++q) line[shared_fft_slot(Stage::out_position(j, q, NS))] = v[q];
    __syncthreads();
#pragma unroll
    for (int q = 0; q < V; ++q) v[q] = line[shared_fft_slot(j + q * J)];
    register_line_fft<Inverse, L, V, T, NS * R>(v, j, line, twiddles);
  }
}

// register_line_fft, then the whole result into `line` in natural order (element p at
// shared_fft_slot(p)), for a next step that reads pairs X[k], X[L-k] held by different threads.
template <bool Inverse, int L, int V = 16, typename T>
__device__ __forceinline__ void register_line_fft_into_line(Complex<T>* v, int j, Complex<T>* line,
                                                            const Complex<T>* __restrict__ twiddles) {
  register_line_fft<Inverse, L, V>(v, j, line, twiddles);
  __syncthreads();  // every thread has read the last stage's inputs from `line`
#pragma unroll
  for (int q = 0; q < V; ++q) line[shared_fft_slot(j + q * (L / V))] = v[q];
  __syncthreads();
}

}  // namespace efield::detail::cuda_nd
