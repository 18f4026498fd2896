#pragma once
// Internal: the kernels of MultiFieldSystem's batched CUDA pipeline (batched_multi_field.cu), in
// order; each launcher checks its launch. Every field has its own maps at a fixed offset of one
// array per kind (field k's at k times the map's size), and every kernel covers all fields:
//   launch_batched_rasterize   all fields' cells (slots) -> each field's movable and filler 64-bit
//                              maps (natural layout), the outside-area slots
//   launch_batched_density     the 2D density pass (density_pass.cuh) over every field's two maps:
//                              rho (the batched R2C's input), overflow/max partials; clears them
//   (cuFFT batched R2C)
//   launch_batched_spectral    the 2D spectral pass (spectral_pass.cuh) per field: C2C input,
//                              energy partials
//   (cuFFT batched C2C inverse, in place)
//   launch_batched_field_tiles the 2D field_tiles pass (field_map.cuh) per field, weight 1
//   launch_batched_gather      all fields' cells -> w_k g at each cell's entry (written or added)
//   launch_batched_finalize    the 2D finalize (finalize_pass.cuh), a block per field
// The per-field argument structs of the 2D passes live in device memory (one per field, made at
// construction): a block reads its field's from there.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/cell_layout.hpp"
#include "electrostatics/es_kernels.cuh"

namespace efield::detail {

// All fields' cells as the batched kernels see them: slot s (field k's cells at
// [offset[k], offset[k + 1]), movable cells first) is cell s - offset[k] of field k, whose
// position is x[entry[s]], y[entry[s]].
template <typename T>
struct BatchedCells {
  // The grid's geometry, every field's (field 0's, as made by make_cell_geometry); the members
  // that differ between fields (field_geometry) come from `geometry`.
  CellGeometry<T> grid;
  const CellGeometry<T>* geometry;  // [K] each field's
  const std::int64_t* offset;       // [K + 1]
  const std::int32_t* field;        // [slots]
  const std::int64_t* entry;        // [slots]
  const T* w;                       // [slots]
  const T* h;
  std::int64_t slots;               // one thread each (large cells return at once)
  const std::int32_t* large;        // the large cells' slots (is_large_cell), a block each
  int num_large;
  const T* x;  // the caller's arrays (device), indexed by entry
  const T* y;
};

// Field k's geometry: the grid's, with the field's own cell counts, movable-macro mask and td
// (the members make_cell_geometry takes from the field; the rest is the grid's, the same in every
// field), so a thread reads a few members of its field instead of the whole struct.
template <typename T>
__device__ __forceinline__ CellGeometry<T> field_geometry(const BatchedCells<T>& a, int k) {
  CellGeometry<T> g = a.grid;
  const CellGeometry<T>* own = a.geometry + k;
  g.num_movable = own->num_movable;
  g.num_cells = own->num_cells;
  g.filler_offset = own->filler_offset;
  g.movable_macro = own->movable_macro;
  g.target_density = own->target_density;
  return g;
}

template <typename T>
struct BatchedRasterizeArgs {
  BatchedCells<T> cells;
  EsAccum* maps;         // [K][2][bins]: field k's movable map, then its filler map
  std::int64_t bins;     // M N
  T to_fixed;            // 2^FixedPointBits / (bx by)
  EsAccum* outside;      // [K][2 kEsTotalSlots]: each field's outside-area slot pairs (finalize zeroes them)
};
template <typename T>
void launch_batched_rasterize(const BatchedRasterizeArgs<T>& a, cudaStream_t stream);

// args: [K] per field; blocks: each field's density-pass blocks (its partials).
template <typename T>
void launch_batched_density(const DensityPassArgs<T>* args, int num_fields, int blocks, int N, cudaStream_t stream);
template <typename T>
void launch_batched_spectral(const SpectralArgs<T>* args, int num_fields, int blocks, cudaStream_t stream);
// z: [K][M N] C2C outputs; e: [K][es_tile_map_size] tiled maps; one: a device 1 (the weight).
template <typename T>
void launch_batched_field_tiles(const EsVec2<T>* z, EsVec2<T>* e, int num_fields, int M, int N, const T* one,
                                cudaStream_t stream);

template <typename T>
struct BatchedGatherArgs {
  BatchedCells<T> cells;
  const EsVec2<T>* e;        // [K][tile_map] the fields' (Ex, Ey) maps in tiles
  std::int64_t tile_map;     // es_tile_map_size(M, N)
  const double* params;      // [K + 1]: the weights, then accumulate (nonzero)
  int num_fields;
  T* grad_x;                 // the caller's arrays (device), indexed by entry
  T* grad_y;
};
template <typename T>
void launch_batched_gather(const BatchedGatherArgs<T>& a, cudaStream_t stream);

template <typename T>
void launch_batched_finalize(const FinalizeArgs<T>* args, int num_fields, cudaStream_t stream);

}  // namespace efield::detail
