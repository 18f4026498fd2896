// The device-side check of host positions (host_arrays.cuh): one pass over the compact device
// copies right after their upload, so the host never reads the caller's arrays for it.
#include "common/cuda_check.cuh"
#include "common/grid_stride.cuh"
#include "electrostatics/host_arrays.cuh"

namespace efield::detail {
namespace {

constexpr int kFlagThreads = 256;

template <typename T>
__global__ void flag_nonfinite(const T* x, const T* y, std::int64_t n, int* flag) {
  bool bad = false;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    bad |= !isfinite(x[i]) || !isfinite(y[i]);
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

}  // namespace

template <typename T>
void launch_flag_nonfinite(const T* x, const T* y, std::int64_t n, int* flag, cudaStream_t stream) {
  if (n <= 0) return;
  const unsigned blocks = std::min(grid_stride_blocks(n, kFlagThreads), 4096u);
  flag_nonfinite<T><<<blocks, kFlagThreads, 0, stream>>>(x, y, n, flag);
  EFIELD_CUDA_CHECK_LAUNCH();
}

template void launch_flag_nonfinite<float>(const float*, const float*, std::int64_t, int*, cudaStream_t);
template void launch_flag_nonfinite<double>(const double*, const double*, std::int64_t, int*, cudaStream_t);

}  // namespace efield::detail
