// efield::Plan2D: argument checks, backend choice, and forwarding to the backend's Plan2DImpl.
#include <string>

#include "common/log.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "transforms/plan2d_impl.hpp"
#include "transforms/plan_validation_2d3d.hpp"

namespace efield {
namespace {

template <typename T>
std::string plan2d_name() {
  return std::string("Plan2D<") + detail::scalar_name<T>() + ">";
}

bool valid_kind(Transform2D kind) {
  return kind == Transform2D::Dct2 || kind == Transform2D::Idct2 ||
         kind == Transform2D::IdctIdxst || kind == Transform2D::IdxstIdct;
}

// What an explicitly requested CUDA method needs and this shape lacks (the method's name and
// rule, for the error message), or "" when the method takes the shape. The rules themselves
// are in plan2d_impl.hpp.
template <typename T>
std::string explicit_method_requirement(Cuda2DMethod method, Transform2D kind, int rows, int cols) {
  const std::string lengths =
      std::to_string(detail::kColumnPassMinRows) + ".." + std::to_string(detail::kColumnPassMaxRows);
  switch (method) {
    case Cuda2DMethod::RowFftColumnPass:
      if (detail::column_pass_applies(kind, rows, cols)) return "";
      return "RowFftColumnPass needs a power-of-two row count in " + lengths +
             " (a single column counts as a single row)";
    case Cuda2DMethod::TwoPasses:
      if (detail::two_passes_apply(kind, rows, cols)) return "";
      return "TwoPasses needs both sizes to be powers of two in " + lengths;
    case Cuda2DMethod::ThreePasses:
      if (detail::three_passes_apply(kind, rows, cols)) return "";
      return "ThreePasses needs both sizes to be powers of two in " + lengths + ", and at least " +
             std::to_string(detail::kFourStepMinRows) + " rows";
    case Cuda2DMethod::PackedFft:
      if (detail::packed_fft_applies(kind, rows, cols)) return "";
      return "PackedFft needs an even column count of at least 4 (a single column counts as a single row)";
    case Cuda2DMethod::TransposedPackedFft:
      if (detail::transposed_packed_fft_applies(rows)) return "";
      return "TransposedPackedFft needs an even row count of at least 4";
    case Cuda2DMethod::PrimeFactorFft:
      if (detail::prime_factor_fft_applies(rows)) return "";
      return "PrimeFactorFft needs rows/2 = P Q with P a power of two in 2..16 and Q odd, at least 3";
    default:
      return "";  // Auto and OneFft take every shape
  }
}

}  // namespace

template <typename T>
Plan2D<T>::Plan2D(Transform2D kind, int rows, int cols, const PlanOptions& options) {
  const std::string who = plan2d_name<T>();
  if (!valid_kind(kind)) throw Error(who + ": `kind` is not a valid efield::Transform2D value");
  detail::require_positive_size(who, "rows", rows);
  detail::require_positive_size(who, "cols", cols);
  detail::require_element_count(who, static_cast<long long>(rows) * cols);
  detail::require_valid_options(who, options);
  if (options.zero_below > 0 && kind != Transform2D::Dct2) {
    detail::log().warn("{} {}: PlanOptions::zero_below applies to forward transforms only; ignored",
                       who, to_string(kind));
  }
  const Backend backend = resolve_backend(options.backend);
  if (backend == Backend::Cuda) {
    const std::string missed = explicit_method_requirement<T>(options.cuda_2d_method, kind, rows, cols);
    if (!missed.empty()) {
      throw Error(who + " " + to_string(kind) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                  ": Cuda2DMethod::" + missed + "; use Auto or OneFft");
    }
  }
  impl_ = backend == Backend::Cuda ? detail::make_cuda_plan2d<T>(kind, rows, cols, options)
                                   : detail::make_cpu_plan2d<T>(kind, rows, cols, options);
  detail::log().debug("{} {} {}x{} on {}", who, to_string(kind), rows, cols, to_string(backend));
}

template <typename T>
Plan2D<T>::~Plan2D() = default;
template <typename T>
Plan2D<T>::Plan2D(Plan2D&&) noexcept = default;
template <typename T>
Plan2D<T>& Plan2D<T>::operator=(Plan2D&&) noexcept = default;

template <typename T>
void Plan2D<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error(plan2d_name<T>() + "::execute: the plan was moved from");
  detail::require_execute_pointers(plan2d_name<T>(), in, out, impl_->backend());
  impl_->execute(in, out, stream);
}

template <typename T>
void Plan2D<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error(plan2d_name<T>() + "::execute_host: the plan was moved from");
  detail::require_host_pointers(plan2d_name<T>(), in, out);
  impl_->execute_host(in, out);
}

template <typename T>
Transform2D Plan2D<T>::kind() const noexcept {
  return impl_ ? impl_->kind() : Transform2D::Dct2;
}
template <typename T>
int Plan2D<T>::rows() const noexcept {
  return impl_ ? impl_->rows() : 0;
}
template <typename T>
int Plan2D<T>::cols() const noexcept {
  return impl_ ? impl_->cols() : 0;
}
template <typename T>
Cuda2DMethod Plan2D<T>::cuda_2d_method() const noexcept {
  return impl_ ? impl_->cuda_2d_method() : Cuda2DMethod::Auto;
}

template <typename T>
Backend Plan2D<T>::backend() const noexcept {
  return impl_ ? impl_->backend() : Backend::Auto;
}

template class Plan2D<float>;
template class Plan2D<double>;

}  // namespace efield
