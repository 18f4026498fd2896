#pragma once
// execute_host of every CUDA plan: the host input goes into the plan's staging array (made at
// construction), the plan runs in place on it, the result comes back, and the call waits. And
// the same array for a caller's device array that a kernel reading 16-byte quads cannot take.
#include <cstddef>
#include <cstdint>

#include "common/cuda_check.cuh"

namespace efield::detail {

// The stream a CUDA plan's execute_host runs on: non-blocking, made at construction, destroyed
// with the plan.
class OwnedStream {
 public:
  OwnedStream() { EFIELD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~OwnedStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

template <typename T, typename RunInPlace>
void execute_through_staging(T* staging, const T* in, T* out, std::size_t count, cudaStream_t stream,
                             RunInPlace&& run_in_place) {
  const std::size_t bytes = count * sizeof(T);
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(staging, in, bytes, cudaMemcpyHostToDevice, stream));
  run_in_place(staging);
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(out, staging, bytes, cudaMemcpyDeviceToHost, stream));
  EFIELD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Whether an array can be read or written in 16-byte quads (its rows too, when their length
// is a multiple of 16 bytes).
inline bool quad_aligned_pointer(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The input of a kernel that reads 16-byte quads: `in` itself when aligned, else its copy in
// `staging` (count values; the plan's own array, so nothing is allocated).
template <typename T>
const T* quad_aligned_input(const T* in, T* staging, std::size_t count, cudaStream_t stream) {
  if (quad_aligned_pointer(in)) return in;
  EFIELD_CUDA_CHECK(cudaMemcpyAsync(staging, in, count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  return staging;
}

}  // namespace efield::detail
