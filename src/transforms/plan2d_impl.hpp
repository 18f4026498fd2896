#pragma once
// Internal: the backend interface behind efield::Plan2D and the shape rules both backends share.
#include <memory>

#include "efield/transforms.hpp"
#include "math/prime_factor.hpp"

namespace efield::detail {

// The shape a backend actually plans for. A rows x 1 array is the same memory as a 1 x rows
// array, and a length-1 axis is the identity for idct and zero for idxst, so rows x 1 is planned
// as 1 x rows with the sine axis moved to the second position. Afterwards either rows == 1 (a
// 1D real FFT along the row, or nothing at all for 1 x 1) or both sizes are >= 2 (a 2D FFT):
// no FFT library ever sees a 2D plan with a dimension of 1.
struct Dct2dShape {
  Transform2D kind;
  int rows;
  int cols;
  bool forward() const { return kind == Transform2D::Dct2; }
  bool sine_rows() const { return kind == Transform2D::IdxstIdct; }
  bool sine_cols() const { return kind == Transform2D::IdctIdxst; }
  // Complex values per spectrum row (the Hermitian half along the last axis).
  int half_cols() const { return cols / 2 + 1; }
};

inline bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// The kind of the transposed problem: idct_idxst of X is the transpose of idxst_idct of X^T
// (dct2 and idct2 are their own).
inline Transform2D transposed_kind(Transform2D kind) {
  if (kind == Transform2D::IdctIdxst) return Transform2D::IdxstIdct;
  if (kind == Transform2D::IdxstIdct) return Transform2D::IdctIdxst;
  return kind;
}

inline Dct2dShape canonical_2d_shape(Transform2D kind, int rows, int cols) {
  if (cols == 1 && rows > 1) return {transposed_kind(kind), 1, rows};
  return {kind, rows, cols};
}

// Where the CUDA backend's Cuda2DMethod::RowFftColumnPass applies: the planned shape
// (canonical_2d_shape) has a power-of-two row count in [kColumnPassMinRows, kColumnPassMaxRows],
// the column length its own column FFT is compiled for; any column count.
constexpr int kColumnPassMinRows = 64;
constexpr int kColumnPassMaxRows = 8192;
inline bool own_pass_length(int n) { return n >= kColumnPassMinRows && n <= kColumnPassMaxRows && is_power_of_two(n); }
inline bool column_pass_applies(Transform2D kind, int rows, int cols) {
  return own_pass_length(canonical_2d_shape(kind, rows, cols).rows);
}
// Cuda2DMethod::TwoPasses: its row pass is compiled for the same lengths as the column pass.
inline bool two_passes_apply(Transform2D kind, int rows, int cols) {
  const Dct2dShape shape = canonical_2d_shape(kind, rows, cols);
  return own_pass_length(shape.rows) && own_pass_length(shape.cols);
}
// Cuda2DMethod::ThreePasses: TwoPasses's shapes with at least kFourStepMinRows rows, where the
// four-step column FFT (64 x rows/64) has lines of 16 or more.
constexpr int kFourStepMinRows = 1024;
inline bool three_passes_apply(Transform2D kind, int rows, int cols) {
  return two_passes_apply(kind, rows, cols) && canonical_2d_shape(kind, rows, cols).rows >= kFourStepMinRows;
}

// Cuda2DMethod::PackedFft: an even column count of at least 4 in the planned shape, so that its
// complex FFT has N/2 >= 2 columns (no cuFFT plan with a dimension of 1).
inline bool packed_fft_applies(Transform2D kind, int rows, int cols) {
  const int n = canonical_2d_shape(kind, rows, cols).cols;
  return n % 2 == 0 && n >= 4;
}

// Cuda2DMethod::TransposedPackedFft plans PackedFft for the transpose of the caller's array
// (cols x rows, the kind's axes swapped), so it needs an even row count of at least 4.
inline Dct2dShape transposed_2d_shape(Transform2D kind, int rows, int cols) {
  return canonical_2d_shape(transposed_kind(kind), cols, rows);
}
inline bool transposed_packed_fft_applies(int rows) { return rows % 2 == 0 && rows >= 4; }

// Cuda2DMethod::PrimeFactorFft: TransposedPackedFft's plan with rows/2 = P Q split by the
// prime-factor map (math/prime_factor.hpp), P the power of two in rows/2 (a DFT in registers
// of at most 16 values), Q odd and at least 3 (Q = 1 would leave nothing to split).
constexpr int kPrimeFactorMaxP = 16;
inline bool prime_factor_fft_applies(int rows) {
  if (rows % 2 != 0 || rows < 4) return false;
  const PrimeFactorSplit split = prime_factor_split(rows / 2);
  return split.P >= 2 && split.P <= kPrimeFactorMaxP && split.Q >= 3;
}

// The method a CUDA plan runs. Auto takes the own passes where they were measured faster than
// OneFft on the H200 (bench_ispd/results/transforms2d.md):
//   float inverses of 2048^2 elements with at most 4096 rows: TwoPasses, which keeps their
//     spectrum in the output array (4096x1024: 37.5-37.8 us against ThreePasses' 41.2-42.0);
//   dct2 from 2048 rows and 2048 columns: ThreePasses where it applies (rows first, the columns
//     in packed pairs: float 2048^2 32.4 us against TwoPasses' 34.9, double 58.3 against 68.7);
//   from 4096 rows, ThreePasses where it applies (powers of two; the column pass would hold only
//     4 or 2 whole columns per block there) from 256 columns (double inverses at 4096x256..2048
//     and 8192x256..1024: 1.15-1.36x of C2R against OneFft's 1.51-1.64x; at 4096x512 TwoPasses
//     ran 5 % faster still);
//   rows 512..2048 (256..2048 in float, where a column-pass block holds 8 whole columns) and
//   arrays "wide enough", at least 1024 columns or as many columns as rows (the column pass's
//   blocks own 8 columns each, so a tall narrow array leaves SMs idle; 2048x512 ran faster with
//   OneFft):
//     TwoPasses where it applies (powers of two; in double at 512^2 too since the row pass runs
//     in blocks of 64 threads: 15.2-15.6 us against RowFftColumnPass's 18.2-18.5 for dct2,
//     17.7-18.1 against OneFft's 20.2-20.7 for the inverses, in two lendings);
//     else RowFftColumnPass (any column count) for dct2 in both types and the inverses in float;
//   PrimeFactorFft where it applies in 2000..20000 rows of 100..2000 columns, from 10000 rows, or
//     from 6000 rows in double, or from 1000 columns (rows/2 = P Q split into P batched FFTs of
//     Q x cols: 0.75-0.87 of the method Auto ran before at 6000..20000 x 300..2000, 10000x100
//     double 0.75-0.83; measured slower with Q = 375 in float, at 3000 rows (P = 4) and at
//     2000..4000 x 100);
//   TransposedPackedFft for 2000..10000 rows of 100..300 columns, not a power of two (cuFFT's 2D
//     FFT of such an array runs few long columns: 10000x100, 2000x100 and 3000x300 took 0.84-0.93
//     of PackedFft's or OneFft's time; 20000x500 and double 6000x1000 ran slower);
//   else PackedFft where it applies with at least 100 rows and 256 columns, not a power of two
//     (cuFFT's complex FFT of rows x cols/2 took 0.65-0.89 of its R2C of rows x cols at
//     100..20000 rows of 300..20000 columns, and 1.00-1.04 at 100 columns; its R2C of a
//     power-of-two row fuses the split: bench_ispd/results/transforms2d.md), else OneFft.
template <typename T>
Cuda2DMethod resolve_cuda_2d_method(Cuda2DMethod requested, Transform2D kind, int rows, int cols) {
  if (requested != Cuda2DMethod::Auto) return requested;
  const Dct2dShape shape = canonical_2d_shape(kind, rows, cols);
  const bool is_float = sizeof(T) == sizeof(float);
  const long long elements = static_cast<long long>(shape.rows) * shape.cols;
  if (is_float && !shape.forward() && elements == 2048LL * 2048 && shape.rows <= 4096 &&
      two_passes_apply(kind, rows, cols)) {
    return Cuda2DMethod::TwoPasses;
  }
  if (shape.rows >= 4096 && shape.cols >= 256 && three_passes_apply(kind, rows, cols)) {
    return Cuda2DMethod::ThreePasses;
  }
  const bool dct2_from_2048 = shape.forward() && shape.rows >= 2048 && shape.cols >= 2048;
  if (dct2_from_2048 && three_passes_apply(kind, rows, cols)) {
    return Cuda2DMethod::ThreePasses;
  }
  const bool measured_shape =
      shape.rows >= (is_float ? 256 : 512) && shape.rows <= 2048 && (shape.cols >= 1024 || shape.cols >= shape.rows);
  if (measured_shape && two_passes_apply(kind, rows, cols)) return Cuda2DMethod::TwoPasses;
  if (measured_shape && column_pass_applies(kind, rows, cols) && (shape.forward() || is_float)) {
    return Cuda2DMethod::RowFftColumnPass;
  }
  const bool prime_factor_box = shape.rows >= 2000 && shape.rows <= 20000 && shape.cols >= 100 &&
                                shape.cols <= 2000 &&
                                (shape.rows >= 10000 || (!is_float && shape.rows >= 6000) || shape.cols >= 1000);
  if (prime_factor_box && prime_factor_fft_applies(shape.rows)) return Cuda2DMethod::PrimeFactorFft;
  if (shape.rows >= 2000 && shape.rows <= 10000 && shape.cols >= 100 && shape.cols <= 300 &&
      !is_power_of_two(shape.cols) && transposed_packed_fft_applies(shape.rows)) {
    return Cuda2DMethod::TransposedPackedFft;
  }
  if (shape.rows >= 100 && shape.cols >= 256 && !is_power_of_two(shape.cols) && packed_fft_applies(kind, rows, cols)) {
    return Cuda2DMethod::PackedFft;
  }
  return Cuda2DMethod::OneFft;
}

template <typename T>
class Plan2DImpl {
 public:
  Plan2DImpl(Transform2D kind, int rows, int cols) : kind_(kind), rows_(rows), cols_(cols) {}
  virtual ~Plan2DImpl() = default;
  Plan2DImpl(const Plan2DImpl&) = delete;
  Plan2DImpl& operator=(const Plan2DImpl&) = delete;

  // `in`/`out` are in the backend's memory; may alias. No allocation.
  virtual void execute(const T* in, T* out, Stream stream) = 0;
  // Host pointers; synchronous.
  virtual void execute_host(const T* in, T* out) = 0;
  virtual Backend backend() const noexcept = 0;
  // The CUDA method run (Auto resolved); Auto for the CPU backend.
  virtual Cuda2DMethod cuda_2d_method() const noexcept { return Cuda2DMethod::Auto; }

  // The caller's view (before canonical_2d_shape).
  Transform2D kind() const noexcept { return kind_; }
  int rows() const noexcept { return rows_; }
  int cols() const noexcept { return cols_; }

 private:
  Transform2D kind_;
  int rows_;
  int cols_;
};

// Backend factories. Arguments are validated by Plan2D before these are called.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cpu_plan2d(Transform2D kind, int rows, int cols,
                                               const PlanOptions& options);
// Defined in kernels/transforms/dct2d_cuda.cu; throws "built without CUDA" in a CPU-only build.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_plan2d(Transform2D kind, int rows, int cols,
                                                const PlanOptions& options);

}  // namespace efield::detail
