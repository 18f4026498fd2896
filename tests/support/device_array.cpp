#include "support/device_array.hpp"

#include <string>

#include "efield/error.hpp"

#if EFIELD_HAS_CUDA
#include <cuda_runtime.h>

namespace efield::test {
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}
}  // namespace
void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
  return p;
}
void device_free(void* ptr) noexcept { cudaFree(ptr); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  // From pageable memory cudaMemcpy may return before the DMA lands; work on a non-blocking
  // stream would then race with it. Tests want the data there.
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after H2D");
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
}
void device_synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
}  // namespace efield::test

#else

namespace efield::test {
void* device_alloc(std::size_t) { throw Error("device memory requested in a build without CUDA"); }
void device_free(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { throw Error("no CUDA in this build"); }
void copy_to_host(void*, const void*, std::size_t) { throw Error("no CUDA in this build"); }
void device_synchronize() {}
}  // namespace efield::test
#endif
