// CUDA device discovery; every failure (no driver, no device) reads as "no device".
#include <cuda_runtime.h>

#include "common/cuda_check.cuh"
#include "common/device_properties.hpp"
#include "common/device_scope.hpp"
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

namespace efield::detail {

int current_cuda_device() {
  int device = 0;
  EFIELD_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int current_compute_capability() {
  const int device = current_cuda_device();
  int major = 0, minor = 0;
  EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return 10 * major + minor;
}

DeviceScope::DeviceScope(int device) {
  if (device < 0) return;
  previous_ = current_cuda_device();
  if (previous_ == device) return;
  EFIELD_CUDA_CHECK(cudaSetDevice(device));
  changed_ = true;
}

DeviceScope::~DeviceScope() {
  if (changed_) cudaSetDevice(previous_);  // cannot throw here; that device was valid a moment ago
}

}  // namespace efield::detail
