#pragma once
// The four passes around the 2D real FFT of Plan2D's CUDA backend. Each kernel is a 2D
// grid-stride loop: y over rows (or row quads), x along a row, so that a warp touches
// consecutive (or consecutive reversed) addresses. Formulas: math/dct2d.hpp, math/makhoul.hpp.
#include <cuda_runtime.h>

#include <cstddef>

#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "math/real_fft.hpp"
#include "transforms/column_quads.cuh"

namespace efield::detail::cuda_nd {

template <typename T>
struct Pair;
template <>
struct Pair<float> {
  using type = float2;
};
template <>
struct Pair<double> {
  using type = double2;
};

// v[p(m), q(n)] = x[m, n]. Thread (m, i) moves the pair x[m, 2i], x[m, 2i+1] (one vector load
// when Vec: N even and x aligned) to v[p(m), i] and v[p(m), N-1-i].
template <typename T, bool Vec>
__global__ void makhoul_reorder_2d(const T* __restrict__ x, T* __restrict__ v, int M, int N) {
  const int pairs = (N + 1) / 2;
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m < M; m += gridDim.y * blockDim.y) {
    const T* src = x + static_cast<std::size_t>(m) * N;
    T* dst = v + static_cast<std::size_t>(makhoul_position(m, M)) * N;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x) {
      if (2 * i + 1 < N) {
        T even, odd;
        if constexpr (Vec) {
          const auto p = reinterpret_cast<const typename Pair<T>::type*>(src)[i];
          even = p.x;
          odd = p.y;
        } else {
          even = src[2 * i];
          odd = src[2 * i + 1];
        }
        dst[i] = even;
        dst[N - 1 - i] = odd;
      } else {
        dst[i] = src[2 * i];  // odd N: the last sample goes to the middle, q(N-1) = (N-1)/2
      }
    }
  }
}

// x[m, n] = sign(m, n) y[p(m), q(n)]: the inverse of makhoul_reorder_2d with the (-1)^index of
// sine axes folded in.
template <typename T, bool SineRows, bool SineCols, bool Vec>
__global__ void makhoul_gather_2d(const T* __restrict__ y, T* __restrict__ x, int M, int N) {
  const int pairs = (N + 1) / 2;
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m < M; m += gridDim.y * blockDim.y) {
    const T* src = y + static_cast<std::size_t>(makhoul_position(m, M)) * N;
    T* dst = x + static_cast<std::size_t>(m) * N;
    const T even_sign = idct2_output_sign<SineRows, SineCols, T>(m, 0);
    const T odd_sign = idct2_output_sign<SineRows, SineCols, T>(m, 1);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += gridDim.x * blockDim.x) {
      if (2 * i + 1 < N) {
        const T even = even_sign * src[i];
        const T odd = odd_sign * src[N - 1 - i];
        if constexpr (Vec) {
          typename Pair<T>::type p;
          p.x = even;
          p.y = odd;
          reinterpret_cast<typename Pair<T>::type*>(dst)[i] = p;
        } else {
          dst[2 * i] = even;
          dst[2 * i + 1] = odd;
        }
      } else {
        dst[2 * i] = even_sign * src[i];
      }
    }
  }
}

// float rows with N % 4 == 0 and 16-byte aligned arrays: each thread moves two pairs with one
// 16-byte load and two 8-byte stores (reorder) or two 8-byte loads and one 16-byte store (gather);
// fewer, wider memory instructions for the two passes that are pure data movement.
__global__ inline void makhoul_reorder_2d_float4(const float* __restrict__ x, float* __restrict__ v, int M, int N) {
  const int quads = N / 4;
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m < M; m += gridDim.y * blockDim.y) {
    const float4* src = reinterpret_cast<const float4*>(x + static_cast<std::size_t>(m) * N);
    float* dst = v + static_cast<std::size_t>(makhoul_position(m, M)) * N;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < quads; j += gridDim.x * blockDim.x) {
      const float4 q = src[j];  // x[4j], x[4j+1], x[4j+2], x[4j+3]
      reinterpret_cast<float2*>(dst)[j] = make_float2(q.x, q.z);                  // positions 2j, 2j+1
      reinterpret_cast<float2*>(dst + N - 2 - 2 * j)[0] = make_float2(q.w, q.y);  // N-2-2j, N-1-2j
    }
  }
}

