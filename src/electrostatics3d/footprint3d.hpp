#pragma once
// A cell's stretched cuboid in the 3D grid (docs/math.md 4.1-4.2, 4.9-4.10), shared by the CPU
// loops and the CUDA kernels: rasterize and gather take their footprints from here, so the
// gradient reads exactly the bins the density was written to. Every per-axis formula is the 2D
// one (math/density.hpp: stretch_axis, bin_range, side_start, side_overlap; cell_layout.hpp: edge_bin).
#include <cstdint>

#include "electrostatics/cell_layout.hpp"
#include "math/density.hpp"
#include "math/electrostatics3d.hpp"
#include "math/host_device.hpp"

namespace efield::detail {

template <typename T>
struct Grid3D {
  int M = 0, N = 0, L = 0;
  T bx = 0, by = 0, bz = 0;
  BinWidth<T> wx{}, wy{}, wz{};  // bx, by, bz split for side_start (split_bin_width)
  T inv_bx = 0, inv_by = 0, inv_bz = 0;
  T min_w = 0, min_h = 0, min_d = 0;  // min(sqrt(2) b, the region's extent) per axis (4.1)
  T xl = 0, yl = 0, zl = 0;
  std::int64_t num_movable = 0, num_cells = 0, filler_offset = 0;
  T fixed_scale = 0;  // 2^FixedPointBits / (bx by bz): volume -> fixed-point bin volumes
  // DREAMPlace's movable-macro rule (docs/math.md 4.1): one byte per movable cell in the pipeline's
  // memory, nullptr when no cell is marked or td = 1 (the rule then changes nothing).
  const std::uint8_t* movable_macro = nullptr;
  T target_density = 1;
};

template <typename T>
struct AxisSpan {
  T lo, hi;               // stretched extent relative to the region's lower corner
  T start, size;          // where it starts relative to bin `first`'s lower edge, its length (side_start)
  int first, last;        // bins touched, clamped to the grid
};

template <typename T>
EFIELD_HD AxisSpan<T> axis_span(T rel, T size, T min_size, T inv_b, int count, const BinWidth<T>& w) {
  const StretchedAxis<T> s = stretch_axis(rel, size, min_size);
  AxisSpan<T> a;
  a.lo = s.lo;
  a.hi = s.lo + s.size;
  a.size = s.size;
  bin_range(a.lo, a.hi, inv_b, count, &a.first, &a.last);
  a.start = side_start(s, a.first, w);
  return a;
}

template <typename T>
struct Footprint3D {
  AxisSpan<T> x, y, z;
  T charge;  // r = w h d / (w' h' d')
};

// Array index of cell c (movable first, then fillers) in the caller's arrays.
template <typename T>
EFIELD_HD std::int64_t position_index3d(const Grid3D<T>& g, std::int64_t c) {
  return c < g.num_movable ? c : g.filler_offset + (c - g.num_movable);
}

// The footprint of cell c (movable first, then fillers) at (x, y, z) with size (w, h, d).
template <typename T>
EFIELD_HD Footprint3D<T> cell_footprint3d(const Grid3D<T>& g, std::int64_t c, T x, T y, T z, T w, T h, T d) {
  Footprint3D<T> f;
  f.x = axis_span(x - g.xl, w, g.min_w, g.inv_bx, g.M, g.wx);
  f.y = axis_span(y - g.yl, h, g.min_h, g.inv_by, g.N, g.wy);
  f.z = axis_span(z - g.zl, d, g.min_d, g.inv_bz, g.L, g.wz);
  const bool macro = g.movable_macro != nullptr && c < g.num_movable && g.movable_macro[c] != 0;
  f.charge = macro ? g.target_density : (w * h * d) / (f.x.size * f.y.size * f.z.size);  // the overlaps sum to the sizes
  return f;
}

// Overlap of one axis' span with bin k of size b (docs/math.md 4.2).
template <typename T>
EFIELD_HD T axis_overlap(const AxisSpan<T>& a, int k, T b) {
  return side_overlap(a.start, a.size, k - a.first, b);
}

// The part of [lo, hi) inside [0, extent).
template <typename T>
EFIELD_HD T inside_length(const AxisSpan<T>& a, T extent) {
  return positive_part((a.hi < extent ? a.hi : extent) - positive_part(a.lo));
}

// docs/math.md 4.10: the cell's volume outside the region, in bin volumes, as 64-bit fixed point
// with kOutsideFractionBits fractional bits (sums exact in any order). 0 for a cuboid inside.
template <typename T>
EFIELD_HD std::int64_t outside_fixed_point3d(const Footprint3D<T>& f, const Grid3D<T>& g) {
  const T ex = static_cast<T>(g.M) * g.bx, ey = static_cast<T>(g.N) * g.by, ez = static_cast<T>(g.L) * g.bz;
  const bool inside = (f.x.lo >= T(0)) & (f.x.hi <= ex) & (f.y.lo >= T(0)) & (f.y.hi <= ey) & (f.z.lo >= T(0)) &
                      (f.z.hi <= ez);
  const T whole = (f.x.hi - f.x.lo) * (f.y.hi - f.y.lo) * (f.z.hi - f.z.lo);
  const T in = inside_length(f.x, ex) * inside_length(f.y, ey) * inside_length(f.z, ez);
  const T outside = f.charge * (whole - in) * g.inv_bx * g.inv_by * g.inv_bz;
  if (inside | (outside != outside)) return 0;  // a NaN position contributes nothing
  return to_fixed_point(outside, static_cast<T>(1 << kOutsideFractionBits));
}

// Visits every bin of the footprint with the cell's charge in it, r ox oy oz (volume units).
template <typename T, typename Visit>
EFIELD_HD void for_each_bin3d(const Footprint3D<T>& f, const Grid3D<T>& g, Visit visit) {
  for (int m = f.x.first; m <= f.x.last; ++m) {
    const T cx = f.charge * axis_overlap(f.x, m, g.bx);
    if (!(cx > T(0))) continue;
    for (int n = f.y.first; n <= f.y.last; ++n) {
      const T cxy = cx * axis_overlap(f.y, n, g.by);
      if (!(cxy > T(0))) continue;
      for (int k = f.z.first; k <= f.z.last; ++k) {
        const T c = cxy * axis_overlap(f.z, k, g.bz);
        if (c > T(0)) visit(index3d(m, n, k, g.N, g.L), c);
      }
    }
  }
}

template <typename T>
struct Gradient3D {
  T x, y, z;
};

// Ex, Ey, Ez at one bin: the idct3d outputs y_x, y_y, y_z with the sine axes' signs applied
// (field_sign3d of m, n, k). Read by the CPU gather from the three maps and written once per
// evaluate by the CUDA pipeline into one interleaved map, so both gathers multiply the same values.
template <typename T>
struct FieldSample3D {
  T x, y, z;
};

template <typename T>
EFIELD_HD FieldSample3D<T> field_sample3d(const T* yx, const T* yy, const T* yz, int m, int n, int k,
                                          std::int64_t i) {
  return {field_sign3d<T>(m) * yx[i], field_sign3d<T>(n) * yy[i], field_sign3d<T>(k) * yz[i]};
}

// DreamPlace's scale (docs/math.md 4.9): g = -r sum ox oy oz E over the footprint. sample(m, n, k, i)
// gives E at bin (m, n, k), index i (a FieldSample3D).
template <typename T, typename Sample>
EFIELD_HD Gradient3D<T> field_gradient3d(const Footprint3D<T>& f, const Grid3D<T>& g, Sample sample) {
  T sx = 0, sy = 0, sz = 0;
  for (int m = f.x.first; m <= f.x.last; ++m) {
    const T cx = f.charge * axis_overlap(f.x, m, g.bx);
    if (!(cx > T(0))) continue;
    for (int n = f.y.first; n <= f.y.last; ++n) {
      const T cxy = cx * axis_overlap(f.y, n, g.by);
      if (!(cxy > T(0))) continue;
      for (int k = f.z.first; k <= f.z.last; ++k) {
        const T c = cxy * axis_overlap(f.z, k, g.bz);
        if (!(c > T(0))) continue;
        const std::int64_t i = index3d(m, n, k, g.N, g.L);
        const FieldSample3D<T> e = sample(m, n, k, i);
        sx += c * e.x;
        sy += c * e.y;
        sz += c * e.z;
      }
    }
  }
  return {-sx, -sy, -sz};
}

// The Exact scale (docs/math.md 4.9): dE/dx = 2 r / (bx by bz) sum_{n,k} oy oz (phi[mR] - phi[mL]),
// each edge term present only when that edge lies inside the grid; likewise y and z.
template <typename T>
EFIELD_HD Gradient3D<T> exact_gradient3d(const Footprint3D<T>& f, const Grid3D<T>& g, const T* phi) {
  const int mL = edge_bin(f.x.lo, g.inv_bx, g.M), mR = edge_bin(f.x.hi, g.inv_bx, g.M);
  const int nB = edge_bin(f.y.lo, g.inv_by, g.N), nT = edge_bin(f.y.hi, g.inv_by, g.N);
  const int kB = edge_bin(f.z.lo, g.inv_bz, g.L), kT = edge_bin(f.z.hi, g.inv_bz, g.L);
  const auto edges = [&](int lo, int hi, int m, int n, int k, int axis) {
    const auto at = [&](int e) {
      if (e < 0) return T(0);
      return phi[axis == 0 ? index3d(e, n, k, g.N, g.L) : axis == 1 ? index3d(m, e, k, g.N, g.L)
                                                                    : index3d(m, n, e, g.N, g.L)];
    };
    return at(hi) - at(lo);
  };
  T sx = 0, sy = 0, sz = 0;
  for (int n = f.y.first; n <= f.y.last; ++n) {
    const T oy = axis_overlap(f.y, n, g.by);
    for (int k = f.z.first; k <= f.z.last; ++k) sx += oy * axis_overlap(f.z, k, g.bz) * edges(mL, mR, 0, n, k, 0);
  }
  for (int m = f.x.first; m <= f.x.last; ++m) {
    const T ox = axis_overlap(f.x, m, g.bx);
    for (int k = f.z.first; k <= f.z.last; ++k) sy += ox * axis_overlap(f.z, k, g.bz) * edges(nB, nT, m, 0, k, 1);
    for (int n = f.y.first; n <= f.y.last; ++n) sz += ox * axis_overlap(f.y, n, g.by) * edges(kB, kT, m, n, 0, 2);
  }
  const T scale = T(2) * f.charge * g.inv_bx * g.inv_by * g.inv_bz;
  return {scale * sx, scale * sy, scale * sz};
}

}  // namespace efield::detail
