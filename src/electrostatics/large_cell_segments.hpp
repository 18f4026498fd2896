#pragma once
// A large cell's stretched footprint as at most 3 x 3 rectangles of constant weight (docs/math.md
// 2.12), shared by the CUDA difference-map rasterize and summed-area-table gather
// (kernels/electrostatics/large_cells.cu) and by the CPU tests that check them.
//
// On one axis the footprint covers bins first..last; its overlap (side_overlap, docs/math.md 2.2)
// is partial in the first and last bin and min(b, e) - max(d, 0) = b in every bin between (there
// d <= 0 and e >= b). So the axis splits into up to three segments of constant overlap: [first],
// [first + 1, last - 1], [last] (fewer when last - first < 2), and the weight charge * ox(m) *
// oy(n) is constant on each of the up to 9 products of segments. The edge bins take the same
// side_overlap() as footprint_weight(); an inner bin takes b itself, which is what side_overlap()
// gives unless rounding put a side's start a hair past its first bin's upper edge (then the
// per-bin value of the second bin is b less that hair).
#include <cmath>
#include <cstdint>

#include "electrostatics/cell_layout.hpp"
#include "math/host_device.hpp"

namespace efield::detail {

template <typename T>
struct AxisSegments {
  int count;         // 1..3
  int first[3];      // bins [first[s], last[s]] of segment s
  int last[3];
  T overlap[3];      // the overlap of each bin of segment s with the footprint
};

// start, size: the side relative to bin `first` (Footprint::x_start, w).
template <typename T>
EFIELD_HD AxisSegments<T> axis_segments(T start, T size, int first, int last, T b) {
  AxisSegments<T> a;
  a.first[0] = a.last[0] = first;
  a.overlap[0] = side_overlap(start, size, 0, b);
  if (last == first) {
    a.count = 1;
    return a;
  }
  if (last == first + 1) {
    a.count = 2;
    a.first[1] = a.last[1] = last;
    a.overlap[1] = side_overlap(start, size, 1, b);
    return a;
  }
  a.count = 3;
  a.first[1] = first + 1;
  a.last[1] = last - 1;
  a.overlap[1] = b;
  a.first[2] = a.last[2] = last;
  a.overlap[2] = side_overlap(start, size, last - first, b);
  return a;
}

// The footprint's two axes.
template <typename T>
struct FootprintSegments {
  AxisSegments<T> x, y;
  T charge;
  // The weight of every bin of rectangle (i, j): charge * ox * oy with footprint_weight()'s association.
  EFIELD_HD T weight(int i, int j) const { return charge * x.overlap[i] * y.overlap[j]; }
};
template <typename T>
EFIELD_HD FootprintSegments<T> footprint_segments(const Footprint<T>& f, const CellGeometry<T>& g) {
  return {axis_segments(f.x_start, f.w, f.m0, f.m1, g.bx), axis_segments(f.y_start, f.h, f.n0, f.n1, g.by),
          f.charge};
}

// Round to nearest, ties to even, in the value's own precision (as the per-bin paths' rint).
EFIELD_HD float round_to_integer(float v) { return rintf(v); }
EFIELD_HD double round_to_integer(double v) { return rint(v); }

// A rectangle's weight as a whole number of 1 / to_fixed bin areas, rounded as the per-bin paths
// round it (rint in T, then an integer); 0 for NaN or a non-positive weight (those paths add nothing).
template <typename T>
EFIELD_HD std::int64_t fixed_weight(T weight, T to_fixed) {
  const T v = round_to_integer(weight * to_fixed);
  return v > T(0) ? static_cast<std::int64_t>(v) : 0;
}

// Sum over bins [m0, m1] x [n0, n1] from a summed-area table S(m, n) = sum of the map over
// [lo_m, m] x [lo_n, n] (sat(m, n) reads it; indices below lo_m / lo_n read as 0).
template <typename V, typename Sat>
EFIELD_HD V rectangle_sum(const Sat& sat, int lo_m, int lo_n, int m0, int m1, int n0, int n1) {
  const V zero{};
  const V a = sat(m1, n1);
  const V b = m0 > lo_m ? sat(m0 - 1, n1) : zero;
  const V c = n0 > lo_n ? sat(m1, n0 - 1) : zero;
  const V d = m0 > lo_m && n0 > lo_n ? sat(m0 - 1, n0 - 1) : zero;
  return a - b - c + d;
}

}  // namespace efield::detail
