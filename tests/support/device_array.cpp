#include "support/device_array.hpp"

#include <cstddef>

#include "efield/error.hpp"

#if EFIELD_HAS_CUDA
#include "common/device_buffer.cuh"

namespace efield::test {

// One byte at least, so that an empty array still has a device pointer to pass.
struct DeviceBytes::Impl {
  explicit Impl(std::size_t bytes) : buffer(bytes == 0 ? 1 : bytes) {}
  detail::DeviceBuffer<std::byte> buffer;
};
DeviceBytes::DeviceBytes(std::size_t bytes) : impl_(std::make_unique<Impl>(bytes)) {}
void* DeviceBytes::get() const noexcept { return impl_ ? impl_->buffer.get() : nullptr; }

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  EFIELD_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the DMA lands; work on a non-blocking
  // stream would then race with it. Tests want the data there.
  EFIELD_CUDA_CHECK(cudaDeviceSynchronize());
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  EFIELD_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void device_synchronize() { EFIELD_CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace efield::test

#else

namespace efield::test {

struct DeviceBytes::Impl {};
DeviceBytes::DeviceBytes(std::size_t bytes) {
  if (bytes > 0) throw Error("device memory requested in a build without CUDA");
}
void* DeviceBytes::get() const noexcept { return nullptr; }
void copy_to_device(void*, const void*, std::size_t bytes) {
  if (bytes > 0) throw Error("no CUDA in this build");
}
void copy_to_host(void*, const void*, std::size_t bytes) {
  if (bytes > 0) throw Error("no CUDA in this build");
}
void device_synchronize() {}

}  // namespace efield::test
#endif

namespace efield::test {
DeviceBytes::~DeviceBytes() = default;
DeviceBytes::DeviceBytes(DeviceBytes&&) noexcept = default;
DeviceBytes& DeviceBytes::operator=(DeviceBytes&&) noexcept = default;
}  // namespace efield::test
