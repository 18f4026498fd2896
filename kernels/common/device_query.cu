// CUDA device discovery; every failure (no driver, no device) reads as "no device".
#include <cuda_runtime.h>

#include <atomic>
#include <string>

#include "common/cuda_check.cuh"
#include "common/device_properties.hpp"
#include "common/device_scope.hpp"
#include "common/host_pinning.hpp"
#include "efield/error.hpp"
#include "efield/device.hpp"

namespace efield {

bool built_with_cuda() noexcept { return true; }

namespace {

// cudaGetDeviceCount once per process: the count, or why there is no device. The static CUDA
// runtime loads the driver (libcuda.so.1) here, at the library's first CUDA question, so a machine
// without a driver or a GPU gets 0 devices and the reason, never a failure to load libefield.
struct DeviceCount {
  int count = 0;
  std::string unavailable;  // empty when count > 0
};

const DeviceCount& device_count() noexcept {
  static const DeviceCount result = [] {
    DeviceCount r;
    const cudaError_t status = cudaGetDeviceCount(&r.count);
    if (status != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device" error
      r.count = 0;
      r.unavailable = std::string("cudaGetDeviceCount failed with ") + cudaGetErrorName(status) + " (" +
                      cudaGetErrorString(status) + ")";
      if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice)
        r.unavailable += ": no NVIDIA driver (libcuda.so.1) or no GPU on this machine";
    } else if (r.count == 0) {
      r.unavailable = "the CUDA driver reports no device";
    }
    return r;
  }();
  return result;
}

}  // namespace

int cuda_device_count() noexcept { return device_count().count; }

namespace {

std::atomic<std::uint64_t> pinning_generation{0};

// What CUDA knows of `ptr`'s memory; unregistered (plain host memory) when it cannot say.
cudaMemoryType memory_type(const void* ptr) noexcept {
  if (ptr == nullptr || cuda_device_count() == 0) return cudaMemoryTypeUnregistered;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return cudaMemoryTypeUnregistered;
  }
  return attr.type;
}

}  // namespace

bool is_device_pointer(const void* ptr) noexcept {
  const cudaMemoryType type = memory_type(ptr);
  return type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged;
}

bool is_pinned_host_pointer(const void* ptr) noexcept { return memory_type(ptr) == cudaMemoryTypeHost; }

PinnedHostRange::PinnedHostRange(const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0 || cuda_device_count() == 0 || is_pinned_host_pointer(data)) return;
  void* p = const_cast<void*>(data);  // registering changes no byte of it
  const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
  if (e == cudaErrorHostMemoryAlreadyRegistered) {  // part of it already is: leave it as it is
    cudaGetLastError();
    return;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("PinnedHostRange: cudaHostRegister of " + std::to_string(bytes) + " bytes failed: " +
                cudaGetErrorString(e));
  }
  data_ = p;
  ++pinning_generation;
}

PinnedHostRange::~PinnedHostRange() { release(); }

PinnedHostRange& PinnedHostRange::operator=(PinnedHostRange&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

void PinnedHostRange::release() noexcept {
  if (data_ == nullptr) return;
  cudaHostUnregister(data_);  // cannot throw here; the range was registered by us
  data_ = nullptr;
  ++pinning_generation;
}

}  // namespace efield

namespace efield::detail {

std::string cuda_unavailable_reason() { return device_count().unavailable; }

std::uint64_t host_pinning_generation() noexcept { return pinning_generation.load(); }

int current_cuda_device() {
  if (cuda_device_count() == 0) throw Error("CUDA is unavailable here: " + cuda_unavailable_reason());
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

std::string current_device_identity() {
  const int device = current_cuda_device();
  cudaDeviceProp prop{};
  EFIELD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::string name(prop.name);
  for (char& c : name)
    if (c == '\n' || c == '\r') c = ' ';  // one line in the wisdom file
  return std::to_string(10 * prop.major + prop.minor) + " " + std::to_string(prop.multiProcessorCount) + " " + name;
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
