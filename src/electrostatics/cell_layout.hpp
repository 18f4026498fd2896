#pragma once
// Where a cell's position lives in the caller's arrays, and which bins its stretched footprint
// touches. Shared by the CPU loops and the CUDA kernels (rasterize and gather use the same
// footprint, so the gradient reads exactly the bins the density was written to).
#include <cstdint>

#include "math/density.hpp"
#include "math/host_device.hpp"
#include "math/makhoul.hpp"

namespace efield::detail {

template <typename T>
struct CellGeometry {
  int M = 0, N = 0;            // bins along x and y
  T bx = 0, by = 0;            // bin size
  BinWidth<T> wx{}, wy{};      // bx and by split for the overlaps (split_bin_width)
  T inv_bx = 0, inv_by = 0;    // 1 / bx, 1 / by
  T min_w = 0, min_h = 0;      // sqrt(2) bx, sqrt(2) by (stretching, docs/math.md 2.1)
  T xl = 0, yl = 0;            // region origin
  std::int64_t num_movable = 0;
  std::int64_t num_cells = 0;      // movable + fillers
  std::int64_t filler_offset = 0;  // array index of filler 0
  // Cells whose stretched footprint spans more than this many bins on an axis are "large": the
  // CUDA backend gives each of them a thread block instead of one thread.
  T large_span = 0;
  // Every filler has the size (filler_w, filler_h) and is not large: the CUDA kernels then read no
  // filler sizes (set by the CUDA pipeline at construction).
  bool uniform_fillers = false;
  T filler_w = 0, filler_h = 0;
  // DREAMPlace's movable-macro rule (density_ratio): one byte per movable cell, nonzero for a
  // movable macro, in the pipeline's memory (host or device); nullptr when no cell is marked or
  // td = 1 (the rule then changes nothing).
  const std::uint8_t* movable_macro = nullptr;
  T target_density = 1;
};

// Array index of cell c (movable cells first, then fillers) in the caller's x / y / gradient.
template <typename T>
EFIELD_HD std::int64_t position_index(const CellGeometry<T>& g, std::int64_t c) {
  return c < g.num_movable ? c : g.filler_offset + (c - g.num_movable);
}

// Element (m, n) of a map in the Makhoul-permuted layout that the forward real FFT reads and the
// inverse real FFTs write: row p(m), column q(n).
EFIELD_HD std::int64_t permuted_index(int m, int n, int M, int N) {
  return static_cast<std::int64_t>(makhoul_position(m, M)) * N + makhoul_position(n, N);
}

template <typename T>
struct Footprint {
  T x0, x1, y0, y1;  // stretched footprint relative to the region origin (bin ranges, region tests)
  T x_start, y_start;  // where it starts relative to the lower edge of bin m0 / n0 (side_start)
  T w, h;              // its size (x1 - x0, y1 - y0 before rounding)
  T charge;          // r
  int m0, m1, n0, n1;  // bin range, clamped to the grid
};

// The footprint of a cell already stretched (stretch_cell's result, relative to the region).
template <typename T>
EFIELD_HD Footprint<T> stretched_footprint(const CellGeometry<T>& g, const StretchedCell<T>& s) {
  Footprint<T> f;
  f.x0 = s.x.lo;
  f.x1 = s.x.lo + s.x.size;
  f.y0 = s.y.lo;
  f.y1 = s.y.lo + s.y.size;
  f.w = s.x.size;
  f.h = s.y.size;
  f.charge = s.charge;
  bin_range(f.x0, f.x1, g.inv_bx, g.M, &f.m0, &f.m1);
  bin_range(f.y0, f.y1, g.inv_by, g.N, &f.n0, &f.n1);
  f.x_start = side_start(s.x, f.m0, g.wx);
  f.y_start = side_start(s.y, f.n0, g.wy);
  return f;
}

// Whether cell c (movable cells first, then fillers) is a movable macro (CellGeometry::movable_macro).
template <typename T>
EFIELD_HD bool is_movable_macro(const CellGeometry<T>& g, std::int64_t c) {
  return g.movable_macro != nullptr && c < g.num_movable && g.movable_macro[c] != 0;
}

// The footprint of cell c at (x, y) with size (w, h): every rasterize and gather takes it from here.
template <typename T>
EFIELD_HD Footprint<T> cell_footprint(const CellGeometry<T>& g, std::int64_t c, T x, T y, T w, T h) {
  return stretched_footprint(
      g, stretch_cell(x - g.xl, y - g.yl, w, h, g.min_w, g.min_h, is_movable_macro(g, c), g.target_density));
}

// ox(m) and oy(n) (docs/math.md 2.2): the footprint's length inside column m, row n of the grid.
template <typename T>
EFIELD_HD T overlap_x(const Footprint<T>& f, const CellGeometry<T>& g, int m) {
  return side_overlap(f.x_start, f.w, m - f.m0, g.bx);
}
template <typename T>
EFIELD_HD T overlap_y(const Footprint<T>& f, const CellGeometry<T>& g, int n) {
  return side_overlap(f.y_start, f.h, n - f.n0, g.by);
}

// r * ox(m) * oy(n): the cell's charge in bin (m, n), in area units (docs/math.md 2.3).
template <typename T>
EFIELD_HD T footprint_weight(const Footprint<T>& f, const CellGeometry<T>& g, int m, int n) {
  return f.charge * overlap_x(f, g, m) * overlap_y(f, g, n);
}

// True when the footprint lies wholly outside the grid: every weight is then exactly 0, and
// rasterize and gather may skip it (NaN coordinates give false: such a cell takes the usual path).
template <typename T>
EFIELD_HD bool misses_grid(const Footprint<T>& f, const CellGeometry<T>& g) {
  return f.x1 <= T(0) || f.y1 <= T(0) || f.x0 >= static_cast<T>(g.M) * g.bx || f.y0 >= static_cast<T>(g.N) * g.by;
}

// The cell's area outside the region (docs/math.md 2.2): w h minus what the clipped footprint
// holds, exactly 0 for a footprint wholly inside (the common case, where w h - r w' h' would
// leave rounding), in units of one bin's area.
template <typename T>
EFIELD_HD T outside_bin_areas(const Footprint<T>& f, const CellGeometry<T>& g) {
  const T width = static_cast<T>(g.M) * g.bx, height = static_cast<T>(g.N) * g.by;
  // Without branches (bitwise & of the comparisons): the CPU computes this in vectorized loops.
  const bool inside = (f.x0 >= T(0)) & (f.x1 <= width) & (f.y0 >= T(0)) & (f.y1 <= height);
  // fmax(0, fmin(x1, width) - fmax(x0, 0)) in comparisons (density.hpp: a NaN end is dropped).
  const T in_x = positive_part((f.x1 < width ? f.x1 : width) - positive_part(f.x0));
  const T in_y = positive_part((f.y1 < height ? f.y1 : height) - positive_part(f.y0));
  const T outside = f.charge * ((f.x1 - f.x0) * (f.y1 - f.y0) - in_x * in_y) * g.inv_bx * g.inv_by;
  // A NaN position contributes nothing, as to the map.
  return inside | (outside != outside) ? T(0) : outside;
}
// ... as 64-bit fixed point with kOutsideFractionBits fractional bits, so that sums over cells are
// exact in any order (the same integer on every thread schedule and every backend's reduction).
inline constexpr int kOutsideFractionBits = 20;
template <typename T>
EFIELD_HD std::int64_t outside_fixed_point(const Footprint<T>& f, const CellGeometry<T>& g) {
  return to_fixed_point(outside_bin_areas(f, g), static_cast<T>(1 << kOutsideFractionBits));
}

// GradientScale::Exact (docs/math.md 2.9): E = sum phi rho is a quadratic form in rho with a
// symmetric kernel, so dE/dx = 2 sum phi drho/dx, and moving the footprint along x changes the
// overlaps only at its two edges: +1 per unit of x in the bin of the right edge, -1 in the bin of
// the left edge (each only while that edge is inside the grid; right-hand derivatives at bin
// boundaries). phi(m, n) reads the potential map. Returns (dE/dx, dE/dy).
template <typename T>
EFIELD_HD int edge_bin(T edge, T inv_b, int count) {
  using std::floor;
  const T b = floor(edge * inv_b);
  return b >= T(0) && b < static_cast<T>(count) ? static_cast<int>(b) : -1;  // NaN: -1
}
template <typename T, typename Phi>
EFIELD_HD void exact_footprint_gradient(const Footprint<T>& f, const CellGeometry<T>& g, Phi phi, T* dx, T* dy) {
  const int left = edge_bin(f.x0, g.inv_bx, g.M), right = edge_bin(f.x1, g.inv_bx, g.M);
  const int bottom = edge_bin(f.y0, g.inv_by, g.N), top = edge_bin(f.y1, g.inv_by, g.N);
  T sx = 0, sy = 0;
  for (int n = f.n0; n <= f.n1; ++n) {
    const T oy = overlap_y(f, g, n);
    const T edges = (right >= 0 ? phi(right, n) : T(0)) - (left >= 0 ? phi(left, n) : T(0));
    sx += oy * edges;
  }
  for (int m = f.m0; m <= f.m1; ++m) {
    const T ox = overlap_x(f, g, m);
    const T edges = (top >= 0 ? phi(m, top) : T(0)) - (bottom >= 0 ? phi(m, bottom) : T(0));
    sy += ox * edges;
  }
  const T scale = T(2) * f.charge * g.inv_bx * g.inv_by;
  *dx = scale * sx;
  *dy = scale * sy;
}

// The gradient as evaluate writes it: weight * g, or added to what is there (EvaluateOptions).
template <typename T>
struct GradientWrite {
  T weight = T(1);
  bool accumulate = false;
  // What goes into *dst for the gradient g (reads *dst only when accumulating).
  EFIELD_HD T value(const T* dst, T g) const { return accumulate ? *dst + weight * g : weight * g; }
};

// A footprint of at most 3 x 3 bins (almost every standard cell and filler once stretched: 2-3
// bins per axis), which the CUDA rasterize and gather unroll. The per-axis overlaps are 0 past
// the footprint's end, and weight(p, q) is footprint_weight(f, g, m0 + p, n0 + q) with the same
// association (the same bits), 0 outside the footprint.
template <typename T>
struct SmallFootprint {
  T charge;
  T ox[3], oy[3];
  EFIELD_HD T weight(int p, int q) const { return charge * ox[p] * oy[q]; }
};
template <typename T>
EFIELD_HD bool is_small_footprint(const Footprint<T>& f) {
  return f.m1 - f.m0 < 3 && f.n1 - f.n0 < 3;
}
template <typename T>
EFIELD_HD SmallFootprint<T> small_footprint(const Footprint<T>& f, const CellGeometry<T>& g) {
  SmallFootprint<T> s;
  s.charge = f.charge;
  for (int k = 0; k < 3; ++k) {
    s.ox[k] = f.m0 + k <= f.m1 ? side_overlap(f.x_start, f.w, k, g.bx) : T(0);
    s.oy[k] = f.n0 + k <= f.n1 ? side_overlap(f.y_start, f.h, k, g.by) : T(0);
  }
  return s;
}

// The longer side of a cell of size (w, h) once stretched, in bins.
template <typename T>
EFIELD_HD T stretched_span_bins(const CellGeometry<T>& g, T w, T h) {
  const T sx = (w > g.min_w ? w : g.min_w) * g.inv_bx;
  const T sy = (h > g.min_h ? h : g.min_h) * g.inv_by;
  return sx > sy ? sx : sy;
}
// Whether a cell of size (w, h) is handled as "large" (depends on sizes only, fixed at construction).
template <typename T>
EFIELD_HD bool is_large_cell(const CellGeometry<T>& g, T w, T h) {
  return stretched_span_bins(g, w, h) > g.large_span;
}

}  // namespace efield::detail
