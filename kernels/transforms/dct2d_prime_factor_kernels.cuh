#pragma once
// The four passes of Cuda2DMethod::PrimeFactorFft around cuFFT's P batched 2D FFTs. The plan is
// TransposedPackedFft's: the planned M x N array is the transpose of the caller's N x M array
// (element (m, n) at X[n M + m]), reordered (Makhoul, both axes) and packed along n into the
// M x L complex array z[m, j] = v[m, 2j] + i v[m, 2j+1], L = N / 2. Its FFT along j is split by
// the prime-factor map L = P Q (math/prime_factor.hpp), and the arrays between the passes are
// stored as P slices of Q x M (slot, then m fastest). A warp's lanes take consecutive caller
// columns in the reorder and gather (so the caller's rows are read and written along their
// length, and the slices in two runs from both ends, m = p(column)), consecutive m or u in the
// quad passes: no transposition anywhere.
//   forward:  prime_factor_reorder      x -> w[k mod P][b][m]  (DFT-P over a in registers)
//             cuFFT, P batched 2D FFTs  over (b, m)  ->  Z(u, k) at [slot(k)][u]
//             dct2_prime_factor_postprocess  (PackedFft's quads: split, then the 2D dct2 quad)
//   inverse:  idct2_prime_factor_preprocess   (PackedFft's quads)  ->  Z(m, k) at [slot(k)][m]
//             cuFFT inverse                   ->  y[k mod P][b][m]
//             prime_factor_gather             (inverse DFT-P over k mod P, reorder back, signs)
// Every kernel is a 1D grid-stride loop over a flattened 2D index (for_each_flat).
#include <cuda_runtime.h>

#include <cstddef>

#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "math/prime_factor.hpp"
#include "transforms/dct2d_kernels.cuh"
#include "transforms/register_fft.cuh"

namespace efield::detail::cuda_nd {

// f(outer, inner) for outer < outer_count, inner < inner_count: a 1D grid-stride loop over the
// flattened index outer inner_count + inner, so that consecutive lanes take consecutive inner.
template <typename F>
__device__ __forceinline__ void for_each_flat(int outer_count, int inner_count, F f) {
  const long long count = static_cast<long long>(outer_count) * inner_count;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    f(static_cast<int>(i / inner_count), static_cast<int>(i % inner_count));
  }
}

// Thread (b, c), b < Q, c < M (a caller column; m = p(c) its reordered row): z[m, (Q a + P b)
// mod L] for a < P, read from the caller's rows (the reordered position n holds sample
// makhoul_source(n, N)); their DFT-P goes to w[(k Q + b) M + m], k < P.
template <typename T, int P>
__global__ void prime_factor_reorder(const T* __restrict__ x, Complex<T>* __restrict__ w, int M, int N, int Q) {
  const PrimeFactorSplit split{P, Q};
  for_each_flat(Q, M, [&](int b, int c) {
    const int m = makhoul_position(c, M);
    const T* column = x + c;
    Complex<T> v[P];
#pragma unroll
    for (int a = 0; a < P; ++a) {
      const int j = prime_factor_input_index(a, b, split);
      v[a] = Complex<T>{column[static_cast<std::size_t>(makhoul_source(2 * j, N)) * M],
                        column[static_cast<std::size_t>(makhoul_source(2 * j + 1, N)) * M]};
    }
    register_dft<P, false>(v);
#pragma unroll
    for (int k = 0; k < P; ++k) w[(static_cast<std::size_t>(k) * Q + b) * M + m] = v[k];
  });
}

// The inverse of prime_factor_reorder: thread (b, c) takes y[(k Q + b) M + m], k < P, m = p(c),
// runs the inverse DFT-P (unnormalized) and writes the pairs of z[m, (Q a + P b) mod L] to column
// c of the caller's rows with the (-1)^index of sine axes (idct2_output_sign of the planned
// indices).
template <typename T, int P, bool SineRows, bool SineCols>
__global__ void prime_factor_gather(const Complex<T>* __restrict__ y, T* __restrict__ x, int M, int N, int Q) {
  const PrimeFactorSplit split{P, Q};
  for_each_flat(Q, M, [&](int b, int col) {
    const int m = makhoul_position(col, M);
    Complex<T> v[P];
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = y[(static_cast<std::size_t>(k) * Q + b) * M + m];
    register_dft<P, true>(v);
    T* column = x + col;
#pragma unroll
    for (int a = 0; a < P; ++a) {
      const int j = prime_factor_input_index(a, b, split);
      const int n_even = makhoul_source(2 * j, N), n_odd = makhoul_source(2 * j + 1, N);
      column[static_cast<std::size_t>(n_even) * M] = idct2_output_sign<SineRows, SineCols, T>(col, n_even) * v[a].re;
      column[static_cast<std::size_t>(n_odd) * M] = idct2_output_sign<SineRows, SineCols, T>(col, n_odd) * v[a].im;
    }
  });
}

// Element (u, k) of the packed spectrum in the prime-factor layout.
__device__ __forceinline__ std::size_t prime_factor_element(int u, int k, int M, PrimeFactorSplit split) {
  return static_cast<std::size_t>(prime_factor_output_slot(k, split)) * M + u;
}

// dct2: thread (v, u), v <= L/2, u <= M/2, runs PackedFft's quad (u, v) and stores it to the
// caller's array (element (u, v) at X[v M + u]).
template <typename T>
__global__ void dct2_prime_factor_postprocess(const Complex<T>* __restrict__ Z, T* __restrict__ X, int M, int N,
                                              PrimeFactorSplit split, const Complex<T>* __restrict__ tu,
                                              const Complex<T>* __restrict__ tv,
                                              const Complex<T>* __restrict__ split_twiddles, T zero_below) {
  const int L = N / 2;
  for_each_flat(L / 2 + 1, M / 2 + 1, [&](int v, int u) {
    const int Mu = u == 0 ? 0 : M - u, Lv = v == 0 ? 0 : L - v;
    const Complex<T>* at_v = Z + prime_factor_element(0, v, M, split);
    const Complex<T>* at_Lv = Z + prime_factor_element(0, Lv, M, split);
    const PackedQuadInputs<T> z{at_v[u], at_Lv[Mu], at_v[Mu], at_Lv[u]};
    dct2_packed_quads(z, X + u, X + Mu, M, u, v, M, N, tu[u], tv, split_twiddles, zero_below);
  });
}

// The inverses: thread (n, m), n <= L/2, m <= M/2, runs PackedFft's inverse quad (m, n) from the
// caller's array into Z(m, k) at [slot(k)][m].
template <typename T, bool SineRows, bool SineCols>
__global__ void idct2_prime_factor_preprocess(const T* __restrict__ X, Complex<T>* __restrict__ Z, int M, int N,
                                              PrimeFactorSplit split, const Complex<T>* __restrict__ tm,
                                              const Complex<T>* __restrict__ tn,
                                              const Complex<T>* __restrict__ split_twiddles) {
  const int L = N / 2;
  const auto store = [Z, M, split](int row, int k, Complex<T> z) { Z[prime_factor_element(row, k, M, split)] = z; };
  for_each_flat(L / 2 + 1, M / 2 + 1, [&](int n, int m) {
    idct2_packed_quad<T, SineRows, SineCols>(X, m, n, M, N, 1, M, tm[m], tm[M - m], tn[n], tn[L - n],
                                             split_twiddles[n], store);
  });
}

}  // namespace efield::detail::cuda_nd