template <bool SineRows, bool SineCols>
__global__ void makhoul_gather_2d_float4(const float* __restrict__ y, float* __restrict__ x, int M, int N) {
  const int quads = N / 4;
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m < M; m += gridDim.y * blockDim.y) {
    const float* src = y + static_cast<std::size_t>(makhoul_position(m, M)) * N;
    float4* dst = reinterpret_cast<float4*>(x + static_cast<std::size_t>(m) * N);
    const float even_sign = idct2_output_sign<SineRows, SineCols, float>(m, 0);
    const float odd_sign = idct2_output_sign<SineRows, SineCols, float>(m, 1);
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < quads; j += gridDim.x * blockDim.x) {
      const float2 front = reinterpret_cast<const float2*>(src)[j];                // y[2j], y[2j+1]
      const float2 back = reinterpret_cast<const float2*>(src + N - 2 - 2 * j)[0];  // y[N-2-2j], y[N-1-2j]
      dst[j] = make_float4(even_sign * front.x, odd_sign * back.y, even_sign * front.y, odd_sign * back.x);
    }
  }
}

// Rows u and (M-u) mod M of a spectrum of `stride` complex values a row, and of X (M x N):
// row-major, or stored transposed (element (u, v) at X[v M + u]).
template <typename T>
struct QuadRows {
  const Complex<T>* a;
  const Complex<T>* b;
  T* out_u;
  T* out_Mu;
  long long col_stride;  // of X: 1, or M when transposed
};
template <typename T>
__device__ __forceinline__ QuadRows<T> quad_rows(const Complex<T>* S, int stride, T* X, int N, int u, int M,
                                                 bool transposed = false) {
  const int Mu = u == 0 ? 0 : M - u;
  const Complex<T>* a = S + static_cast<std::size_t>(u) * stride;
  const Complex<T>* b = S + static_cast<std::size_t>(Mu) * stride;
  if (transposed) return {a, b, X + u, X + Mu, M};
  return {a, b, X + static_cast<std::size_t>(u) * N, X + static_cast<std::size_t>(Mu) * N, 1};
}

// dct2 postprocess: thread (u, v), 0 <= u <= M/2, 0 <= v <= N/2, reads V[u, v] and V[-u, v]
// and writes X at (u, v), (M-u, v), (u, N-v), (M-u, N-v) (each distinct element once).
template <typename T>
__global__ void dct2_postprocess(const Complex<T>* __restrict__ V, T* __restrict__ X, int M, int N,
                                 const Complex<T>* __restrict__ tu, const Complex<T>* __restrict__ tv,
                                 T zero_below) {
  const int Nh = N / 2 + 1;
  for (int u = blockIdx.y * blockDim.y + threadIdx.y; u <= M / 2; u += gridDim.y * blockDim.y) {
    const QuadRows<T> r = quad_rows(V, Nh, X, N, u, M);
    const Complex<T> t_u = tu[u];
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v <= N / 2; v += gridDim.x * blockDim.x) {
      store_dct2_quad_rows(r.out_u, r.out_Mu, u, v, M, N, r.a[v], r.b[v], t_u, tv[v], zero_below);
    }
  }
}

// The C2R inputs w[m, n] and w[M-m, n] from the four coefficients X'[m|M-m, n|N-n]; X's
// element (m, n) at X[m row_stride + n col_stride] (idct2_input).
template <typename T, bool SineRows, bool SineCols>
__device__ __forceinline__ Idct2Pair<T> idct2_pre_column(const T* X, int m, int n, int M, int N, Complex<T> t_m,
                                                         Complex<T> t_Mm, Complex<T> t_n, long long row_stride,
                                                         long long col_stride) {
  auto x = [&](int i, int k) { return idct2_input<SineRows, SineCols>(X, i, k, M, N, row_stride, col_stride); };
  return idct2_pre_pair(x(m, n), x(M - m, N - n), x(M - m, n), x(m, N - n), t_m, t_Mm, t_n);
}

