#pragma once
// Internal: ElectrostaticOptions::plan_effort for the CUDA pipeline: the plan-time choices that
// depend on the GPU and can be timed without the placer's positions, taken from the process's
// wisdom (transforms/wisdom.hpp) or, in measure mode, timed once here and kept there. Every
// candidate gives the same bits, so a choice changes speed only. Which of the pipeline's other
// choices are not measured, and why: docs/performance.md, "Measure mode of the electrostatic
// system".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_properties.hpp"
#include "common/log.hpp"
#include "common/median_time.cuh"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/density_stage.cuh"
#include "transforms/wisdom.hpp"

namespace efield::detail {

// floor(log2(cells)) for cells >= 1: the wisdom keys a system choice by the cell count's power
// of two (the choice follows the work per bin, not the exact count).
inline int es_cells_log2(std::int64_t cells) {
  int k = 0;
  while (k < 62 && (std::int64_t{2} << k) <= cells) ++k;
  return k;
}

// Positions spread uniformly at random over the region (each cell inside it where it fits), from
// a fixed seed: a spread placement, the regime where a placer spends most of its iterations.
template <typename T>
void spread_positions(const ElectrostaticDesign& d, std::vector<T>* x, std::vector<T>* y) {
  const std::int64_t nm = d.num_movable(), nf = d.num_fillers(), fo = d.options.filler_offset;
  const std::size_t n = static_cast<std::size_t>(std::max(nm, fo + nf));
  x->assign(n, T(0));
  y->assign(n, T(0));
  std::mt19937_64 random(20260531);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto place = [&](std::size_t at, double w, double h) {
    (*x)[at] = static_cast<T>(d.options.xl + unit(random) * std::max(0.0, d.options.xh - d.options.xl - w));
    (*y)[at] = static_cast<T>(d.options.yl + unit(random) * std::max(0.0, d.options.yh - d.options.yl - h));
  };
  for (std::int64_t i = 0; i < nm; ++i) place(static_cast<std::size_t>(i), d.movable.widths[i], d.movable.heights[i]);
  for (std::int64_t j = 0; j < nf; ++j) place(static_cast<std::size_t>(fo + j), d.fillers.widths[j], d.fillers.heights[j]);
}

// 64-bit bins: one accumulator map or two (DensityStage::Layout::two_maps). `layout` holds the
// built-in rule's answer (kTwoMapsMaxBins), which Estimate keeps unless the wisdom has this GPU's
// choice; Measure times the density stage with 64-bit bins both ways on the design's cells at
// spread positions. Only for systems that may run 64-bit bins in their usual evaluates (double,
// and float's deterministic evaluate_async): `wide_bins_used` false keeps the rule without timing.
template <typename T>
bool choose_two_maps(const ElectrostaticDesign& d, const CellTable<T>& cells, typename DensityStage<T>::Layout layout,
                     int device, bool wide_bins_used) {
  if (d.num_cells() == 0) return layout.two_maps;
  Wisdom& wisdom = Wisdom::process();
  const bool measure = d.options.plan_effort == PlanEffort::Measure && wide_bins_used;
  if (!measure && wisdom.empty()) return layout.two_maps;
  const EsWisdomKey key{current_device_identity(), std::is_same_v<T, float> ? Scalar::Float : Scalar::Double,
                        kEsAccumulatorMaps, d.options.num_bins_x, d.options.num_bins_y, es_cells_log2(d.num_cells())};
  if (const auto known = wisdom.find(key)) return known->value == "two";
  if (!measure) return layout.two_maps;

  std::vector<T> hx, hy;
  spread_positions<T>(d, &hx, &hy);
  EsDeviceArray<T> x(hx.size()), y(hy.size());
  es_upload(x.get(), hx.data(), hx.size());
  es_upload(y.get(), hy.data(), hy.size());
  CellArrays<T> at;
  at.x = x.get();
  at.y = y.get();
  at.filler_offset = d.options.filler_offset;
  double ms[2] = {0, 0};
  for (int two = 0; two < 2; ++two) {
    layout.two_maps = two == 1;
    const DensityStage<T> stage(d, layout, device, cells);
    ms[two] = median_enqueue_ms([&](cudaStream_t s) { stage.enqueue(cells, at, Bins::Wide, s); });
  }
  const bool two_maps = ms[1] < ms[0];
  wisdom.record(key, EsWisdomEntry{two_maps ? "two" : "one", ms[two_maps ? 1 : 0]});
  log().info("ElectrostaticSystem (CUDA) {}x{} bins, {} cells: measured 64-bit bins in one map {:.4f} ms, two maps "
             "{:.4f} ms; {} kept",
             d.options.num_bins_x, d.options.num_bins_y, d.num_cells(), ms[0], ms[1], two_maps ? "two" : "one");
  return two_maps;
}

}  // namespace efield::detail
