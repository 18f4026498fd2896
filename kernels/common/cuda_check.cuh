#pragma once
// Checks for every CUDA runtime and cuFFT call: a failure throws efield::Error naming the call,
// the file, the line and the library's own error string.
#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

namespace efield::detail {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
[[noreturn]] void throw_cufft_error(cufftResult code, const char* expr, const char* file, int line);
// A plan cuFFT could not make: `what` (the plan, its sizes) and cuFFT's result name.
[[noreturn]] void throw_cufft_plan_error(cufftResult code, const std::string& what);
const char* cufft_result_name(cufftResult code) noexcept;

}  // namespace efield::detail

#define EFIELD_CUDA_CHECK(expr)                                                     \
  do {                                                                              \
    const cudaError_t efield_status_ = (expr);                                      \
    if (efield_status_ != cudaSuccess)                                              \
      ::efield::detail::throw_cuda_error(efield_status_, #expr, __FILE__, __LINE__); \
  } while (0)

#define EFIELD_CUFFT_CHECK(expr)                                                     \
  do {                                                                               \
    const cufftResult efield_status_ = (expr);                                       \
    if (efield_status_ != CUFFT_SUCCESS)                                             \
      ::efield::detail::throw_cufft_error(efield_status_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches launch-configuration errors without synchronizing.
#define EFIELD_CUDA_CHECK_LAUNCH() EFIELD_CUDA_CHECK(cudaGetLastError())
