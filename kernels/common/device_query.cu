// CUDA device discovery; every failure (no driver, no device) reads as "no device".
#include <cuda_runtime.h>

#include "efield/device.hpp"

namespace efield {

bool built_with_cuda() noexcept { return true; }

int cuda_device_count() noexcept {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device" error
      return 0;
    }
    return n;
  }();
  return count;
}

bool is_device_pointer(const void* ptr) noexcept {
  if (ptr == nullptr || cuda_device_count() == 0) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

}  // namespace efield
