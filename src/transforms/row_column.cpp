// efield::RowColumnPlan2D: argument checks and dispatch to the row-column backends
// (row_column_impl.hpp).
#include <string>

#include "common/log.hpp"
#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "transforms/plan1d_impl.hpp"
#include "transforms/row_column_impl.hpp"

namespace efield {

template <typename T>
struct RowColumnPlan2D<T>::Impl {
  std::unique_ptr<detail::RowColumnBackend<T>> backend;
};

template <typename T>
RowColumnPlan2D<T>::RowColumnPlan2D(Transform2D kind, int rows, int cols, const PlanOptions& options) {
  detail::RowColumnSpec spec;
  switch (kind) {
    case Transform2D::Dct2: spec.pass = Transform1D::Dct; break;
    case Transform2D::Idct2: spec.pass = Transform1D::Idct; break;
    case Transform2D::IdctIdxst:
      throw Error("RowColumnPlan2D: kind IdctIdxst is not supported (only Dct2 and Idct2; use Plan2D)");
    case Transform2D::IdxstIdct:
      throw Error("RowColumnPlan2D: kind IdxstIdct is not supported (only Dct2 and Idct2; use Plan2D)");
    default:
      throw Error("RowColumnPlan2D: kind " + std::to_string(static_cast<int>(kind)) + " is not a Transform2D");
  }
  if (rows < 1) throw Error("RowColumnPlan2D: rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (cols < 1) throw Error("RowColumnPlan2D: cols must be >= 1 (got " + std::to_string(cols) + ")");
  spec.rows = rows;
  spec.cols = cols;
  spec.cpu_threads = options.cpu_threads;
  spec.zero_below = kind == Transform2D::Dct2 ? options.zero_below : 0.0;
  // Both passes must be valid 1D plans; this also checks sizes, threads and zero_below.
  detail::Plan1DSpec pass;
  pass.kind = spec.pass;
  pass.cpu_threads = options.cpu_threads;
  pass.zero_below = options.zero_below;
  pass.n = cols;
  pass.batch = rows;
  detail::validate_plan1d_spec(pass, "RowColumnPlan2D");
  pass.n = rows;
  pass.batch = cols;
  detail::validate_plan1d_spec(pass, "RowColumnPlan2D");

  const Backend backend = resolve_backend(options.backend);
  impl_ = std::make_unique<Impl>();
  impl_->backend = backend == Backend::Cuda ? detail::make_row_column_cuda<T>(spec)
                                            : detail::make_row_column_cpu<T>(spec);
  if (backend == Backend::Cuda) impl_->backend->bind_to_current_device();
  detail::log().debug("RowColumnPlan2D: {} x {} on {}", rows, cols, to_string(backend));
}

template <typename T> RowColumnPlan2D<T>::~RowColumnPlan2D() {
  if (impl_) detail::destroy_on_device(impl_->backend);
}
template <typename T> RowColumnPlan2D<T>::RowColumnPlan2D(RowColumnPlan2D&&) noexcept = default;
template <typename T> RowColumnPlan2D<T>& RowColumnPlan2D<T>::operator=(RowColumnPlan2D&& other) noexcept {
  if (this != &other) {
    if (impl_) detail::destroy_on_device(impl_->backend);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

template <typename T>
void RowColumnPlan2D<T>::execute(const T* in, T* out, Stream stream) {
  if (!impl_) throw Error("RowColumnPlan2D::execute: the plan was moved from");
  if (in == nullptr) throw Error("RowColumnPlan2D::execute: `in` is null");
  if (out == nullptr) throw Error("RowColumnPlan2D::execute: `out` is null");
  const bool cuda = impl_->backend->backend() == Backend::Cuda;
  if (cuda && !detail::both_device_pointers(in, out))
    throw Error("RowColumnPlan2D::execute: the plan runs on the CUDA backend and needs device pointers "
                "(use execute_host for host memory)");
  if (!cuda && (is_device_pointer(in) || is_device_pointer(out)))
    throw Error("RowColumnPlan2D::execute: the plan runs on the CPU backend but `in` or `out` is CUDA device memory");
  const detail::DeviceScope scope(impl_->backend->device());
  impl_->backend->execute(in, out, stream);
}

template <typename T>
void RowColumnPlan2D<T>::execute_host(const T* in, T* out) {
  if (!impl_) throw Error("RowColumnPlan2D::execute_host: the plan was moved from");
  if (in == nullptr) throw Error("RowColumnPlan2D::execute_host: `in` is null");
  if (out == nullptr) throw Error("RowColumnPlan2D::execute_host: `out` is null");
  if (is_device_pointer(in) || is_device_pointer(out))
    throw Error("RowColumnPlan2D::execute_host: `in` and `out` must be host memory (use execute for device pointers)");
  const detail::DeviceScope scope(impl_->backend->device());
  impl_->backend->execute_host(in, out);
}

template <typename T>
Backend RowColumnPlan2D<T>::backend() const noexcept {
  return impl_->backend->backend();
}

template class RowColumnPlan2D<float>;
template class RowColumnPlan2D<double>;

}  // namespace efield
