// The CPU backend of Plan2D: Makhoul reorder -> one FFTW 2D r2c -> quad postprocess (dct2), and
// quad preprocess -> one FFTW 2D c2r -> inverse reorder (idct2, idct_idxst, idxst_idct), with
// the per-element formulas of math/dct2d.hpp and OpenMP loops over rows.
#include <omp.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cpu/dct2d_fftw.hpp"
#include "math/dct2d.hpp"
#include "math/makhoul.hpp"
#include "math/twiddle.hpp"
#include "transforms/plan2d_impl.hpp"
#include "transforms/plan_validation_2d3d.hpp"

namespace efield::detail {
namespace {

int resolve_cpu_threads(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

// v[p(m), q(n)] = x[m, n]: each source row is split into its even samples (ascending, front) and
// odd samples (descending, back) of the destination row p(m).
template <typename T>
void makhoul_reorder_2d(const T* x, T* v, int M, int N, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* src = x + static_cast<std::ptrdiff_t>(m) * N;
    T* dst = v + static_cast<std::ptrdiff_t>(makhoul_position(m, M)) * N;
    for (int i = 0; i < N / 2; ++i) {
      dst[i] = src[2 * i];
      dst[N - 1 - i] = src[2 * i + 1];
    }
    if (N & 1) dst[N / 2] = src[N - 1];
  }
}

// x[m, n] = sign(m, n) y[p(m), q(n)]: the inverse of makhoul_reorder_2d, with the (-1)^index of
// sine axes folded in.
template <bool SineRows, bool SineCols, typename T>
void makhoul_gather_2d(const T* y, T* x, int M, int N, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int m = 0; m < M; ++m) {
    const T* src = y + static_cast<std::ptrdiff_t>(makhoul_position(m, M)) * N;
    T* dst = x + static_cast<std::ptrdiff_t>(m) * N;
    const T even = idct2_output_sign<SineRows, SineCols, T>(m, 0);
    const T odd = idct2_output_sign<SineRows, SineCols, T>(m, 1);
    for (int i = 0; i < N / 2; ++i) {
      dst[2 * i] = even * src[i];
      dst[2 * i + 1] = odd * src[N - 1 - i];
    }
    if (N & 1) dst[N - 1] = even * src[N / 2];
  }
}

// Forward postprocess: one iteration per quad (u, v), 0 <= u <= M/2, 0 <= v <= N/2.
template <typename T>
void dct2_postprocess(const Complex<T>* V, T* X, int M, int N, const Complex<T>* tu,
                      const Complex<T>* tv, T zero_below, int threads) {
  const int Nh = N / 2 + 1;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int u = 0; u <= M / 2; ++u) {
    const int Mu = (M - u) % M;
    const bool mirror_u = has_distinct_mirror(u, M);
    T* row_u = X + static_cast<std::ptrdiff_t>(u) * N;
    T* row_Mu = X + static_cast<std::ptrdiff_t>(Mu) * N;
    for (int v = 0; v <= N / 2; ++v) {
      const Complex<T> a = V[static_cast<std::ptrdiff_t>(u) * Nh + v];
      const Complex<T> b = V[static_cast<std::ptrdiff_t>(Mu) * Nh + v];
      const Dct2Quad<T> q = dct2_post_quad(a, b, tu[u], tv[v]);
      const bool mirror_v = has_distinct_mirror(v, N);
      row_u[v] = threshold_coefficient(q.uv, zero_below);
      if (mirror_u) row_Mu[v] = threshold_coefficient(q.Mu_v, zero_below);
      if (mirror_v) row_u[N - v] = threshold_coefficient(q.u_Nv, zero_below);
      if (mirror_u && mirror_v) row_Mu[N - v] = threshold_coefficient(q.Mu_Nv, zero_below);
    }
  }
}