// Inverse preprocess: thread (m, n), 0 <= m <= M/2, 0 <= n <= N/2, reads the four coefficients
// X'[m|M-m, n|N-n] and writes the C2R inputs w[m, n] and w[M-m, n].
template <typename T, bool SineRows, bool SineCols>
__global__ void idct2_preprocess(const T* __restrict__ X, Complex<T>* __restrict__ W, int M, int N,
                                 const Complex<T>* __restrict__ tm, const Complex<T>* __restrict__ tn) {
  const int Nh = N / 2 + 1;
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m <= M / 2; m += gridDim.y * blockDim.y) {
    const bool mirror_m = has_distinct_mirror(m, M);
    const Complex<T> t_m = tm[m], t_Mm = tm[M - m];
    Complex<T>* w_m = W + static_cast<std::size_t>(m) * Nh;
    Complex<T>* w_Mm = W + static_cast<std::size_t>(M - m) * Nh;
    for (int n = blockIdx.x * blockDim.x + threadIdx.x; n <= N / 2; n += gridDim.x * blockDim.x) {
      const Idct2Pair<T> w = idct2_pre_column<T, SineRows, SineCols>(X, m, n, M, N, t_m, t_Mm, tn[n], N, 1);
      w_m[n] = w.m_n;
      if (mirror_m) w_Mm[n] = w.Mm_n;
    }
  }
}

// Cuda2DMethod::PackedFft: the 2D real FFT of the reordered v (M x N, N even) taken as the
// complex FFT Z of the M x L array z[m, p] = v[m, 2p] + i v[m, 2p+1] (L = N/2). Along the rows
// this is math/real_fft.hpp's packing, and its split holds in 2D with the row index negated too:
//   real_fft_split(Z[u, k], Z[-u, L-k], W^k) = { V[u, k], V[-u, L-k] }   (indices mod M, mod L).
// So the quad (u, v), 0 <= u <= M/2, 0 <= v <= L/2, reads Z at rows u, M-u and columns v, L-v,
// has V at rows u, M-u of the columns v and L-v, and writes the dct2 quads of both columns (one
// when L - v == v) to out_u, out_Mu (rows u and M-u of X, elements col_stride apart).
// split: W^k = exp(-2 pi i k / N), k <= L/2.
template <typename T>
struct PackedQuadInputs {
  Complex<T> u_v;    // Z[u, v]
  Complex<T> Mu_Lv;  // Z[-u, L-v]
  Complex<T> Mu_v;   // Z[-u, v]
  Complex<T> u_Lv;   // Z[u, L-v]
};
template <typename T>
__device__ __forceinline__ void dct2_packed_quads(const PackedQuadInputs<T>& z, T* out_u, T* out_Mu,
                                                  long long col_stride, int u, int v, int M, int N, Complex<T> t_u,
                                                  const Complex<T>* tv, const Complex<T>* split, T zero_below) {
  const int L = N / 2;
  const SpectrumPair<T> s1 = real_fft_split(z.u_v, z.Mu_Lv, split[v]);  // V[u, v], V[-u, L-v]
  const SpectrumPair<T> s2 = real_fft_split(z.Mu_v, z.u_Lv, split[v]);  // V[-u, v], V[u, L-v]
  store_dct2_quad_rows(out_u, out_Mu, u, v, M, N, s1.k, s2.k, t_u, tv[v], zero_below, col_stride);
  if (L - v != v) {
    store_dct2_quad_rows(out_u, out_Mu, u, L - v, M, N, s2.L_k, s1.L_k, t_u, tv[L - v], zero_below, col_stride);
  }
}
// The same with Z row-major (rows u and M-u from quad_rows).
template <typename T>
__device__ __forceinline__ void dct2_packed_quads(const QuadRows<T>& r, int u, int v, int M, int N, Complex<T> t_u,
                                                  const Complex<T>* tv, const Complex<T>* split, T zero_below) {
  const int Lv = v == 0 ? 0 : N / 2 - v;  // column L - v of Z, mod L
  dct2_packed_quads(PackedQuadInputs<T>{r.a[v], r.b[Lv], r.b[v], r.a[Lv]}, r.out_u, r.out_Mu, r.col_stride, u, v, M,
                    N, t_u, tv, split, zero_below);
}

