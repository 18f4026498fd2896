#pragma once
// Programmatic dependent launch (sm_90 on): a kernel launched with overlap = true may start while
// the kernel before it in the stream finishes. Its blocks take the SMs that the earlier kernel's
// last blocks leave, so launch latency and the earlier kernel's tail overlap the new kernel's
// start. Such a kernel calls wait_for_previous_kernel() before it reads anything an earlier
// kernel of the stream writes, or writes anything one reads; before that it may read only what
// no kernel of the stream writes. The earlier kernel lets it start early with
// let_next_kernel_start() (else it starts when the earlier kernel ends). Both device calls are
// no-ops in a kernel launched without overlap, and before sm_90. Used between the kernels of
// ElectrostaticSystem::evaluate and between the passes of the own-pass 2D transforms; the
// first kernel of each is launched without overlap, so it waits for all earlier work.
#include <cuda_runtime.h>

#include <cstddef>

#include "common/cuda_check.cuh"

namespace efield::detail {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel (launched with overlap) start once every block of this one has called it.
__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Whether the current device takes programmatic dependent launch (compute capability 9.0 on).
inline bool dependent_launch_supported() {
  int device = 0, major = 0;
  EFIELD_CUDA_CHECK(cudaGetDevice(&device));
  EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

// kernel<<<grid, block, shared_bytes, stream>>>(args...), checked; overlap: programmatic stream
// serialization (only where dependent_launch_supported()).
template <typename... Params, typename... Args>
void launch_kernel(bool overlap, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                   cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = overlap ? 1 : 0;
  EFIELD_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

}  // namespace efield::detail
