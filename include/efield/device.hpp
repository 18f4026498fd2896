#pragma once
// Backends and the CUDA stream handle, without pulling CUDA headers into a placer's build.

// CUDA declares `typedef struct CUstream_st* cudaStream_t` at global scope. Declaring the same
// global struct here (not inside the namespace, where it would name a different type) makes
// efield::Stream exactly cudaStream_t in every translation unit, with or without CUDA headers.
struct CUstream_st;

namespace efield {

// Same type as cudaStream_t; nullptr is the legacy default stream.
using Stream = ::CUstream_st*;

enum class Backend {
  Auto,  // CUDA when the library was built with it and a device is present, else CPU
  Cpu,   // FFTW + OpenMP on the host
  Cuda,  // cuFFT + efield kernels on the current CUDA device
};

// True when the library was compiled with the CUDA backend.
bool built_with_cuda() noexcept;

// Number of usable CUDA devices; 0 when built without CUDA or when no driver/device is present.
int cuda_device_count() noexcept;

// Resolves Backend::Auto; throws efield::Error when Backend::Cuda is asked for but unavailable.
Backend resolve_backend(Backend requested);

const char* to_string(Backend backend) noexcept;

// True when `ptr` is memory the CUDA device can address directly (device or managed memory).
// False for plain host memory and always false without CUDA.
bool is_device_pointer(const void* ptr) noexcept;

}  // namespace efield
