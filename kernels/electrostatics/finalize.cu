// The last kernel of an evaluate: one block reduces the per-block partials of the density pass
// and the spectral kernel in a fixed order into {energy, overflow, max density} and the areas
// outside the region (zeroing rasterize's outside-area sums); with exact float maps it sets the
// rerun slot to 1 when the density pass flagged a bin whose sum may have rounded (evaluate then
// re-runs with 64-bit bins).
#include <cub/block/block_reduce.cuh>

#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {
namespace {

template <typename T>
__global__ void finalize(FinalizeArgs<T> a) {
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

}  // namespace

template <typename T>
void launch_finalize(const FinalizeArgs<T>& a, cudaStream_t stream) {
  finalize<T><<<1, kEsThreads, 0, stream>>>(a);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_finalize<float>(const FinalizeArgs<float>&, cudaStream_t);
template void launch_finalize<double>(const FinalizeArgs<double>&, cudaStream_t);

}  // namespace efield::detail
