#pragma once
// Internal: the density stage of the CUDA pipeline: cells -> the map's accumulators -> rho (the
// forward R2C's input, permuted), the overflow and max-density partials, the area outside the
// region, and (bins that check) the per-block count of bins whose sum may have rounded with the
// run's rerun flag. It owns the accumulators of one map, the fixed map in each layout its density
// passes read, and those partials; the cells come from a CellTable. Kernels: rasterize.cu.
//   Float maps (exact or plain atomics): all cells -> movable and filler float maps ->
//     density_float (partials and rho in one pass).
//   Piled: movable cells -> 64-bit tiles, fillers -> the filler float map -> density_float.
//   64-bit bins, two maps: all cells -> density_combined; one map: movable cells ->
//     movable_stats -> fillers -> density_finish.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/device_properties.hpp"
#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/large_cells.cuh"
#include "electrostatics/pipeline_policy.cuh"
#include "electrostatics/pipeline_setup.hpp"

namespace efield::detail {

template <typename T>
class DensityStage {
 public:
  struct Layout {
    bool two_maps = false;        // 64-bit bins: movable and filler accumulators (kTwoMapsMaxBins)
    bool float_maps = false;      // some run takes float maps (BinsPolicy::any_float_maps)
    bool checks = false;          // some run checks its bins (BinsPolicy::any_checks)
    bool overlap = false;         // programmatic dependent launch (common/dependent_launch.cuh)
  };

  DensityStage() = default;
  DensityStage(const ElectrostaticDesign& d, const Layout& layout, int device, const CellTable<T>& cells)
      : large_(cells, d.options.num_bins_x, d.options.num_bins_y), layout_(layout), M_(d.options.num_bins_x),
        N_(d.options.num_bins_y),
        bins_(static_cast<std::int64_t>(M_) * N_), bin_area_(d.bx * d.by),
        target_density_(static_cast<T>(d.options.target_density)) {
    float_map_ = es_tile_map_size(M_, N_);
    // The float movable and filler maps share acc_ with the 64-bit map (each density pass leaves
    // its maps zeroed, so whichever runs next starts from zero; two float maps of float_map_
    // floats take float_map_ words). Bins::Piled: the movable 64-bit tiles (float_map_ words),
    // then the filler float map.
    std::int64_t acc_words = bins_;
    if (layout_.float_maps) acc_words = std::max(acc_words, float_map_);
    if (layout_.checks) acc_words = std::max(acc_words, float_map_ + float_map_ / 2);
    acc_ = EsDeviceArray<EsAccum>(acc_words);
    EFIELD_CUDA_CHECK(cudaMemset(acc_.get(), 0, acc_.bytes()));
    if (layout_.two_maps) {
      acc_filler_ = EsDeviceArray<EsAccum>(bins_);
      EFIELD_CUDA_CHECK(cudaMemset(acc_filler_.get(), 0, acc_filler_.bytes()));
    }
    fixed_rho_ = EsDeviceArray<T>(bins_);
    if (layout_.float_maps) fixed_tiles_ = EsDeviceArray<T>(float_map_);
    rho_ = EsDeviceArray<T>(bins_);
    EFIELD_CUDA_CHECK(cudaMemset(rho_.get(), 0, rho_.bytes()));
    blocks_ = es_reduce_blocks(bins_);
    part_overflow_ = EsDeviceArray<double>(blocks_);
    part_max_ = EsDeviceArray<T>(blocks_);
    if (layout_.checks) {
      part_held_ = EsDeviceArray<EsAccum>(blocks_);
      rerun_flag_ = EsDeviceArray<EsAccum>(std::vector<EsAccum>{0});
    }
    outside_ = EsDeviceArray<EsAccum>(2 * kEsTotalSlots);
    EFIELD_CUDA_CHECK(cudaMemset(outside_.get(), 0, outside_.bytes()));
    int sms = 1;
    EFIELD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    piled_cells_per_thread_ = es_piled_cells_per_thread(d.num_movable(), sms, current_compute_capability());
    load_fixed_map(d);
  }

  // F (natural layout, double) from the design's fixed cells, into every layout the density
  // passes read. The same buffers: captured graphs stay valid.
  void load_fixed_map(const ElectrostaticDesign& d) {
    fixed_natural_ = compute_fixed_map(d);
    const std::vector<T> f =  // the accumulator's (natural) layout
        fixed_density_at<T>(d, fixed_natural_, fixed_natural_.size(),
                            [&](int m, int n) { return static_cast<std::size_t>(m) * N_ + n; });
    es_upload(fixed_rho_.get(), f.data(), f.size());
    if (fixed_tiles_.get() != nullptr) {  // density_float's copy, in 2 x 2-bin tiles
      const std::vector<T> tiles = fixed_density_at<T>(d, fixed_natural_, static_cast<std::size_t>(float_map_),
                                                       [&](int m, int n) { return es_tile_index(m, n, N_); });
      es_upload(fixed_tiles_.get(), tiles.data(), tiles.size());
    }
  }