// Thread (u, v) runs quad (u, v); a warp's lanes take consecutive v (X row-major) or, when X is
// stored transposed (TransposedPackedFft: X is the caller's N x M array), consecutive u, so
// that its stores run along the rows of X in memory either way (the transposed reads of Z, a
// row of Z apart, then share L1 lines with the block's other warps, which take the next v).
template <typename T, bool Transposed>
__global__ void dct2_packed_postprocess(const Complex<T>* __restrict__ Z, T* __restrict__ X, int M, int N,
                                        const Complex<T>* __restrict__ tu, const Complex<T>* __restrict__ tv,
                                        const Complex<T>* __restrict__ split, T zero_below) {
  const int L = N / 2;
  if constexpr (Transposed) {
    for (int v = blockIdx.y * blockDim.y + threadIdx.y; v <= L / 2; v += gridDim.y * blockDim.y) {
      for (int u = blockIdx.x * blockDim.x + threadIdx.x; u <= M / 2; u += gridDim.x * blockDim.x) {
        dct2_packed_quads(quad_rows(Z, L, X, N, u, M, true), u, v, M, N, tu[u], tv, split, zero_below);
      }
    }
  } else {
    for (int u = blockIdx.y * blockDim.y + threadIdx.y; u <= M / 2; u += gridDim.y * blockDim.y) {
      const QuadRows<T> r = quad_rows(Z, L, X, N, u, M);
      const Complex<T> t_u = tu[u];
      for (int v = blockIdx.x * blockDim.x + threadIdx.x; v <= L / 2; v += gridDim.x * blockDim.x) {
        dct2_packed_quads(r, u, v, M, N, t_u, tv, split, zero_below);
      }
    }
  }
}

// The inverses of PackedFft: quad (m, n), 0 <= m <= M/2, 0 <= n <= L/2, makes the C2R inputs
// w at rows m, M-m of the columns n and L-n (idct2_pre_pair, eight coefficients of X, element
// (i, k) at X[i row_stride + k col_stride]), then merges them into the packed spectrum:
// real_ifft_merge(w[m, k], w[-m, L-k], W^k) = { 2 Z[m, k], 2 Z[-m, L-k] }, whose unnormalized
// inverse complex FFT is M N z, the C2R's scale. Column L-n is column n itself when n = 0
// (mod L) or 2n = L, and row -m is row m when m has no distinct mirror: `store(row, column,
// value)` is called for each element of Z once.
template <typename T, bool SineRows, bool SineCols, typename Store>
__device__ __forceinline__ void idct2_packed_quad(const T* X, int m, int n, int M, int N, long long row_stride,
                                                  long long col_stride, Complex<T> t_m, Complex<T> t_Mm,
                                                  Complex<T> t_n, Complex<T> t_Ln, Complex<T> split_n, Store store) {
  const int L = N / 2;
  const Idct2Pair<T> w_n = idct2_pre_column<T, SineRows, SineCols>(X, m, n, M, N, t_m, t_Mm, t_n, row_stride, col_stride);
  const Idct2Pair<T> w_Ln =
      idct2_pre_column<T, SineRows, SineCols>(X, m, L - n, M, N, t_m, t_Mm, t_Ln, row_stride, col_stride);
  const SpectrumPair<T> z1 = real_ifft_merge(w_n.m_n, w_Ln.Mm_n, split_n);  // 2Z[m, n], 2Z[-m, L-n]
  const SpectrumPair<T> z2 = real_ifft_merge(w_n.Mm_n, w_Ln.m_n, split_n);  // 2Z[-m, n], 2Z[m, L-n]
  const bool mirror_m = has_distinct_mirror(m, M);
  const bool mirror_n = has_distinct_mirror(n, L);
  const int Mm = m == 0 ? 0 : M - m;
  store(m, n, z1.k);
  if (mirror_m) store(Mm, n, z2.k);
  if (mirror_n) store(m, L - n, z2.L_k);
  if (mirror_m && mirror_n) store(Mm, L - n, z1.L_k);
}

