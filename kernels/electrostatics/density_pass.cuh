#pragma once
// Internal: the density pass over 64-bit bins as device functions, so that the one-map kernels
// (rasterize.cu) and the batched multi-field pass (kernels/multi_field/) run the same code: the
// same bins per thread, the same block reductions, so the same partials bit for bit.
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// The block's overflow sum and maximum into the partials at blockIdx.x (fixed-order CUB
// reductions). Every thread of the block calls it.
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

// Where bin k of the (natural) accumulator goes in rho (the permuted R2C input).
template <typename T>
__device__ __forceinline__ std::int64_t rho_index(const DensityPassArgs<T>& a, std::int64_t k, int N) {
  const int m = static_cast<int>(k / N), n = static_cast<int>(k - static_cast<std::int64_t>(m) * N);
  return permuted_index(m, n, static_cast<int>(a.bins / N), N);
}

// Two maps: stats and rho in one pass over the movable and filler maps, both cleared. Blocks
// stride over the bins by blockIdx.x and gridDim.x (a batched launch picks the map by blockIdx.y).
template <typename T>
__device__ __forceinline__ void density_combined_pass(const DensityPassArgs<T>& a, int N) {
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

}  // namespace efield::detail
