// efield::ElectrostaticSystem: validation and dispatch to the CPU or CUDA pipeline.
#include "efield/electrostatic_system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "common/log.hpp"
#include "electrostatics/backend.hpp"

namespace efield {
namespace {

// The gradients are written while x and y are read and each other written: a gradient array that
// shares entries with another array (grad_x == grad_y, grad_x == x, ...) would give wrong results.
// Each array spans the entries evaluate touches, [0, filler_offset + num_fillers).
template <typename T>
void check_aliasing(const detail::ElectrostaticDesign& d, const T* x, const T* y, T* gx, T* gy) {
  const std::int64_t n = std::max<std::int64_t>(d.num_movable(), d.options.filler_offset + d.num_fillers());
  const auto overlap = [n](const void* a, const void* b) {
    const auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
    const auto bytes = static_cast<std::uintptr_t>(n) * sizeof(T);
    return pa < pb + bytes && pb < pa + bytes;
  };
  const char* problem = overlap(gx, gy) ? "grad_x and grad_y" : overlap(gx, x) ? "grad_x and x"
                      : overlap(gx, y) ? "grad_x and y" : overlap(gy, x) ? "grad_y and x"
                      : overlap(gy, y) ? "grad_y and y" : nullptr;
  if (problem)
    throw Error(std::string("ElectrostaticSystem::evaluate: ") + problem + " share memory (each spans " +
                std::to_string(n) + " entries); pass separate arrays");
}

// Host or device pointers, all four of one kind; the CPU backend takes host pointers only.
template <typename T>
void check_pointers(detail::ElectrostaticBackend& impl, const T* x, const T* y, T* gx, T* gy) {
  const detail::ElectrostaticDesign& d = impl.design();
  const Backend backend = impl.backend();
  if (d.num_cells() == 0) return;
  if (!x || !y || !gx || !gy) throw Error("ElectrostaticSystem::evaluate: a position or gradient pointer is null");
  using Kinds = detail::ElectrostaticBackend::PointerKinds;
  Kinds& known = impl.pointer_kinds();
  // Host positions: the CPU backend reads them here; the CUDA backend checks its device copies
  // (kernels/electrostatics/host_arrays.cuh), which spares a host pass over the caller's arrays.
  const bool check_on_host = backend == Backend::Cpu;
  const auto same = [&](const Kinds& k) {
    return k.valid && k.ptr[0] == x && k.ptr[1] == y && k.ptr[2] == gx && k.ptr[3] == gy;
  };
  if (!same(known)) {
    for (Kinds& earlier : impl.earlier_pointer_kinds())
      if (same(earlier)) {  // a set checked before: the latest again
        std::swap(known, earlier);
        break;
      }
  }
  if (same(known)) {
    if (!known.on_device && check_on_host) detail::validate_host_positions(d, x, y);
    return;
  }
  check_aliasing(d, x, y, gx, gy);
  const bool dx = is_device_pointer(x), dy = is_device_pointer(y);
  const bool dgx = is_device_pointer(gx), dgy = is_device_pointer(gy);
  if (backend == Backend::Cpu && (dx || dy || dgx || dgy))
    throw Error("ElectrostaticSystem::evaluate: the CPU backend was given a CUDA device pointer (" +
                std::string(dx ? "x" : dy ? "y" : dgx ? "grad_x" : "grad_y") +
                "); pass host memory or build the system with Backend::Cuda");
  if (!(dx == dy && dx == dgx && dx == dgy))
    throw Error("ElectrostaticSystem::evaluate: x, y, grad_x and grad_y must all be host memory or all be device "
                "memory");
  if (!dx && check_on_host) detail::validate_host_positions(d, x, y);
  if (known.valid) {  // the latest set joins the earlier ones, over the oldest
    int& slot = impl.next_earlier_pointer_slot();
    impl.earlier_pointer_kinds()[slot] = known;
    slot = (slot + 1) % detail::ElectrostaticBackend::kEarlierPointerSets;
  }
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

namespace {

// One check for both backends: the weight must be finite in the pipeline's precision (it is cast
// to T before it scales the gradient).
void check_evaluate_options(const EvaluateOptions& eo, Precision precision, const char* who) {
  const double largest = precision == Precision::Float ? static_cast<double>(std::numeric_limits<float>::max())
                                                       : std::numeric_limits<double>::max();
  if (!std::isfinite(eo.weight) || std::fabs(eo.weight) > largest) {
    char weight[32];
    std::snprintf(weight, sizeof weight, "%g", eo.weight);
    throw Error(std::string("ElectrostaticSystem::") + who + ": weight " + weight +
                (std::isfinite(eo.weight) ? " is beyond the range of float (this system's precision)"
                                          : " is not finite"));
  }
}

template <typename T>
EvaluateResult evaluate_checked(detail::ElectrostaticBackend& impl, Precision precision, const T* x, const T* y,
                                T* gx, T* gy, const EvaluateOptions& eo) {
  check_evaluate_options(eo, impl.design().options.precision, "evaluate");
  if (impl.design().options.precision == precision) check_pointers(impl, x, y, gx, gy);
  return impl.evaluate(x, y, gx, gy, eo);  // the other precision throws
}

template <typename T>
void evaluate_async_checked(detail::ElectrostaticBackend& impl, Precision precision, const T* x, const T* y, T* gx,
                            T* gy, const EvaluateOptions& eo) {
  check_evaluate_options(eo, impl.design().options.precision, "evaluate_async");
  if (impl.backend() != Backend::Cuda)
    throw Error("ElectrostaticSystem::evaluate_async: the CUDA backend only (this system runs on the CPU; call "
                "evaluate)");
  if (impl.design().options.precision == precision) {
    check_pointers(impl, x, y, gx, gy);
    if (impl.design().num_cells() > 0 && !impl.pointer_kinds().on_device)
      throw Error("ElectrostaticSystem::evaluate_async: x, y, grad_x and grad_y must be device memory (host arrays "
                  "need evaluate, which waits for the copies)");
  }
  impl.evaluate_async(x, y, gx, gy, eo);
}

}  // namespace

EvaluateResult ElectrostaticSystem::evaluate(const float* x, const float* y, float* grad_x, float* grad_y,
                                             const EvaluateOptions& options) {
  return evaluate_checked(impl(), Precision::Float, x, y, grad_x, grad_y, options);
}
EvaluateResult ElectrostaticSystem::evaluate(const double* x, const double* y, double* grad_x, double* grad_y,
                                             const EvaluateOptions& options) {
  return evaluate_checked(impl(), Precision::Double, x, y, grad_x, grad_y, options);
}
void ElectrostaticSystem::evaluate_async(const float* x, const float* y, float* grad_x, float* grad_y,
                                         const EvaluateOptions& options) {
  evaluate_async_checked(impl(), Precision::Float, x, y, grad_x, grad_y, options);
}
void ElectrostaticSystem::evaluate_async(const double* x, const double* y, double* grad_x, double* grad_y,
                                         const EvaluateOptions& options) {
  evaluate_async_checked(impl(), Precision::Double, x, y, grad_x, grad_y, options);
}
EvaluateResult ElectrostaticSystem::wait_result() { return impl().wait_result(); }
const double* ElectrostaticSystem::device_result() const { return impl().device_result(); }
void ElectrostaticSystem::set_stream(Stream stream) { impl().set_stream(stream); }

void ElectrostaticSystem::update_movable_sizes(const CellSizes& movable) { impl().update_sizes(&movable, nullptr); }
void ElectrostaticSystem::update_filler_sizes(const CellSizes& fillers) { impl().update_sizes(nullptr, &fillers); }

StageTimes ElectrostaticSystem::profile_stages(const float* x, const float* y, float* grad_x, float* grad_y,
                                               int repetitions) {
  if (repetitions < 1) throw Error("ElectrostaticSystem::profile_stages: repetitions must be >= 1");
  if (impl().design().options.precision == Precision::Float)
    check_pointers(impl(), x, y, grad_x, grad_y);
  return impl().profile(x, y, grad_x, grad_y, repetitions);
}
StageTimes ElectrostaticSystem::profile_stages(const double* x, const double* y, double* grad_x, double* grad_y,
                                               int repetitions) {
  if (repetitions < 1) throw Error("ElectrostaticSystem::profile_stages: repetitions must be >= 1");
  if (impl().design().options.precision == Precision::Double)
    check_pointers(impl(), x, y, grad_x, grad_y);
  return impl().profile(x, y, grad_x, grad_y, repetitions);
}

void ElectrostaticSystem::update_fixed_cells(const FixedCells& fixed) {
  detail::validate_fixed_cells(fixed);
  impl().update_fixed_cells(fixed);
}

std::vector<double> ElectrostaticSystem::density_map() const { return impl().density_map(); }
std::vector<double> ElectrostaticSystem::field_x_map() const { return impl().field_x_map(); }
std::vector<double> ElectrostaticSystem::field_y_map() const { return impl().field_y_map(); }
std::vector<double> ElectrostaticSystem::potential_map() const { return impl().potential_map(); }
std::vector<double> ElectrostaticSystem::fixed_map() const { return impl().fixed_map(); }

// The getters cannot throw: on a moved-from system they return default options and zeros.
const ElectrostaticOptions& ElectrostaticSystem::options() const noexcept {
  static const ElectrostaticOptions moved_from;
  return impl_ ? impl_->design().options : moved_from;
}
Backend ElectrostaticSystem::backend() const noexcept { return impl_ ? impl_->backend() : Backend::Auto; }
std::int64_t ElectrostaticSystem::num_movable() const noexcept { return impl_ ? impl_->design().num_movable() : 0; }
std::int64_t ElectrostaticSystem::num_fillers() const noexcept { return impl_ ? impl_->design().num_fillers() : 0; }
std::int64_t ElectrostaticSystem::num_fixed() const noexcept {
  return impl_ ? static_cast<std::int64_t>(impl_->design().fixed.widths.size()) : 0;
}
double ElectrostaticSystem::bin_width() const noexcept { return impl_ ? impl_->design().bx : 0.0; }
double ElectrostaticSystem::bin_height() const noexcept { return impl_ ? impl_->design().by : 0.0; }
int ElectrostaticSystem::device() const noexcept { return impl_ ? impl_->device() : -1; }

detail::ElectrostaticBackend& ElectrostaticSystem::impl() const {
  if (!impl_) throw Error("ElectrostaticSystem: this system was moved from (it holds no pipeline any more)");
  return *impl_;
}

}  // namespace efield
