#pragma once
// Internal: owning device and pinned-host arrays of the CUDA electrostatic pipeline. Allocated
// at construction only (evaluate allocates nothing); freed without throwing.
#include <cstddef>
#include <utility>

#include "common/cuda_check.cuh"

namespace efield::detail {

template <typename T>
class EsDeviceArray {
 public:
  EsDeviceArray() = default;
  explicit EsDeviceArray(std::size_t count) : count_(count) {
    if (count_ > 0) EFIELD_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~EsDeviceArray() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  EsDeviceArray(EsDeviceArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  EsDeviceArray& operator=(EsDeviceArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  EsDeviceArray(const EsDeviceArray&) = delete;
  EsDeviceArray& operator=(const EsDeviceArray&) = delete;
  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host memory: copies from and to it can be captured into a CUDA graph.
template <typename T>
class EsPinnedArray {
 public:
  EsPinnedArray() = default;
  explicit EsPinnedArray(std::size_t count) : count_(count) {
    if (count_ > 0) EFIELD_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~EsPinnedArray() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  EsPinnedArray(EsPinnedArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  EsPinnedArray& operator=(EsPinnedArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  EsPinnedArray(const EsPinnedArray&) = delete;
  EsPinnedArray& operator=(const EsPinnedArray&) = delete;
  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace efield::detail
