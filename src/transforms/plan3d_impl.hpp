#pragma once
// Internal: the backend interface behind efield::Plan3D.
#include "common/device_scope.hpp"
#include <array>
#include <memory>

#include "efield/transforms.hpp"

namespace efield::detail {

template <typename T>
class Plan3DImpl : public DeviceBound {
 public:
  Plan3DImpl(Transform3D kind, std::array<int, 3> dims) : kind_(kind), dims_(dims) {}
  virtual ~Plan3DImpl() = default;
  Plan3DImpl(const Plan3DImpl&) = delete;
  Plan3DImpl& operator=(const Plan3DImpl&) = delete;

  virtual void execute(const T* in, T* out, Stream stream) = 0;
  virtual void execute_host(const T* in, T* out) = 0;
  virtual Backend backend() const noexcept = 0;

  Transform3D kind() const noexcept { return kind_; }
  const std::array<int, 3>& dims() const noexcept { return dims_; }

 private:
  Transform3D kind_;
  std::array<int, 3> dims_;
};

// Backend factories for a true 3D shape: every dimension >= 2 (Plan3D hands shapes with a
// dimension of 1 to a Plan2D, since a length-1 axis is the identity for dct and idct).
template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cpu_plan3d(Transform3D kind, std::array<int, 3> dims,
                                               const PlanOptions& options);
// Defined in kernels/transforms/dct3d_cuda.cu; throws "built without CUDA" in a CPU-only build.
template <typename T>
std::unique_ptr<Plan3DImpl<T>> make_cuda_plan3d(Transform3D kind, std::array<int, 3> dims,
                                                const PlanOptions& options);

}  // namespace efield::detail
