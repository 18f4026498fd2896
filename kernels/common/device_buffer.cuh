#pragma once
// Internal: owning device and page-locked host arrays for plan scratch, twiddle tables and
// staging buffers. Allocated at construction only (execute/evaluate allocate nothing); freed
// without throwing.
#include <cstddef>
#include <utility>
#include <vector>

#include "common/cuda_check.cuh"

namespace efield::detail {

// Allocation policies: plain device memory, and page-locked host memory (copies from and to it
// are asynchronous and can be captured into a CUDA graph).
struct DeviceMemory {
  static void allocate(void** p, std::size_t bytes) { EFIELD_CUDA_CHECK(cudaMalloc(p, bytes)); }
  static void release(void* p) noexcept { cudaFree(p); }
};
struct PinnedHostMemory {
  static void allocate(void** p, std::size_t bytes) { EFIELD_CUDA_CHECK(cudaMallocHost(p, bytes)); }
  static void release(void* p) noexcept { cudaFreeHost(p); }
};

template <typename T, typename Memory>
class OwnedArray {
 public:
  OwnedArray() = default;
  explicit OwnedArray(std::size_t count) : count_(count) {
    if (count_ > 0) Memory::allocate(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T));
  }
  ~OwnedArray() {
    if (ptr_ != nullptr) Memory::release(ptr_);
  }
  // A copy of a host table (construction time only).
  explicit OwnedArray(const std::vector<T>& host) : OwnedArray(host.size()) { upload(host.data(), host.size()); }
  OwnedArray(OwnedArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  OwnedArray& operator=(OwnedArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  OwnedArray(const OwnedArray&) = delete;
  OwnedArray& operator=(const OwnedArray&) = delete;

  // Synchronous copy from the host (construction time only).
  void upload(const T* host, std::size_t count) {
    EFIELD_CUDA_CHECK(cudaMemcpy(ptr_, host, count * sizeof(T), cudaMemcpyDefault));
  }
  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

template <typename T>
using DeviceBuffer = OwnedArray<T, DeviceMemory>;
template <typename T>
using PinnedBuffer = OwnedArray<T, PinnedHostMemory>;

}  // namespace efield::detail
