#pragma once
// Internal: programmatic dependent launch (sm_90) between the kernels of one evaluate. A kernel
// launched with overlap = true may start while the kernel before it in the stream finishes (its
// blocks take the SMs that the earlier kernel's last blocks leave): launch latency and the earlier
// kernel's tail overlap the new kernel's start (H200, CUDA graph: evaluate -2.5 us at 512^2; 0 or
// -2.5 us at 2048^2, depending on the machine). Such a kernel calls es_wait_for_previous() before it reads anything an earlier
// kernel of the evaluate writes, or writes anything one reads; before that it may read only the
// evaluate's inputs (cell positions and sizes). Both device calls are no-ops in a kernel launched
// without overlap, and before sm_90.
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"

namespace efield::detail {

__device__ __forceinline__ void es_wait_for_previous() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel (launched with overlap) start once every block of this one has called it.
__device__ __forceinline__ void es_let_next_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// kernel<<<grid, block, 0, stream>>>(args...), checked; overlap: programmatic stream serialization
// (compute capability 9.0 and later; the pipeline asks only there).
template <typename... Params, typename... Args>
void es_launch(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = overlap ? 1 : 0;
  EFIELD_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

}  // namespace efield::detail
