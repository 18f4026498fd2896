#pragma once
// Internal: the movable large cells that CellTable takes out of the warp and block lists
// (pipeline_policy.cuh decides), in two paths, each stage's part behind one call:
//   chunked (chunked_cells.cu): a cell's footprint bins split into chunks of kEsChunkBins, a block
//     per chunk: rasterize adds each bin as rasterize.cu does (the same integers), the gather sums
//     each chunk (fixed-order block reduction) and one thread per cell sums its chunks in order;
//   difference map (large_cells.cu, docs/math.md 2.12), O(1) memory operations per cell:
//     density: each cell's up to 3 x 3 constant-weight rectangles (large_cell_segments.hpp) as 4
//     integer corner updates each into a 64-bit difference map, and the bounding box of the
//     footprints; then a 2D prefix sum over that box (rows, then columns in segments of
//     kEsDiffSegmentRows rows) adds each bin's exact integer into the run's density map and
//     clears the difference map;
//     gather: a summed-area table of the (Ex, Ey) map over the same box in double, then per cell
//     9 rectangle sums (4 reads each) times the rectangles' weights.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/cell_table.cuh"
#include "electrostatics/es_buffers.cuh"
#include "electrostatics/es_kernels.cuh"
#include "electrostatics/map_target.cuh"

namespace efield::detail {

// The cells and geometry both paths read (from the run's RasterizeArgs or GatherArgs).
template <typename T>
struct LargeCellInputs {
  CellGeometry<T> g;
  const T* x;
  const T* y;
  const T* w;
  const T* h;
};

template <typename T>
struct DiffRasterArgs {
  LargeCellInputs<T> in;
  const int* cells;  // CellTable::diff_cells
  int count;
  EsAccum* diff;     // [M][N] natural layout, all zero between evaluates
  int* box;          // [4] m_lo, m_hi, n_lo, n_hi of the footprints (plus one row and column)
  long long* segment_sums;  // [ceil(M / kEsDiffSegmentRows)][N]
  EsAccum* outside;  // rasterize's outside-area slots (RasterizeArgs::outside)
  MapTarget<T> target;
};
template <typename T>
void launch_diff_rasterize(const DiffRasterArgs<T>& a, cudaStream_t stream);

// Where a gather's results go (GatherArgs' fields of the same names).
template <typename T>
struct GradientOut {
  T* grad_x;
  T* grad_y;
  bool accumulate;
  const EsAccum* rerun_flag;
};

template <typename T>
struct DiffGatherArgs {
  LargeCellInputs<T> in;
  const int* cells;
  int count;
  const int* box;        // written by launch_diff_rasterize in this evaluate
  const EsVec2<T>* e;    // the tiled (Ex, Ey) map, weight folded in
  double* sat;           // [M][N] pairs (x, y), natural layout
  double* segment_sums;  // [ceil(M / kEsDiffSegmentRows)][N] pairs
  GradientOut<T> out;
  const EsAccum* rerun_flag;  // = out.rerun_flag (es_gather_skipped reads this name)
};
template <typename T>
void launch_diff_gather(const DiffGatherArgs<T>& a, cudaStream_t stream);

template <typename T>
struct ChunkRasterArgs {
  LargeCellInputs<T> in;
  const int* cells;   // CellTable::chunk_cells
  const int2* items;  // per chunk: (index into cells, first bin)
  int chunks;
  EsAccum* outside;
  MapTarget<T> target;
};
template <typename T>
void launch_chunk_rasterize(const ChunkRasterArgs<T>& a, cudaStream_t stream);

template <typename T>
struct ChunkGatherArgs {
  LargeCellInputs<T> in;
  const int* cells;
  const int2* items;
  const int* first_chunk;  // [cells + 1]: cell j's chunks are [first_chunk[j], first_chunk[j + 1])
  int count;               // cells
  int chunks;
  const EsVec2<T>* e;
  EsVec2<T>* partials;     // [chunks]
  GradientOut<T> out;
  const EsAccum* rerun_flag;
};
template <typename T>
void launch_chunk_gather(const ChunkGatherArgs<T>& a, cudaStream_t stream);

inline int es_diff_segments(int M) { return (M + kEsDiffSegmentRows - 1) / kEsDiffSegmentRows; }

template <typename T>
LargeCellInputs<T> large_cell_inputs(const CellGeometry<T>& g, const T* x, const T* y, const T* w, const T* h) {
  return {g, x, y, w, h};
}

// The density stage's part: the difference map and its segment sums (made only when the cell
// table has that path on). Its enqueue goes before the rasterize of the movable cells.
template <typename T>
class LargeCellDensity {
 public:
  LargeCellDensity() = default;
  LargeCellDensity(const CellTable<T>& cells, int M, int N) {
    if (!cells.large_paths().diff_enabled()) return;
    diff_ = EsDeviceArray<EsAccum>(static_cast<std::int64_t>(M) * N);
    EFIELD_CUDA_CHECK(cudaMemset(diff_.get(), 0, diff_.bytes()));
    segment_sums_ = EsDeviceArray<long long>(static_cast<std::int64_t>(es_diff_segments(M)) * N);
  }
  // `r`: the run's RasterizeArgs (cells, positions, outside slots); `target`: its movable map.
  void enqueue(const CellTable<T>& cells, const RasterizeArgs<T>& r, const MapTarget<T>& target,
               cudaStream_t stream) const {
    const LargeCellInputs<T> in = large_cell_inputs(r.g, r.x, r.y, r.w, r.h);
    if (cells.large_paths().num_chunks() > 0) {
      ChunkRasterArgs<T> a{};
      a.in = in;
      a.cells = cells.large_paths().chunk_cells();
      a.items = cells.large_paths().chunk_items();
      a.chunks = cells.large_paths().num_chunks();
      a.outside = r.outside;
      a.target = target;
      launch_chunk_rasterize(a, stream);
    }
    if (cells.large_paths().num_diff_cells() > 0) {
      DiffRasterArgs<T> a{};
      a.in = in;
      a.cells = cells.large_paths().diff_cells();
      a.count = cells.large_paths().num_diff_cells();
      a.diff = diff_.get();
      a.box = cells.large_paths().diff_box();
      a.segment_sums = segment_sums_.get();
      a.outside = r.outside;
      a.target = target;
      launch_diff_rasterize(a, stream);
    }
  }