// Inverse preprocess: one iteration per quad (m, n), 0 <= m <= M/2, 0 <= n <= N/2, writing the
// Hermitian-half inputs w[m, n] and w[M-m, n].
template <bool SineRows, bool SineCols, typename T>
void idct2_preprocess(const T* X, Complex<T>* W, int M, int N, const Complex<T>* tm,
                      const Complex<T>* tn, int threads) {
  const int Nh = N / 2 + 1;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int m = 0; m <= M / 2; ++m) {
    const bool mirror_m = has_distinct_mirror(m, M);
    for (int n = 0; n <= N / 2; ++n) {
      const T x_mn = idct2_input<SineRows, SineCols>(X, m, n, M, N);
      const T x_Mm_Nn = idct2_input<SineRows, SineCols>(X, M - m, N - n, M, N);
      const T x_Mm_n = idct2_input<SineRows, SineCols>(X, M - m, n, M, N);
      const T x_m_Nn = idct2_input<SineRows, SineCols>(X, m, N - n, M, N);
      const Idct2Pair<T> w = idct2_pre_pair(x_mn, x_Mm_Nn, x_Mm_n, x_m_Nn, tm[m], tm[M - m], tn[n]);
      W[static_cast<std::ptrdiff_t>(m) * Nh + n] = w.m_n;
      if (mirror_m) W[static_cast<std::ptrdiff_t>(M - m) * Nh + n] = w.Mm_n;
    }
  }
}

template <typename T>
class CpuPlan2D final : public Plan2DImpl<T> {
 public:
  CpuPlan2D(Transform2D kind, int rows, int cols, const PlanOptions& options)
      : Plan2DImpl<T>(kind, rows, cols),
        shape_(canonical_2d_shape(kind, rows, cols)),
        threads_(resolve_cpu_threads(options.cpu_threads)),
        zero_below_(static_cast<T>(options.zero_below)),
        tu_(quarter_twiddles<T>(shape_.rows)),
        tv_(quarter_twiddles<T>(shape_.cols)),
        fft_(dims().data(), 2, shape_.forward(), threads_,
             std::string("Plan2D<") + scalar_name<T>() + "> (cpu)") {}

  void execute(const T* in, T* out, Stream) override { run(in, out); }
  void execute_host(const T* in, T* out) override { run(in, out); }
  Backend backend() const noexcept override { return Backend::Cpu; }

 private:
  std::array<int, 2> dims() const { return {shape_.rows, shape_.cols}; }

  void run(const T* in, T* out) {
    const int M = shape_.rows, N = shape_.cols;
    if (shape_.forward()) {
      makhoul_reorder_2d(in, fft_.real(), M, N, threads_);
      fft_.execute();
      dct2_postprocess(fft_.spectrum(), out, M, N, tu_.data(), tv_.data(), zero_below_, threads_);
      return;
    }
    if (shape_.sine_rows()) {
      inverse<true, false>(in, out);
    } else if (shape_.sine_cols()) {
      inverse<false, true>(in, out);
    } else {
      inverse<false, false>(in, out);
    }
  }

  template <bool SineRows, bool SineCols>
  void inverse(const T* in, T* out) {
    const int M = shape_.rows, N = shape_.cols;
    idct2_preprocess<SineRows, SineCols>(in, fft_.spectrum(), M, N, tu_.data(), tv_.data(), threads_);
    fft_.execute();
    makhoul_gather_2d<SineRows, SineCols>(fft_.real(), out, M, N, threads_);
  }

  Dct2dShape shape_;
  int threads_;
  T zero_below_;
  std::vector<Complex<T>> tu_;
  std::vector<Complex<T>> tv_;
  FftwRealPlan<T> fft_;
};

}  // namespace

template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cpu_plan2d(Transform2D kind, int rows, int cols,
                                               const PlanOptions& options) {
  return std::make_unique<CpuPlan2D<T>>(kind, rows, cols, options);
}

template std::unique_ptr<Plan2DImpl<float>> make_cpu_plan2d<float>(Transform2D, int, int, const PlanOptions&);
template std::unique_ptr<Plan2DImpl<double>> make_cpu_plan2d<double>(Transform2D, int, int, const PlanOptions&);

}  // namespace efield::detail
