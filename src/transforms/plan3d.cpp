// efield::Plan3D: argument checks, backend choice, and forwarding to a Plan3DImpl. Shapes with a
// dimension of 1 run as a Plan2D on the other two dimensions: a length-1 axis is the identity
// for both dct and idct, and dropping it leaves the row-major layout unchanged.
#include <string>
#include <vector>

#include "common/log.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "transforms/plan3d_impl.hpp"
#include "transforms/plan_validation_2d3d.hpp"

namespace efield {
namespace {

template <typename T>
std::string plan3d_name() {
  return std::string("Plan3D<") + detail::scalar_name<T>() + ">";
}

// A 3D shape with at least one dimension of 1, executed as the 2D transform of the rest.
template <typename T>
class SqueezedPlan3D final : public detail::Plan3DImpl<T> {
 public:
  SqueezedPlan3D(Transform3D kind, std::array<int, 3> dims, int rows, int cols, const PlanOptions& options)
      : detail::Plan3DImpl<T>(kind, dims),
        plan_(kind == Transform3D::Dct ? Transform2D::Dct2 : Transform2D::Idct2, rows, cols, options) {}
  void execute(const T* in, T* out, Stream stream) override { plan_.execute(in, out, stream); }
  void execute_host(const T* in, T* out) override { plan_.execute_host(in, out); }
  Backend backend() const noexcept override { return plan_.backend(); }

 private:
  Plan2D<T> plan_;
};

}  // namespace

template <typename T>
Plan3D<T>::Plan3D(Transform3D kind, int d0, int d1, int d2, const PlanOptions& options) {
  const std::string who = plan3d_name<T>();
  if (kind != Transform3D::Dct && kind != Transform3D::Idct) {
    throw Error(who + ": `kind` is not a valid efield::Transform3D value");
  }
  detail::require_positive_size(who, "d0", d0);
  detail::require_positive_size(who, "d1", d1);
  detail::require_positive_size(who, "d2", d2);
  detail::require_element_count(who, static_cast<long long>(d0) * d1 * d2);
  detail::require_valid_options(who, options);
  const std::array<int, 3> dims{d0, d1, d2};
  std::vector<int> kept;
  for (int d : dims) {
    if (d > 1) kept.push_back(d);
  }
  if (kept.size() < 3) {
    while (kept.size() < 2) kept.insert(kept.begin(), 1);
    impl_ = std::make_unique<SqueezedPlan3D<T>>(kind, dims, kept[0], kept[1], options);
  } else {
    if (options.zero_below > 0 && kind != Transform3D::Dct) {
      detail::log().warn("{} idct3d: PlanOptions::zero_below applies to forward transforms only; ignored", who);
    }
    const Backend backend = resolve_backend(options.backend);
    impl_ = backend == Backend::Cuda ? detail::make_cuda_plan3d<T>(kind, dims, options)
                                     : detail::make_cpu_plan3d<T>(kind, dims, options);
  }
  if (impl_->backend() == Backend::Cuda) impl_->bind_to_current_device();
  detail::log().debug("{} {} {}x{}x{} on {}", who, to_string(kind), d0, d1, d2,
                      to_string(impl_->backend()));
}

template <typename T>
Plan3D<T>::~Plan3D() {
  detail::destroy_on_device(impl_);
}
template <typename T>
Plan3D<T>::Plan3D(Plan3D&&) noexcept = default;
template <typename T>
Plan3D<T>& Plan3D<T>::operator=(Plan3D&& other) noexcept {
  if (this != &other) {
    detail::destroy_on_device(impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

template <typename T>
void Plan3D<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error(plan3d_name<T>() + "::execute: the plan was moved from");
  detail::require_execute_pointers(plan3d_name<T>(), in, out, impl_->backend());
  const detail::DeviceScope scope(impl_->device());
  impl_->execute(in, out, stream);
}

template <typename T>
void Plan3D<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error(plan3d_name<T>() + "::execute_host: the plan was moved from");
  detail::require_host_pointers(plan3d_name<T>(), in, out);
  const detail::DeviceScope scope(impl_->device());
  impl_->execute_host(in, out);
}

template <typename T>
Transform3D Plan3D<T>::kind() const noexcept {
  return impl_ ? impl_->kind() : Transform3D::Dct;
}

template <typename T>
int Plan3D<T>::dim(int axis) const {
  if (axis < 0 || axis > 2) {
    throw Error(plan3d_name<T>() + "::dim: axis must be 0, 1 or 2 (got " + std::to_string(axis) + ")");
  }
  return impl_ ? impl_->dims()[axis] : 0;
}

template <typename T>
Backend Plan3D<T>::backend() const noexcept {
  return impl_ ? impl_->backend() : Backend::Auto;
}

template class Plan3D<float>;
template class Plan3D<double>;

}  // namespace efield