 private:
  EsDeviceArray<EsAccum> diff_;
  EsDeviceArray<long long> segment_sums_;
};

// The gather stage's part: the chunks' partial sums, the summed-area table and its segment sums.
template <typename T>
class LargeCellGather {
 public:
  LargeCellGather() = default;
  LargeCellGather(const CellTable<T>& cells, int M, int N) {
    const int chunks = cells.large_paths().chunk_capacity();
    if (chunks > 0) partials_ = EsDeviceArray<EsVec2<T>>(chunks);
    if (!cells.large_paths().diff_enabled()) return;
    sat_ = EsDeviceArray<double>(2 * static_cast<std::int64_t>(M) * N);
    segment_sums_ = EsDeviceArray<double>(2 * static_cast<std::int64_t>(es_diff_segments(M)) * N);
  }
  // `a`: the run's GatherArgs (cells, positions, field map, gradient).
  void enqueue(const CellTable<T>& cells, const GatherArgs<T>& g, cudaStream_t stream) const {
    const LargeCellInputs<T> in = large_cell_inputs(g.g, g.x, g.y, g.w, g.h);
    const GradientOut<T> out{g.grad_x, g.grad_y, g.accumulate, g.rerun_flag};
    if (cells.large_paths().num_chunks() > 0) {
      ChunkGatherArgs<T> a{};
      a.in = in;
      a.cells = cells.large_paths().chunk_cells();
      a.items = cells.large_paths().chunk_items();
      a.first_chunk = cells.large_paths().chunk_first();
      a.count = cells.large_paths().num_chunk_cells();
      a.chunks = cells.large_paths().num_chunks();
      a.e = g.e;
      a.partials = partials_.get();
      a.out = out;
      a.rerun_flag = g.rerun_flag;
      launch_chunk_gather(a, stream);
    }
    if (cells.large_paths().num_diff_cells() > 0) {
      DiffGatherArgs<T> a{};
      a.in = in;
      a.cells = cells.large_paths().diff_cells();
      a.count = cells.large_paths().num_diff_cells();
      a.box = cells.large_paths().diff_box();
      a.e = g.e;
      a.sat = sat_.get();
      a.segment_sums = segment_sums_.get();
      a.out = out;
      a.rerun_flag = g.rerun_flag;
      launch_diff_gather(a, stream);
    }
  }

 private:
  EsDeviceArray<EsVec2<T>> partials_;
  EsDeviceArray<double> sat_, segment_sums_;
};

// The gradient of position index i from a large-cell path's sums (gx, gy: the sums of weight
// times field; the weight of EvaluateOptions is in the field map already).
template <typename T>
__device__ __forceinline__ void store_large_gradient(const GradientOut<T>& o, std::int64_t i, T gx, T gy) {
  if (o.accumulate) {
    o.grad_x[i] += -gx;
    o.grad_y[i] += -gy;
  } else {
    o.grad_x[i] = -gx;
    o.grad_y[i] = -gy;
  }
}

}  // namespace efield::detail
