#pragma once
// Internal CUDA helpers of the 2D and 3D plans: cuFFT's float/double real transforms behind one
// template, owning device buffers and plans, and launch-shape helpers. Everything here is made
// at plan construction; nothing allocates at execute time.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_real.cuh"
#include "common/device_buffer.cuh"
#include "math/complex.hpp"

namespace efield::detail::cuda_nd {

// A cuFFT plan of `type` over `rank` dimensions (last fastest), `batch` contiguous transforms;
// the handle is destroyed again if cuFFT cannot make the plan (then this throws).
inline cufftHandle make_cufft_plan(const int* dims, int rank, cufftType type, int batch) {
  std::vector<int> n(dims, dims + rank);
  cufftHandle plan = 0;
  EFIELD_CUFFT_CHECK(cufftCreate(&plan));
  std::size_t work = 0;
  const cufftResult made = cufftMakePlanMany(plan, rank, n.data(), nullptr, 1, 0, nullptr, 1, 0, type, batch, &work);
  if (made != CUFFT_SUCCESS) {
    cufftDestroy(plan);
    EFIELD_CUFFT_CHECK(made);
  }
  return plan;
}

// A cuFFT real plan (R2C or C2R) over `rank` dimensions (last fastest), `batch` contiguous
// transforms of that shape one after the other. With a single element
// there is nothing to transform and no plan is made (cuFFT does not promise length-1 plans);
// run() then copies the one value (the DFT of one sample is the sample).
template <typename T>
class RealFft {
 public:
  RealFft(const int* dims, int rank, bool forward, int batch = 1) : forward_(forward) {
    long long total = batch;
    for (int i = 0; i < rank; ++i) total *= dims[i];
    if (total == 1) return;
    plan_ = make_cufft_plan(dims, rank, forward ? CufftReal<T>::r2c : CufftReal<T>::c2r, batch);
    has_plan_ = true;
  }
  ~RealFft() {
    if (has_plan_) cufftDestroy(plan_);
  }
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  // Forward: real -> spectrum. Inverse: spectrum -> real (unnormalized; the spectrum is
  // overwritten, as cuFFT's out-of-place C2R may do).
  void run(T* real, Complex<T>* spectrum, cudaStream_t stream);

 private:
  bool forward_;
  bool has_plan_ = false;
  cufftHandle plan_ = 0;
};

// The DFT of a single sample is the sample.
template <typename T>
__global__ void single_sample_fft(T* real, Complex<T>* spectrum, bool forward) {
  if (forward) {
    spectrum[0] = Complex<T>{real[0], T(0)};
  } else {
    real[0] = spectrum[0].re;
  }
}

template <typename T>
void RealFft<T>::run(T* real, Complex<T>* spectrum, cudaStream_t stream) {
  if (!has_plan_) {
    single_sample_fft<T><<<1, 1, 0, stream>>>(real, spectrum, forward_);
    EFIELD_CUDA_CHECK_LAUNCH();
    return;
  }
  EFIELD_CUFFT_CHECK(cufftSetStream(plan_, stream));
  if (forward_) {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(plan_, real, spectrum));
  } else {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2r(plan_, spectrum, real));
  }
}

// A cuFFT complex plan over `rank` dimensions (last fastest, each at least 2), `batch`
// contiguous transforms, forward (exp(-i ...)) or inverse (exp(+i ...), unnormalized): Plan2D's
// PackedFft, TransposedPackedFft and PrimeFactorFft.
template <typename T>
class ComplexFft {
 public:
  ComplexFft(const int* dims, int rank, bool forward, int batch = 1)
      : direction_(forward ? CUFFT_FORWARD : CUFFT_INVERSE),
        plan_(make_cufft_plan(dims, rank, CufftReal<T>::c2c, batch)) {}
  ~ComplexFft() { cufftDestroy(plan_); }
  ComplexFft(const ComplexFft&) = delete;
  ComplexFft& operator=(const ComplexFft&) = delete;

  void run(Complex<T>* in, Complex<T>* out, cudaStream_t stream) {
    EFIELD_CUFFT_CHECK(cufftSetStream(plan_, stream));
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(plan_, in, out, direction_));
  }

 private:
  int direction_;
  cufftHandle plan_ = 0;
};

// Launch shape for a 2D index space [height][width]: 32 x 8 threads, grid-stride loops in both
// directions cover anything beyond the grid limits.
struct Launch2D {
  dim3 grid;
  dim3 block;
};
inline Launch2D launch_2d(long long width, long long height) {
  const dim3 block(32, 8);
  const long long gx = std::min<long long>((width + block.x - 1) / block.x, 1 << 20);
  const long long gy = std::min<long long>((height + block.y - 1) / block.y, 65535);
  return {dim3(static_cast<unsigned>(std::max(gx, 1LL)), static_cast<unsigned>(std::max(gy, 1LL))), block};
}

}  // namespace efield::detail::cuda_nd
