// Validation of the electrostatic system's inputs and the fixed-cell map (computed once, in
// double, on the host: it depends on nothing that moves).
#include <algorithm>
#include <cmath>
#include <string>

#include "common/cpu_threads.hpp"
#include "electrostatics/backend.hpp"
#include "electrostatics/precision_limits.hpp"
#include "math/density.hpp"

namespace efield::detail {
namespace {

std::string num(double v) { return std::to_string(v); }

void check_sizes(const CellSizes& cells, const char* what) {
  if (cells.widths.size() != cells.heights.size())
    throw Error(std::string("ElectrostaticSystem: ") + what + " widths (" + std::to_string(cells.widths.size()) +
                ") and heights (" + std::to_string(cells.heights.size()) + ") differ in count");
  for (size_t i = 0; i < cells.widths.size(); ++i) {
    const double w = cells.widths[i], h = cells.heights[i];
    if (!std::isfinite(w) || !std::isfinite(h) || w <= 0 || h <= 0)
      throw Error(std::string("ElectrostaticSystem: ") + what + " cell " + std::to_string(i) +
                  " has size " + num(w) + " x " + num(h) + " (sizes must be finite and > 0)");
  }
}

// The movable-macro mask: one entry per movable cell or none; fillers take none.
void check_macro_mask(const CellSizes& cells, const char* what, bool movable) {
  const std::size_t n = cells.movable_macro_mask.size();
  if (!movable && n != 0)
    throw Error(std::string("ElectrostaticSystem: ") + what + " cells have a movable_macro_mask (" +
                std::to_string(n) + " entries); only movable cells take one");
  if (n != 0 && n != cells.widths.size())
    throw Error(std::string("ElectrostaticSystem: movable_macro_mask has ") + std::to_string(n) + " entries for " +
                std::to_string(cells.widths.size()) + " movable cells (need one per cell, or none)");
}

}  // namespace

bool ElectrostaticDesign::has_movable_macros() const {
  if (!(options.target_density < 1.0)) return false;
  const std::vector<std::uint8_t>& mask = movable.movable_macro_mask;
  return std::any_of(mask.begin(), mask.end(), [](std::uint8_t v) { return v != 0; });
}

double ElectrostaticDesign::width(std::int64_t c) const {
  return c < num_movable() ? movable.widths[c] : fillers.widths[c - num_movable()];
}
double ElectrostaticDesign::height(std::int64_t c) const {
  return c < num_movable() ? movable.heights[c] : fillers.heights[c - num_movable()];
}

void validate_fixed_cells(const FixedCells& fixed) {
  const size_t n = fixed.widths.size();
  if (fixed.heights.size() != n || fixed.x.size() != n || fixed.y.size() != n)
    throw Error("ElectrostaticSystem: fixed cells need widths, heights, x and y of one count (got " +
                std::to_string(n) + ", " + std::to_string(fixed.heights.size()) + ", " +
                std::to_string(fixed.x.size()) + ", " + std::to_string(fixed.y.size()) + ")");
  check_sizes(CellSizes{fixed.widths, fixed.heights}, "fixed");
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(fixed.x[i]) || !std::isfinite(fixed.y[i]))
      throw Error("ElectrostaticSystem: fixed cell " + std::to_string(i) + " has a non-finite position (" +
                  num(fixed.x[i]) + ", " + num(fixed.y[i]) + ")");
}

ElectrostaticDesign make_design(const ElectrostaticOptions& options, const CellSizes& movable,
                                const CellSizes& fillers, const FixedCells& fixed) {
  const ElectrostaticOptions& o = options;
  check_option_enums(o);
  if (!std::isfinite(o.xl) || !std::isfinite(o.yl) || !std::isfinite(o.xh) || !std::isfinite(o.yh) ||
      !(o.xh > o.xl) || !(o.yh > o.yl))
    throw Error("ElectrostaticSystem: region [" + num(o.xl) + ", " + num(o.xh) + ") x [" + num(o.yl) + ", " +
                num(o.yh) + ") is empty or not finite (need xh > xl and yh > yl)");
  if (o.num_bins_x < 1 || o.num_bins_y < 1)
    throw Error("ElectrostaticSystem: bin grid " + std::to_string(o.num_bins_x) + " x " +
                std::to_string(o.num_bins_y) + " (need num_bins_x >= 1 and num_bins_y >= 1)");
  if (static_cast<long long>(o.num_bins_x) * o.num_bins_y > (1LL << 28))
    throw Error("ElectrostaticSystem: bin grid " + std::to_string(o.num_bins_x) + " x " +
                std::to_string(o.num_bins_y) + " is larger than 2^28 bins");
  if (!(o.target_density > 0 && o.target_density <= 1))
    throw Error("ElectrostaticSystem: target_density " + num(o.target_density) + " is outside (0, 1]");
  check_cpu_threads(o.cpu_threads, "ElectrostaticSystem");
  check_sizes(movable, "movable");
  check_sizes(fillers, "filler");
  check_macro_mask(movable, "movable", true);
  check_macro_mask(fillers, "filler", false);
  validate_fixed_cells(fixed);
  const auto nm = static_cast<std::int64_t>(movable.widths.size());
  const auto nf = static_cast<std::int64_t>(fillers.widths.size());
  if (nm + nf > (1LL << 31) - 1)
    throw Error("ElectrostaticSystem: " + std::to_string(nm + nf) + " movable and filler cells (at most 2^31-1)");

  ElectrostaticDesign d;
  d.options = options;
  if (d.options.filler_offset < 0) {
    if (d.options.filler_offset != -1)
      throw Error("ElectrostaticSystem: filler_offset " + std::to_string(o.filler_offset) +
                  " (need -1 for 'after the movable cells', or an index >= num_movable)");
    d.options.filler_offset = nm;
  }
  if (d.options.filler_offset < nm)
    throw Error("ElectrostaticSystem: filler_offset " + std::to_string(d.options.filler_offset) +
                " overlaps the " + std::to_string(nm) + " movable cells (need filler_offset >= num_movable)");
  d.movable = movable;
  d.fillers = fillers;
  d.fixed = fixed;
  d.bx = (o.xh - o.xl) / o.num_bins_x;
  d.by = (o.yh - o.yl) / o.num_bins_y;
  if (!(d.bx > 0) || !(d.by > 0))
    throw Error("ElectrostaticSystem: bins of size " + num(d.bx) + " x " + num(d.by) + " (region too small)");
  d.movable_area = total_area(movable);
  check_precision_limits(d);
  return d;
}

