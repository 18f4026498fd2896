#pragma once
// Internal: the CUDA pre/postprocessing kernels of the batched 1D plans. Each kernel is a thin
// loop around one formula of math/dct1d.hpp (the CPU backend calls the same functions).
//
// Launch shape: grid.y walks the batch rows (looping when batch > 65535), grid.x with a
// grid-stride loop walks the elements of a row, so no thread divides a flat index.
#include <algorithm>

#include "common/cuda_check.cuh"
#include "common/grid_stride.cuh"
#include "math/dct1d.hpp"

namespace efield::detail::dct1d_kernels {

constexpr int kThreads = 256;

inline dim3 grid_for(long long per_row, int batch) {
  return dim3(grid_stride_blocks(per_row, kThreads), static_cast<unsigned>(std::min(batch, 65535)), 1);
}

#define EFIELD_DCT1D_LOOP(i, count)                                  \
  for (int b = blockIdx.y; b < batch; b += gridDim.y)                \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (count); \
         i += gridDim.x * blockDim.x)

// ---- forward -------------------------------------------------------------------------------

template <typename T>
__global__ void makhoul_reorder(const T* __restrict__ in, T* __restrict__ real, int n, int L, int batch) {
  const int pairs = (n + 1) / 2;
  EFIELD_DCT1D_LOOP(i, pairs) makhoul_reorder_pair(in + size_t(b) * n, real + size_t(b) * L, n, i);
}

// Algorithm: 1 mirrored 2N, 2 padded 2N, 3 4N (DctAlgorithm values).
template <typename T, int Algorithm>
__global__ void dct_expand(const T* __restrict__ in, T* __restrict__ real, int n, int L, int batch) {
  EFIELD_DCT1D_LOOP(j, L) {
    const T* x = in + size_t(b) * n;
    T v;
    if (Algorithm == 1) v = dct_expand_mirrored(x, n, j);
    else if (Algorithm == 2) v = dct_expand_padded(x, n, j);
    else v = dct_expand_four_n(x, n, j);
    real[size_t(b) * L + j] = v;
  }
}

template <typename T>
__global__ void dct_post_npoint(const Complex<T>* __restrict__ V, const Complex<T>* __restrict__ t,
                                T* __restrict__ out, int n, int H, int batch, T threshold) {
  const int pairs = n / 2 + 1;
  EFIELD_DCT1D_LOOP(k, pairs) {
    T* X = out + size_t(b) * n;
    dct_post_npoint_pair(V[size_t(b) * H + k], t, X, n, k);
    if (threshold > T(0)) {
      X[k] = zero_below(X[k], threshold);
      if (k > 0) X[n - k] = zero_below(X[n - k], threshold);
    }
  }
}

template <typename T, int Algorithm>
__global__ void dct_post(const Complex<T>* __restrict__ V, const Complex<T>* __restrict__ t, T* __restrict__ out,
                         int n, int H, int batch, T threshold) {
  EFIELD_DCT1D_LOOP(k, n) {
    const Complex<T> v = V[size_t(b) * H + k];
    T x;
    if (Algorithm == 1) x = dct_post_mirrored(v, t[k]);
    else if (Algorithm == 2) x = dct_post_padded(v, t[k]);
    else x = dct_post_four_n(v);
    out[size_t(b) * n + k] = threshold > T(0) ? zero_below(x, threshold) : x;
  }
}

// ---- inverse (idct, idxst) -----------------------------------------------------------------

template <typename T>
__global__ void idct_pre_kernel(const T* __restrict__ in, const Complex<T>* __restrict__ t, Complex<T>* __restrict__ W,
                                int n, int H, int batch, bool sine) {
  const int halves = n / 2 + 1;
  EFIELD_DCT1D_LOOP(k, halves) W[size_t(b) * H + k] = idct_pre(in + size_t(b) * n, t, n, k, sine);
}

template <typename T>
__global__ void idct_post_kernel(const T* __restrict__ y, T* __restrict__ out, int n, int batch, bool sine) {
  const int pairs = (n + 1) / 2;
  EFIELD_DCT1D_LOOP(i, pairs) idct_post_pair(y + size_t(b) * n, out + size_t(b) * n, n, i, sine);
}

#undef EFIELD_DCT1D_LOOP

// ---- launchers (each checks its launch) ------------------------------------------------------

template <typename T>
void launch_forward_pre(int algorithm, const T* in, T* real, int n, int L, int batch, cudaStream_t s) {
  switch (algorithm) {
    case 0: makhoul_reorder<T><<<grid_for((n + 1) / 2, batch), kThreads, 0, s>>>(in, real, n, L, batch); break;
    case 1: dct_expand<T, 1><<<grid_for(L, batch), kThreads, 0, s>>>(in, real, n, L, batch); break;
    case 2: dct_expand<T, 2><<<grid_for(L, batch), kThreads, 0, s>>>(in, real, n, L, batch); break;
    default: dct_expand<T, 3><<<grid_for(L, batch), kThreads, 0, s>>>(in, real, n, L, batch); break;
  }
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_forward_post(int algorithm, const Complex<T>* V, const Complex<T>* t, T* out, int n, int H, int batch,
                         T threshold, cudaStream_t s) {
  switch (algorithm) {
    case 0: dct_post_npoint<T><<<grid_for(n / 2 + 1, batch), kThreads, 0, s>>>(V, t, out, n, H, batch, threshold); break;
    case 1: dct_post<T, 1><<<grid_for(n, batch), kThreads, 0, s>>>(V, t, out, n, H, batch, threshold); break;
    case 2: dct_post<T, 2><<<grid_for(n, batch), kThreads, 0, s>>>(V, t, out, n, H, batch, threshold); break;
    default: dct_post<T, 3><<<grid_for(n, batch), kThreads, 0, s>>>(V, t, out, n, H, batch, threshold); break;
  }
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_inverse_pre(const T* in, const Complex<T>* t, Complex<T>* W, int n, int H, int batch, bool sine,
                        cudaStream_t s) {
  idct_pre_kernel<T><<<grid_for(n / 2 + 1, batch), kThreads, 0, s>>>(in, t, W, n, H, batch, sine);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_inverse_post(const T* y, T* out, int n, int batch, bool sine, cudaStream_t s) {
  idct_post_kernel<T><<<grid_for((n + 1) / 2, batch), kThreads, 0, s>>>(y, out, n, batch, sine);
  EFIELD_CUDA_CHECK_LAUNCH();
}

}  // namespace efield::detail::dct1d_kernels
