// The CPU backend of Plan3D (every dimension >= 2): Makhoul reorder on all three axes -> one
// FFTW 3D r2c -> postprocess (dct3d); preprocess -> one FFTW 3D c2r -> inverse reorder (idct3d).
// Formulas: math/dct3d.hpp (one iteration per group of mirrored indices, as the CUDA kernels).
// OpenMP over the outer two axes.
#include <omp.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cpu/fftw_real_plan.hpp"
#include "math/dct2d.hpp"
#include "math/dct3d.hpp"
#include "math/makhoul.hpp"
#include "math/twiddle.hpp"
#include "transforms/plan3d_impl.hpp"
#include "transforms/plan_validation_2d3d.hpp"

namespace efield::detail {
namespace {

template <typename T>
class CpuPlan3D final : public Plan3DImpl<T> {
 public:
  CpuPlan3D(Transform3D kind, std::array<int, 3> dims, const PlanOptions& options)
      : Plan3DImpl<T>(kind, dims),
        threads_(options.cpu_threads > 0 ? options.cpu_threads : omp_get_max_threads()),
        zero_below_(static_cast<T>(options.zero_below)),
        ta_(quarter_twiddles<T>(dims[0])),
        tb_(quarter_twiddles<T>(dims[1])),
        tc_(quarter_twiddles<T>(dims[2])),
        fft_(dims.data(), 3, kind == Transform3D::Dct, threads_, options.reproducible,
             std::string("Plan3D<") + scalar_name<T>() + "> (cpu)") {}

  void execute(const T* in, T* out, Stream) override { run(in, out); }
  void execute_host(const T* in, T* out) override { run(in, out); }
  Backend backend() const noexcept override { return Backend::Cpu; }

 private:
  void run(const T* in, T* out) {
    const int M = this->dims()[0], N = this->dims()[1], K = this->dims()[2];
    T* y = fft_.real();
    Complex<T>* V = fft_.spectrum();
    if (this->kind() == Transform3D::Dct) {
#pragma omp parallel for collapse(2) num_threads(threads_) schedule(static)
      for (int a = 0; a < M; ++a) {
        for (int b = 0; b < N; ++b) {
          const T* src = in + (static_cast<std::ptrdiff_t>(a) * N + b) * K;
          T* dst = y + (static_cast<std::ptrdiff_t>(makhoul_position(a, M)) * N + makhoul_position(b, N)) * K;
          for (int c = 0; c < K; ++c) dst[makhoul_position(c, K)] = src[c];
        }
      }
      fft_.execute();
#pragma omp parallel for collapse(2) num_threads(threads_) schedule(static)
      for (int a = 0; a <= M / 2; ++a) {
        for (int b = 0; b <= N / 2; ++b) {
          for (int c = 0; c <= K / 2; ++c) {
            dct3_group(V, out, a, b, c, M, N, K, ta_.data(), tb_.data(), tc_.data(), zero_below_);
          }
        }
      }
      return;
    }
#pragma omp parallel for collapse(2) num_threads(threads_) schedule(static)
    for (int a = 0; a <= M / 2; ++a) {
      for (int b = 0; b <= N / 2; ++b) {
        for (int c = 0; c <= K / 2; ++c) idct3_group(in, V, a, b, c, M, N, K, ta_.data(), tb_.data(), tc_.data());
      }
    }
    fft_.execute();
#pragma omp parallel for collapse(2) num_threads(threads_) schedule(static)
    for (int a = 0; a < M; ++a) {
      for (int b = 0; b < N; ++b) {
        const T* src = y + (static_cast<std::ptrdiff_t>(makhoul_position(a, M)) * N + makhoul_position(b, N)) * K;
        T* dst = out + (static_cast<std::ptrdiff_t>(a) * N + b) * K;
        for (int c = 0; c < K; ++c) dst[c] = src[makhoul_position(c, K)];
      }
    }
  }

  int threads_;
  T zero_below_;
  std::vector<Complex<T>> ta_, tb_, tc_;
  FftwRealPlan<T> fft_;
};

}  // namespace

template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cpu_plan3d(Transform3D kind, std::array<int, 3> dims,
                                               const PlanOptions& options) {
  return std::make_unique<CpuPlan3D<T>>(kind, dims, options);
}

template std::unique_ptr<Plan3DImpl<float>> make_cpu_plan3d<float>(Transform3D, std::array<int, 3>, const PlanOptions&);
template std::unique_ptr<Plan3DImpl<double>> make_cpu_plan3d<double>(Transform3D, std::array<int, 3>, const PlanOptions&);

}  // namespace efield::detail
