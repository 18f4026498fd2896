// The gather: each movable and filler cell sums its stretched footprint's weights times Ex and
// Ey (docs/math.md 2.9), read from an (Ex, Ey) map in 2 x 2-bin tiles that field_tiles makes from
// the inverse C2C's output (Ex + i Ey, permuted, the sine axes' signs (-1)^m / (-1)^n folded in):
// a footprint row is one or two vector loads instead of scattered sectors of the permuted output.
// Footprints of up to 3 x 3 bins issue all their loads before using any (memory-level
// parallelism: the loads are L2/DRAM latency bound); large cells get a warp each (fixed-order
// shuffle sum) or, beyond kWarpCellSpan bins a side, a block each (fixed-order CUB reduction), so
// every sum is reproducible.
#include <type_traits>

#include "common/cuda_check.cuh"
#include "common/dependent_launch.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/field_map.cuh"
#include "math/dct2d.hpp"

namespace efield::detail {
namespace {

// a * b rounded on its own (never fused with a following add into an FMA), so that host arrays,
// whose gradient the host adds to the caller's, get the same bits as an accumulating gather.
__device__ __forceinline__ float mul_rounded(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rounded(double a, double b) { return __dmul_rn(a, b); }

// The gradient of position index i as EvaluateOptions ask, from the sums over the field map: the
// tiled map carries the weight already (field_tiles); the exact gather (a.e == nullptr) applies it.
template <typename T>
__device__ __forceinline__ void store_gradient(const GatherArgs<T>& a, std::int64_t i, T gx, T gy) {
  if (a.e == nullptr) {  // rounded products: grad += gx adds what a non-accumulating call writes
    const T w = *a.weight;
    gx = mul_rounded(gx, w);
    gy = mul_rounded(gy, w);
  }
  if (a.accumulate) {
    a.grad_x[i] += gx;
    a.grad_y[i] += gy;
  } else {  // nothing reads the gradient again in this evaluate
    __stcs(a.grad_x + i, gx);
    __stcs(a.grad_y + i, gy);
  }
}

template <typename T>
__device__ __forceinline__ void gather_small(const GatherArgs<T>& a, int block) {
  const std::int64_t t = static_cast<std::int64_t>(block) * blockDim.x + threadIdx.x;
  if (t >= a.num_cells) return;
  std::int64_t i;
  Footprint<T> f;
  if (!load_small_cell(a, t, &i, &f)) return;
  wait_for_previous_kernel();  // the field is complete from here on
  T sx = 0, sy = 0;
  footprint_field_sum(a.e, a.g, f, &sx, &sy);
  store_gradient(a, i, -sx, -sy);
}

// Large cell c: its position index, and this thread's share of its sums (the footprint's bins
// split among `lanes` threads, this one is `lane`). The cell is read before the wait for the field.
template <typename T>
__device__ __forceinline__ std::int64_t gather_large_cell(const GatherArgs<T>& a, int c, int lane, int lanes, T* sx,
                                                          T* sy) {
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, c, a.x[i], a.y[i], a.w[c], a.h[c]);
  wait_for_previous_kernel();
  footprint_field_share(a.e, a.g, f, lane, lanes, sx, sy);
  return i;
}

// One block per large cell beyond kWarpCellSpan bins a side (fixed-order CUB reduction).
template <typename T>
__device__ __forceinline__ void gather_large(const GatherArgs<T>& a, int block) {
  T sx = 0, sy = 0;
  const std::int64_t i = gather_large_cell(a, a.large_cells[a.num_warp_cells + block], static_cast<int>(threadIdx.x),
                                           static_cast<int>(blockDim.x), &sx, &sy);
  const EsVec2<T> sum = block_field_sum(sx, sy);
  if (threadIdx.x == 0) store_gradient(a, i, -sum.x, -sum.y);
}

// One warp per large cell of up to kWarpCellSpan bins a side: a butterfly of shuffles sums the
// lanes' shares (a fixed order, so the sum is reproducible).
template <typename T>
__device__ __forceinline__ void gather_warp_cell(const GatherArgs<T>& a, int block) {
  const int k = block * kEsWarpsPerBlock + static_cast<int>(threadIdx.x / 32);
  if (k >= a.num_warp_cells) return;
  T sx = 0, sy = 0;
  const std::int64_t i = gather_large_cell(a, a.large_cells[k], static_cast<int>(threadIdx.x % 32), 32, &sx, &sy);
#pragma unroll
  for (int lanes = 16; lanes > 0; lanes /= 2) {
    sx += __shfl_xor_sync(0xffffffffu, sx, lanes);
    sy += __shfl_xor_sync(0xffffffffu, sy, lanes);
  }
  if (threadIdx.x % 32 == 0) store_gradient(a, i, -sx, -sy);
}

// One launch for all cells: the first blocks take one cell per thread (large cells return at
// once), the next kEsWarpsPerBlock large cells each (a warp each), the rest one large cell each
// (the branch is uniform per block, so the block path's __syncthreads is safe). Launched with
// overlap after field_tiles: every path reads its cell before it waits for the field.
template <typename T>
__global__ void __launch_bounds__(kEsThreads, kEsCellKernelMinBlocks<T>) gather_cells(GatherArgs<T> a,
                                                                                       int small_blocks,
                                                                                       int warp_blocks) {
  if (es_gather_skipped(a)) return;
  const int b = static_cast<int>(blockIdx.x);
  if (b < small_blocks) gather_small(a, b);
  else if (b < small_blocks + warp_blocks) gather_warp_cell(a, b - small_blocks);
  else gather_large(a, b - small_blocks - warp_blocks);
}

template <typename T>
__global__ void field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int M, int N, const T* weight) {
  field_tiles_pass(z, e, M, N, weight);
}

// GradientScale::Exact: one thread per cell, large ones included (the exact gradient is optional
// and reads only the footprint's edge bins: no warp or block paths).
template <typename T>
__global__ void gather_exact(GatherArgs<T> a, const T* phi) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= a.num_cells || es_gather_skipped(a)) return;
  const std::int64_t i = position_index(a.g, c);
  const Footprint<T> f = cell_footprint(a.g, c, a.x[i], a.y[i], a.w[c], a.h[c]);
  const int M = a.g.M, N = a.g.N;
  T dx, dy;
  exact_footprint_gradient(f, a.g, [&](int m, int n) { return phi[permuted_index(m, n, M, N)]; }, &dx, &dy);
  store_gradient(a, i, dx, dy);  // a.e is nullptr here: the weight is applied
}

