// Auto's policy table (cuda2d_policy.hpp). Each group of rows says why its method wins there;
// the measurements behind them are in bench_ispd/results/transforms2d.md.
#include "transforms/cuda2d_policy.hpp"

namespace efield::detail {
namespace {

// The GPUs the table was measured on: compute capability 9.x (H100, H200).
constexpr int kMeasuredMin = 90, kMeasuredMax = 99;
// Every GPU: methods that take any size and whose advantage is in how cuFFT runs, not in our
// own passes' tuning.
constexpr int kAnyMin = 0, kAnyMax = kNoLimit;

constexpr ForScalar kAnyScalar = ForScalar::Any, kFloat = ForScalar::Float, kDouble = ForScalar::Double;
constexpr ForDirection kBoth = ForDirection::Any, kForward = ForDirection::Forward, kInverse = ForDirection::Inverse;

constexpr SizeRange exactly(int n) { return {n, n}; }
constexpr SizeRange from(int n) { return {n, kNoLimit}; }
constexpr SizeRange between(int lo, int hi) { return {lo, hi}; }
constexpr SizeRange any_size() { return {1, kNoLimit}; }

using M = Cuda2DMethod;

std::vector<Cuda2DPolicyRow> make_policy() {
  return {
      // min cc, max cc, precision, direction, rows, cols, cols not a power of two, method
      //
      // Float inverses of 2048^2 elements (up to 4096 rows): TwoPasses keeps their spectrum in the
      // output array, where three arrays no longer fit the L2 together.
      {kMeasuredMin, kMeasuredMax, kFloat, kInverse, exactly(512), exactly(8192), false, M::TwoPasses},
      {kMeasuredMin, kMeasuredMax, kFloat, kInverse, exactly(1024), exactly(4096), false, M::TwoPasses},
      {kMeasuredMin, kMeasuredMax, kFloat, kInverse, exactly(2048), exactly(2048), false, M::TwoPasses},
      {kMeasuredMin, kMeasuredMax, kFloat, kInverse, exactly(4096), exactly(1024), false, M::TwoPasses},
      // At 1024^2 (float dct2) and 2048^2 (double inverses) ThreePasses' short column lines beat
      // TwoPasses' whole columns too (bench_ispd/results/auto_policy.md).
      {kMeasuredMin, kMeasuredMax, kFloat, kForward, exactly(1024), exactly(1024), false, M::ThreePasses},
      {kMeasuredMin, kMeasuredMax, kDouble, kInverse, exactly(2048), exactly(2048), false, M::ThreePasses},
      // From 4096 rows the column pass would hold only 4 or 2 whole columns a block: ThreePasses
      // reads long columns in 256-byte pieces of each row instead.
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, from(4096), from(256), false, M::ThreePasses},
      // dct2 from 2048^2: ThreePasses takes the rows first and the columns in packed pairs.
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kForward, from(2048), from(2048), false, M::ThreePasses},
      // 256 (float) or 512 to 2048 rows of arrays at least as wide as tall or 1024 wide: a column
      // pass block owns 8 whole columns, so narrower arrays leave SMs idle. TwoPasses where both
      // sizes are powers of two (the double row pass runs in blocks of 64 threads down to 512^2) ...
      {kMeasuredMin, kMeasuredMax, kFloat, kBoth, exactly(256), from(256), false, M::TwoPasses},
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, exactly(512), from(512), false, M::TwoPasses},
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, between(1024, 2048), from(1024), false, M::TwoPasses},
      // ... else, up to 512 rows, cuFFT's row FFTs and our column pass: for dct2 in both precisions
      // and the float inverses, and for columns that are not a power of two in double too. From
      // 1024 rows such columns run PackedFft (the row below it), whose fused split of the long
      // rows costs less than cuFFT's row R2C there (bench_ispd/results/auto_policy.md).
      {kMeasuredMin, kMeasuredMax, kFloat, kBoth, exactly(256), from(256), false, M::RowFftColumnPass},
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kForward, exactly(512), from(512), false, M::RowFftColumnPass},
      {kMeasuredMin, kMeasuredMax, kFloat, kInverse, exactly(512), from(512), false, M::RowFftColumnPass},
      {kMeasuredMin, kMeasuredMax, kDouble, kBoth, between(256, 512), from(512), true, M::RowFftColumnPass},
      // Tall arrays of short rows: cuFFT's FFT along the long axis runs few long lines, one a block;
      // the prime-factor split makes them many short ones (where the split's lines were measured
      // short enough to pay for its extra index arithmetic).
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, between(10000, 20000), between(100, 2000), false,
       M::PrimeFactorFft},
      {kMeasuredMin, kMeasuredMax, kDouble, kBoth, between(6000, 20000), between(100, 2000), false, M::PrimeFactorFft},
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, between(2000, 20000), between(1000, 2000), false,
       M::PrimeFactorFft},
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, between(5000, 10000), between(100, 200), false,
       M::PrimeFactorFft},
      // ... where it does not apply, the same array transposed (PackedFft along the long axis).
      {kMeasuredMin, kMeasuredMax, kAnyScalar, kBoth, between(2000, 10000), between(100, 300), true,
       M::TransposedPackedFft},
      // Any GPU: cuFFT's R2C of a long row that is not a power of two runs its split as a pass of its
      // own; PackedFft fuses it into the postprocess (its R2C of a power-of-two row fuses it itself).
      {kAnyMin, kAnyMax, kAnyScalar, kBoth, from(100), from(256), true, M::PackedFft},
      {kAnyMin, kAnyMax, kAnyScalar, kBoth, any_size(), any_size(), false, M::OneFft},
  };
}

bool covers(const Cuda2DPolicyRow& row, int compute_capability, Scalar scalar, const Dct2dShape& shape) {
  if (compute_capability < row.min_cc || compute_capability > row.max_cc) return false;
  if (row.scalar == kFloat && scalar != Scalar::Float) return false;
  if (row.scalar == kDouble && scalar != Scalar::Double) return false;
  if (row.direction == kForward && !shape.forward()) return false;
  if (row.direction == kInverse && shape.forward()) return false;
  if (row.cols_not_power_of_two && is_power_of_two(shape.cols)) return false;
  return row.rows.contains(shape.rows) && row.cols.contains(shape.cols);
}

}  // namespace

const std::vector<Cuda2DPolicyRow>& cuda_2d_policy() {
  static const std::vector<Cuda2DPolicyRow> policy = make_policy();
  return policy;
}

Cuda2DMethod choose_cuda_2d_method(int compute_capability, Scalar scalar, Transform2D kind, int rows, int cols) {
  const Dct2dShape shape = canonical_2d_shape(kind, rows, cols);
  for (const Cuda2DPolicyRow& row : cuda_2d_policy()) {
    if (!covers(row, compute_capability, scalar, shape)) continue;
    if (cuda_2d_solver(row.method).applies(kind, rows, cols, scalar)) return row.method;
  }
  return Cuda2DMethod::OneFft;
}

}  // namespace efield::detail
