// The blocked 8x8 DCT on CUDA: one thread per 8x8 block, the block held in 64 registers while the
// same src/math/loeffler8.hpp block functions as the CPU loop transform it. A warp's 32 threads
// take 32 consecutive blocks (row-major over the grid of blocks), so for adjacent blocks a row of
// the warp's data is one contiguous span.
//
// The kernel is memory bound; how the bytes move is what matters, and the better way differs by
// type (bench_ispd/results/blocked_dct8.md):
//  - float, direct: each thread loads its own block straight into registers with 16-byte loads
//    (a warp's load instruction touches half of each 32-byte sector, stride 32 bytes).
//  - double, staged: each warp moves its 32 blocks between global memory and its own slice of
//    shared memory with fully coalesced 16-byte accesses (consecutive lanes, consecutive 16
//    bytes), and each thread then takes its block from shared memory. The shared layout is
//    XOR-swizzled so that both access patterns are free of bank conflicts. Only __syncwarp, no
//    __syncthreads.
// Misaligned pointers (not 16-byte aligned) take a scalar variant of `direct` in both types.
#include <cstdint>
#include <type_traits>

#include "blocked_dct8/blocked_dct8_cuda.hpp"
#include "common/cuda_check.cuh"
#include "efield/error.hpp"
#include "math/loeffler8.hpp"

namespace efield::detail {
namespace {

// 16-byte vector type per element type.
template <typename T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int n = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int n = 2; };

// Threads per CUDA block: 32 KiB of staging shared memory per CUDA block for both types.
template <typename T> constexpr int kThreads = sizeof(T) == 4 ? 128 : 64;

template <typename T>
__device__ __forceinline__ void unpack(const typename Vec16<T>::type& v, T* dst) {
  const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
  for (int i = 0; i < Vec16<T>::n; ++i) dst[i] = e[i];
}
template <typename T>
__device__ __forceinline__ typename Vec16<T>::type pack(const T* src) {
  typename Vec16<T>::type v;
  T* e = reinterpret_cast<T*>(&v);
#pragma unroll
  for (int i = 0; i < Vec16<T>::n; ++i) e[i] = src[i];
  return v;
}

template <typename T, bool kInverse>
__device__ __forceinline__ void transform(T (&b)[64], T param) {
  if constexpr (kInverse) {
    loeffler8_block_inverse(b, param);
  } else {
    loeffler8_block_forward(b, param);
  }
}

__device__ __forceinline__ long long block_offset(long long blk, long long block_cols, long long cols) {
  return (blk / block_cols) * 8 * cols + (blk % block_cols) * 8;
}

// ---- direct (float): each thread reads and writes its own block ------------------------------

template <typename T, bool kVector>
__device__ __forceinline__ void load_block(const T* src, long long cols, T (&b)[64]) {
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const T* row = src + r * cols;
    if constexpr (kVector) {
      using V = typename Vec16<T>::type;
      constexpr int n = Vec16<T>::n;
#pragma unroll
      for (int k = 0; k < 8 / n; ++k) unpack<T>(reinterpret_cast<const V*>(row)[k], b + 8 * r + n * k);
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
      for (int k = 0; k < 8 / n; ++k) reinterpret_cast<V*>(row)[k] = pack<T>(b + 8 * r + n * k);
    } else {
#pragma unroll
      for (int c = 0; c < 8; ++c) row[c] = b[8 * r + c];
    }
  }
}

// No __restrict__ here or below: in == out is allowed. It is safe because a block is written only
// after all of it has been read (by its own thread, or by its own warp before a __syncwarp).
template <typename T, bool kInverse, bool kVector>
__global__ void __launch_bounds__(kThreads<T>)
    blocked_dct8_direct(const T* in, T* out, long long block_rows, long long block_cols, T param) {
  const long long blk = static_cast<long long>(blockIdx.x) * kThreads<T> + threadIdx.x;
  if (blk >= block_rows * block_cols) return;
  const long long cols = block_cols * 8;
  const long long offset = block_offset(blk, block_cols, cols);
  T b[64];
  load_block<T, kVector>(in + offset, cols, b);
  transform<T, kInverse>(b, param);
  store_block<T, kVector>(out + offset, cols, b);
}

