#pragma once
// Internal: FFTW r2c/c2r for float and double behind one template, with owning buffers and
// plans, for the CPU 2D and 3D plans. Plans are made at construction with FFTW_MEASURE on the
// plan's own buffers and executed with the new-array-free fftw_execute, so execute() neither
// plans nor allocates.
#include <fftw3.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <string>

#include "efield/error.hpp"
#include "math/complex.hpp"

namespace efield::detail {

template <typename T>
struct FftwNd;

template <>
struct FftwNd<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static void* malloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
  static void set_threads(int n) { fftwf_plan_with_nthreads(n); }
  static plan r2c(int rank, const int* n, float* in, complex* out, unsigned flags) {
    return fftwf_plan_dft_r2c(rank, n, in, out, flags);
  }
  static plan c2r(int rank, const int* n, complex* in, float* out, unsigned flags) {
    return fftwf_plan_dft_c2r(rank, n, in, out, flags);
  }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

template <>
struct FftwNd<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static void* malloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
  static void set_threads(int n) { fftw_plan_with_nthreads(n); }
  static plan r2c(int rank, const int* n, double* in, complex* out, unsigned flags) {
    return fftw_plan_dft_r2c(rank, n, in, out, flags);
  }
  static plan c2r(int rank, const int* n, complex* in, double* out, unsigned flags) {
    return fftw_plan_dft_c2r(rank, n, in, out, flags);
  }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};

// FFTW's planner is global state: threads are initialized once per process and planning is
// serialized (the thread count is a global setting read by the planner).
inline std::mutex& fftw_nd_planner_mutex() {
  static std::mutex m;
  static const bool initialized = [] {
    fftw_init_threads();
    fftwf_init_threads();
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
    return true;
  }();
  (void)initialized;
  return m;
}

// A real buffer, its Hermitian-half spectrum, and the one FFTW plan between them
// (forward: real -> spectrum; inverse: spectrum -> real, which overwrites the spectrum).
template <typename T>
class FftwRealPlan {
 public:
  // dims: the real array's dimensions, last fastest (rank = number of entries used).
  FftwRealPlan(const int* dims, int rank, bool forward, int threads, const std::string& who) {
    std::size_t real_count = 1, half_count = 1;
    for (int i = 0; i < rank; ++i) {
      real_count *= static_cast<std::size_t>(dims[i]);
      half_count *= static_cast<std::size_t>(i == rank - 1 ? dims[i] / 2 + 1 : dims[i]);
    }
    real_ = static_cast<T*>(FftwNd<T>::malloc(real_count * sizeof(T)));
    spectrum_ = static_cast<Complex<T>*>(FftwNd<T>::malloc(half_count * sizeof(Complex<T>)));
    if (!real_ || !spectrum_) {
      release();
      throw Error(who + ": out of host memory for the FFTW buffers");
    }
    {
      std::lock_guard<std::mutex> lock(fftw_nd_planner_mutex());
      FftwNd<T>::set_threads(threads);
      auto* spec = reinterpret_cast<typename FftwNd<T>::complex*>(spectrum_);
      // Both buffers are scratch rewritten by every execute, so FFTW may destroy the input:
      // a multi-dimensional r2c that must preserve it copies it first (measured: dct2 ran 2-3x
      // slower than idct2 with FFTW's default, FFTW_PRESERVE_INPUT for r2c).
      const unsigned flags = FFTW_MEASURE | FFTW_DESTROY_INPUT;
      plan_ = forward ? FftwNd<T>::r2c(rank, dims, real_, spec, flags)
                      : FftwNd<T>::c2r(rank, dims, spec, real_, flags);
    }
    if (!plan_) {
      release();
      throw Error(who + ": FFTW could not make the real FFT plan");
    }
  }
  ~FftwRealPlan() { release(); }
  FftwRealPlan(const FftwRealPlan&) = delete;
  FftwRealPlan& operator=(const FftwRealPlan&) = delete;

  T* real() const { return real_; }
  Complex<T>* spectrum() const { return spectrum_; }
  void execute() { FftwNd<T>::execute(plan_); }

 private:
  void release() {
    if (plan_) {
      std::lock_guard<std::mutex> lock(fftw_nd_planner_mutex());
      FftwNd<T>::destroy(plan_);
    }
    if (real_) FftwNd<T>::free(real_);
    if (spectrum_) FftwNd<T>::free(spectrum_);
    plan_ = nullptr;
    real_ = nullptr;
    spectrum_ = nullptr;
  }

  T* real_ = nullptr;
  Complex<T>* spectrum_ = nullptr;
  typename FftwNd<T>::plan plan_ = nullptr;
};

}  // namespace efield::detail