// PackedFft's preprocess: thread (m, n) runs quad (m, n) into the row-major M x L array Z.
// Transposed: X is the caller's N x M array (element (m, n) at X[n M + m]); lanes still take
// consecutive n, so that the stores of Z run along its rows.
template <typename T, bool SineRows, bool SineCols, bool Transposed>
__global__ void idct2_packed_preprocess(const T* __restrict__ X, Complex<T>* __restrict__ Z, int M, int N,
                                        const Complex<T>* __restrict__ tm, const Complex<T>* __restrict__ tn,
                                        const Complex<T>* __restrict__ split) {
  const int L = N / 2;
  const long long row_stride = Transposed ? 1 : N, col_stride = Transposed ? M : 1;
  const auto store = [Z, L](int i, int k, Complex<T> z) { Z[static_cast<std::size_t>(i) * L + k] = z; };
  for (int m = blockIdx.y * blockDim.y + threadIdx.y; m <= M / 2; m += gridDim.y * blockDim.y) {
    const Complex<T> t_m = tm[m], t_Mm = tm[M - m];
    for (int n = blockIdx.x * blockDim.x + threadIdx.x; n <= L / 2; n += gridDim.x * blockDim.x) {
      idct2_packed_quad<T, SineRows, SineCols>(X, m, n, M, N, row_stride, col_stride, t_m, t_Mm, tn[n], tn[L - n],
                                               split[n], store);
    }
  }
}

// Cuda2DMethod::TransposedPackedFft's reorder and its inverse: the caller's array u is the
// transpose of the planned M x N array (element (m, n) at u[n M + m]). A block moves 32 x 32
// tiles through shared memory, so that the caller's rows and the reordered rows are both read
// and written along their length. Launch: blocks (kTransposeTile, 8), grid (ceil(M / 32),
// ceil(N / 32)) or fewer (grid-stride over tiles).
constexpr int kTransposeTile = 32;

// v[p(m), q(n)] = u[n M + m].
template <typename T>
__global__ void makhoul_reorder_2d_transposed(const T* __restrict__ u, T* __restrict__ v, int M, int N) {
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];  // [n - n0][m - m0]; + 1: no bank conflicts
  const int tx = static_cast<int>(threadIdx.x);
  for (int n0 = blockIdx.y * kTransposeTile; n0 < N; n0 += gridDim.y * kTransposeTile) {
    for (int m0 = blockIdx.x * kTransposeTile; m0 < M; m0 += gridDim.x * kTransposeTile) {
      for (int r = threadIdx.y; r < kTransposeTile; r += blockDim.y) {
        if (n0 + r < N && m0 + tx < M) tile[r][tx] = u[static_cast<std::size_t>(n0 + r) * M + m0 + tx];
      }
      __syncthreads();
      for (int r = threadIdx.y; r < kTransposeTile; r += blockDim.y) {
        const int m = m0 + r, n = n0 + tx;
        if (m < M && n < N) {
          v[static_cast<std::size_t>(makhoul_position(m, M)) * N + makhoul_position(n, N)] = tile[tx][r];
        }
      }
      __syncthreads();  // the tile is refilled next
    }
  }
}

// u[n M + m] = sign(m, n) y[p(m), q(n)]: the inverse of makhoul_reorder_2d_transposed, with the
// (-1)^index of sine axes folded in.
template <typename T, bool SineRows, bool SineCols>
__global__ void makhoul_gather_2d_transposed(const T* __restrict__ y, T* __restrict__ u, int M, int N) {
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];  // [m - m0][n - n0]
  const int tx = static_cast<int>(threadIdx.x);
  for (int n0 = blockIdx.y * kTransposeTile; n0 < N; n0 += gridDim.y * kTransposeTile) {
    for (int m0 = blockIdx.x * kTransposeTile; m0 < M; m0 += gridDim.x * kTransposeTile) {
      for (int r = threadIdx.y; r < kTransposeTile; r += blockDim.y) {
        const int m = m0 + r, n = n0 + tx;
        if (m < M && n < N) {
          tile[r][tx] = idct2_output_sign<SineRows, SineCols, T>(m, n) *
                        y[static_cast<std::size_t>(makhoul_position(m, M)) * N + makhoul_position(n, N)];
        }
      }
      __syncthreads();
      for (int r = threadIdx.y; r < kTransposeTile; r += blockDim.y) {
        if (n0 + r < N && m0 + tx < M) u[static_cast<std::size_t>(n0 + r) * M + m0 + tx] = tile[tx][r];
      }
      __syncthreads();
    }
  }
}

}  // namespace efield::detail::cuda_nd
