// efield::ElectrostaticSystem: validation and dispatch to the CPU or CUDA pipeline.
#include "efield/electrostatic_system.hpp"

#include <string>

#include "common/log.hpp"
#include "electrostatics/backend.hpp"

namespace efield {
namespace {

// Host or device pointers, all four of one kind; the CPU backend takes host pointers only.
template <typename T>
void check_pointers(detail::ElectrostaticBackend& impl, const T* x, const T* y, T* gx, T* gy) {
  const detail::ElectrostaticDesign& d = impl.design();
  const Backend backend = impl.backend();
  if (d.num_cells() == 0) return;
  if (!x || !y || !gx || !gy) throw Error("ElectrostaticSystem::evaluate: a position or gradient pointer is null");
  detail::ElectrostaticBackend::PointerKinds& known = impl.pointer_kinds();
  if (known.valid && known.ptr[0] == x && known.ptr[1] == y && known.ptr[2] == gx && known.ptr[3] == gy) {
    if (!known.on_device) detail::validate_host_positions(d, x, y);
    return;
  }
  known.valid = false;
  const bool dx = is_device_pointer(x), dy = is_device_pointer(y);
  const bool dgx = is_device_pointer(gx), dgy = is_device_pointer(gy);
  if (backend == Backend::Cpu && (dx || dy || dgx || dgy))
    throw Error("ElectrostaticSystem::evaluate: the CPU backend was given a CUDA device pointer (" +
                std::string(dx ? "x" : dy ? "y" : dgx ? "grad_x" : "grad_y") +
                "); pass host memory or build the system with Backend::Cuda");
  if (!(dx == dy && dx == dgx && dx == dgy))
    throw Error("ElectrostaticSystem::evaluate: x, y, grad_x and grad_y must all be host memory or all be device "
                "memory");
  if (!dx) detail::validate_host_positions(d, x, y);
  known = {{x, y, gx, gy}, dx, true};
}

}  // namespace

ElectrostaticSystem::ElectrostaticSystem(const ElectrostaticOptions& options, const CellSizes& movable,
                                         const CellSizes& fillers, const FixedCells& fixed) {
  detail::ElectrostaticDesign design = detail::make_design(options, movable, fillers, fixed);
  const Backend backend = resolve_backend(options.backend);
  detail::log().debug("ElectrostaticSystem: {} movable, {} fillers, {} fixed, {}x{} bins, backend {}",
                      design.num_movable(), design.num_fillers(), design.fixed.widths.size(), options.num_bins_x,
                      options.num_bins_y, to_string(backend));
  impl_ = backend == Backend::Cuda ? detail::make_cuda_pipeline(std::move(design))
                                   : detail::make_cpu_pipeline(std::move(design));
}

ElectrostaticSystem::~ElectrostaticSystem() = default;
ElectrostaticSystem::ElectrostaticSystem(ElectrostaticSystem&&) noexcept = default;
ElectrostaticSystem& ElectrostaticSystem::operator=(ElectrostaticSystem&&) noexcept = default;

EvaluateResult ElectrostaticSystem::evaluate(const float* x, const float* y, float* grad_x, float* grad_y) {
  if (impl_->design().options.precision != Precision::Float) return impl_->evaluate(x, y, grad_x, grad_y);
  check_pointers(*impl_, x, y, grad_x, grad_y);
  return impl_->evaluate(x, y, grad_x, grad_y);
}
EvaluateResult ElectrostaticSystem::evaluate(const double* x, const double* y, double* grad_x, double* grad_y) {
  if (impl_->design().options.precision != Precision::Double) return impl_->evaluate(x, y, grad_x, grad_y);
  check_pointers(*impl_, x, y, grad_x, grad_y);
  return impl_->evaluate(x, y, grad_x, grad_y);
}

StageTimes ElectrostaticSystem::profile_stages(const float* x, const float* y, float* grad_x, float* grad_y,
                                               int repetitions) {
  if (repetitions < 1) throw Error("ElectrostaticSystem::profile_stages: repetitions must be >= 1");
  if (impl_->design().options.precision == Precision::Float)
    check_pointers(*impl_, x, y, grad_x, grad_y);
  return impl_->profile(x, y, grad_x, grad_y, repetitions);
}
StageTimes ElectrostaticSystem::profile_stages(const double* x, const double* y, double* grad_x, double* grad_y,
                                               int repetitions) {
  if (repetitions < 1) throw Error("ElectrostaticSystem::profile_stages: repetitions must be >= 1");
  if (impl_->design().options.precision == Precision::Double)
    check_pointers(*impl_, x, y, grad_x, grad_y);
  return impl_->profile(x, y, grad_x, grad_y, repetitions);
}

void ElectrostaticSystem::update_fixed_cells(const FixedCells& fixed) {
  detail::validate_fixed_cells(fixed);
  impl_->update_fixed_cells(fixed);
}

std::vector<double> ElectrostaticSystem::density_map() const { return impl_->density_map(); }
std::vector<double> ElectrostaticSystem::field_x_map() const { return impl_->field_x_map(); }
std::vector<double> ElectrostaticSystem::field_y_map() const { return impl_->field_y_map(); }
std::vector<double> ElectrostaticSystem::potential_map() const { return impl_->potential_map(); }
std::vector<double> ElectrostaticSystem::fixed_map() const { return impl_->fixed_map(); }

const ElectrostaticOptions& ElectrostaticSystem::options() const noexcept { return impl_->design().options; }
Backend ElectrostaticSystem::backend() const noexcept { return impl_->backend(); }
std::int64_t ElectrostaticSystem::num_movable() const noexcept { return impl_->design().num_movable(); }
std::int64_t ElectrostaticSystem::num_fillers() const noexcept { return impl_->design().num_fillers(); }
std::int64_t ElectrostaticSystem::num_fixed() const noexcept {
  return static_cast<std::int64_t>(impl_->design().fixed.widths.size());
}
double ElectrostaticSystem::bin_width() const noexcept { return impl_->design().bx; }
double ElectrostaticSystem::bin_height() const noexcept { return impl_->design().by; }

}  // namespace efield
