#pragma once
// Internal: the backend interface behind efield::Plan1D and the factories of its two backends.
// The row-column 2D baseline builds its passes from the same backends.
#include "common/device_scope.hpp"
#include <memory>

#include "efield/transforms.hpp"

namespace efield::detail {

// Everything a backend needs to make a batched 1D plan; validated before it reaches a backend.
// The CUDA stream as an untyped handle inside the library: the interfaces shared by .cpp and .cu
// files carry no CUDA types, and the CUDA side casts it back to cudaStream_t.
using StreamHandle = void*;

struct Plan1DSpec {
  Transform1D kind = Transform1D::Dct;
  int n = 1;
  int batch = 1;
  DctAlgorithm algorithm = DctAlgorithm::NPoint;
  int cpu_threads = 0;
  double zero_below = 0.0;
  // CUDA: make the device buffers that execute_host copies through. The row-column plan turns
  // this off for its internal passes, which only ever see device memory.
  bool host_staging = true;
};

template <typename T>
class Plan1DImpl : public DeviceBound {
 public:
  explicit Plan1DImpl(const Plan1DSpec& spec) : spec_(spec) {}
  virtual ~Plan1DImpl() = default;
  Plan1DImpl(const Plan1DImpl&) = delete;
  Plan1DImpl& operator=(const Plan1DImpl&) = delete;

  // Backend memory, asynchronous on `stream` for CUDA; arguments already validated.
  virtual void execute(const T* in, T* out, StreamHandle stream) = 0;
  // Host memory, synchronous.
  virtual void execute_host(const T* in, T* out) = 0;
  virtual Backend backend() const noexcept = 0;

  const Plan1DSpec& spec() const noexcept { return spec_; }

 private:
  Plan1DSpec spec_;
};

// Throws efield::Error naming the argument when `spec` is not a plan we can make.
void validate_plan1d_spec(const Plan1DSpec& spec, const char* who);

// The algorithm's name for messages (to_string lives with the 2D plans; messages here must not
// depend on it).
const char* dct_algorithm_name(DctAlgorithm algorithm) noexcept;
const char* transform1d_name(Transform1D kind) noexcept;

// True when both pointers are CUDA device (or managed) memory. Unlike efield::is_device_pointer
// it is safe to call while the calling thread captures a CUDA graph in global mode (the query is
// made in relaxed capture mode), so execute() can check its arguments inside a capture.
// Always false without CUDA.
bool both_device_pointers(const void* a, const void* b);

// FFTW + OpenMP (src/cpu/dct1d_cpu.cpp).
template <typename T>
std::unique_ptr<Plan1DImpl<T>> make_plan1d_cpu(const Plan1DSpec& spec);
// cuFFT + kernels (kernels/transforms/dct1d_cuda.cu); throws when built without CUDA.
template <typename T>
std::unique_ptr<Plan1DImpl<T>> make_plan1d_cuda(const Plan1DSpec& spec);

}  // namespace efield::detail
