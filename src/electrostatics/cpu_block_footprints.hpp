#pragma once
// The stretched footprints of a block of cells, a block at a time in a loop the compiler
// vectorizes, for the CPU rasterize and gather (which read them instead of computing each cell's
// footprint on its own, and look ahead in them to load a map's lines early). The arithmetic is
// stretch_cell's, stretched_footprint's and outside_bin_areas' (the same inline functions).
#include <cstdint>

#include "electrostatics/cell_layout.hpp"

namespace efield::detail {

inline constexpr int kBlock = 256;

template <typename T>
struct BlockFootprints {
  // x1 = x0 + w and y1 = y0 + h are not stored: recomputed, they are the same bits.
  T x0[kBlock], y0[kBlock], x_start[kBlock], y_start[kBlock], w[kBlock], h[kBlock], charge[kBlock];
  std::int32_t m0[kBlock], m1[kBlock], n0[kBlock], n1[kBlock];

  Footprint<T> operator[](int i) const {
    Footprint<T> f;
    f.x0 = x0[i], f.x1 = x0[i] + w[i], f.y0 = y0[i], f.y1 = y0[i] + h[i], f.charge = charge[i];
    f.x_start = x_start[i], f.y_start = y_start[i], f.w = w[i], f.h = h[i];
    f.m0 = m0[i], f.m1 = m1[i], f.n0 = n0[i], f.n1 = n1[i];
    return f;
  }
};

// Cells c0, c0 + 1, ... at positions px, py (the caller's arrays at the block's first cell), sizes
// pw, ph.
template <typename T>
void block_footprints(const CellGeometry<T>& geometry, std::int64_t c0, const T* px, const T* py, const T* pw,
                      const T* ph, int count, BlockFootprints<T>& out) {
  const CellGeometry<T> g = geometry;  // a local copy: the stores below cannot alias it
  const auto footprints = [&](const CellGeometry<T>& gm) {
    for (int i = 0; i < count; ++i) {
      const Footprint<T> f = cell_footprint(gm, c0 + i, px[i], py[i], pw[i], ph[i]);
      out.x0[i] = f.x0, out.y0[i] = f.y0, out.charge[i] = f.charge;
      out.x_start[i] = f.x_start, out.y_start[i] = f.y_start, out.w[i] = f.w, out.h[i] = f.h;
      out.m0[i] = f.m0, out.m1[i] = f.m1, out.n0[i] = f.n0, out.n1[i] = f.n1;
    }
  };
  // Without movable macros the loop reads no mask (the compiler sees the null pointer).
  if (g.movable_macro == nullptr) {
    CellGeometry<T> plain = g;
    plain.movable_macro = nullptr;
    footprints(plain);
  } else {
    footprints(g);
  }
}

// outside_bin_areas of the block's footprints (the rasterize's).
template <typename T>
void block_outside(const CellGeometry<T>& geometry, const BlockFootprints<T>& fp, int count, T* outside) {
  const CellGeometry<T> g = geometry;
  for (int i = 0; i < count; ++i) outside[i] = outside_bin_areas(fp[i], g);
}

}  // namespace efield::detail
