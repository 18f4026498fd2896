#pragma once
// Internal: movable large cells in O(1) memory operations per cell (docs/math.md 2.11), for the
// designs whose largest movable cell pipeline_policy.cuh sends here (CellTable::diff_cells):
//   density: each cell's up to 3 x 3 constant-weight rectangles (large_cell_segments.hpp) as 4
//     integer corner updates each into a 64-bit difference map, the bounding box of the cells'
//     footprints; then a 2D prefix sum over that box (rows, then columns in segments of
//     kEsDiffSegmentRows rows) adds each bin's exact integer into the density map the run
//     accumulates into, and clears the difference map;
//   gather: a summed-area table of the (Ex, Ey) map over the same box in double, then per cell
//     9 rectangle sums (4 reads each) times the rectangles' weights.
// The other cells keep their paths (rasterize.cu, gather.cu); the diff cells are not in their lists.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// The density map a run accumulates into (density_stage.cuh), as the difference map's prefix adds to it.
enum class DiffMapTarget {
  ExactFloatTiles,  // exact float maps: whole numbers of 2^-kEsExactFloatBits bin areas, es_tile_index
  FloatTiles,       // float maps in bin areas (plain float atomics): the integer times unit_scale
  WideTiles,        // Bins::Piled's 64-bit tiles (es_tile_index)
  Natural,          // 64-bit fixed-point bins, natural layout
};

template <typename T>
struct DiffRasterArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  const int* cells;  // CellTable::diff_cells
  int count;
  T to_fixed;        // the difference map's unit: 1 / to_fixed bin areas (the target's unit)
  EsAccum* diff;     // [M][N] natural layout, all zero between evaluates
  int* box;          // [4] m_lo, m_hi, n_lo, n_hi of the footprints (plus one row and column)
  long long* segment_sums;  // [ceil(M / kEsDiffSegmentRows)][N]
  EsAccum* outside;  // rasterize's outside-area slots (RasterizeArgs::outside)
  DiffMapTarget target;
  void* map;         // the target map
  T unit_scale;      // FloatTiles: bin areas per unit
};
template <typename T>
void launch_diff_rasterize(const DiffRasterArgs<T>& a, cudaStream_t stream);

template <typename T>
struct DiffGatherArgs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
  const int* cells;
  int count;
  const int* box;              // written by launch_diff_rasterize in this evaluate
  const EsVec2<T>* e;          // the tiled (Ex, Ey) map, weight folded in
  double* sat;                 // [M][N] pairs (x, y), natural layout
  double* segment_sums;        // [ceil(M / kEsDiffSegmentRows)][N] pairs
  T* grad_x;
  T* grad_y;
  bool accumulate;
  const EsAccum* rerun_flag;   // as GatherArgs::rerun_flag
};
template <typename T>
void launch_diff_gather(const DiffGatherArgs<T>& a, cudaStream_t stream);

inline int es_diff_segments(int M) { return (M + kEsDiffSegmentRows - 1) / kEsDiffSegmentRows; }

// The density stage's part: the difference map and its segment sums (made only when the cell
// table has the path on). Its enqueue goes before the rasterize of the movable cells.
template <typename T>
class DiffDensity {
 public:
  DiffDensity() = default;
  DiffDensity(const CellTable<T>& cells, int M, int N) {
    if (!cells.diff_enabled()) return;
    diff_ = EsDeviceArray<EsAccum>(static_cast<std::int64_t>(M) * N);
    EFIELD_CUDA_CHECK(cudaMemset(diff_.get(), 0, diff_.bytes()));
    segment_sums_ = EsDeviceArray<long long>(static_cast<std::int64_t>(es_diff_segments(M)) * N);
  }
  // `rasterize`: the run's RasterizeArgs (cells, positions, outside slots); target and its unit.
  void enqueue(const CellTable<T>& cells, const RasterizeArgs<T>& rasterize, DiffMapTarget target, void* map,
               T to_fixed, T unit_scale, cudaStream_t stream) const {
    if (cells.num_diff_cells() == 0) return;
    DiffRasterArgs<T> a{};
    a.g = rasterize.g;
    a.x = rasterize.x;
    a.y = rasterize.y;
    a.w = rasterize.w;
    a.h = rasterize.h;
    a.cells = cells.diff_cells();
    a.count = cells.num_diff_cells();
    a.to_fixed = to_fixed;
    a.diff = diff_.get();
    a.box = cells.diff_box();
    a.segment_sums = segment_sums_.get();
    a.outside = rasterize.outside;
    a.target = target;
    a.map = map;
    a.unit_scale = unit_scale;
    launch_diff_rasterize(a, stream);
  }

 private:
  EsDeviceArray<EsAccum> diff_;
  EsDeviceArray<long long> segment_sums_;
};

// The gather stage's part: the summed-area table and its segment sums.
template <typename T>
class DiffGather {
 public:
  DiffGather() = default;
  DiffGather(const CellTable<T>& cells, int M, int N) {
    if (!cells.diff_enabled()) return;
    sat_ = EsDeviceArray<double>(2 * static_cast<std::int64_t>(M) * N);
    segment_sums_ = EsDeviceArray<double>(2 * static_cast<std::int64_t>(es_diff_segments(M)) * N);
  }
  // `gather`: the run's GatherArgs (cells, positions, field map, gradient).
  void enqueue(const CellTable<T>& cells, const GatherArgs<T>& gather, cudaStream_t stream) const {
    if (cells.num_diff_cells() == 0) return;
    DiffGatherArgs<T> a{};
    a.g = gather.g;
    a.x = gather.x;
    a.y = gather.y;
    a.w = gather.w;
    a.h = gather.h;
    a.cells = cells.diff_cells();
    a.count = cells.num_diff_cells();
    a.box = cells.diff_box();
    a.e = gather.e;
    a.sat = sat_.get();
    a.segment_sums = segment_sums_.get();
    a.grad_x = gather.grad_x;
    a.grad_y = gather.grad_y;
    a.accumulate = gather.accumulate;
    a.rerun_flag = gather.rerun_flag;
    launch_diff_gather(a, stream);
  }

 private:
  EsDeviceArray<double> sat_, segment_sums_;
};

}  // namespace efield::detail