template <typename T>
__global__ void set_weight(T* weight, T value) {
  *weight = value;
}

template <typename T>
__global__ void zero_gap(T* grad_x, T* grad_y, std::int64_t begin, std::int64_t end) {
  for (std::int64_t k = begin + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < end;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    grad_x[k] = T(0);
    grad_y[k] = T(0);
  }
}

}  // namespace

template <typename T>
void launch_gather_exact(GatherArgs<T> a, const T* phi, cudaStream_t stream) {
  if (a.num_cells == 0) return;
  a.e = nullptr;  // store_gradient applies the weight
  gather_exact<T><<<es_blocks_for(a.num_cells), kEsThreads, 0, stream>>>(a, phi);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_set_weight(T* weight, T value, cudaStream_t stream) {
  set_weight<T><<<1, 1, 0, stream>>>(weight, value);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
const void* set_weight_kernel() {
  return reinterpret_cast<const void*>(&set_weight<T>);
}

template <typename T>
void launch_zero_gap(T* grad_x, T* grad_y, std::int64_t begin, std::int64_t end, cudaStream_t stream) {
  if (end <= begin) return;
  zero_gap<T><<<es_reduce_blocks(end - begin), kEsThreads, 0, stream>>>(grad_x, grad_y, begin, end);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int M, int N, const T* weight, cudaStream_t stream,
                        bool overlap) {
  const int tiles_m = (M + 1) / 2;
  const int row_blocks = tiles_m < kEsMaxRowBlocks ? tiles_m : kEsMaxRowBlocks;
  launch_kernel(overlap, field_tiles<T>, dim3(row_blocks, es_blocks_for(2 * static_cast<std::int64_t>(es_tiles_n(N)))),
                kEsThreads, 0, stream, z, e, M, N, weight);
}

template <typename T>
void launch_gather(const GatherArgs<T>& a, cudaStream_t stream, bool overlap) {
  const int small_blocks = a.num_cells > 0 ? es_blocks_for(a.num_cells) : 0;
  const int warp_blocks = es_blocks_for_warps(a.num_warp_cells);
  const int blocks = small_blocks + warp_blocks + (a.num_large - a.num_warp_cells);
  if (blocks == 0) return;
  launch_kernel(overlap, gather_cells<T>, blocks, kEsThreads, 0, stream, a, small_blocks, warp_blocks);
}

template void launch_field_tiles<float>(const EsVec2<float>*, EsVec2<float>*, int, int, const float*, cudaStream_t,
                                        bool);
template void launch_field_tiles<double>(const EsVec2<double>*, EsVec2<double>*, int, int, const double*,
                                         cudaStream_t, bool);
template void launch_gather<float>(const GatherArgs<float>&, cudaStream_t, bool);
template void launch_gather<double>(const GatherArgs<double>&, cudaStream_t, bool);
template void launch_gather_exact<float>(GatherArgs<float>, const float*, cudaStream_t);
template void launch_gather_exact<double>(GatherArgs<double>, const double*, cudaStream_t);
template void launch_set_weight<float>(float*, float, cudaStream_t);
template void launch_set_weight<double>(double*, double, cudaStream_t);
template const void* set_weight_kernel<float>();
template const void* set_weight_kernel<double>();
template void launch_zero_gap<float>(float*, float*, std::int64_t, std::int64_t, cudaStream_t);
template void launch_zero_gap<double>(double*, double*, std::int64_t, std::int64_t, cudaStream_t);

}  // namespace efield::detail
