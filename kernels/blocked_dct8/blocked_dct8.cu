// The blocked 8x8 DCT on CUDA: one thread per 8x8 block, the block held in 64 registers, the
// same src/math/loeffler8.hpp block functions as the CPU loop. No shared memory and no
// synchronization: the kernel is memory bound, so what matters is that a warp's 32 threads take
// 32 horizontally adjacent blocks, which makes each row of loads one contiguous 1 KiB (float)
// span, read with 16-byte vector loads when the pointers allow it.
#include <cstdint>

#include "blocked_dct8/blocked_dct8_cuda.hpp"
#include "common/cuda_check.cuh"
#include "efield/error.hpp"
#include "math/loeffler8.hpp"

namespace efield::detail {
namespace {

constexpr int kThreads = 128;

// 16-byte vector type per element type.
template <typename T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int n = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int n = 2; };

template <typename T, bool kVector>
__device__ __forceinline__ void load_block(const T* src, long long cols, T (&b)[64]) {
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const T* row = src + r * cols;
    if constexpr (kVector) {
      using V = typename Vec16<T>::type;
      constexpr int n = Vec16<T>::n;
#pragma unroll
      for (int k = 0; k < 8 / n; ++k) {
        const V v = reinterpret_cast<const V*>(row)[k];
        const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
        for (int i = 0; i < n; ++i) b[8 * r + n * k + i] = e[i];
      }
    } else {
#pragma unroll
      for (int c = 0; c < 8; ++c) b[8 * r + c] = row[c];
    }
  }
}

template <typename T, bool kVector>
__device__ __forceinline__ void store_block(T* dst, long long cols, const T (&b)[64]) {
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    T* row = dst + r * cols;
    if constexpr (kVector) {
      using V = typename Vec16<T>::type;
      constexpr int n = Vec16<T>::n;
#pragma unroll
      for (int k = 0; k < 8 / n; ++k) {
        V v;
        T* e = reinterpret_cast<T*>(&v);
#pragma unroll
        for (int i = 0; i < n; ++i) e[i] = b[8 * r + n * k + i];
        reinterpret_cast<V*>(row)[k] = v;
      }
    } else {
#pragma unroll
      for (int c = 0; c < 8; ++c) row[c] = b[8 * r + c];
    }
  }
}

// No __restrict__: in == out is allowed. It is safe because a block is written only by the
// thread that has already read all of it.
template <typename T, bool kInverse, bool kVector>
__global__ void __launch_bounds__(kThreads)
    blocked_dct8_kernel(const T* in, T* out, long long block_rows, long long block_cols, T param) {
  const long long blk = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (blk >= block_rows * block_cols) return;
  const long long cols = block_cols * 8;
  const long long offset = (blk / block_cols) * 8 * cols + (blk % block_cols) * 8;
  T b[64];
  load_block<T, kVector>(in + offset, cols, b);
  if constexpr (kInverse) {
    loeffler8_block_inverse(b, param);
  } else {
    loeffler8_block_forward(b, param);
  }
  store_block<T, kVector>(out + offset, cols, b);
}

template <typename T, bool kInverse>
void launch(const T* in, T* out, int rows, int cols, T param, cudaStream_t stream) {
  const long long block_rows = rows / 8, block_cols = cols / 8;
  const long long blocks = block_rows * block_cols;
  const long long grid = (blocks + kThreads - 1) / kThreads;
  if (grid > 0x7fffffffLL) throw Error("BlockedDct8: array too large for one launch");
  // Rows start on 16-byte boundaries when the base does (cols is a multiple of 8 elements).
  const bool aligned = (reinterpret_cast<std::uintptr_t>(in) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(out) % 16 == 0);
  if (aligned) {
    blocked_dct8_kernel<T, kInverse, true><<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(
        in, out, block_rows, block_cols, param);
  } else {
    blocked_dct8_kernel<T, kInverse, false><<<static_cast<unsigned>(grid), kThreads, 0, stream>>>(
        in, out, block_rows, block_cols, param);
  }
  EFIELD_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
BlockedDct8Cuda<T>::BlockedDct8Cuda(int rows, int cols) : rows_(rows), cols_(cols) {
  EFIELD_CUDA_CHECK(cudaMalloc(&buffer_, sizeof(T) * static_cast<size_t>(rows) * cols));
}

template <typename T>
BlockedDct8Cuda<T>::~BlockedDct8Cuda() {
  if (buffer_) cudaFree(buffer_);
}

template <typename T>
void BlockedDct8Cuda<T>::run(bool inverse, const T* in, T* out, T param, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (inverse) {
    launch<T, true>(in, out, rows_, cols_, param, s);
  } else {
    launch<T, false>(in, out, rows_, cols_, param, s);
  }
}

template <typename T>
void BlockedDct8Cuda<T>::run_host(bool inverse, const T* in, T* out, T param) {
  const size_t bytes = sizeof(T) * static_cast<size_t>(rows_) * cols_;
  EFIELD_CUDA_CHECK(cudaMemcpy(buffer_, in, bytes, cudaMemcpyHostToDevice));
  run(inverse, buffer_, buffer_, param, nullptr);
  EFIELD_CUDA_CHECK(cudaMemcpy(out, buffer_, bytes, cudaMemcpyDeviceToHost));
}

template class BlockedDct8Cuda<float>;
template class BlockedDct8Cuda<double>;

}  // namespace efield::detail
