// The CPU backend of Plan1D: OpenMP pre/postprocessing around one batched FFTW real FFT.
// Every formula comes from math/dct1d.hpp, shared with the CUDA kernels.
#include <omp.h>

#include <memory>
#include <vector>

#include "cpu/fftw.hpp"
#include "efield/error.hpp"
#include "math/dct1d.hpp"
#include "math/twiddle.hpp"
#include "transforms/plan1d_impl.hpp"

namespace efield::detail {
namespace {

// Below this many elements a parallel region costs more than it saves.
constexpr long long kParallelThreshold = 1 << 15;

template <typename T>
class CpuPlan1D final : public Plan1DImpl<T> {
  using F = Fftw<T>;

 public:
  explicit CpuPlan1D(const Plan1DSpec& spec)
      : Plan1DImpl<T>(spec),
        threads_(spec.cpu_threads > 0 ? spec.cpu_threads : omp_get_max_threads()),
        length_(static_cast<int>(dct_fft_length(static_cast<int>(spec.algorithm), spec.n))),
        half_(length_ / 2 + 1),
        twiddle_(quarter_twiddles<T>(spec.n)) {
    const size_t rows = static_cast<size_t>(spec.batch);
    real_ = FftwBuffer<T, T>(rows * length_);
    spectrum_ = FftwBuffer<T, Complex<T>>(rows * half_);
    const bool forward = spec.kind == Transform1D::Dct;
    // The c2r input is this plan's own spectrum scratch, so FFTW may destroy it.
    plan_ = fftw_plan_real<T>(forward, 1, &length_, spec.batch, real_.get(), spectrum_.get(), threads_,
                              forward ? FFTW_ESTIMATE : FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
    if (plan_ == nullptr) {
      throw Error("Plan1D (cpu): FFTW could not make a plan of length " + std::to_string(length_) +
                  " for batch " + std::to_string(spec.batch));
    }
  }
  ~CpuPlan1D() override { fftw_destroy_real<T>(plan_); }

  void execute(const T* in, T* out, StreamHandle) override {
    if (this->spec().kind == Transform1D::Dct) forward(in, out);
    else inverse(in, out, this->spec().kind == Transform1D::Idxst);
  }
  void execute_host(const T* in, T* out) override { execute(in, out, nullptr); }
  Backend backend() const noexcept override { return Backend::Cpu; }

 private:
  void forward(const T* in, T* out) {
    const int n = this->spec().n, batch = this->spec().batch, L = length_, H = half_;
    const bool parallel = static_cast<long long>(batch) * L > kParallelThreshold;
    T* real = real_.get();
    switch (this->spec().algorithm) {
      case DctAlgorithm::NPoint: {
        const int pairs = (n + 1) / 2;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int i = 0; i < pairs; ++i) makhoul_reorder_pair(in + size_t(b) * n, real + size_t(b) * L, n, i);
        break;
      }
      case DctAlgorithm::Mirrored2N:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int j = 0; j < L; ++j) real[size_t(b) * L + j] = dct_expand_mirrored(in + size_t(b) * n, n, j);
        break;
      case DctAlgorithm::Padded2N:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int j = 0; j < L; ++j) real[size_t(b) * L + j] = dct_expand_padded(in + size_t(b) * n, n, j);
        break;
      case DctAlgorithm::FourN:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int j = 0; j < L; ++j) real[size_t(b) * L + j] = dct_expand_four_n(in + size_t(b) * n, n, j);
        break;
    }
    F::execute(plan_);
    const Complex<T>* V = spectrum_.get();
    const Complex<T>* t = twiddle_.data();
    const T thr = static_cast<T>(this->spec().zero_below);
    const bool threshold = thr > T(0);
    switch (this->spec().algorithm) {
      case DctAlgorithm::NPoint: {
        const int pairs = n / 2 + 1;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int k = 0; k < pairs; ++k) {
            T* X = out + size_t(b) * n;
            dct_post_npoint_pair(V[size_t(b) * H + k], t, X, n, k);
            if (threshold) {
              X[k] = zero_below(X[k], thr);
              if (k > 0) X[n - k] = zero_below(X[n - k], thr);
            }
          }
        break;
      }
      case DctAlgorithm::Mirrored2N:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int k = 0; k < n; ++k) {
            const T x = dct_post_mirrored(V[size_t(b) * H + k], t[k]);
            out[size_t(b) * n + k] = threshold ? zero_below(x, thr) : x;
          }
        break;
      case DctAlgorithm::Padded2N:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int k = 0; k < n; ++k) {
            const T x = dct_post_padded(V[size_t(b) * H + k], t[k]);
            out[size_t(b) * n + k] = threshold ? zero_below(x, thr) : x;
          }
        break;
      case DctAlgorithm::FourN:
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
        for (int b = 0; b < batch; ++b)
          for (int k = 0; k < n; ++k) {
            const T x = dct_post_four_n(V[size_t(b) * H + k]);
            out[size_t(b) * n + k] = threshold ? zero_below(x, thr) : x;
          }
        break;
    }
  }

  void inverse(const T* in, T* out, bool sine) {
    const int n = this->spec().n, batch = this->spec().batch, H = half_;
    const bool parallel = static_cast<long long>(batch) * n > kParallelThreshold;
    Complex<T>* W = spectrum_.get();
    const Complex<T>* t = twiddle_.data();
    const int halves = n / 2 + 1;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
    for (int b = 0; b < batch; ++b)
      for (int k = 0; k < halves; ++k) W[size_t(b) * H + k] = idct_pre(in + size_t(b) * n, t, n, k, sine);
    F::execute(plan_);
    const T* y = real_.get();
    const int pairs = (n + 1) / 2;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_) if (parallel)
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < pairs; ++i) idct_post_pair(y + size_t(b) * n, out + size_t(b) * n, n, i, sine);
  }

  int threads_;
  int length_;  // FFT length L (N, 2N or 4N)
  int half_;    // L/2 + 1 complex values per row
  std::vector<Complex<T>> twiddle_;
  FftwBuffer<T, T> real_;
  FftwBuffer<T, Complex<T>> spectrum_;
  typename F::Plan plan_ = nullptr;
};

}  // namespace

template <typename T>
std::unique_ptr<Plan1DImpl<T>> make_plan1d_cpu(const Plan1DSpec& spec) {
  return std::make_unique<CpuPlan1D<T>>(spec);
}

template std::unique_ptr<Plan1DImpl<float>> make_plan1d_cpu<float>(const Plan1DSpec&);
template std::unique_ptr<Plan1DImpl<double>> make_plan1d_cpu<double>(const Plan1DSpec&);

}  // namespace efield::detail
