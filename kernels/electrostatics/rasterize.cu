// Rasterization: every movable and filler cell's stretched footprint (MATH.md 2.1-2.3) is added
// as fixed-point integers (density.hpp) into a 64-bit accumulator, either in the Makhoul-permuted
// layout the forward R2C reads or (kEsNaturalAccum) in the natural layout, where a footprint row
// is 2-3 adjacent words, and density_finish / density_combined write rho into the permuted
// position while they read the map anyway. One map serves both kinds of cells by default:
// movable cells first, then movable_stats reads the movable + fixed density for the overflow and
// max-density partials, then the fillers are added and density_finish converts to rho and clears
// the map for the next evaluate. With kEsTwoMaps (small grids) fillers go to a second map, all
// cells are rasterized by one launch and density_combined does stats and rho in one pass.
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {
namespace {

template <typename T>
__device__ __forceinline__ void add_charge(const RasterizeArgs<T>& a, EsAccum* acc, T weight, int m, int n) {
  const std::int64_t q = to_fixed_point(weight, a.to_fixed);
  if (q > 0) atomicAdd(acc + es_map_index(a.natural, m, n, a.g.M, a.g.N), static_cast<EsAccum>(q));
}

// kEsTwoMaps: fillers (cell indices from num_movable on) have their own map.
template <typename T>
__device__ __forceinline__ EsAccum* map_of(const RasterizeArgs<T>& a, int c) {
  return a.acc_filler != nullptr && c >= a.g.num_movable ? a.acc_filler : a.acc;
}

// One thread per small cell. Footprints of up to 3 x 3 bins (almost every standard cell and
// filler: stretched cells span 2-3 bins per axis) take an unrolled path; larger ones loop.
template <typename T>
__device__ __forceinline__ void rasterize_small(const RasterizeArgs<T>& a, int block) {
  const int t = a.small_begin + static_cast<int>(block * blockDim.x + threadIdx.x);
  if (t >= a.small_end) return;
  const int c = a.small_cells[t];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.small_w[t], a.small_h[t]);
  EsAccum* acc = map_of(a, c);
  if (f.m1 - f.m0 < 3 && f.n1 - f.n0 < 3) {
    T ox[3], oy[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      ox[k] = f.m0 + k <= f.m1 ? bin_overlap(f.x0, f.x1, f.m0 + k, a.g.bx) : T(0);
      oy[k] = f.n0 + k <= f.n1 ? bin_overlap(f.y0, f.y1, f.n0 + k, a.g.by) : T(0);
    }
#pragma unroll
    for (int p = 0; p < 3; ++p)
#pragma unroll
      for (int q = 0; q < 3; ++q)
        if (f.m0 + p <= f.m1 && f.n0 + q <= f.n1) add_charge(a, acc, f.charge * ox[p] * oy[q], f.m0 + p, f.n0 + q);
    return;
  }
  for (int m = f.m0; m <= f.m1; ++m)
    for (int n = f.n0; n <= f.n1; ++n) add_charge(a, acc, footprint_weight(f, a.g, m, n), m, n);
}

// One block per large cell, its threads striding over the cell's bins.
template <typename T>
__device__ __forceinline__ void rasterize_large(const RasterizeArgs<T>& a, int block) {
  const int c = a.large_cells[a.large_begin + block];
  const std::int64_t i = position_index(a.g, static_cast<std::int64_t>(c));
  const Footprint<T> f = cell_footprint(a.g, a.x[i], a.y[i], a.w[c], a.h[c]);
  EsAccum* acc = map_of(a, c);
  const int cols = f.n1 - f.n0 + 1;
  const std::int64_t count = static_cast<std::int64_t>(f.m1 - f.m0 + 1) * cols;
  for (std::int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    const int m = f.m0 + static_cast<int>(k / cols), n = f.n0 + static_cast<int>(k % cols);
    add_charge(a, acc, footprint_weight(f, a.g, m, n), m, n);
  }
}

// One launch for both kinds: the first blocks take the small cells, the rest one large cell each.
template <typename T>
__global__ void rasterize_cells(RasterizeArgs<T> a, int small_blocks) {
  const int b = static_cast<int>(blockIdx.x);
  if (b < small_blocks) rasterize_small(a, b);
  else rasterize_large(a, b - small_blocks);
}

template <typename T>
__device__ __forceinline__ void write_partials(const DensityPassArgs<T>& a, double overflow, T mx) {
  using ReduceD = cub::BlockReduce<double, kEsThreads>;
  using ReduceT = cub::BlockReduce<T, kEsThreads>;
  __shared__ typename ReduceD::TempStorage sd;
  __shared__ typename ReduceT::TempStorage st;
  const double block_overflow = ReduceD(sd).Sum(overflow);
  const T block_max = ReduceT(st).Reduce(mx, EsMax());
  if (threadIdx.x == 0) {
    a.part_overflow[blockIdx.x] = block_overflow;
    a.part_max[blockIdx.x] = block_max;
  }
}

// Movable + fixed density per bin (MATH.md 2.10): overflow and max-density partials per block.
template <typename T>
__global__ void movable_stats(DensityPassArgs<T> a) {
  double overflow = 0;
  T mx = T(0);
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(a.acc[k]), std::int64_t{0}, a.fixed_rho[k], a.inv_scale);
    overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
    mx = b.movable_rho > mx ? b.movable_rho : mx;
  }
  write_partials(a, overflow, mx);
}

