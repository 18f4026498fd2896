#pragma once
// Device memory for bench_ispd's positions and gradients, so that evaluate is timed the way a
// GPU placer calls it (device pointers, nothing copied). Throws efield::Error without CUDA.
#include <cstddef>
#include <vector>

namespace efield::bench {

class DeviceBytes {
 public:
  DeviceBytes() = default;
  explicit DeviceBytes(std::size_t bytes);
  ~DeviceBytes();
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  DeviceBytes(DeviceBytes&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) { other.ptr_ = nullptr; }
  void* get() const { return ptr_; }
  void upload(const void* host, std::size_t bytes);

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T>& host) : bytes_(host.size() * sizeof(T)) {
    bytes_.upload(host.data(), host.size() * sizeof(T));
  }
  explicit DeviceArray(std::size_t n) : bytes_(n * sizeof(T)) {}
  T* get() const { return static_cast<T*>(bytes_.get()); }

 private:
  DeviceBytes bytes_;
};

}  // namespace efield::bench
