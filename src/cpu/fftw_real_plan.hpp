#pragma once
// Internal: a real array, its Hermitian-half spectrum and the one FFTW plan between them, for the
// CPU 2D and 3D plans (forward: real -> spectrum; inverse: spectrum -> real, which overwrites
// the spectrum). Planned at construction on the plan's own buffers (FFTW_MEASURE, or FFTW_ESTIMATE
// when the results must not depend on timings: PlanOptions::reproducible) and run with the
// new-array-free fftw_execute, so execute() neither plans nor allocates.
#include <string>

#include "cpu/fftw.hpp"
#include "efield/error.hpp"
#include "math/complex.hpp"

namespace efield::detail {

template <typename T>
class FftwRealPlan {
 public:
  // dims: the real array's dimensions, last fastest (rank = number of entries used).
  FftwRealPlan(const int* dims, int rank, bool forward, int threads, bool reproducible, const std::string& who) {
    std::size_t real_count = 1, half_count = 1;
    for (int i = 0; i < rank; ++i) {
      real_count *= static_cast<std::size_t>(dims[i]);
      half_count *= static_cast<std::size_t>(i == rank - 1 ? dims[i] / 2 + 1 : dims[i]);
    }
    try {
      real_ = FftwBuffer<T, T>(real_count);
      spectrum_ = FftwBuffer<T, Complex<T>>(half_count);
    } catch (const std::bad_alloc&) {
      throw Error(who + ": out of host memory for the FFTW buffers");
    }
    // Both buffers are scratch rewritten by every execute, so FFTW may destroy the input:
    // a multi-dimensional r2c that must preserve it (FFTW's default for r2c) copies it first
    // (docs/performance.md, "CPU: FFTW may destroy the input").
    plan_ = fftw_plan_real<T>(forward, rank, dims, 1, real_.get(), spectrum_.get(), threads,
                              (reproducible ? FFTW_ESTIMATE : FFTW_MEASURE) | FFTW_DESTROY_INPUT);
    if (!plan_) throw Error(who + ": FFTW could not make the real FFT plan");
  }
  ~FftwRealPlan() { fftw_destroy_real<T>(plan_); }
  FftwRealPlan(const FftwRealPlan&) = delete;
  FftwRealPlan& operator=(const FftwRealPlan&) = delete;

  T* real() const { return real_.get(); }
  Complex<T>* spectrum() const { return spectrum_.get(); }
  void execute() { Fftw<T>::execute(plan_); }

 private:
  FftwBuffer<T, T> real_;
  FftwBuffer<T, Complex<T>> spectrum_;
  typename Fftw<T>::Plan plan_ = nullptr;
};

}  // namespace efield::detail
