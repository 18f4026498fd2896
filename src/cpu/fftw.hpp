#pragma once
// Internal: FFTW's float and double real-FFT APIs behind one template, for every CPU plan of the
// library (1D, 2D, 3D transforms and the electrostatic pipeline).
//
// FFTW's planner is global state, and so is its thread count (fftw_plan_with_nthreads is read
// by the next planner call). All planning and plan destruction therefore go through
// fftw_plan_real() / fftw_destroy_real(), which hold one process-wide lock; fftw_execute on
// distinct plans needs no lock.
#include <fftw3.h>

#include <cstddef>
#include <mutex>
#include <new>
#include <utility>

namespace efield::detail {

template <typename T>
struct Fftw;

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Cpx = fftw_complex;
  static void* malloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
  static void set_threads(int n) { fftw_plan_with_nthreads(n); }
  static Plan many_r2c(int rank, const int* n, int howmany, double* in, int idist, Cpx* out, int odist,
                       unsigned flags) {
    return fftw_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan many_c2r(int rank, const int* n, int howmany, Cpx* in, int idist, double* out, int odist,
                       unsigned flags) {
    return fftw_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Cpx = fftwf_complex;
  static void* malloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
  static void set_threads(int n) { fftwf_plan_with_nthreads(n); }
  static Plan many_r2c(int rank, const int* n, int howmany, float* in, int idist, Cpx* out, int odist,
                       unsigned flags) {
    return fftwf_plan_many_dft_r2c(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static Plan many_c2r(int rank, const int* n, int howmany, Cpx* in, int idist, float* out, int odist,
                       unsigned flags) {
    return fftwf_plan_many_dft_c2r(rank, n, howmany, in, nullptr, 1, idist, out, nullptr, 1, odist, flags);
  }
  static void execute(Plan p) { fftwf_execute(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

// The process-wide FFTW planner lock; the first call also initialises FFTW's threads.
inline std::unique_lock<std::mutex> fftw_planner_lock() {
  static std::mutex m;
  static const bool initialized = [] {
    fftw_init_threads();
    fftwf_init_threads();
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
    return true;
  }();
  (void)initialized;
  return std::unique_lock<std::mutex>(m);
}

// `howmany` contiguous real arrays of dimensions dims[0..rank) (last fastest) and their
// Hermitian-half spectra (last dimension dims[rank-1]/2+1), forward (r2c) or inverse (c2r).
// Returns nullptr when FFTW cannot make the plan.
template <typename T>
typename Fftw<T>::Plan fftw_plan_real(bool forward, int rank, const int* dims, int howmany, T* real,
                                      void* spectrum, int threads, unsigned flags) {
  int real_dist = 1, half_dist = 1;
  for (int i = 0; i < rank; ++i) {
    real_dist *= dims[i];
    half_dist *= (i == rank - 1) ? dims[i] / 2 + 1 : dims[i];
  }
  auto* cpx = static_cast<typename Fftw<T>::Cpx*>(spectrum);
  auto lock = fftw_planner_lock();
  Fftw<T>::set_threads(threads);
  return forward ? Fftw<T>::many_r2c(rank, dims, howmany, real, real_dist, cpx, half_dist, flags)
                 : Fftw<T>::many_c2r(rank, dims, howmany, cpx, half_dist, real, real_dist, flags);
}

template <typename T>
void fftw_destroy_real(typename Fftw<T>::Plan plan) {
  if (plan == nullptr) return;
  auto lock = fftw_planner_lock();
  Fftw<T>::destroy(plan);
}

// An FFTW-aligned array owned by a plan (allocated at construction, freed at destruction).
template <typename T, typename Elem>
class FftwBuffer {
 public:
  FftwBuffer() = default;
  explicit FftwBuffer(std::size_t n) : n_(n), p_(static_cast<Elem*>(Fftw<T>::malloc(n * sizeof(Elem)))) {
    if (p_ == nullptr && n != 0) throw std::bad_alloc();
  }
  ~FftwBuffer() { Fftw<T>::free(p_); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  FftwBuffer(FftwBuffer&& o) noexcept : n_(std::exchange(o.n_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  FftwBuffer& operator=(FftwBuffer&& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  Elem* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  std::size_t n_ = 0;
  Elem* p_ = nullptr;
};

}  // namespace efield::detail
