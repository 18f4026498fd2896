#pragma once
// Internal: the FFTW calls of the CPU electrostatic pipeline behind one template (float/double):
// one 2D R2C, one batched 2D C2R (Ex and Ey together) and one 2D C2R (the potential, on request).
#include <fftw3.h>

#include <mutex>
#include <new>
#include <utility>

namespace efield::detail {

// FFTW's planner keeps global state: make it thread-safe once per process (idempotent calls, so
// it does not matter whether another part of the library already did this).
inline void electrostatics_fftw_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    fftw_init_threads();
    fftwf_init_threads();
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
  });
}

template <typename T>
struct EsFftw;

template <>
struct EsFftw<double> {
  using Plan = fftw_plan;
  using Cpx = fftw_complex;
  static void* alloc(size_t bytes) {
    void* p = fftw_malloc(bytes);
    if (p == nullptr && bytes != 0) throw std::bad_alloc();
    return p;
  }
  static void free(void* p) { fftw_free(p); }
  static void threads(int n) { fftw_plan_with_nthreads(n); }
  // `batch` contiguous M x N real arrays <-> M x (N/2+1) complex arrays.
  static Plan r2c(int M, int N, int batch, double* in, Cpx* out, unsigned flags) {
    int n[2] = {M, N};
    return fftw_plan_many_dft_r2c(2, n, batch, in, nullptr, 1, M * N, out, nullptr, 1, M * (N / 2 + 1), flags);
  }
  static Plan c2r(int M, int N, int batch, Cpx* in, double* out, unsigned flags) {
    int n[2] = {M, N};
    return fftw_plan_many_dft_c2r(2, n, batch, in, nullptr, 1, M * (N / 2 + 1), out, nullptr, 1, M * N, flags);
  }
  static void execute(Plan p) { fftw_execute(p); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
};

template <>
struct EsFftw<float> {
  using Plan = fftwf_plan;
  using Cpx = fftwf_complex;
  static void* alloc(size_t bytes) {
    void* p = fftwf_malloc(bytes);
    if (p == nullptr && bytes != 0) throw std::bad_alloc();
    return p;
  }
  static void free(void* p) { fftwf_free(p); }
  static void threads(int n) { fftwf_plan_with_nthreads(n); }
  static Plan r2c(int M, int N, int batch, float* in, Cpx* out, unsigned flags) {
    int n[2] = {M, N};
    return fftwf_plan_many_dft_r2c(2, n, batch, in, nullptr, 1, M * N, out, nullptr, 1, M * (N / 2 + 1), flags);
  }
  static Plan c2r(int M, int N, int batch, Cpx* in, float* out, unsigned flags) {
    int n[2] = {M, N};
    return fftwf_plan_many_dft_c2r(2, n, batch, in, nullptr, 1, M * (N / 2 + 1), out, nullptr, 1, M * N, flags);
  }
  static void execute(Plan p) { fftwf_execute(p); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
};

// An FFTW buffer owned by the pipeline (allocated at construction, freed at destruction).
template <typename T, typename Elem>
class FftwBuffer {
 public:
  FftwBuffer() = default;
  explicit FftwBuffer(size_t n) : n_(n), p_(static_cast<Elem*>(EsFftw<T>::alloc(n * sizeof(Elem)))) {}
  ~FftwBuffer() { EsFftw<T>::free(p_); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  FftwBuffer(FftwBuffer&& o) noexcept : n_(o.n_), p_(o.p_) { o.n_ = 0, o.p_ = nullptr; }
  FftwBuffer& operator=(FftwBuffer&& o) noexcept {
    std::swap(n_, o.n_);
    std::swap(p_, o.p_);
    return *this;
  }
  Elem* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
  Elem* p_ = nullptr;
};

}  // namespace efield::detail
