// The CUDA 2D methods' registry (cuda2d_registry.hpp): one row per method. The lengths the own
// passes are compiled for are in plan2d_impl.hpp.
#include "transforms/cuda2d_registry.hpp"

#include <string>

#include "efield/error.hpp"
#include "math/prime_factor.hpp"

namespace efield::detail {
namespace {

bool any_shape(Transform2D, int, int, Scalar) { return true; }

// A line length the own passes are compiled for (pass_launch.hpp with_log2_length).
bool own_pass_length(int n) { return n >= kColumnPassMinRows && n <= kColumnPassMaxRows && is_power_of_two(n); }

// The column pass's FFT runs down the planned shape's columns: any column count.
bool row_fft_column_pass_applies(Transform2D kind, int rows, int cols, Scalar) {
  return own_pass_length(canonical_2d_shape(kind, rows, cols).rows);
}
// The row pass is compiled for the same lengths as the column pass.
bool two_passes_apply(Transform2D kind, int rows, int cols, Scalar) {
  const Dct2dShape shape = canonical_2d_shape(kind, rows, cols);
  return own_pass_length(shape.rows) && own_pass_length(shape.cols);
}
// The four-step column FFT (64 x rows/64) needs lines of 16 or more.
bool three_passes_apply(Transform2D kind, int rows, int cols, Scalar scalar) {
  return two_passes_apply(kind, rows, cols, scalar) && canonical_2d_shape(kind, rows, cols).rows >= kFourStepMinRows;
}
// The complex FFT of the packed pairs has N/2 >= 2 columns (no cuFFT plan with a dimension of 1).
bool packed_fft_applies(Transform2D kind, int rows, int cols, Scalar) {
  const int n = canonical_2d_shape(kind, rows, cols).cols;
  return n % 2 == 0 && n >= 4;
}
// PackedFft of the transposed array (cols x rows): the same rule on the caller's rows.
bool transposed_packed_fft_applies(Transform2D, int rows, int, Scalar) { return rows % 2 == 0 && rows >= 4; }
// rows/2 = P Q by the prime-factor map: P, the power of two in rows/2, a DFT in registers of at
// most kPrimeFactorMaxP values; Q odd and at least 3 (Q = 1 would leave nothing to split).
bool prime_factor_fft_applies(Transform2D, int rows, int, Scalar) {
  if (rows % 2 != 0 || rows < 4) return false;
  const PrimeFactorSplit split = prime_factor_split(rows / 2);
  return split.P >= 2 && split.P <= kPrimeFactorMaxP && split.Q >= 3;
}

std::vector<Cuda2DSolver> make_solvers() {
  const std::string lengths = std::to_string(kColumnPassMinRows) + ".." + std::to_string(kColumnPassMaxRows);
  const std::string single_column = " (a single column counts as a single row)";
  return {
      {Cuda2DMethod::OneFft, "OneFft", "one_fft", any_shape, "takes every shape", make_cuda_fft_plan2d<float>,
       make_cuda_fft_plan2d<double>},
      {Cuda2DMethod::RowFftColumnPass, "RowFftColumnPass", "row_fft_column_pass", row_fft_column_pass_applies,
       "needs a power-of-two row count in " + lengths + single_column, make_cuda_fft_plan2d<float>,
       make_cuda_fft_plan2d<double>},
      {Cuda2DMethod::TwoPasses, "TwoPasses", "two_passes", two_passes_apply, "needs both sizes to be powers of two in " + lengths,
       make_cuda_own_pass_plan2d<float>, make_cuda_own_pass_plan2d<double>},
      {Cuda2DMethod::ThreePasses, "ThreePasses", "three_passes", three_passes_apply,
       "needs both sizes to be powers of two in " + lengths + ", and at least " + std::to_string(kFourStepMinRows) +
           " rows",
       make_cuda_own_pass_plan2d<float>, make_cuda_own_pass_plan2d<double>},
      {Cuda2DMethod::PackedFft, "PackedFft", "packed_fft", packed_fft_applies,
       "needs an even column count of at least 4" + single_column, make_cuda_fft_plan2d<float>,
       make_cuda_fft_plan2d<double>},
      {Cuda2DMethod::TransposedPackedFft, "TransposedPackedFft", "transposed_packed_fft", transposed_packed_fft_applies,
       "needs an even row count of at least 4", make_cuda_fft_plan2d<float>, make_cuda_fft_plan2d<double>},
      {Cuda2DMethod::PrimeFactorFft, "PrimeFactorFft", "prime_factor_fft", prime_factor_fft_applies,
       "needs rows/2 = P Q with P a power of two in 2.." + std::to_string(kPrimeFactorMaxP) + " and Q odd, at least 3",
       make_cuda_prime_factor_plan2d<float>, make_cuda_prime_factor_plan2d<double>},
  };
}

}  // namespace

const std::vector<Cuda2DSolver>& cuda_2d_solvers() {
  static const std::vector<Cuda2DSolver> solvers = make_solvers();
  return solvers;
}

const Cuda2DSolver& cuda_2d_solver(Cuda2DMethod method) {
  for (const Cuda2DSolver& s : cuda_2d_solvers()) {
    if (s.method == method) return s;
  }
  throw Error(std::string("Cuda2DMethod::") + to_string(method) + " has no solver (Auto is resolved first)");
}

const Cuda2DSolver* find_cuda_2d_solver(const std::string& key) {
  for (const Cuda2DSolver& s : cuda_2d_solvers()) {
    if (key == s.key) return &s;
  }
  return nullptr;
}

}  // namespace efield::detail

namespace efield {

std::vector<Cuda2DMethod> cuda_2d_methods() {
  std::vector<Cuda2DMethod> methods;
  for (const detail::Cuda2DSolver& s : detail::cuda_2d_solvers()) methods.push_back(s.method);
  return methods;
}

const char* to_string(Cuda2DMethod method) noexcept {
  if (method == Cuda2DMethod::Auto) return "auto";
  for (const detail::Cuda2DSolver& s : detail::cuda_2d_solvers()) {
    if (s.method == method) return s.key;
  }
  return "unknown";
}

}  // namespace efield::detail
