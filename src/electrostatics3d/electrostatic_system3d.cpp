// efield::ElectrostaticSystem3D: validation of each call and dispatch to the CPU or CUDA pipeline.
#include "efield/electrostatic_system3d.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "common/device_scope.hpp"
#include "common/log.hpp"
#include "electrostatics3d/backend3d.hpp"

namespace efield {
namespace {

constexpr const char* kNames[6] = {"x", "y", "z", "grad_x", "grad_y", "grad_z"};

// Every gradient array is written while the others are read: any two of the six arrays sharing
// entries in [0, required_length) would give wrong results.
void check_aliasing(const detail::Design3D& d, const void* const (&p)[6], std::size_t element) {
  const auto bytes = static_cast<std::uintptr_t>(d.required_length()) * element;
  for (int a = 3; a < 6; ++a)
    for (int b = 0; b < 6; ++b) {
      if (a == b) continue;
      const auto pa = reinterpret_cast<std::uintptr_t>(p[a]), pb = reinterpret_cast<std::uintptr_t>(p[b]);
      if (pa < pb + bytes && pb < pa + bytes)
        throw Error(std::string("ElectrostaticSystem3D::evaluate: ") + kNames[a] + " and " + kNames[b] +
                    " share memory (each spans " + std::to_string(d.required_length()) +
                    " entries); pass separate arrays");
    }
}

// Host or device pointers, all six of one kind; returns whether they are device pointers.
template <typename T>
bool check_pointers(detail::ElectrostaticBackend3D& impl, const T* x, const T* y, const T* z, T* gx, T* gy, T* gz,
                    const EvaluateOptions& eo, const char* who) {
  const detail::Design3D& d = impl.design();
  const double largest = d.options.precision == Precision::Float ? std::numeric_limits<float>::max()
                                                                  : std::numeric_limits<double>::max();
  if (!std::isfinite(eo.weight) || std::fabs(eo.weight) > largest)
    throw Error(std::string("ElectrostaticSystem3D::") + who + ": weight " + std::to_string(eo.weight) +
                " is not finite in the system's precision");
  if (d.num_cells() == 0) return false;
  const void* const p[6] = {x, y, z, gx, gy, gz};
  for (int a = 0; a < 6; ++a)
    if (!p[a]) throw Error(std::string("ElectrostaticSystem3D::") + who + ": " + kNames[a] + " is null");
  check_aliasing(d, p, sizeof(T));
  bool on_device[6];
  for (int a = 0; a < 6; ++a) on_device[a] = is_device_pointer(p[a]);
  for (int a = 0; a < 6; ++a) {
    if (on_device[a] && impl.backend() == Backend::Cpu)
      throw Error(std::string("ElectrostaticSystem3D::") + who + ": the CPU backend was given a CUDA device pointer (" +
                  kNames[a] + "); pass host memory or build the system with Backend::Cuda");
    if (on_device[a] != on_device[0])
      throw Error(std::string("ElectrostaticSystem3D::") + who +
                  ": x, y, z, grad_x, grad_y and grad_z must all be host memory or all be device memory");
  }
  if (!on_device[0]) detail::validate_host_positions3d(d, x, y, z);
  return on_device[0];
}

}  // namespace

ElectrostaticSystem3D::ElectrostaticSystem3D(const ElectrostaticOptions3D& options, const CellSizes3D& movable,
                                             const CellSizes3D& fillers, const FixedCells3D& fixed) {
  detail::Design3D design = detail::make_design3d(options, movable, fillers, fixed);
  const Backend backend = resolve_backend(options.backend);
  detail::log().debug("ElectrostaticSystem3D: {} movable, {} fillers, {} fixed, {}x{}x{} bins, backend {}",
                      design.num_movable(), design.num_fillers(), design.fixed.widths.size(), options.num_bins_x,
                      options.num_bins_y, options.num_bins_z, to_string(backend));
  impl_ = backend == Backend::Cuda ? detail::make_cuda_pipeline3d(std::move(design))
                                   : detail::make_cpu_pipeline3d(std::move(design));
}

// The CUDA pipeline's streams, plans and memory live on its device: destroyed there.
ElectrostaticSystem3D::~ElectrostaticSystem3D() { detail::destroy_on_device(impl_); }
ElectrostaticSystem3D::ElectrostaticSystem3D(ElectrostaticSystem3D&&) noexcept = default;
ElectrostaticSystem3D& ElectrostaticSystem3D::operator=(ElectrostaticSystem3D&& other) noexcept {
  if (this != &other) {
    detail::destroy_on_device(impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

detail::ElectrostaticBackend3D& ElectrostaticSystem3D::impl() const {
  if (!impl_) throw Error("ElectrostaticSystem3D: used after being moved from");
  return *impl_;
}

namespace {
template <typename T>
EvaluateResult evaluate_checked(detail::ElectrostaticBackend3D& impl, Precision precision, const T* x, const T* y,
                                const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) {
  if (impl.design().options.precision == precision) check_pointers(impl, x, y, z, gx, gy, gz, eo, "evaluate");
  return impl.evaluate(x, y, z, gx, gy, gz, eo);  // the other precision throws
}
template <typename T>
void evaluate_async_checked(detail::ElectrostaticBackend3D& impl, Precision precision, const T* x, const T* y,
                            const T* z, T* gx, T* gy, T* gz, const EvaluateOptions& eo) {
  if (impl.backend() != Backend::Cuda)
    throw Error("ElectrostaticSystem3D::evaluate_async: the CUDA backend only (this system runs on the CPU; call "
                "evaluate)");
  if (impl.design().options.precision == precision) {
    const bool device = check_pointers(impl, x, y, z, gx, gy, gz, eo, "evaluate_async");
    if (impl.design().num_cells() > 0 && !device)
      throw Error("ElectrostaticSystem3D::evaluate_async: x, y, z and the gradients must be device memory (host "
                  "arrays need evaluate, which waits for the copies)");
  }
  impl.evaluate_async(x, y, z, gx, gy, gz, eo);
}
}  // namespace

EvaluateResult ElectrostaticSystem3D::evaluate(const float* x, const float* y, const float* z, float* gx, float* gy,
                                               float* gz, const EvaluateOptions& eo) {
  return evaluate_checked(impl(), Precision::Float, x, y, z, gx, gy, gz, eo);
}
EvaluateResult ElectrostaticSystem3D::evaluate(const double* x, const double* y, const double* z, double* gx,
                                               double* gy, double* gz, const EvaluateOptions& eo) {
  return evaluate_checked(impl(), Precision::Double, x, y, z, gx, gy, gz, eo);
}
void ElectrostaticSystem3D::evaluate_async(const float* x, const float* y, const float* z, float* gx, float* gy,
                                           float* gz, const EvaluateOptions& eo) {
  evaluate_async_checked(impl(), Precision::Float, x, y, z, gx, gy, gz, eo);
}
void ElectrostaticSystem3D::evaluate_async(const double* x, const double* y, const double* z, double* gx, double* gy,
                                           double* gz, const EvaluateOptions& eo) {
  evaluate_async_checked(impl(), Precision::Double, x, y, z, gx, gy, gz, eo);
}
namespace {
template <typename T>
StageTimes profile_checked(detail::ElectrostaticBackend3D& impl, Precision precision, const T* x, const T* y,
                           const T* z, T* gx, T* gy, T* gz, int repetitions) {
  if (repetitions < 1)
    throw Error("ElectrostaticSystem3D::profile_stages: repetitions " + std::to_string(repetitions) + " (need >= 1)");
  if (impl.design().options.precision == precision) check_pointers(impl, x, y, z, gx, gy, gz, {}, "profile_stages");
  return impl.profile(x, y, z, gx, gy, gz, repetitions);
}
}  // namespace

StageTimes ElectrostaticSystem3D::profile_stages(const float* x, const float* y, const float* z, float* gx, float* gy,
                                                 float* gz, int repetitions) {
  return profile_checked(impl(), Precision::Float, x, y, z, gx, gy, gz, repetitions);
}
StageTimes ElectrostaticSystem3D::profile_stages(const double* x, const double* y, const double* z, double* gx,
                                                 double* gy, double* gz, int repetitions) {
  return profile_checked(impl(), Precision::Double, x, y, z, gx, gy, gz, repetitions);
}

EvaluateResult ElectrostaticSystem3D::wait_result() { return impl().wait_result(); }
const double* ElectrostaticSystem3D::device_result() const { return impl().device_result(); }
void ElectrostaticSystem3D::set_stream(Stream stream) { impl().set_stream(stream); }

void ElectrostaticSystem3D::update_movable_sizes(const CellSizes3D& movable) { impl().update_sizes(&movable, nullptr); }
void ElectrostaticSystem3D::update_filler_sizes(const CellSizes3D& fillers) { impl().update_sizes(nullptr, &fillers); }
void ElectrostaticSystem3D::update_fixed_cells(const FixedCells3D& fixed) {
  detail::validate_fixed_cells3d(fixed);
  impl().update_fixed_cells(fixed);
}

std::vector<double> ElectrostaticSystem3D::density_map() const { return impl().density_map(); }
std::vector<double> ElectrostaticSystem3D::field_x_map() const { return impl().field_map(0); }
std::vector<double> ElectrostaticSystem3D::field_y_map() const { return impl().field_map(1); }
std::vector<double> ElectrostaticSystem3D::field_z_map() const { return impl().field_map(2); }
std::vector<double> ElectrostaticSystem3D::potential_map() const { return impl().potential_map(); }
std::vector<double> ElectrostaticSystem3D::fixed_map() const { return impl().fixed_map(); }

const ElectrostaticOptions3D& ElectrostaticSystem3D::options() const noexcept { return impl_->design().options; }
Backend ElectrostaticSystem3D::backend() const noexcept { return impl_->backend(); }
std::int64_t ElectrostaticSystem3D::num_movable() const noexcept { return impl_->design().num_movable(); }
std::int64_t ElectrostaticSystem3D::num_fillers() const noexcept { return impl_->design().num_fillers(); }
std::int64_t ElectrostaticSystem3D::num_fixed() const noexcept {
  return static_cast<std::int64_t>(impl_->design().fixed.widths.size());
}
double ElectrostaticSystem3D::bin_width() const noexcept { return impl_->design().bx; }
double ElectrostaticSystem3D::bin_height() const noexcept { return impl_->design().by; }
double ElectrostaticSystem3D::bin_depth() const noexcept { return impl_->design().bz; }
int ElectrostaticSystem3D::device() const noexcept { return impl_->device(); }

}  // namespace efield