// Where bin k of the accumulator goes in rho (the permuted R2C input).
template <typename T>
__device__ __forceinline__ std::int64_t rho_index(const DensityPassArgs<T>& a, std::int64_t k, int N) {
  if (!a.natural) return k;
  const int m = static_cast<int>(k / N), n = static_cast<int>(k - static_cast<std::int64_t>(m) * N);
  return es_map_index(false, m, n, static_cast<int>(a.bins / N), N);
}

// rho = all charge + F / (bx by); the map is cleared for the next evaluate.
template <typename T>
__global__ void density_finish(DensityPassArgs<T> a, int N) {
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    a.rho[rho_index(a, k, N)] =
        bin_density(static_cast<std::int64_t>(a.acc[k]), std::int64_t{0}, a.fixed_rho[k], a.inv_scale).rho;
    a.acc[k] = 0;
  }
}

// kEsTwoMaps: stats and rho in one pass over the movable and filler maps, both cleared.
template <typename T>
__global__ void density_combined(DensityPassArgs<T> a, int N) {
  double overflow = 0;
  T mx = T(0);
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < a.bins;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const BinDensity<T> b = bin_density(static_cast<std::int64_t>(a.acc[k]), static_cast<std::int64_t>(a.acc_filler[k]),
                                        a.fixed_rho[k], a.inv_scale);
    overflow += static_cast<double>(bin_overflow(b.movable_rho, a.target_density));
    mx = b.movable_rho > mx ? b.movable_rho : mx;
    a.rho[rho_index(a, k, N)] = b.rho;
    a.acc[k] = 0;
    a.acc_filler[k] = 0;
  }
  write_partials(a, overflow, mx);
}

}  // namespace

template <typename T>
void launch_rasterize(const RasterizeArgs<T>& a, cudaStream_t stream) {
  const int small_blocks = a.small_end > a.small_begin ? es_blocks_for(a.small_end - a.small_begin) : 0;
  const int blocks = small_blocks + (a.large_end - a.large_begin);
  if (blocks == 0) return;
  rasterize_cells<T><<<blocks, kEsThreads, 0, stream>>>(a, small_blocks);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_movable_stats(const DensityPassArgs<T>& a, cudaStream_t stream) {
  movable_stats<T><<<a.blocks, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_density_finish(const DensityPassArgs<T>& a, int N, cudaStream_t stream) {
  density_finish<T><<<es_blocks_for(a.bins), kEsThreads, 0, stream>>>(a, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launch_density_combined(const DensityPassArgs<T>& a, int N, cudaStream_t stream) {
  density_combined<T><<<a.blocks, kEsThreads, 0, stream>>>(a, N);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_rasterize<float>(const RasterizeArgs<float>&, cudaStream_t);
template void launch_rasterize<double>(const RasterizeArgs<double>&, cudaStream_t);
template void launch_movable_stats<float>(const DensityPassArgs<float>&, cudaStream_t);
template void launch_movable_stats<double>(const DensityPassArgs<double>&, cudaStream_t);
template void launch_density_finish<float>(const DensityPassArgs<float>&, int, cudaStream_t);
template void launch_density_finish<double>(const DensityPassArgs<double>&, int, cudaStream_t);
template void launch_density_combined<float>(const DensityPassArgs<float>&, int, cudaStream_t);
template void launch_density_combined<double>(const DensityPassArgs<double>&, int, cudaStream_t);

}  // namespace efield::detail
