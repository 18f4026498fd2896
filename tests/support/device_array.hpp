#pragma once
// Test helper: a device array with host transfers (CUDA builds only; throws otherwise).
#include <cstddef>
#include <vector>

namespace efield::test {

void* device_alloc(std::size_t bytes);
void device_free(void* ptr) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void device_synchronize();

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n), ptr_(static_cast<T*>(device_alloc(n * sizeof(T)))) {}
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  ~DeviceArray() { device_free(ptr_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  void upload(const std::vector<T>& host) { copy_to_device(ptr_, host.data(), host.size() * sizeof(T)); }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    copy_to_host(host.data(), ptr_, n_ * sizeof(T));
    return host;
  }

 private:
  std::size_t n_;
  T* ptr_;
};

}  // namespace efield::test
