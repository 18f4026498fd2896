#pragma once
// Backends and the CUDA stream handle, without pulling CUDA headers into a placer's build.
#include <cstddef>

// CUDA declares `typedef struct CUstream_st* cudaStream_t` at global scope. Declaring the same
// global struct here (not inside the namespace, where it would name a different type) makes
// efield::Stream exactly cudaStream_t in every translation unit, with or without CUDA headers.
struct CUstream_st;

namespace efield {

// The most CPU threads any cpu_threads option takes (each thread is an OS thread with its own
// stack, and the CPU electrostatic system's map copies grow with it); larger values throw.
constexpr int kMaxCpuThreads = 1024;

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

// True when `ptr` lies in page-locked host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister,
// PinnedHostRange), which the GPU's copy engines read and write at the bus's speed. Always false
// without CUDA.
bool is_pinned_host_pointer(const void* ptr) noexcept;

// Page-locks the caller's host array [data, data + bytes) for the object's lifetime
// (cudaHostRegister; cudaHostUnregister at destruction), so that ElectrostaticSystem::evaluate
// with host arrays copies them by DMA straight from and to that memory, with no staging copy. For
// a CPU-side placer's position and gradient arrays: pin them once, before the first evaluate,
// and keep them (a std::vector must not reallocate while pinned). Registering costs about as much
// as touching every page once. Memory that is already page-locked is left as it is. Does nothing
// without CUDA or without a device; throws efield::Error when CUDA refuses the range.
class PinnedHostRange {
 public:
  PinnedHostRange() = default;
  PinnedHostRange(const void* data, std::size_t bytes);
  ~PinnedHostRange();
  PinnedHostRange(PinnedHostRange&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  PinnedHostRange& operator=(PinnedHostRange&& other) noexcept;
  PinnedHostRange(const PinnedHostRange&) = delete;
  PinnedHostRange& operator=(const PinnedHostRange&) = delete;
  // Whether this object registered the range (and unregisters it).
  bool registered() const noexcept { return data_ != nullptr; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
};

}  // namespace efield
