#pragma once
// Internal: the body of the finalize kernel (finalize.cu) as a block-wide device function, so that
// the one-block small-grid kernel (small_field.cu) ends an evaluate the same way: the density
// and spectral partials reduced in a fixed order into the evaluate's scalars, rasterize's
// outside-area sums zeroed. kThreads: the block's threads (every thread calls it).
#include <cub/block/block_reduce.cuh>

#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

template <typename T, int kThreads>
__device__ __forceinline__ void finalize_block(const FinalizeArgs<T>& a) {
  static_assert(kEsTotalSlots <= kThreads, "one outside slot per thread");
  double overflow = 0, energy = 0;
  T mx = T(0);
  for (int k = threadIdx.x; k < a.density_blocks; k += blockDim.x) {
    overflow += a.part_overflow[k];
    mx = a.part_max[k] > mx ? a.part_max[k] : mx;
  }
  for (int k = threadIdx.x; k < a.spectral_blocks; k += blockDim.x) energy += a.part_energy[k];
  using ReduceD = cub::BlockReduce<double, kThreads>;
  using ReduceT = cub::BlockReduce<T, kThreads>;
  __shared__ typename ReduceD::TempStorage s1;
  __shared__ typename ReduceD::TempStorage s2;
  __shared__ typename ReduceT::TempStorage s3;
  const double total_overflow = ReduceD(s1).Sum(overflow);
  const double total_energy = ReduceD(s2).Sum(energy);
  const T total_max = ReduceT(s3).Reduce(mx, EsMax());
  EsAccum flagged = 0;
  if (a.part_held != nullptr) {
    for (int k = threadIdx.x; k < a.density_blocks; k += blockDim.x) flagged += a.part_held[k];
  }
  EsAccum outside_movable = 0, outside_filler = 0;
  if (threadIdx.x < kEsTotalSlots) {
    outside_movable = a.outside[2 * threadIdx.x];
    outside_filler = a.outside[2 * threadIdx.x + 1];
    a.outside[2 * threadIdx.x] = 0;
    a.outside[2 * threadIdx.x + 1] = 0;
  }
  using ReduceA = cub::BlockReduce<EsAccum, kThreads>;
  __shared__ typename ReduceA::TempStorage s4;
  __shared__ typename ReduceA::TempStorage s5;
  __shared__ typename ReduceA::TempStorage s6;
  const EsAccum total_flagged = ReduceA(s4).Sum(flagged);
  const EsAccum total_outside_movable = ReduceA(s5).Sum(outside_movable);
  const EsAccum total_outside_filler = ReduceA(s6).Sum(outside_filler);
  if (threadIdx.x == 0) {
    a.result[0] = total_energy * a.energy_scale;
    a.result[1] = total_overflow * a.overflow_scale;
    a.result[2] = static_cast<double>(total_max);
    a.result[3] = static_cast<double>(total_outside_movable) * a.outside_scale;
    a.result[4] = static_cast<double>(total_outside_filler) * a.outside_scale;
    a.result[kEsRerunSlot] = total_flagged != 0 ? 1.0 : 0.0;
  }
}

}  // namespace efield::detail
