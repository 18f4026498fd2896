#pragma once
// Internal: FFTW's float and double APIs behind one template, for the batched 1D plans
// (dct1d_cpu.cpp). Plans are made once at construction and always run on their own arrays.
#include <fftw3.h>

#include <mutex>
#include <new>

namespace efield::detail {

// FFTW's planner keeps global state: initialise threads once and make the planner thread-safe,
// so that plans made from different threads (and by other plan types) cannot race.
inline void fftw_prepare_planner() {
  static std::once_flag once;
  std::call_once(once, [] {
    fftw_init_threads();
    fftwf_init_threads();
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
  });
}

template <typename T> struct Fftw;

template <> struct Fftw<double> {
  using Plan = fftw_plan;
  using Cpx = fftw_complex;
  static void* alloc(size_t bytes) {
    void* p = fftw_malloc(bytes);
    if (p == nullptr && bytes != 0) throw std::bad_alloc();
    return p;
  }
  static void free(void* p) { fftw_free(p); }
  static void threads(int n) { fftw_plan_with_nthreads(n); }
  // `howmany` contiguous rows of length `n` (real) / n/2+1 (complex).
  static Plan r2c(int n, int howmany, double* in, Cpx* out) {
    return fftw_plan_many_dft_r2c(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1, FFTW_ESTIMATE);
  }
  static Plan c2r(int n, int howmany, Cpx* in, double* out) {
    return fftw_plan_many_dft_c2r(1, &n, howmany, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n,
                                  FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};

template <> struct Fftw<float> {
  using Plan = fftwf_plan;
  using Cpx = fftwf_complex;
  static void* alloc(size_t bytes) {
    void* p = fftwf_malloc(bytes);
    if (p == nullptr && bytes != 0) throw std::bad_alloc();
    return p;
  }
  static void free(void* p) { fftwf_free(p); }
  static void threads(int n) { fftwf_plan_with_nthreads(n); }
  static Plan r2c(int n, int howmany, float* in, Cpx* out) {
    return fftwf_plan_many_dft_r2c(1, &n, howmany, in, nullptr, 1, n, out, nullptr, 1, n / 2 + 1, FFTW_ESTIMATE);
  }
  static Plan c2r(int n, int howmany, Cpx* in, float* out) {
    return fftwf_plan_many_dft_c2r(1, &n, howmany, in, nullptr, 1, n / 2 + 1, out, nullptr, 1, n,
                                   FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void execute(Plan p) { fftwf_execute(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

}  // namespace efield::detail
