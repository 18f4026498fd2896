// The limits of the pipeline's numbers (precision_limits.hpp). Each check mirrors a quantity a
// later evaluate computes in the precision T of the pipeline, CPU and CUDA alike:
//   - region bounds and bin sides become T (CellGeometry): they must be finite, normal T values;
//   - a bin's area A = bx by: contributions are accumulated in fixed point, scaled by 2^bits / A
//     (bits = FixedPointBits<T>: 32 in float, 40 in double), and a stretched small cell has the
//     area 2 A; both must be finite T, so A lies in [2^bits / max(T), max(T) / 2]. In float that
//     is about [1.3e-29, 1.7e38]; outside it the float pipeline returned densities off by 2^32;
//   - the spectral step's wavenumbers (2 pi v / N)(bx / by), v = 1..N/2, and their squares and
//     reciprocals must stay finite and nonzero: the wavenumbers are kept within [2^-32, 2^32];
//   - each cell's area w h and stretched area w' h' in T (the charge is w h / (w' h'): an overflow
//     gives inf / inf = NaN gradients), and the total movable area in double;
//   - each kind's total cell area in bin areas, whose part outside the region is summed in 64-bit
//     fixed point (outside_fixed_point): at most 2^41 bin areas.
#include "electrostatics/precision_limits.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "electrostatics/pipeline_setup.hpp"
#include "math/density.hpp"

