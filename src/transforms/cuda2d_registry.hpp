#pragma once
// Internal: the CUDA backend's 2D methods as data, the one list of them. One row per Cuda2DMethod
// (Auto excepted): its names, where it applies, what it needs (the error when a plan asks for it
// elsewhere) and the factory of its plan. Plan2D, to_string, cuda_2d_methods(), the wisdom, the
// benchmark and the tests read it; Auto's choice among them is the policy table's
// (cuda2d_policy.hpp) or the wisdom's (wisdom.hpp).
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"

namespace efield::detail {

enum class Scalar { Float, Double };
template <typename T>
constexpr Scalar scalar_of() {
  return sizeof(T) == sizeof(float) ? Scalar::Float : Scalar::Double;
}

// Makes the plan of `method` for the caller's shape; the caller checked that the method applies.
template <typename T>
using Cuda2DFactory = std::unique_ptr<Plan2DImpl<T>> (*)(Cuda2DMethod method, Transform2D kind, int rows, int cols,
                                                         const PlanOptions& options);

struct Cuda2DSolver {
  Cuda2DMethod method;
  const char* name;  // the enumerator as written in C++ ("RowFftColumnPass"), for messages
  const char* key;   // to_string's name ("row_fft_column_pass"): benchmark tables, wisdom files
  // Whether the method takes the caller's shape (before canonical_2d_shape).
  bool (*applies)(Transform2D kind, int rows, int cols, Scalar scalar);
  std::string requirement;  // what `applies` asks, completing "Cuda2DMethod::<name> "
  Cuda2DFactory<float> make_float;
  Cuda2DFactory<double> make_double;

  template <typename T>
  std::unique_ptr<Plan2DImpl<T>> make(Transform2D kind, int rows, int cols, const PlanOptions& options) const {
    if constexpr (std::is_same_v<T, float>) {
      return make_float(method, kind, rows, cols, options);
    } else {
      return make_double(method, kind, rows, cols, options);
    }
  }
};

// Every method but Auto, once each.
const std::vector<Cuda2DSolver>& cuda_2d_solvers();
// The row of `method`; throws efield::Error for Auto or a value outside the enum.
const Cuda2DSolver& cuda_2d_solver(Cuda2DMethod method);
// The row whose key is `key`; nullptr when none is.
const Cuda2DSolver* find_cuda_2d_solver(const std::string& key);

// The factories the rows point at, one per implementation file under kernels/transforms/ (a
// build without CUDA has throwing stand-ins in plan2d_cuda_nocuda.cpp):
// dct2d_cuda.cu: OneFft, RowFftColumnPass, PackedFft, TransposedPackedFft.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_fft_plan2d(Cuda2DMethod method, Transform2D kind, int rows, int cols,
                                                    const PlanOptions& options);
// dct2d_own_passes.cu: TwoPasses, ThreePasses.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_own_pass_plan2d(Cuda2DMethod method, Transform2D kind, int rows, int cols,
                                                         const PlanOptions& options);
// dct2d_prime_factor.cu: PrimeFactorFft.
template <typename T>
std::unique_ptr<Plan2DImpl<T>> make_cuda_prime_factor_plan2d(Cuda2DMethod method, Transform2D kind, int rows,
                                                             int cols, const PlanOptions& options);

}  // namespace efield::detail
