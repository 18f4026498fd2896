#pragma once
// What the CUDA tests of ElectrostaticSystem share: an evaluate (or evaluate_async) through device
// pointers, the pipeline layout forced for a scope, and the pile-up design (a placer's first
// iterations).
#include <cstddef>

#include "efield/electrostatic_system.hpp"
#include "electrostatics/compare.hpp"
#include "electrostatics/pipeline_layout.hpp"
#include "support/device_array.hpp"

namespace efield::test {

// Evaluate with device pointers in the caller's layout; gradients per cell.
template <typename T>
SystemOutput run_device(ElectrostaticSystem& es, const TestDesign& d) {
  DeviceArray<T> x(d.array<T>(d.cx)), y(d.array<T>(d.cy));
  DeviceArray<T> gx(poisoned<T>(d.array_size)), gy(poisoned<T>(d.array_size));
  const EvaluateResult result = es.evaluate(x.get(), y.get(), gx.get(), gy.get());
  return collect_output(es, d, result, gx.download(), gy.download());
}

// The same through evaluate_async, then wait_result.
template <typename T>
SystemOutput run_device_async(ElectrostaticSystem& es, const TestDesign& d) {
  DeviceArray<T> x(d.array<T>(d.cx)), y(d.array<T>(d.cy));
  DeviceArray<T> gx(poisoned<T>(d.array_size)), gy(poisoned<T>(d.array_size));
  es.evaluate_async(x.get(), y.get(), gx.get(), gy.get());
  const EvaluateResult result = es.wait_result();
  return collect_output(es, d, result, gx.download(), gy.download());
}

// The CUDA pipeline's accumulation layouts (src/electrostatics/pipeline_layout.hpp: one or two
// 64-bit accumulator maps, and in float exact float maps or 64-bit bins), forced for the systems
// made while this guard lives.
using Maps = detail::EsPipelineLayout::Maps;
class ScopedLayout {
 public:
  explicit ScopedLayout(Maps maps, bool wide_float_bins = false)
      : before_(detail::set_es_pipeline_layout(detail::EsPipelineLayout{maps, wide_float_bins})) {}
  ~ScopedLayout() { detail::set_es_pipeline_layout(before_); }
  ScopedLayout(const ScopedLayout&) = delete;
  ScopedLayout& operator=(const ScopedLayout&) = delete;

 private:
  detail::EsPipelineLayout before_;
};

// 1000 cells of at least one bin (3.7 bin areas on average) on a 17 x 24 grid: spread out, at
// most about 25 bin areas a bin (exact float maps hold 64), and with their corners on one spot
// about 580 bin areas in the bin there; measured over 20 seeds.
inline DesignSpec pile_up_spec() {
  DesignSpec spec = reference_specs()[1];
  spec.num_movable = 1000;
  spec.min_size_bins = 1.0;
  return spec;
}

// The first `count` movable cells (all: -1) with their corner at the region's centre, as at a
// placer's first iteration.
inline TestDesign piled_up(TestDesign d, std::ptrdiff_t count = -1) {
  const std::size_t nm = d.movable.widths.size();
  const std::size_t n = count < 0 ? nm : static_cast<std::size_t>(count);
  for (std::size_t c = 0; c < n && c < nm; ++c) {
    d.cx[c] = 0.5 * (d.options.xl + d.options.xh);
    d.cy[c] = 0.5 * (d.options.yl + d.options.yh);
  }
  return d;
}

}  // namespace efield::test
