// The last kernel of an evaluate: one block reduces the per-block partials of the density pass
// and the spectral kernel in a fixed order into {energy, overflow, max density}.
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
  if (threadIdx.x == 0) {
    a.result[0] = total_energy * a.energy_scale;
    a.result[1] = total_overflow * a.overflow_scale;
    a.result[2] = static_cast<double>(total_max);
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
