#pragma once
// Per-cell density formulas of the electrostatic system (docs/math.md 2.1-2.3), shared by the CPU
// loops and the CUDA kernels. Coordinates are relative to the region's lower-left corner.
//
// NaN and Inf never produce an out-of-range bin: bin_range() clamps a NaN bin to the last one and
// side_overlap() turns a NaN overlap into 0, so such a cell contributes nothing. Both are written
// as comparisons (false for NaN), which compile to min/max instructions: fmin and fmax are
// library calls in an x86-64 build, and were a quarter of the CPU rasterize's instructions.
#include <cmath>
#include <cstdint>
#include <limits>

#include "math/host_device.hpp"

namespace efield::detail {

// One axis of docs/math.md 2.1 (and 4.1): a side of length `size` at `rel` widened around its
// centre to at least `min_size`. The stretched side starts at lo = at + shift; the overlaps take at
// and shift apart (side_start), since lo is rounded at the magnitude of the coordinate.
template <typename T>
struct StretchedAxis {
  T lo;     // at + shift, rounded (bin ranges, region tests)
  T size;   // the stretched length s = max(size, min_size)
  T at;     // the cell's own corner, relative to the region
  T shift;  // (size - s) / 2 <= 0: where the stretched side starts, relative to `at`
};
template <typename T>
EFIELD_HD StretchedAxis<T> stretch_axis(T rel, T size, T min_size) {
  StretchedAxis<T> a;
  a.size = size > min_size ? size : min_size;
  a.shift = (size - a.size) * T(0.5);
  a.at = rel;
  a.lo = rel + a.shift;
  return a;
}

template <typename T>
struct StretchedCell {
  StretchedAxis<T> x, y;  // the stretched footprint's axes, relative to (xl, yl)
  T charge;               // r = w h / (w' h')
};

// docs/math.md 2.1: a cell's density ratio r (the charge per unit of its stretched footprint).
// Normally its area over the stretched area, w h / (w' h'), so that its total charge stays w h.
// DREAMPlace's movable-macro rule: when td < 1 a movable macro gets r = td instead, so that it adds
// td per unit of its area and pushes no cell out of a halo around it; with td = 1 the rule is off.
template <typename T>
EFIELD_HD T density_ratio(T w, T h, T ws, T hs, bool movable_macro, T target_density) {
  return movable_macro && target_density < T(1) ? target_density : (w * h) / (ws * hs);
}

// docs/math.md 2.1: stretch to at least sqrt(2) bins on each axis, centred, with the charge scaled
// by density_ratio. min_w = sqrt(2) bx, min_h = sqrt(2) by.
template <typename T>
EFIELD_HD StretchedCell<T> stretch_cell(T rel_x, T rel_y, T w, T h, T min_w, T min_h, bool movable_macro,
                                        T target_density) {
  StretchedCell<T> c;
  c.x = stretch_axis(rel_x, w, min_w);
  c.y = stretch_axis(rel_y, h, min_h);
  c.charge = density_ratio(w, h, c.x.size, c.y.size, movable_macro, target_density);
  return c;
}

// fmax(0, v): v when v > 0, else 0 (NaN included).
template <typename T>
EFIELD_HD T positive_part(T v) {
  return v > T(0) ? v : T(0);
}

// The bins' width b along one axis, also as hi + lo = b with hi short enough (in significant
// bits) that m hi is exact in T for every bin index m of the axis; lo is then small.
template <typename T>
struct BinWidth {
  T b, hi, lo;
};
// Made once per grid (host): hi keeps digits(T) - bits(count - 1) significant bits of b.
template <typename T>
BinWidth<T> split_bin_width(T b, int count) {
  int bits = 0;
  while (bits < 30 && (1 << bits) < count) ++bits;  // m < count < 2^bits
  int e = 0;
  std::frexp(b, &e);  // b = f 2^e, f in [0.5, 1)
  const T unit = std::ldexp(T(1), e - (std::numeric_limits<T>::digits - bits));
  BinWidth<T> w;
  w.b = b;
  w.hi = std::floor(b / unit) * unit;  // exact: a multiple of unit with few digits
  w.lo = b - w.hi;                      // exact (Sterbenz)
  return w;
}

// docs/math.md 2.2, in two steps that never round at the magnitude of the coordinate. First, once
// per cell and axis, where the stretched side (StretchedAxis) starts relative to the lower edge of
// the first bin of its range: ((at - first hi) - first lo) + shift (at - first hi is exact near the
// bin, first hi exact by split_bin_width).
template <typename T>
EFIELD_HD T side_start(const StretchedAxis<T>& a, int first, const BinWidth<T>& w) {
  const T f = static_cast<T>(first);
  return ((a.at - f * w.hi) - f * w.lo) + a.shift;
}
// Then the length of the side (start from side_start, length size) inside the k-th bin of its
// range, of width b: d = start - k b is where the side starts relative to that bin, d + size where
// it ends, both at the magnitude of a bin. (Forming the side's start at + shift, its end or the
// edge m b in T instead rounds each by up to half an ulp of the coordinate: at 2000 bins, 1e-4 of a
// bin, the same for every cell of one size in one binade of the coordinate, a smooth bias of the
// charge that the energy and the fields weigh most: docs/performance.md, "Float32 accuracy".)
template <typename T>
EFIELD_HD T side_overlap(T start, T size, int k, T b) {
  const T d = start - static_cast<T>(k) * b;
  const T e = d + size;
  // min(b, e) - max(d, 0); a NaN d or e makes o NaN (the comparisons are false), and so 0.
  const T o = (b < e ? b : e) - (d > T(0) ? d : T(0));
  return positive_part(o);
}
// fmax(0, fmin(top, v)) for top >= 0: v clamped to [0, top], a NaN v becoming top.
template <typename T>
EFIELD_HD T clamp_to_bins(T v, T top) {
  return v < top ? positive_part(v) : top;
}

// First and last bin touched by [lo, hi), clamped to [0, count-1]; parts outside the region are
// dropped by side_overlap() returning 0 there. Robust to NaN/Inf (see the file comment).
// floor(v) clamped to [0, top] is v clamped to [0, top] and then truncated (the conversion to
// int): the same integer for every v, without floor (a dozen instructions on x86-64 without
// SSE4.1).
template <typename T>
EFIELD_HD void bin_range(T lo, T hi, T inv_b, int count, int* first, int* last) {
  const T top = static_cast<T>(count - 1);
  *first = static_cast<int>(clamp_to_bins(lo * inv_b, top));
  *last = static_cast<int>(clamp_to_bins(hi * inv_b, top));
}

// Deterministic accumulation: each contribution, in units of one bin's area (<= 1 per cell and
// bin since the overlap is at most bx * by and r <= 1), is rounded to a 64-bit integer with
// `fraction_bits` fractional bits, so the sum is exact and independent of the order.
//   float  pipeline: 32 bits -> resolution 2.3e-10 bin areas (below float's 6e-8 relative),
//                    headroom 2^31 full-bin contributions per bin.
//   double pipeline: 40 bits -> resolution 9.1e-13 bin areas, headroom 2^23 = 8.4 million
//                    full-bin contributions per bin, more than the 2.2 million cells of the
//                    largest ISPD design piled onto one bin.
template <typename T>
struct FixedPointBits;
template <>
struct FixedPointBits<float> {
  static constexpr int value = 32;
};
template <>
struct FixedPointBits<double> {
  static constexpr int value = 40;
};

// A float contribution keeps its 24 significant bits exactly (llrintf of a value scaled by a
// power of two); a double one is rounded at 2^-40.
EFIELD_HD std::int64_t to_fixed_point(float bin_fraction, float scale) {
  return static_cast<std::int64_t>(llrintf(bin_fraction * scale));
}
EFIELD_HD std::int64_t to_fixed_point(double bin_fraction, double scale) {
  return static_cast<std::int64_t>(llrint(bin_fraction * scale));
}

// One bin after accumulation (docs/math.md 2.4, 2.10), in units of the bin's area:
//   rho = (movable + filler charge) + F / (bx by);  movable_rho = movable charge + F / (bx by);
//   the bin's overflow = max(0, movable_rho - td) (times bx by / movable area, summed, gives the
//   overflow; max(movable_rho) is max_density).
template <typename T>
struct BinDensity {
  T rho;
  T movable_rho;
};
template <typename T>
EFIELD_HD BinDensity<T> bin_density(std::int64_t movable_acc, std::int64_t filler_acc, T fixed_rho, T inv_scale) {
  const T movable_rho = static_cast<T>(movable_acc) * inv_scale + fixed_rho;
  return {static_cast<T>(movable_acc + filler_acc) * inv_scale + fixed_rho, movable_rho};
}
// The same from charge already in bin areas (CUDA float with deterministic = false: floating-point
// atomics, no fixed point).
template <typename T>
EFIELD_HD BinDensity<T> bin_density(T movable_charge, T filler_charge, T fixed_rho) {
  return {movable_charge + filler_charge + fixed_rho, movable_charge + fixed_rho};
}
template <typename T>
EFIELD_HD T bin_overflow(T movable_rho, T target_density) {
  return movable_rho > target_density ? movable_rho - target_density : T(0);
}

}  // namespace efield::detail
