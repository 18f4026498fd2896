#pragma once
// Internal: the density map one run of the density stage accumulates movable cells into, as the
// large-cell paths of large_cells.cu and chunked_cells.cu see it: which map, in which layout,
// and in which unit. add_bin_weight rounds a bin's weight as rasterize.cu's add_charge does (so
// the sums are the same integers or whole numbers); add_bin_units adds a whole number of units.
#include <cuda_runtime.h>

#include <cstdint>

#include "electrostatics/es_kernels.cuh"
#include "math/density.hpp"

namespace efield::detail {

enum class MapTargetKind {
  ExactFloatTiles,  // exact float maps: whole numbers of 1 / to_fixed bin areas, es_tile_index
  FloatTiles,       // float maps with plain float atomics: bin areas (to_fixed = 1 / (bx by))
  WideTiles,        // Bins::Piled's 64-bit tiles (es_tile_index), whole numbers
  Natural,          // 64-bit fixed-point bins, natural layout
};

template <typename T>
struct MapTarget {
  MapTargetKind kind = MapTargetKind::Natural;
  void* map = nullptr;
  T to_fixed = 0;    // add_bin_weight: the run's RasterizeArgs::to_fixed (units per bin area)
  T units = 0;       // add_bin_units: units per bin area (to_fixed, but 2^kEsExactFloatBits for FloatTiles)
  T unit_scale = 1;  // FloatTiles: bin areas per unit of add_bin_units
  int N = 0;         // bins along y
};

// One bin's weight (area units), rounded as rasterize.cu's add_charge rounds it.
template <typename T>
__device__ __forceinline__ void add_bin_weight(const MapTarget<T>& t, int m, int n, T weight) {
  const std::int64_t tile = es_tile_index(m, n, t.N);
  switch (t.kind) {
    case MapTargetKind::ExactFloatTiles: {
      const T v = rint(weight * t.to_fixed);
      if (v > T(0)) atomicAdd(static_cast<T*>(t.map) + tile, v);
      break;
    }
    case MapTargetKind::FloatTiles: {
      const T v = weight * t.to_fixed;
      if (v > T(0)) atomicAdd(static_cast<T*>(t.map) + tile, v);
      break;
    }
    case MapTargetKind::WideTiles: {
      const T v = rint(weight * t.to_fixed);
      if (v > T(0)) atomicAdd(static_cast<EsAccum*>(t.map) + tile, static_cast<EsAccum>(v));
      break;
    }
    case MapTargetKind::Natural: {
      const std::int64_t q = to_fixed_point(weight, t.to_fixed);
      if (q > 0)
        atomicAdd(static_cast<EsAccum*>(t.map) + static_cast<std::int64_t>(m) * t.N + n, static_cast<EsAccum>(q));
      break;
    }
  }
}

// A whole number v > 0 of 1 / units bin areas (the difference map's bins).
template <typename T>
__device__ __forceinline__ void add_bin_units(const MapTarget<T>& t, int m, int n, long long v) {
  const std::int64_t tile = es_tile_index(m, n, t.N);
  switch (t.kind) {
    case MapTargetKind::ExactFloatTiles: atomicAdd(static_cast<T*>(t.map) + tile, static_cast<T>(v)); break;
    case MapTargetKind::FloatTiles: atomicAdd(static_cast<T*>(t.map) + tile, static_cast<T>(v) * t.unit_scale); break;
    case MapTargetKind::WideTiles: atomicAdd(static_cast<EsAccum*>(t.map) + tile, static_cast<EsAccum>(v)); break;
    case MapTargetKind::Natural:
      atomicAdd(static_cast<EsAccum*>(t.map) + static_cast<std::int64_t>(m) * t.N + n, static_cast<EsAccum>(v));
      break;
  }
}

// The movable cells' outside-area slot of cell c (rasterize.cu's add_outside for a movable cell).
template <typename T>
__device__ __forceinline__ void add_movable_outside(EsAccum* outside, const Footprint<T>& f, const CellGeometry<T>& g,
                                                    int c) {
  const std::int64_t q = outside_fixed_point(f, g);
  if (q != 0) atomicAdd(outside + outside_slot(c, false), static_cast<EsAccum>(q));
}

}  // namespace efield::detail
