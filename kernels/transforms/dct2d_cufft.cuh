#pragma once
// Internal CUDA helpers of the 2D and 3D plans: cuFFT's float/double real and complex transforms
// behind one template (each owning its plan, common/cufft_plan.cuh), and launch-shape helpers.
// Everything here is made at plan construction; nothing allocates at execute time.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/cufft_plan.cuh"
#include "common/cufft_real.cuh"
#include "common/device_buffer.cuh"
#include "math/complex.hpp"

namespace efield::detail::cuda_nd {

inline const char* cufft_type_name(cufftType type) {
  switch (type) {
    case CUFFT_R2C: return "R2C";
    case CUFFT_C2R: return "C2R";
    case CUFFT_C2C: return "C2C";
    case CUFFT_D2Z: return "D2Z";
    case CUFFT_Z2D: return "Z2D";
    case CUFFT_Z2Z: return "Z2Z";
    default: return "?";
  }
}

// A cuFFT plan of `type` over `rank` dimensions (last fastest), `batch` contiguous transforms.
inline CufftPlan make_cufft_plan(const int* dims, int rank, cufftType type, int batch) {
  std::vector<int> n(dims, dims + rank);
  std::string what = std::string("cuFFT could not make a ") + cufft_type_name(type) + " plan of";
  for (int i = 0; i < rank; ++i) what += (i ? " x " : " ") + std::to_string(n[i]);
  what += ", batch " + std::to_string(batch);
  return CufftPlan(
      [&](cufftHandle handle, std::size_t* work) {
        return cufftMakePlanMany(handle, rank, n.data(), nullptr, 1, 0, nullptr, 1, 0, type, batch, work);
      },
      what);
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
  }
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  // Forward: real -> spectrum. Inverse: spectrum -> real (unnormalized; the spectrum is
  // overwritten, as cuFFT's out-of-place C2R may do).
  void run(T* real, Complex<T>* spectrum, cudaStream_t stream);

 private:
  bool forward_;
  CufftPlan plan_;  // none for a single sample
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
  if (!plan_) {
    single_sample_fft<T><<<1, 1, 0, stream>>>(real, spectrum, forward_);
    EFIELD_CUDA_CHECK_LAUNCH();
    return;
  }
  EFIELD_CUFFT_CHECK(cufftSetStream(plan_.get(), stream));
  if (forward_) {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_r2c(plan_.get(), real, spectrum));
  } else {
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2r(plan_.get(), spectrum, real));
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
  ComplexFft(const ComplexFft&) = delete;
  ComplexFft& operator=(const ComplexFft&) = delete;

  void run(Complex<T>* in, Complex<T>* out, cudaStream_t stream) {
    EFIELD_CUFFT_CHECK(cufftSetStream(plan_.get(), stream));
    EFIELD_CUFFT_CHECK(CufftReal<T>::exec_c2c(plan_.get(), in, out, direction_));
  }

 private:
  int direction_;
  CufftPlan plan_;
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
