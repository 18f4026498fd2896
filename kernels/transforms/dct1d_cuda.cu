// The CUDA backend of Plan1D: one batched cuFFT real FFT between a preprocessing and a
// postprocessing kernel. cuFFT plan, twiddles, scratch and host-staging buffers are made here,
// at construction; execute() only enqueues work on the caller's stream (graph-capturable).
#include <cufft.h>

#include <memory>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_plan.cuh"
#include "common/cufft_real.cuh"
#include "common/host_staging.cuh"
#include "efield/device.hpp"
#include "efield/error.hpp"
#include "math/twiddle.hpp"
#include "common/device_buffer.cuh"
#include "transforms/dct1d_kernels.cuh"
#include "transforms/plan1d_impl.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CudaPlan1D final : public Plan1DImpl<T> {
  using Fft = CufftReal<T>;

 public:
  explicit CudaPlan1D(const Plan1DSpec& spec)
      : Plan1DImpl<T>(spec),
        length_(static_cast<int>(dct_fft_length(static_cast<int>(spec.algorithm), spec.n))),
        half_(length_ / 2 + 1) {
    const size_t rows = static_cast<size_t>(spec.batch);
    const std::vector<Complex<T>> twiddle = quarter_twiddles<T>(spec.n);
    twiddle_ = DeviceBuffer<Complex<T>>(twiddle.size());
    twiddle_.upload(twiddle.data(), twiddle.size());
    real_ = DeviceBuffer<T>(rows * length_);
    spectrum_ = DeviceBuffer<Complex<T>>(rows * half_);
    // One staging array serves as `in` and `out` of execute_host (execute allows in == out).
    if (spec.host_staging) staging_ = DeviceBuffer<T>(rows * spec.n);
    long long len = length_;
    const bool forward = spec.kind == Transform1D::Dct;
    // Basic layout (null embeds): rows of L reals and L/2+1 complex values, back to back.
    plan_ = CufftPlan(
        [&](cufftHandle handle, std::size_t* work) {
          return cufftMakePlanMany64(handle, 1, &len, nullptr, 1, forward ? length_ : half_, nullptr, 1,
                                     forward ? half_ : length_, forward ? Fft::r2c : Fft::c2r, spec.batch, work);
        },
        "Plan1D (cuda): cuFFT could not make a plan of length " + std::to_string(length_) + " for batch " +
            std::to_string(spec.batch));
  }

  void execute(const T* in, T* out, StreamHandle stream) override {
    const Plan1DSpec& s = this->spec();
    const auto st = static_cast<cudaStream_t>(stream);
    const int algorithm = static_cast<int>(s.algorithm);
    EFIELD_CUFFT_CHECK(cufftSetStream(plan_.get(), st));
    if (s.kind == Transform1D::Dct) {
      dct1d_kernels::launch_forward_pre(algorithm, in, real_.get(), s.n, length_, s.batch, st);
      EFIELD_CUFFT_CHECK(Fft::exec_r2c(plan_.get(), real_.get(), spectrum_.get()));
      dct1d_kernels::launch_forward_post(algorithm, spectrum_.get(), twiddle_.get(), out, s.n, half_, s.batch,
                                         static_cast<T>(s.zero_below), st);
    } else {
      const bool sine = s.kind == Transform1D::Idxst;
      dct1d_kernels::launch_inverse_pre(in, twiddle_.get(), spectrum_.get(), s.n, half_, s.batch, sine, st);
      EFIELD_CUFFT_CHECK(Fft::exec_c2r(plan_.get(), spectrum_.get(), real_.get()));
      dct1d_kernels::launch_inverse_post(real_.get(), out, s.n, s.batch, sine, st);
    }
  }

  void execute_host(const T* in, T* out) override {
    if (staging_.get() == nullptr) throw Error("Plan1D (cuda): this internal plan has no host staging buffers");
    const size_t count = static_cast<size_t>(this->spec().batch) * this->spec().n;
    execute_through_staging(staging_.get(), in, out, count, nullptr,
                            [&](T* data) { execute(data, data, nullptr); });
  }

  Backend backend() const noexcept override { return Backend::Cuda; }

 private:
  int length_;  // FFT length L (N, 2N or 4N)
  int half_;    // L/2 + 1
  DeviceBuffer<Complex<T>> twiddle_;
  DeviceBuffer<T> real_;
  DeviceBuffer<Complex<T>> spectrum_;
  DeviceBuffer<T> staging_;
  CufftPlan plan_;
};

}  // namespace

bool both_device_pointers(const void* a, const void* b) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
    cudaGetLastError();
    return is_device_pointer(a) && is_device_pointer(b);
  }
  const bool result = is_device_pointer(a) && is_device_pointer(b);
  cudaThreadExchangeStreamCaptureMode(&mode);  // restore the caller's mode
  return result;
}

template <typename T>
std::unique_ptr<Plan1DImpl<T>> make_plan1d_cuda(const Plan1DSpec& spec) {
  return std::make_unique<CudaPlan1D<T>>(spec);
}

template std::unique_ptr<Plan1DImpl<float>> make_plan1d_cuda<float>(const Plan1DSpec&);
template std::unique_ptr<Plan1DImpl<double>> make_plan1d_cuda<double>(const Plan1DSpec&);

}  // namespace efield::detail
