// The last kernel of an evaluate: one block reduces the per-block partials of the density pass
// and the spectral kernel in a fixed order into {energy, overflow, max density} and the areas
// outside the region (zeroing rasterize's outside-area sums); with exact float maps it sets the
// rerun slot to 1 when the density pass flagged a bin whose sum may have rounded (evaluate then
// re-runs with 64-bit bins).
#include "common/cuda_check.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/finalize_pass.cuh"

namespace efield::detail {
namespace {

template <typename T>
__global__ void finalize(FinalizeArgs<T> a) {
  finalize_pass(a);
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