// ---- staged (double): coalesced through a per-warp slice of shared memory --------------------
//
// A block is Q = 8 * S slots of 16 bytes (S slots per row: 2 for float, 4 for double); a warp's
// slice holds its 32 blocks, slot q of block b at b * Q + (q ^ swizzle(b)).
// Global side, instruction k = r * S + p (r: row, p: part): lane t moves slot h = t % S of row r
// of block b = p * (32 / S) + t / S, so the 32 lanes cover 32 / S whole block rows = 512
// contiguous bytes when the blocks are adjacent.
// Thread side: lane t moves all Q slots of block t.
// 128-bit shared accesses are served 8 lanes at a time; the 8 lanes must hit 8 different 16-byte
// bank groups (position mod 8). Thread side: b = 8 consecutive values, same q -> swizzle must be a
// bijection on b mod 8. Global side: 8 / S consecutive aligned b, all S values of h -> swizzle
// puts b mod (8/S) above the low log2(S) bits that h occupies:
//   swizzle(b) = (b mod (8/S)) * S + (b / (8/S)) mod S.
template <typename T>
struct Staging {
  static constexpr int S = 8 / Vec16<T>::n;  // 16-byte slots per block row
  static constexpr int Q = 8 * S;            // slots per block
  __device__ static int swizzle(int b) { return (b % (8 / S)) * S + (b / (8 / S)) % S; }
  __device__ static int slot(int b, int q) { return b * Q + (q ^ swizzle(b)); }
};

template <typename T, bool kInverse>
__global__ void __launch_bounds__(kThreads<T>)
    blocked_dct8_staged(const T* in, T* out, long long block_rows, long long block_cols, T param) {
  using V = typename Vec16<T>::type;
  using St = Staging<T>;
  constexpr int S = St::S, Q = St::Q, kWarps = kThreads<T> / 32;
  __shared__ V stage[kWarps][32 * Q];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  V* slice = stage[warp];
  const long long total = block_rows * block_cols;
  const long long cols = block_cols * 8;
  const long long warp_first = static_cast<long long>(blockIdx.x) * kThreads<T> + warp * 32;
  if (warp_first >= total) return;  // whole warp idle: nobody of it waits at __syncwarp

  // The S blocks this lane serves on the global side, and its slot within a row.
  const int h = lane % S;
  long long goff[S];
  bool gvalid[S];
#pragma unroll
  for (int p = 0; p < S; ++p) {
    const long long blk = warp_first + p * (32 / S) + lane / S;
    gvalid[p] = blk < total;
    goff[p] = gvalid[p] ? block_offset(blk, block_cols, cols) + h * Vec16<T>::n : 0;
  }

#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int p = 0; p < S; ++p) {
      if (gvalid[p]) {
        const V v = *reinterpret_cast<const V*>(in + goff[p] + r * cols);
        slice[St::slot(p * (32 / S) + lane / S, r * S + h)] = v;
      }
    }
  }
  __syncwarp();
  T b[64];
#pragma unroll
  for (int q = 0; q < Q; ++q) unpack<T>(slice[St::slot(lane, q)], b + q * Vec16<T>::n);
  transform<T, kInverse>(b, param);
  __syncwarp();  // every lane has taken its block before the slice is reused
#pragma unroll
  for (int q = 0; q < Q; ++q) slice[St::slot(lane, q)] = pack<T>(b + q * Vec16<T>::n);
  __syncwarp();
#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int p = 0; p < S; ++p) {
      if (gvalid[p]) {
        *reinterpret_cast<V*>(out + goff[p] + r * cols) = slice[St::slot(p * (32 / S) + lane / S, r * S + h)];
      }
    }
  }
}

// ---- launch ---------------------------------------------------------------------------------

template <typename T, bool kInverse>
void launch(const T* in, T* out, int rows, int cols, T param, cudaStream_t stream) {
  const long long block_rows = rows / 8, block_cols = cols / 8;
  const long long blocks = block_rows * block_cols;
  const long long grid = (blocks + kThreads<T> - 1) / kThreads<T>;
  if (grid > 0x7fffffffLL) throw Error("BlockedDct8: array too large for one launch");
  const auto g = static_cast<unsigned>(grid);
  // Rows start on 16-byte boundaries when the base does (cols is a multiple of 8 elements).
  const bool aligned = (reinterpret_cast<std::uintptr_t>(in) % 16 == 0) &&
                       (reinterpret_cast<std::uintptr_t>(out) % 16 == 0);
  if (!aligned) {
    blocked_dct8_direct<T, kInverse, false><<<g, kThreads<T>, 0, stream>>>(in, out, block_rows, block_cols, param);
  } else if constexpr (std::is_same_v<T, double>) {
    blocked_dct8_staged<T, kInverse><<<g, kThreads<T>, 0, stream>>>(in, out, block_rows, block_cols, param);
  } else {
    blocked_dct8_direct<T, kInverse, true><<<g, kThreads<T>, 0, stream>>>(in, out, block_rows, block_cols, param);
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