  void enqueue(const CellTable<T>& cells, const CellArrays<T>& at, Bins bins, cudaStream_t stream) const {
    if constexpr (std::is_same_v<T, float>) {
      if (bins == Bins::Piled) {
        enqueue_piled(cells, at, stream);
        return;
      }
    }
    const bool floats = bins == Bins::Float || bins == Bins::FloatAtomics;
    const bool exact = bins == Bins::Float;
    const bool checks = BinsPolicy::checks(bins);
    // Float atomics: float maps in bin areas (no fixed point).
    const int bits = exact ? kEsExactFloatBits : floats ? 0 : FixedPointBits<T>::value;
    const bool two_maps = floats || layout_.two_maps;
    const std::int64_t nm = cells.num_movable();
    T* charge = floats ? reinterpret_cast<T*>(acc_.get()) : nullptr;

    RasterizeArgs<T> r = rasterize_args(cells, at);
    r.acc = acc_.get();
    r.acc_filler = two_maps && !floats ? acc_filler_.get() : nullptr;
    r.charge = charge;
    r.charge_filler = floats ? charge + float_map_ : nullptr;
    r.exact = exact;
    r.to_fixed = static_cast<T>(std::ldexp(1.0, bits) / bin_area_);
    r.cell_begin = 0;
    r.cell_end = two_maps ? cells.num_cells() : nm;
    r.warp_begin = 0;
    r.warp_end = two_maps ? cells.num_warp_cells() : cells.warp_movable();
    r.large_begin = cells.num_warp_cells();
    r.large_end = two_maps ? cells.num_large() : cells.large_movable();
    if (checks) r.rerun_flag = rerun_flag_.get();
    MapTarget<T> movable;  // the movable map, for the chunked and difference-map cells
    movable.kind = !floats ? MapTargetKind::Natural
                   : exact ? MapTargetKind::ExactFloatTiles
                           : MapTargetKind::FloatTiles;
    movable.map = floats ? static_cast<void*>(charge) : static_cast<void*>(acc_.get());
    large_.enqueue(cells, r, map_target(movable, r.to_fixed, floats && !exact), stream);
    launch_rasterize(r, stream);

    DensityPassArgs<T> p = density_args(checks);
    p.acc = acc_.get();
    p.acc_filler = r.acc_filler;
    p.inv_scale = static_cast<T>(std::ldexp(1.0, -bits));
    p.charge = r.charge;
    p.charge_filler = r.charge_filler;
    p.exact = exact;
    if constexpr (std::is_same_v<T, float>) {  // float maps are float only
      if (floats) {
        launch_density_float(p, N_, stream, layout_.overlap);
        return;
      }
    }
    if (two_maps) {
      launch_density_combined(p, N_, stream);
      return;
    }
    launch_movable_stats(p, stream);
    r.cell_begin = nm;
    r.cell_end = cells.num_cells();
    r.warp_begin = cells.warp_movable();
    r.warp_end = cells.num_warp_cells();
    r.large_begin = cells.large_movable();
    r.large_end = cells.num_large();
    launch_rasterize(r, stream);
    launch_density_finish(p, N_, stream);
  }

  // The partials finalize reads (the parts of FinalizeArgs this stage owns).
  void fill_finalize_args(Bins bins, FinalizeArgs<T>* f) const {
    f->part_overflow = part_overflow_.get();
    f->part_max = part_max_.get();
    f->density_blocks = blocks_;
    f->part_held = BinsPolicy::checks(bins) ? part_held_.get() : nullptr;
    f->outside = outside_.get();
  }

  // The run's rerun flag for bins that check (the gather skips its writes when it is set).
  const EsAccum* rerun_flag(Bins bins) const { return BinsPolicy::checks(bins) ? rerun_flag_.get() : nullptr; }
  // rho, permuted (the R2C input), as the latest evaluate left it.
  T* rho() const { return rho_.get(); }
  const std::vector<double>& fixed_natural() const { return fixed_natural_; }

