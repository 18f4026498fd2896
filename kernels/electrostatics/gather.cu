// The gather: each movable and filler cell sums its stretched footprint's weights times Ex and
// Ey (MATH.md 2.9), read either straight from the batched C2R's output in the permuted layout
// with the sine axis' sign (-1)^m / (-1)^n folded in, or (kEsNaturalGather) from a natural-layout
// interleaved (Ex, Ey) map that field_interleave makes from it: 3 rows of 3 adjacent pairs per
// footprint instead of 2 scattered sectors per row in each of two maps (measured on an H200 at
// 2048^2: the gather went from 0.39 to 0.19 ms). Footprints of up to 3 x 3 bins issue all their
// loads before using any (memory-level parallelism: the loads are L2/DRAM latency bound); large
// cells get a block each (fixed-order CUB reduction, so the sum is reproducible).
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"
#include "math/dct2d.hpp"

namespace efield::detail {
namespace {

// (Ex, Ey) at bin (m, n), from whichever map the variant gathers from.
template <typename T>
__device__ __forceinline__ EsVec2<T> field_at(const GatherArgs<T>& a, int m, int n) {
  if (a.e != nullptr) return a.e[static_cast<std::int64_t>(m) * a.g.N + n];
  const std::int64_t k = permuted_index(m, n, a.g.M, a.g.N);
  return {alternating_sign<T>(m) * a.y_x[k], alternating_sign<T>(n) * a.y_y[k]};
}

template <typename T>
__device__ __forceinline__ void accumulate_bin(const GatherArgs<T>& a, const Footprint<T>& f, int m, int n, T* sx,
                                               T* sy) {
  const T wgt = footprint_weight(f, a.g, m, n);
  const EsVec2<T> e = field_at(a, m, n);
  *sx += wgt * e.x;
  *sy += wgt * e.y;
}

template <typename T>
__device__ __forceinline__ void gather_small(const GatherArgs<T>& a, int block) {
  const int t = block * blockDim.x + threadIdx.x;
  if (t >= a.num_small) return;
  const int c = a.small_cells[t];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.small_w[t], a.small_h[t]);
  T sx = 0, sy = 0;
  if (is_small_footprint(f)) {
    EsVec2<T> e[3][3];
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        const bool in = f.m0 + p <= f.m1 && f.n0 + q <= f.n1;
        e[p][q] = in ? field_at(a, f.m0 + p, f.n0 + q) : EsVec2<T>{T(0), T(0)};
      }
    const SmallFootprint<T> s = small_footprint(f, a.g);
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q) {
        const T wgt = s.weight(p, q);
        sx += wgt * e[p][q].x;
        sy += wgt * e[p][q].y;
      }
  } else {
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n) accumulate_bin(a, f, m, n, &sx, &sy);
  }
  a.grad_x[i] = -sx;
  a.grad_y[i] = -sy;
}

template <typename T>
__device__ __forceinline__ void gather_large(const GatherArgs<T>& a, int block) {
  const int c = a.large_cells[block];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.w[c], a.h[c]);
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  T sx = 0, sy = 0;
  for (std::int64_t k = threadIdx.x; k < count; k += blockDim.x)
    accumulate_bin(a, f, f.m0 + static_cast<int>(k / cols), f.n0 + static_cast<int>(k % cols), &sx, &sy);
  using Reduce = cub::BlockReduce<T, kEsThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const T bx = Reduce(storage).Sum(sx);
  __syncthreads();  // storage is reused
  const T by = Reduce(storage).Sum(sy);
  if (threadIdx.x == 0) {
    a.grad_x[i] = -bx;
    a.grad_y[i] = -by;
  }
}

// One launch for both kinds: the first blocks take the small cells, the rest one large cell each
// (the branch is uniform per block, so the large path's __syncthreads is safe).
template <typename T>
__global__ void gather_cells(GatherArgs<T> a, int small_blocks) {
  const int b = static_cast<int>(blockIdx.x);
  if (b < small_blocks) gather_small(a, b);
  else gather_large(a, b - small_blocks);
}

// kEsNaturalGather: one pass over both C2R outputs, a block per row (grid-stride over rows, no
// 64-bit divisions), thread n owns natural bin (m, n). Adjacent threads read two interleaved
// runs of one permuted row (q(2j) = j, q(2j+1) = N-1-j), so every sector read is used.
template <typename T>
__global__ void field_interleave(const T* y_x, const T* y_y, EsVec2<T>* e, int M, int N) {
  for (int m = static_cast<int>(blockIdx.x); m < M; m += static_cast<int>(gridDim.x)) {
    const std::int64_t row = permuted_index(m, 0, M, N), out = static_cast<std::int64_t>(m) * N;
    const T sign_m = alternating_sign<T>(m);
    for (int n = static_cast<int>(threadIdx.x); n < N; n += static_cast<int>(blockDim.x)) {
      const std::int64_t s = row + makhoul_position(n, N);
      e[out + n] = {sign_m * y_x[s], alternating_sign<T>(n) * y_y[s]};
    }
  }
}

}  // namespace

template <typename T>
void launch_field_interleave(const T* y_x, const T* y_y, EsVec2<T>* e, int M, int N, cudaStream_t stream) {
  field_interleave<T><<<M < kEsMaxRowBlocks ? M : kEsMaxRowBlocks, kEsThreads, 0, stream>>>(y_x, y_y, e, M, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_gather(const GatherArgs<T>& a, cudaStream_t stream) {
  const int small_blocks = a.num_small > 0 ? es_blocks_for(a.num_small) : 0;
  const int blocks = small_blocks + a.num_large;
  if (blocks == 0) return;
  gather_cells<T><<<blocks, kEsThreads, 0, stream>>>(a, small_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_field_interleave<float>(const float*, const float*, EsVec2<float>*, int, int, cudaStream_t);
template void launch_field_interleave<double>(const double*, const double*, EsVec2<double>*, int, int,
                                              cudaStream_t);
template void launch_gather<float>(const GatherArgs<float>&, cudaStream_t);
template void launch_gather<double>(const GatherArgs<double>&, cudaStream_t);

}  // namespace efield::detail
