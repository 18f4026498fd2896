#pragma once
// The CUDA backend of efield::BlockedDct8 (kernels/blocked_dct8/blocked_dct8.cu). Plain C++
// header: the plan in src/cpu/blocked_dct8_plan.cpp includes it in every build; without CUDA the
// stand-in src/cpu/blocked_dct8_nocuda.cpp throws.
// The stream travels as void*: nvcc pre-includes cuda_runtime.h, so in a .cu file efield::Stream
// names ::CUstream_st* while in a .cpp it names efield::CUstream_st* (include/efield/device.hpp),
// and a function taking efield::Stream would be mangled differently on the two sides.
namespace efield::detail {

template <typename T>
class BlockedDct8Cuda {
 public:
  // Allocates the device buffer execute_host copies through (rows x cols, multiples of 8).
  BlockedDct8Cuda(int rows, int cols);
  ~BlockedDct8Cuda();
  BlockedDct8Cuda(const BlockedDct8Cuda&) = delete;
  BlockedDct8Cuda& operator=(const BlockedDct8Cuda&) = delete;

  // Device pointers. inverse = false: dct2 per block, |X| < param -> 0;
  // inverse = true: param * idct2 per block. Asynchronous on `stream` (a cudaStream_t).
  void run(bool inverse, const T* in, T* out, T param, void* stream);
  // Host pointers; synchronous, through the device buffer (transformed in place there).
  void run_host(bool inverse, const T* in, T* out, T param);

 private:
  int rows_;
  int cols_;
  T* buffer_ = nullptr;
};

}  // namespace efield::detail
