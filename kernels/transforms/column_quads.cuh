#pragma once
// The quads of the column passes (dct2d_column_pass.cuh, dct2d_column_four_step.cuh): the
// forward postprocess turns the two column-spectrum values V[u, v] and V[M-u, v] into the four
// outputs (u|M-u, v|N-v); the inverse preprocess reads the four inputs X'[m|M-m, n|N-n] from
// which it makes w[m, n] and w[M-m, n]. Formulas: math/dct2d.hpp.
#include <cuda_runtime.h>

#include "math/complex.hpp"
#include "math/dct2d.hpp"

namespace efield::detail::cuda_nd {

// Quad (u, col), 0 <= u <= M/2, 0 <= col <= N/2, of the dct2 output X (M x N): a = V[u, col],
// b = V[(M-u) mod M, col]; t_u = tu[u], t_col = tv[col] (quarter twiddles).
template <typename T>
__device__ __forceinline__ void store_dct2_quad(T* __restrict__ X, int M, int N, int u, int col, Complex<T> a,
                                                Complex<T> b, Complex<T> t_u, Complex<T> t_col, T zero_below) {
  const int Mu = (M - u) & (M - 1);
  const Dct2Quad<T> q = dct2_post_quad(a, b, t_u, t_col);
  const bool mirror_u = has_distinct_mirror(u, M);
  const bool mirror_v = has_distinct_mirror(col, N);
  T* row_u = X + static_cast<long long>(u) * N;
  T* row_Mu = X + static_cast<long long>(Mu) * N;
  row_u[col] = threshold_coefficient(q.uv, zero_below);
  if (mirror_u) row_Mu[col] = threshold_coefficient(q.Mu_v, zero_below);
  if (mirror_v) row_u[N - col] = threshold_coefficient(q.u_Nv, zero_below);
  if (mirror_u && mirror_v) row_Mu[N - col] = threshold_coefficient(q.Mu_Nv, zero_below);
}

// The four inputs of quad (m, n), 0 <= m <= M/2, 0 <= n <= N/2, in idct2_pre_pair's order:
// X'[m,n], X'[M-m,N-n], X'[M-m,n], X'[m,N-n]. A column that is not `live` (past N/2) gets
// zeros, so the FFT it feeds stays defined.
template <bool SineRows, bool SineCols, typename T>
__device__ __forceinline__ void load_idct2_quad(const T* __restrict__ X, int M, int N, int m, int n, bool live,
                                                T* x) {
  x[0] = live ? idct2_input<SineRows, SineCols>(X, m, n, M, N) : T(0);
  x[1] = live ? idct2_input<SineRows, SineCols>(X, M - m, N - n, M, N) : T(0);
  x[2] = live ? idct2_input<SineRows, SineCols>(X, M - m, n, M, N) : T(0);
  x[3] = live ? idct2_input<SineRows, SineCols>(X, m, N - n, M, N) : T(0);
}

}  // namespace efield::detail::cuda_nd
