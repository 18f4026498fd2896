#pragma once
// Internal: the finalize kernel's work as a device function (one block), so that the one-map
// kernel (finalize.cu) and the batched multi-field finalize (a block per field,
// kernels/multi_field/) reduce the partials the same way.
#include <cub/block/block_reduce.cuh>

#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// The partials of one evaluate -> a.result (kEsResultSlots values); zeroes a.outside.
template <typename T>
__device__ __forceinline__ void finalize_pass(const FinalizeArgs<T>& a) {
  double overflow = 0, energy = 0;
  T mx = T(0);
  for (int k = threadIdx.x; k < a.density_blocks; k += blockDim.x) {
    overflow += a.part_overflow[k];
    mx = a.part_max[k] > mx ? a.part_max[k] : mx;
  }
  for (int k = threadIdx.x; k < a.spectral_blocks; k += blockDim.x) energy += a.part_energy[k];
  using ReduceD = cub::BlockReduce<double, kEsThreads>;
  using ReduceT = cub::BlockReduce<T, kEsThreads>;
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
  using ReduceA = cub::BlockReduce<EsAccum, kEsThreads>;
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
