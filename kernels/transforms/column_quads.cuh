#pragma once
// The quads of the column passes (dct2d_column_pass.cuh, dct2d_column_four_step.cuh): the
// forward postprocess turns the two column-spectrum values V[u, v] and V[M-u, v] into the four
// outputs (u|M-u, v|N-v); the inverse preprocess reads the four inputs X'[m|M-m, n|N-n] from
// which it makes w[m, n] and w[M-m, n]. Formulas: math/dct2d.hpp.
#include <cuda_runtime.h>

#include "math/complex.hpp"
#include "math/dct2d.hpp"
#include "transforms/quad4.cuh"

namespace efield::detail::cuda_nd {

// The dct2 outputs of quad (u, v) from a = V[u, v] and b = V[(M-u) mod M, v], into the rows u
// (out_u) and (M-u) mod M (out_Mu) of X (M x N), column n of a row at n col_stride (1, or M
// where X is stored transposed): each distinct element once. Threshold = false leaves out
// PlanOptions::zero_below's comparisons: the own column passes are compiled both ways and a plan
// without zero_below takes the kernels without (ThreePasses' group pass at 8192^2 float: 94.6 M
// -> 82.2 M instructions).
template <bool Threshold = true, typename T>
__device__ __forceinline__ void store_dct2_quad_rows(T* out_u, T* out_Mu, int u, int v, int M, int N, Complex<T> a,
                                                     Complex<T> b, Complex<T> t_u, Complex<T> t_v, T zero_below,
                                                     long long col_stride = 1) {
  const Dct2Quad<T> q = dct2_post_quad(a, b, t_u, t_v);
  const bool mirror_u = has_distinct_mirror(u, M);
  const bool mirror_v = has_distinct_mirror(v, N);
  auto kept = [zero_below](T x) { return kept_coefficient<Threshold>(x, zero_below); };
  out_u[v * col_stride] = kept(q.uv);
  if (mirror_u) out_Mu[v * col_stride] = kept(q.Mu_v);
  if (mirror_v) out_u[(N - v) * col_stride] = kept(q.u_Nv);
  if (mirror_u && mirror_v) out_Mu[(N - v) * col_stride] = kept(q.Mu_Nv);
}

// Quad (u, col), 0 <= u <= M/2, 0 <= col <= N/2, of the dct2 output X (M x N): a = V[u, col],
// b = V[(M-u) mod M, col]; t_u = tu[u], t_col = tv[col] (quarter twiddles).
template <bool Threshold = true, typename T>
__device__ __forceinline__ void store_dct2_quad(T* __restrict__ X, int M, int N, int u, int col, Complex<T> a,
                                                Complex<T> b, Complex<T> t_u, Complex<T> t_col, T zero_below) {
  const int Mu = (M - u) & (M - 1);
  store_dct2_quad_rows<Threshold>(X + static_cast<long long>(u) * N, X + static_cast<long long>(Mu) * N, u, col, M,
                                  N, a, b, t_u, t_col, zero_below);
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

// The quads (m, n0 + c), c < 4, of one row pair from 16-byte loads: x[c] in load_idct2_quad's
// order. Needs N % 4 == 0, N >= 8, n0 % 4 == 0 and X 16-byte aligned. The mirror columns
// N - n0 - c are the quad at N - n0 - 4 reversed (c = 1..3) and one more value, N - n0 (c = 0;
// past the row when n0 = 0). Columns past N/2 get zeros, and a group starting past N/2 loads
// nothing, so the loads stay inside X.
template <bool SineRows, bool SineCols, typename T>
__device__ __forceinline__ void load_idct2_quads4(const T* __restrict__ X, int M, int N, int m, int n0,
                                                  T (&x)[4][4]) {
  if (n0 > N / 2) {
#pragma unroll
    for (int c = 0; c < 4; ++c) x[c][0] = x[c][1] = x[c][2] = x[c][3] = T(0);
    return;
  }
  // raw[a][c][b]: row m (a = 0) or (M - m) mod M (a = 1); column n0 + c (b = 0) or N - n0 - c (b = 1).
  T raw[2][4][2];
#pragma unroll
  for (int a = 0; a < 2; ++a) {
    const T* row = X + static_cast<long long>(a == 0 || m == 0 ? m : M - m) * N;
    const Quad4<T> direct = load_quad4(row + n0);
    const Quad4<T> mirror = load_quad4(row + N - n0 - 4);
    raw[a][0][0] = direct.a;
    raw[a][1][0] = direct.b;
    raw[a][2][0] = direct.c;
    raw[a][3][0] = direct.d;
    raw[a][0][1] = n0 > 0 ? row[N - n0] : T(0);
    raw[a][1][1] = mirror.d;
    raw[a][2][1] = mirror.c;
    raw[a][3][1] = mirror.b;
  }
  // Away from the edges (m > 0 and 0 < n <= N/2 for all four columns) idct2_pair_source picks
  // the same value for every quad: X'[m, n] is raw[0][c][0] on cosine axes, and a sine axis
  // reads the other row (column) of its pair; at m = M/2 (n = N/2) both rows (columns) of the
  // pair are the same one. Only the edge quads take the selection at run time below (it made the
  // inverse group pass run 2.4 times the static instructions of the forward one).
  if (m > 0 && n0 > 0 && n0 + 3 <= N / 2) {
    constexpr int rm = SineRows ? 1 : 0, cn = SineCols ? 1 : 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      x[c][0] = raw[rm][c][cn];
      x[c][1] = raw[1 - rm][c][1 - cn];
      x[c][2] = raw[1 - rm][c][cn];
      x[c][3] = raw[rm][c][1 - cn];
    }
    return;
  }
  const int row_m = idct2_pair_source<SineRows>(m, m, M), row_Mm = idct2_pair_source<SineRows>(M - m, m, M);
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const int n = n0 + c;
    const int col_n = idct2_pair_source<SineCols>(n, n, N), col_Nn = idct2_pair_source<SineCols>(N - n, n, N);
    auto at = [&](int a, int b) {
      const T r0 = b == 0 ? raw[0][c][0] : raw[0][c][1];
      const T r1 = b == 0 ? raw[1][c][0] : raw[1][c][1];
      return (a < 0 || b < 0 || n > N / 2) ? T(0) : a == 0 ? r0 : r1;
    };
    x[c][0] = at(row_m, col_n);
    x[c][1] = at(row_Mm, col_Nn);
    x[c][2] = at(row_Mm, col_n);
    x[c][3] = at(row_m, col_Nn);
  }
}

}  // namespace efield::detail::cuda_nd