 private:
  // The parts of RasterizeArgs that no bins change.
  RasterizeArgs<T> rasterize_args(const CellTable<T>& cells, const CellArrays<T>& at) const {
    RasterizeArgs<T> r{};
    r.g = cells.geometry(at.filler_offset);
    r.x = at.x;
    r.y = at.y;
    r.w = cells.widths();
    r.h = cells.heights();
    r.large_cells = cells.large_cells();
    r.outside = outside_.get();
    return r;
  }
  // The parts of DensityPassArgs that no bins change.
  DensityPassArgs<T> density_args(bool checks) const {
    DensityPassArgs<T> p{};
    p.bins = bins_;
    p.fixed_rho = fixed_rho_.get();
    p.rho = rho_.get();
    p.target_density = target_density_;
    p.part_overflow = part_overflow_.get();
    p.part_max = part_max_.get();
    p.part_held = checks ? part_held_.get() : nullptr;
    p.blocks = blocks_;
    p.fixed_tiles = fixed_tiles_.get();
    p.rerun_flag = checks ? rerun_flag_.get() : nullptr;
    return p;
  }

  // Bins::Piled (float): movable cells -> 64-bit tiles at acc_, fillers -> the float map after
  // them, then density_float over both.
  void enqueue_piled(const CellTable<T>& cells, const CellArrays<T>& at, cudaStream_t stream) const {
    const std::int64_t nm = cells.num_movable();
    EsAccum* wide = acc_.get();
    T* fillers = reinterpret_cast<T*>(acc_.get() + float_map_);
    RasterizeArgs<T> r = rasterize_args(cells, at);
    r.charge = fillers;  // the float maps' path: charge_map_of picks charge_filler for every filler
    r.charge_filler = fillers;
    r.exact = true;
    r.to_fixed = static_cast<T>(std::ldexp(1.0, kEsExactFloatBits) / bin_area_);
    r.cell_begin = nm;
    r.cell_end = cells.num_cells();
    r.warp_begin = 0;
    r.warp_end = cells.num_warp_cells();
    r.large_begin = cells.num_warp_cells();
    r.large_end = cells.num_large();
    r.wide_tiles = wide;
    r.piled_end = nm;
    r.cells_per_thread = piled_cells_per_thread_;
    r.rerun_flag = rerun_flag_.get();
    large_.enqueue(cells, r, map_target(MapTarget<T>{MapTargetKind::WideTiles, wide}, r.to_fixed, false), stream);
    launch_rasterize_piled(r, stream);
    DensityPassArgs<T> p = density_args(true);
    p.inv_scale = static_cast<T>(std::ldexp(1.0, -kEsExactFloatBits));
    p.charge_filler = fillers;
    p.exact = true;
    p.wide_movable = wide;
    launch_density_float(p, N_, stream, layout_.overlap);
  }

  // The movable map's units (map_target.cuh): the run's to_fixed; float atomics take the
  // difference map's integers in 2^-kEsExactFloatBits bin areas.
  MapTarget<T> map_target(MapTarget<T> t, T to_fixed, bool float_atomics) const {
    t.to_fixed = to_fixed;
    t.units = float_atomics ? static_cast<T>(std::ldexp(1.0, kEsExactFloatBits) / bin_area_) : to_fixed;
    t.unit_scale = static_cast<T>(std::ldexp(1.0, -kEsExactFloatBits));
    t.N = N_;
    return t;
  }

  LargeCellDensity<T> large_;  // chunked and difference-map cells (large_cells.cuh)
  Layout layout_;
  int M_ = 0, N_ = 0;
  std::int64_t bins_ = 0;
  double bin_area_ = 1;  // bx by
  T target_density_ = T(1);
  std::int64_t float_map_ = 0;  // floats of one float map (2 x 2-bin tiles)
  int piled_cells_per_thread_ = 1;
  int blocks_ = 1;              // of the density passes (= partials)
  EsDeviceArray<EsAccum> acc_, acc_filler_;
  EsDeviceArray<T> fixed_rho_;    // F / (bx by), natural layout (the accumulator's)
  EsDeviceArray<T> fixed_tiles_;  // float maps: F / (bx by) in 2 x 2-bin tiles (density_float)
  EsDeviceArray<T> rho_;
  EsDeviceArray<double> part_overflow_;
  EsDeviceArray<T> part_max_;
  EsDeviceArray<EsAccum> part_held_;   // bins that check: bins past the exact float limit, per block
  EsDeviceArray<EsAccum> rerun_flag_;  // bins that check: set when a bin was flagged
  EsDeviceArray<EsAccum> outside_;     // [2 kEsTotalSlots] outside-area sums (finalize zeroes them)
  std::vector<double> fixed_natural_;
};

}  // namespace efield::detail
