#pragma once
// Internal: owning device and pinned-host arrays of the CUDA electrostatic pipeline. Allocated
// at construction only (evaluate allocates nothing); freed without throwing.
#include <cstddef>

#include "common/cuda_check.cuh"
#include "common/device_buffer.cuh"

namespace efield::detail {

template <typename T>
using EsDeviceArray = DeviceBuffer<T>;
// Page-locked host memory: copies from and to it can be captured into a CUDA graph.
template <typename T>
using EsPinnedArray = PinnedBuffer<T>;

// n values from the host into device memory, synchronously (construction and size or fixed-cell
// updates only); nothing for n = 0.
template <typename U>
void es_upload(U* device, const U* host, std::size_t n) {
  if (n > 0) EFIELD_CUDA_CHECK(cudaMemcpy(device, host, n * sizeof(U), cudaMemcpyHostToDevice));
}

}  // namespace efield::detail
