#pragma once
// execute_host of every CUDA plan: the host input goes into the plan's staging array (made at
// construction), the plan runs in place on it, the result comes back, and the call waits.
#include <cstddef>

#include "common/cuda_check.cuh"

namespace efield::detail {

template <typename T, typename RunInPlace>
void execute_through_staging(T* staging, const T* in, T* out, std::size_t count, cudaStream_t stream,
                             RunInPlace&& run_in_place) {
  const std::size_t bytes = count * sizeof(T);
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(staging, in, bytes, cudaMemcpyHostToDevice, stream));
  run_in_place(staging);
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(out, staging, bytes, cudaMemcpyDeviceToHost, stream));
  EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace efield::detail