namespace efield::detail {
namespace {

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

template <typename T>
const char* type_name() {
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

// The advice every limit's message ends with.
template <typename T>
std::string remedy() {
  return sizeof(T) == sizeof(float)
             ? "; scale the coordinates (for example to units of a placement site) or use Precision::Double"
             : "; scale the coordinates (for example to units of a placement site)";
}

template <typename T>
bool within_t(double v) {
  return std::fabs(v) <= static_cast<double>(std::numeric_limits<T>::max());
}

template <typename T>
void check_region_and_bins(const ElectrostaticDesign& d) {
  const ElectrostaticOptions& o = d.options;
  const char* t = type_name<T>();
  const std::string region =
      "region [" + num(o.xl) + ", " + num(o.xh) + ") x [" + num(o.yl) + ", " + num(o.yh) + ")";
  const double width = o.xh - o.xl, height = o.yh - o.yl;
  if (!std::isfinite(width) || !std::isfinite(height))
    throw Error("ElectrostaticSystem: " + region + " is " + (std::isfinite(width) ? "taller" : "wider") +
                " than double can hold (xh - xl = " + num(width) + ", yh - yl = " + num(height) + ")" +
                remedy<T>());
  for (const double v : {o.xl, o.xh, o.yl, o.yh, width, height})
    if (!within_t<T>(v))
      throw Error("ElectrostaticSystem: " + region + " has a bound or side (" + num(v) + ") beyond the range of " +
                  t + " (" + num(std::numeric_limits<T>::max()) + ")" + remedy<T>());
  const double smallest = std::numeric_limits<T>::min();
  if (!(d.bx >= smallest && d.by >= smallest))
    throw Error("ElectrostaticSystem: bins of " + num(d.bx) + " x " + num(d.by) + " (" + region + " over " +
                std::to_string(o.num_bins_x) + " x " + std::to_string(o.num_bins_y) +
                " bins) are smaller than the smallest normal " + t + " (" + num(smallest) + ")" + remedy<T>());
  const double area = d.bx * d.by;
  const double area_lo = std::ldexp(1.0, FixedPointBits<T>::value) / std::numeric_limits<T>::max();
  const double area_hi = std::numeric_limits<T>::max() / 2;
  if (!(area >= area_lo && area <= area_hi))
    throw Error("ElectrostaticSystem: the bin area bx * by = " + num(d.bx) + " * " + num(d.by) + " = " + num(area) +
                " is outside [" + num(area_lo) + ", " + num(area_hi) + "], the range where the " + t +
                " pipeline's fixed-point density (2^" + std::to_string(FixedPointBits<T>::value) +
                " / (bx by) per bin area) and its stretched cells (2 bx by) are representable" + remedy<T>());
  const int N = o.num_bins_y;
  if (N >= 2) {
    const double pi = 3.14159265358979323846;
    const double ratio = d.bx / d.by;
    const double lowest = 2.0 * pi / N * ratio, highest = pi * ratio;
    const double lo = std::ldexp(1.0, -32), hi = std::ldexp(1.0, 32);
    if (!(lowest >= lo && highest <= hi))
      throw Error("ElectrostaticSystem: bins of " + num(d.bx) + " x " + num(d.by) + " (aspect ratio bx / by = " +
                  num(ratio) + ", " + std::to_string(N) +
                  " bins along y) put the spectral step's wavenumbers (2 pi v / N)(bx / by) at [" + num(lowest) +
                  ", " + num(highest) + "], outside [2^-32, 2^32] where they and their squares stay finite and "
                  "nonzero; choose num_bins_x / num_bins_y closer to the region's width / height");
  }
}

template <typename T>
void check_cells(const ElectrostaticDesign& d, const CellSizes& cells, const char* what) {
  const CellGeometry<T> g = make_cell_geometry<T>(d);
  const char* t = type_name<T>();
  for (std::size_t i = 0; i < cells.widths.size(); ++i) {
    const double w = cells.widths[i], h = cells.heights[i];
    const auto fail = [&](const std::string& problem) {
      throw Error("ElectrostaticSystem: " + std::string(what) + " cell " + std::to_string(i) + " has size " + num(w) +
                  " x " + num(h) + ": " + problem + remedy<T>());
    };
    if (!within_t<T>(w) || !within_t<T>(h)) fail(std::string("a side beyond the range of ") + t);
    const T wt = static_cast<T>(w), ht = static_cast<T>(h);
    const StretchedCell<T> s = stretch_cell(T(0), T(0), wt, ht, g.min_w, g.min_h, false, T(1));  // r = w h / (w' h')
    if (!std::isfinite(wt * ht) || !std::isfinite(s.x.size * s.y.size))
      fail(std::string("its area overflows ") + t + " (the charge w h / (w' h') of its stretched footprint would be "
           "inf / inf)");
  }
}

}  // namespace

void check_option_enums(const ElectrostaticOptions& o) {
  if (o.precision != Precision::Float && o.precision != Precision::Double)
    throw Error("ElectrostaticSystem: precision " + std::to_string(static_cast<int>(o.precision)) +
                " is not a Precision (Float or Double)");
  if (o.backend != Backend::Auto && o.backend != Backend::Cpu && o.backend != Backend::Cuda)
    throw Error("ElectrostaticSystem: backend " + std::to_string(static_cast<int>(o.backend)) +
                " is not a Backend (Auto, Cpu or Cuda)");
  if (o.gradient_scale != GradientScale::DreamPlace && o.gradient_scale != GradientScale::Exact)
    throw Error("ElectrostaticSystem: gradient_scale " + std::to_string(static_cast<int>(o.gradient_scale)) +
                " is not a GradientScale (DreamPlace or Exact)");
  if (o.plan_effort != PlanEffort::Estimate && o.plan_effort != PlanEffort::Measure)
    throw Error("ElectrostaticSystem: plan_effort " + std::to_string(static_cast<int>(o.plan_effort)) +
                " is not a PlanEffort (Estimate or Measure)");
}

void check_cell_sizes_in_precision(const ElectrostaticDesign& d, const CellSizes& cells, const char* what) {
  if (d.options.precision == Precision::Float) check_cells<float>(d, cells, what);
  else check_cells<double>(d, cells, what);
  // The area outside the region is summed per kind in 64-bit fixed point with
  // kOutsideFractionBits fraction bits, in bin areas; a cell's outside area is at most its own
  // area (up to rounding, covered by the factor 4 of headroom).
  double area = 0;
  for (std::size_t i = 0; i < cells.widths.size(); ++i) area += cells.widths[i] * cells.heights[i];
  const double bins = area / (d.bx * d.by);
  const double limit = std::ldexp(1.0, 61 - kOutsideFractionBits);
  if (!(bins <= limit))
    throw Error("ElectrostaticSystem: the " + std::string(what) + " cells' total area is " + num(bins) +
                " bin areas, more than 2^" + std::to_string(61 - kOutsideFractionBits) +
                " (the fixed-point sum of their area outside the region would overflow); use larger bins or "
                "scale the cell sizes");
}

void check_precision_limits(const ElectrostaticDesign& d) {
  if (d.options.precision == Precision::Float) check_region_and_bins<float>(d);
  else check_region_and_bins<double>(d);
  check_cell_sizes_in_precision(d, d.movable, "movable");
  check_cell_sizes_in_precision(d, d.fillers, "filler");
  if (!std::isfinite(d.movable_area))
    throw Error("ElectrostaticSystem: the total area of the movable cells overflows double; scale the coordinates");
}

}  // namespace efield::detail