double total_area(const CellSizes& cells) {
  double area = 0;
  for (size_t i = 0; i < cells.widths.size(); ++i) area += cells.widths[i] * cells.heights[i];
  return area;
}

void replace_cell_sizes(ElectrostaticDesign& design, const CellSizes* movable, const CellSizes* fillers) {
  const auto same_count = [](const CellSizes& now, const CellSizes& given, const char* what) {
    if (given.widths.size() != now.widths.size() || given.heights.size() != now.widths.size())
      throw Error(std::string("ElectrostaticSystem::update_") + what + "_sizes: " +
                  std::to_string(given.widths.size()) + " widths and " + std::to_string(given.heights.size()) +
                  " heights given for " + std::to_string(now.widths.size()) + " " + what +
                  " cells (the count cannot change; build a new system for that)");
  };
  if (movable) {
    same_count(design.movable, *movable, "movable");
    check_sizes(*movable, "movable");
    check_macro_mask(*movable, "movable", true);
    check_cell_sizes_in_precision(design, *movable, "movable");
    if (!std::isfinite(total_area(*movable)))
      throw Error("ElectrostaticSystem::update_movable_sizes: the total area of the movable cells overflows double");
  }
  if (fillers) {
    same_count(design.fillers, *fillers, "filler");
    check_sizes(*fillers, "filler");
    check_macro_mask(*fillers, "filler", false);
    check_cell_sizes_in_precision(design, *fillers, "filler");
  }
  if (movable) {
    design.movable = *movable;
    design.movable_area = total_area(design.movable);
  }
  if (fillers) design.fillers = *fillers;
}

template <typename T>
void validate_host_positions(const ElectrostaticDesign& design, const T* x, const T* y) {
  const std::int64_t nm = design.num_movable(), nc = design.num_cells();
  const std::int64_t fo = design.options.filler_offset;
  for (std::int64_t c = 0; c < nc; ++c) {
    const std::int64_t i = c < nm ? c : fo + (c - nm);
    if (!std::isfinite(static_cast<double>(x[i])) || !std::isfinite(static_cast<double>(y[i])))
      throw Error("ElectrostaticSystem::evaluate: " + std::string(c < nm ? "movable" : "filler") + " cell " +
                  std::to_string(c < nm ? c : c - nm) + " (array index " + std::to_string(i) +
                  ") has a non-finite position (" + num(static_cast<double>(x[i])) + ", " +
                  num(static_cast<double>(y[i])) + ")");
  }
}
template void validate_host_positions<float>(const ElectrostaticDesign&, const float*, const float*);
template void validate_host_positions<double>(const ElectrostaticDesign&, const double*, const double*);

std::vector<double> compute_fixed_map(const ElectrostaticDesign& d) {
  const int M = d.options.num_bins_x, N = d.options.num_bins_y;
  std::vector<double> F(static_cast<size_t>(M) * N, 0.0);
  const FixedCells& f = d.fixed;
  const BinWidth<double> wx = split_bin_width(d.bx, M), wy = split_bin_width(d.by, N);
  for (size_t i = 0; i < f.widths.size(); ++i) {
    // Unstretched, exact overlap (docs/math.md 2.3); the part outside the region is dropped.
    const double x0 = f.x[i] - d.options.xl, x1 = x0 + f.widths[i];
    const double y0 = f.y[i] - d.options.yl, y1 = y0 + f.heights[i];
    int m0, m1, n0, n1;
    bin_range(x0, x1, 1.0 / d.bx, M, &m0, &m1);
    bin_range(y0, y1, 1.0 / d.by, N, &n0, &n1);
    // Unstretched: the minimum size 0 leaves each side as it is.
    const double sx = side_start(stretch_axis(x0, f.widths[i], 0.0), m0, wx);
    const double sy = side_start(stretch_axis(y0, f.heights[i], 0.0), n0, wy);
    for (int m = m0; m <= m1; ++m) {
      const double ox = side_overlap(sx, f.widths[i], m - m0, d.bx);
      if (ox <= 0) continue;
      for (int n = n0; n <= n1; ++n)
        F[static_cast<size_t>(m) * N + n] += ox * side_overlap(sy, f.heights[i], n - n0, d.by);
    }
  }
  const double cap = d.bx * d.by, td = d.options.target_density;
  for (double& v : F) v = std::min(v, cap) * td;
  return F;
}

}  // namespace efield::detail
