#include "common/device_buffer.hpp"

#include <string>

#include "efield/error.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace efield::bench {

#if EFIELD_HAS_CUDA
DeviceBytes::DeviceBytes(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t e = cudaMalloc(&ptr_, bytes);
  if (e != cudaSuccess)
    throw Error("bench_ispd: cudaMalloc of " + std::to_string(bytes) + " bytes: " + cudaGetErrorString(e));
}
DeviceBytes::~DeviceBytes() {
  if (ptr_) cudaFree(ptr_);
}
void DeviceBytes::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw Error("bench_ispd: upload larger than the device buffer");
  if (bytes == 0) return;
  const cudaError_t e = cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) throw Error(std::string("bench_ispd: cudaMemcpy: ") + cudaGetErrorString(e));
}
#else
DeviceBytes::DeviceBytes(std::size_t bytes) : bytes_(bytes) {
  if (bytes) throw Error("bench_ispd: device memory needs CUDA; efield was built without it");
}
DeviceBytes::~DeviceBytes() = default;
void DeviceBytes::upload(const void*, std::size_t bytes) {
  if (bytes) throw Error("bench_ispd: device memory needs CUDA; efield was built without it");
}
#endif

}  // namespace efield::bench
