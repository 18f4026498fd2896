#pragma once
// Internal: the backend interface behind efield::Plan2D and the shape rules both backends share.
#include <memory>

#include "common/device_scope.hpp"
#include "efield/transforms.hpp"

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

// The line lengths the own passes (RowFftColumnPass's column pass, TwoPasses' and ThreePasses'
// passes) are compiled for: the powers of two in kColumnPassMinRows..kColumnPassMaxRows.
constexpr int kColumnPassMinRows = 64;
constexpr int kColumnPassMaxRows = 8192;
// ThreePasses' four-step column FFT (64 x rows/64) needs lines of 16 or more.
constexpr int kFourStepMinRows = 1024;
// PrimeFactorFft runs DFTs of P values in registers, P the power of two in rows/2.
constexpr int kPrimeFactorMaxP = 16;

// TransposedPackedFft and PrimeFactorFft plan for the transpose of the caller's array (cols x
// rows, the kind's axes swapped).
inline Dct2dShape transposed_2d_shape(Transform2D kind, int rows, int cols) {
  return canonical_2d_shape(transposed_kind(kind), cols, rows);
}

template <typename T>
class Plan2DImpl : public DeviceBound {
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

// The CPU backend's factory (the CUDA methods' are in cuda2d_registry.hpp). Arguments are
// validated by Plan2D before it is called.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cpu_plan2d(Transform2D kind, int rows, int cols,
                                               const PlanOptions& options);

}  // namespace efield::detail
