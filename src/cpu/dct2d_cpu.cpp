// The CPU backend of Plan2D: Makhoul reorder -> one FFTW 2D r2c -> quad postprocess (dct2), and
// quad preprocess -> one FFTW 2D c2r -> inverse reorder (idct2, idct_idxst, idxst_idct), with
// the per-element formulas of math/dct2d.hpp and OpenMP loops over rows.
#include <omp.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "cpu/fftw_real_plan.hpp"
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

// Forward postprocess, one output row per iteration: row u reads the spectrum rows u and
// (M-u) mod M and writes X[u, v] and X[u, N-v] together. The inner loop over 1 <= v <= (N-1)/2
// (whose mirrors N-v are distinct) has no per-element conditions, so the compiler vectorizes
// it; v = 0 and v = N/2 are done apart. (The GPU kernel instead shares the two spectrum reads
// across four outputs; on the CPU this loop is compute-bound and vectorization matters more.)
template <typename T>
void dct2_postprocess(const Complex<T>* V, T* X, int M, int N, const Complex<T>* tu,
                      const Complex<T>* tv, T zero_below, int threads) {
  const int Nh = N / 2 + 1;
  const int last = (N - 1) / 2;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int u = 0; u < M; ++u) {
    const Complex<T> t_u = tu[u];
    const Complex<T>* row_a = V + static_cast<std::ptrdiff_t>(u) * Nh;
    const Complex<T>* row_b = V + static_cast<std::ptrdiff_t>((M - u) % M) * Nh;
    T* out = X + static_cast<std::ptrdiff_t>(u) * N;
    out[0] = threshold_coefficient(dct2_post_pair(row_a[0], row_b[0], t_u, tv[0]).v, zero_below);
    for (int v = 1; v <= last; ++v) {
      const Dct2Pair<T> p = dct2_post_pair(row_a[v], row_b[v], t_u, tv[v]);
      out[v] = threshold_coefficient(p.v, zero_below);
      out[N - v] = threshold_coefficient(p.Nv, zero_below);
    }
    if (N % 2 == 0) {
      out[N / 2] = threshold_coefficient(dct2_post_pair(row_a[N / 2], row_b[N / 2], t_u, tv[N / 2]).v, zero_below);
    }
  }
}

// Inverse preprocess, one Hermitian-half row w[m, 0..N/2] per iteration, from the rows m and
// M-m of X' (idct2_source picks the row of X, or the zero row). The inner loop over
// 1 <= n <= N/2 reads X'[., n] and X'[., N-n] without per-element conditions (vectorizable);
// n = 0, where X'[., N] = 0, is done apart.
template <bool SineRows, bool SineCols, typename T>
void idct2_preprocess(const T* X, Complex<T>* W, int M, int N, const Complex<T>* tm,
                      const Complex<T>* tn, const T* zero_row, int threads) {
  const int Nh = N / 2 + 1;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int m = 0; m < M; ++m) {
    const int s_m = idct2_source<SineRows>(m, M);
    const int s_Mm = idct2_source<SineRows>(M - m, M);
    const T* row_m = s_m < 0 ? zero_row : X + static_cast<std::ptrdiff_t>(s_m) * N;
    const T* row_Mm = s_Mm < 0 ? zero_row : X + static_cast<std::ptrdiff_t>(s_Mm) * N;
    const Complex<T> t_m = tm[m];
    Complex<T>* w = W + static_cast<std::ptrdiff_t>(m) * Nh;
    // n = 0: X'[., N] = 0; X'[., 0] is column 0 of X, or 0 on a sine second axis.
    const int s_0 = idct2_source<SineCols>(0, N);
    const T x_m0 = s_0 < 0 ? T(0) : row_m[s_0];
    const T x_Mm0 = s_0 < 0 ? T(0) : row_Mm[s_0];
    w[0] = idct2_pre(x_m0, T(0), x_Mm0, T(0), t_m, tn[0]);
    for (int n = 1; n <= N / 2; ++n) {
      // For 1 <= n <= N-1: idct2_source<SineCols>(n, N) is N-n on a sine axis, n otherwise.
      const int c_n = SineCols ? N - n : n;
      const int c_Nn = SineCols ? n : N - n;
      w[n] = idct2_pre(row_m[c_n], row_Mm[c_Nn], row_Mm[c_n], row_m[c_Nn], t_m, tn[n]);
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
        zero_row_(static_cast<std::size_t>(shape_.cols), T(0)),
        fft_(dims().data(), 2, shape_.forward(), threads_, options.reproducible,
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
    idct2_preprocess<SineRows, SineCols>(in, fft_.spectrum(), M, N, tu_.data(), tv_.data(), zero_row_.data(),
                                         threads_);
    fft_.execute();
    makhoul_gather_2d<SineRows, SineCols>(fft_.real(), out, M, N, threads_);
  }

  Dct2dShape shape_;
  int threads_;
  T zero_below_;
  std::vector<Complex<T>> tu_;
  std::vector<Complex<T>> tv_;
  std::vector<T> zero_row_;  // X' rows that are all zero (sine row 0, the row index M)
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
