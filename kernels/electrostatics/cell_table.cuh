#pragma once
// Internal: the cells as the CUDA kernels see them: sizes (and the movable-macro mask) on the
// device, the geometry constants, and the large cells listed once (a warp each up to kWarpCellSpan
// bins a side, a block each beyond; es_kernels.cuh), but for the movable ones that
// large_cell_table.cuh takes into chunks or the difference map. Made at construction, refreshed
// by a size update; the density and gather stages read it, so several maps (fields) could share
// one table.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "electrostatics/backend.hpp"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/large_cell_table.cuh"
#include "electrostatics/pipeline_setup.hpp"

namespace efield::detail {

// Where one evaluate's positions and gradient live (device memory) and where the fillers start.
template <typename T>
struct CellArrays {
  const T* x = nullptr;
  const T* y = nullptr;
  T* grad_x = nullptr;
  T* grad_y = nullptr;
  std::int64_t filler_offset = 0;
};

template <typename T>
class CellTable {
 public:
  CellTable() = default;
  explicit CellTable(const ElectrostaticDesign& d,
                     EsPipelineLayout::LargeCells large_cells = EsPipelineLayout::LargeCells::ByPolicy)
      : geom_(make_cell_geometry<T>(d)), num_cells_(d.num_cells()), num_movable_(d.num_movable()),
        large_paths_(geom_, d, large_cells) {
    widths_ = EsDeviceArray<T>(num_cells_);
    heights_ = EsDeviceArray<T>(num_cells_);
    large_ = EsDeviceArray<int>(num_cells_);  // room for every cell: size updates never re-allocate
    // The movable-macro mask takes effect only below td = 1 (density_ratio): room for it then, so
    // that a size update may add one without allocating.
    if (d.options.target_density < 1.0) movable_macro_ = EsDeviceArray<std::uint8_t>(num_movable_);
    load_sizes(d);
  }

  // Uploads the cell sizes and lists the large cells (the kernels' threads skip them:
  // is_large_cell), a warp each, then a block each; each part ascending, so movable cells come
  // first. Fillers of one size (not large) let the kernels read no filler sizes.
  void load_sizes(const ElectrostaticDesign& d) {
    std::vector<T> w(num_cells_), h(num_cells_);
    std::vector<int> large, block_cells;
    large_paths_.clear();
    for (std::int64_t c = 0; c < num_cells_; ++c) {
      w[c] = static_cast<T>(d.width(c));
      h[c] = static_cast<T>(d.height(c));
      if (!is_large_cell(geom_, w[c], h[c])) continue;
      if (c < num_movable_ && large_paths_.take(static_cast<int>(c), w[c], h[c])) continue;
      const bool warp = stretched_span_bins(geom_, w[c], h[c]) <= static_cast<T>(kWarpCellSpan);
      (warp ? large : block_cells).push_back(static_cast<int>(c));
    }
    const auto movable_in = [&](const std::vector<int>& cells) {  // ascending: a prefix
      return static_cast<int>(std::lower_bound(cells.begin(), cells.end(), num_movable_) - cells.begin());
    };
    num_warp_cells_ = static_cast<int>(large.size());
    warp_movable_ = movable_in(large);
    large_movable_ = num_warp_cells_ + movable_in(block_cells);
    large.insert(large.end(), block_cells.begin(), block_cells.end());
    es_upload(widths_.get(), w.data(), w.size());
    es_upload(heights_.get(), h.data(), h.size());
    es_upload(large_.get(), large.data(), large.size());
    large_paths_.upload();
    geom_.movable_macro = nullptr;
    if (d.has_movable_macros()) {
      es_upload(movable_macro_.get(), d.movable.movable_macro_mask.data(), d.movable.movable_macro_mask.size());
      geom_.movable_macro = movable_macro_.get();
    }
    num_large_ = static_cast<int>(large.size());
    geom_.uniform_fillers = false;
    if (num_cells_ > num_movable_) {
      const std::int64_t nm = num_movable_;
      bool same = !is_large_cell(geom_, w[nm], h[nm]);
      for (std::int64_t c = nm + 1; same && c < num_cells_; ++c) same = w[c] == w[nm] && h[c] == h[nm];
      geom_.uniform_fillers = same;
      geom_.filler_w = w[nm];
      geom_.filler_h = h[nm];
    }
  }

  CellGeometry<T> geometry(std::int64_t filler_offset) const {
    CellGeometry<T> g = geom_;
    g.filler_offset = filler_offset;
    return g;
  }
  const T* widths() const { return widths_.get(); }
  const T* heights() const { return heights_.get(); }
  const int* large_cells() const { return large_.get(); }
  std::int64_t num_cells() const { return num_cells_; }
  std::int64_t num_movable() const { return num_movable_; }
  // large_cells(): [0, num_warp_cells) a warp each, [num_warp_cells, num_large) a block each; the
  // fillers among them start at warp_movable and at large_movable.
  int num_warp_cells() const { return num_warp_cells_; }
  int warp_movable() const { return warp_movable_; }
  int num_large() const { return num_large_; }
  int large_movable() const { return large_movable_; }
  // The movable large cells taken out of those lists: chunked or by difference map (large_cells.cuh).
  const LargeCellTable<T>& large_paths() const { return large_paths_; }

 private:
  CellGeometry<T> geom_;
  std::int64_t num_cells_ = 0, num_movable_ = 0;
  EsDeviceArray<T> widths_, heights_;
  EsDeviceArray<std::uint8_t> movable_macro_;  // [num_movable] when td < 1 (CellGeometry::movable_macro)
  EsDeviceArray<int> large_;
  LargeCellTable<T> large_paths_;
  int num_warp_cells_ = 0, warp_movable_ = 0, num_large_ = 0, large_movable_ = 0;
};

}  // namespace efield::detail
