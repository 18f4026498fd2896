// efield::Plan2D: argument checks, backend choice, and forwarding to the backend's Plan2DImpl.
#include <string>

#include "common/device_properties.hpp"
#include "common/log.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "transforms/cuda2d_policy.hpp"
#include "transforms/cuda2d_registry.hpp"
#include "transforms/plan2d_impl.hpp"
#include "transforms/plan2d_timing.hpp"
#include "transforms/plan_validation_2d3d.hpp"
#include "transforms/wisdom.hpp"

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

// PlanEffort::Measure: every method that takes the shape, timed once on this device; the fastest.
template <typename T>
detail::WisdomEntry measure_cuda_2d_method(const std::string& who, Transform2D kind, int rows, int cols,
                                           const PlanOptions& options) {
  constexpr detail::Scalar scalar = detail::scalar_of<T>();
  detail::WisdomEntry best{Cuda2DMethod::OneFft, -1.0};
  for (const detail::Cuda2DSolver& solver : detail::cuda_2d_solvers()) {
    if (!solver.applies(kind, rows, cols, scalar)) continue;
    const auto plan = solver.make<T>(kind, rows, cols, options);
    const double ms = detail::time_cuda_plan2d_ms(*plan);
    detail::log().debug("{} {} {}x{}: {} {:.4f} ms", who, to_string(kind), rows, cols, solver.key, ms);
    if (best.ms < 0 || ms < best.ms) best = {solver.method, ms};
  }
  detail::log().info("{} {} {}x{}: measured, {} is the fastest ({:.4f} ms)", who, to_string(kind), rows, cols,
                     to_string(best.method), best.ms);
  return best;
}

// Auto: the wisdom's choice for this device, precision, kind and shape; else (PlanEffort::Measure)
// one measured now and kept in the wisdom; else the policy table's.
template <typename T>
Cuda2DMethod choose_auto_method(const std::string& who, Transform2D kind, int rows, int cols,
                                const PlanOptions& options) {
  constexpr detail::Scalar scalar = detail::scalar_of<T>();
  detail::Wisdom& wisdom = detail::Wisdom::process();
  if (options.effort == PlanEffort::Measure || !wisdom.empty()) {
    const detail::WisdomKey key{detail::current_device_identity(), scalar, kind, rows, cols};
    if (const auto known = wisdom.find(key)) return known->method;
    if (options.effort == PlanEffort::Measure) {
      const detail::WisdomEntry measured = measure_cuda_2d_method<T>(who, kind, rows, cols, options);
      wisdom.record(key, measured);
      return measured.method;
    }
  }
  return detail::choose_cuda_2d_method(detail::current_compute_capability(), scalar, kind, rows, cols);
}

// The CUDA plan: Auto resolved (choose_auto_method), the method looked up in the registry, and an
// error naming the method's rule when it does not take the shape.
template <typename T>
std::unique_ptr<detail::Plan2DImpl<T>> make_cuda_plan(const std::string& who, Transform2D kind, int rows, int cols,
                                                      const PlanOptions& options) {
  constexpr detail::Scalar scalar = detail::scalar_of<T>();
  const Cuda2DMethod method = options.cuda_2d_method == Cuda2DMethod::Auto
                                  ? choose_auto_method<T>(who, kind, rows, cols, options)
                                  : options.cuda_2d_method;
  const detail::Cuda2DSolver& solver = detail::cuda_2d_solver(method);
  if (!solver.applies(kind, rows, cols, scalar)) {
    throw Error(who + " " + to_string(kind) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                ": Cuda2DMethod::" + solver.name + " " + solver.requirement + "; use Auto or OneFft");
  }
  return solver.make<T>(kind, rows, cols, options);
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
  impl_ = backend == Backend::Cuda ? make_cuda_plan<T>(who, kind, rows, cols, options)
                                   : detail::make_cpu_plan2d<T>(kind, rows, cols, options);
  if (backend == Backend::Cuda) impl_->bind_to_current_device();
  detail::log().debug("{} {} {}x{} on {}", who, to_string(kind), rows, cols, to_string(backend));
}

template <typename T>
Plan2D<T>::~Plan2D() {
  detail::destroy_on_device(impl_);
}
template <typename T>
Plan2D<T>::Plan2D(Plan2D&&) noexcept = default;
template <typename T>
Plan2D<T>& Plan2D<T>::operator=(Plan2D&& other) noexcept {
  if (this != &other) {
    detail::destroy_on_device(impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

template <typename T>
void Plan2D<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error(plan2d_name<T>() + "::execute: the plan was moved from");
  detail::require_execute_pointers(plan2d_name<T>(), in, out, impl_->backend());
  const detail::DeviceScope scope(impl_->device());
  impl_->execute(in, out, stream);
}

template <typename T>
void Plan2D<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error(plan2d_name<T>() + "::execute_host: the plan was moved from");
  detail::require_host_pointers(plan2d_name<T>(), in, out);
  const detail::DeviceScope scope(impl_->device());
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
