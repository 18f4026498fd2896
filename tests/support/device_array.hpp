#pragma once
// The device array of the tests and the benchmarks, with host transfers. Its memory is the
// library's own device buffer (kernels/common/device_buffer.cuh) in a CUDA build, behind a
// type-erased holder so that host-compiled code needs no CUDA headers; without CUDA, any
// non-empty array throws efield::Error.
#include <cstddef>
#include <memory>
#include <vector>

namespace efield::test {

class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes);
  ~DeviceBytes();
  DeviceBytes(DeviceBytes&&) noexcept;
  DeviceBytes& operator=(DeviceBytes&&) noexcept;
  void* get() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void device_synchronize();

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n), bytes_(n * sizeof(T)) {}
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }

  T* get() const { return static_cast<T*>(bytes_.get()); }
  std::size_t size() const { return n_; }
  void upload(const std::vector<T>& host) { copy_to_device(get(), host.data(), host.size() * sizeof(T)); }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    copy_to_host(host.data(), get(), n_ * sizeof(T));
    return host;
  }

 private:
  std::size_t n_;
  DeviceBytes bytes_;
};

}  // namespace efield::test
