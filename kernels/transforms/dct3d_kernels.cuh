#pragma once
// Internal: the passes of the CUDA Plan3D around its cuFFT 3D FFT (dct3d_cuda.cu), shared with the
// 3D electrostatic pipeline's batched field inverse (kernels/electrostatics3d/field_inverse3d.cuh).
// Flat indices are 32-bit: a transform holds at most 2^31 - 1 elements.
#include <cuda_runtime.h>

#include "math/complex.hpp"
#include "math/dct3d.hpp"
#include "math/makhoul.hpp"

namespace efield::detail {

struct Dims3 {
  int M, N, K;
};

// Element (a, b, c) of a flat grid-stride index over [A][B][C] (C fastest).
__device__ inline void split_index(unsigned i, unsigned B, unsigned C, int& a, int& b, int& c) {
  c = static_cast<int>(i % C);
  const unsigned ab = i / C;
  b = static_cast<int>(ab % B);
  a = static_cast<int>(ab / B);
}

// Flat index of element (a, b, c) in the array reordered along all three axes.
__device__ inline unsigned reordered_index(int a, int b, int c, Dims3 d) {
  return (static_cast<unsigned>(makhoul_position(a, d.M)) * d.N + makhoul_position(b, d.N)) * d.K +
         makhoul_position(c, d.K);
}

// Threads of a grid-stride loop: flat indices stay below 2^31, so i + stride fits in unsigned.
__device__ inline unsigned first_index() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline unsigned index_stride() { return gridDim.x * blockDim.x; }

template <typename T>
__global__ void makhoul_reorder_3d(const T* __restrict__ x, T* __restrict__ v, Dims3 d) {
  const unsigned total = static_cast<unsigned>(d.M) * d.N * d.K;
  for (unsigned i = first_index(); i < total; i += index_stride()) {
    int a, b, c;
    split_index(i, d.N, d.K, a, b, c);
    v[reordered_index(a, b, c, d)] = x[i];
  }
}

template <typename T>
__global__ void makhoul_gather_3d(const T* __restrict__ y, T* __restrict__ x, Dims3 d) {
  const unsigned total = static_cast<unsigned>(d.M) * d.N * d.K;
  for (unsigned i = first_index(); i < total; i += index_stride()) {
    int a, b, c;
    split_index(i, d.N, d.K, a, b, c);
    x[i] = y[reordered_index(a, b, c, d)];
  }
}

// Groups (a, b, c) of mirrored indices: 0 <= a <= M/2, 0 <= b <= N/2, 0 <= c <= K/2.
inline unsigned group_count(Dims3 d) {
  return static_cast<unsigned>(d.M / 2 + 1) * static_cast<unsigned>(d.N / 2 + 1) * static_cast<unsigned>(d.K / 2 + 1);
}

template <typename T>
__global__ void dct3_postprocess(const Complex<T>* __restrict__ V, T* __restrict__ X, Dims3 d,
                                 const Complex<T>* __restrict__ ta, const Complex<T>* __restrict__ tb,
                                 const Complex<T>* __restrict__ tc, T zero_below, unsigned groups) {
  for (unsigned i = first_index(); i < groups; i += index_stride()) {
    int a, b, c;
    split_index(i, d.N / 2 + 1, d.K / 2 + 1, a, b, c);
    dct3_group(V, X, a, b, c, d.M, d.N, d.K, ta, tb, tc, zero_below);
  }
}

// Batched over blockIdx.y: transform y reads X + y x_stride and writes W + y w_stride (one
// transform: a grid of one row, strides unused).
template <typename T>
__global__ void idct3_preprocess(const T* __restrict__ X, Complex<T>* __restrict__ W, Dims3 d,
                                 const Complex<T>* __restrict__ ta, const Complex<T>* __restrict__ tb,
                                 const Complex<T>* __restrict__ tc, unsigned groups, long long x_stride = 0,
                                 long long w_stride = 0) {
  X += blockIdx.y * x_stride;
  W += blockIdx.y * w_stride;
  for (unsigned i = first_index(); i < groups; i += index_stride()) {
    int a, b, c;
    split_index(i, d.N / 2 + 1, d.K / 2 + 1, a, b, c);
    idct3_group(X, W, a, b, c, d.M, d.N, d.K, ta, tb, tc);
  }
}

}  // namespace efield::detail
