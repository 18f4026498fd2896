// Filler cells (docs/math.md "Fillers") and the default bin grid (RePlAce/DREAMPlace rule).
#include "efield/placement_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "efield/error.hpp"
#include "electrostatics/placement_checks.hpp"

namespace efield {
using detail::check_movable;
using detail::check_region;
using detail::check_td;

CellSizes FillerSpec::sizes() const {
  CellSizes s;
  s.widths.assign(static_cast<size_t>(count), width);
  s.heights.assign(static_cast<size_t>(count), height);
  return s;
}

FillerSpec make_fillers(const CellSizes& movable, const FixedCells& fixed, double xl, double yl, double xh,
                        double yh, double target_density, double row_height) {
  const char* who = "make_fillers";
  check_region(who, xl, yl, xh, yh);
  check_movable(who, movable);
  check_td(who, target_density);
  if (!std::isfinite(row_height)) throw Error("make_fillers: row_height is not finite");
  const size_t nf = fixed.widths.size();
  if (fixed.heights.size() != nf || fixed.x.size() != nf || fixed.y.size() != nf)
    throw Error("make_fillers: fixed cells need widths, heights, x and y of one count");

  // Width: DREAMPlace's rule (docs/math.md "Fillers"): the mean of the sorted widths at indices
  // [int(0.05 n), int(0.95 n)), an index slice, so ties at its ends are cut by position. With fewer
  // than two cells that slice is empty, and the mean of all widths stands in for it.
  std::vector<double> sorted = movable.widths;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  size_t first = static_cast<size_t>(static_cast<double>(n) * 0.05);
  size_t last = static_cast<size_t>(static_cast<double>(n) * 0.95);
  if (first >= last) first = 0, last = n;
  double sum = 0;
  for (size_t i = first; i < last; ++i) sum += sorted[i];
  FillerSpec spec;
  spec.width = sum / static_cast<double>(last - first);
  if (row_height > 0) {
    spec.height = row_height;
  } else {
    double hs = 0;
    for (double h : movable.heights) hs += h;
    spec.height = hs / static_cast<double>(n);
  }
  double movable_area = 0;
  for (size_t i = 0; i < n; ++i) movable_area += movable.widths[i] * movable.heights[i];
  const double fixed_area = detail::fixed_area_inside(fixed, xl, yl, xh, yh);
  const double region_area = (xh - xl) * (yh - yl);
  spec.total_area = std::max(target_density * (region_area - fixed_area) - movable_area, 0.0);
  // An ElectrostaticSystem takes at most 2^31 - 1 movable and filler cells; beyond that (or when
  // the region's area overflows) llround's result would be meaningless.
  const double wanted = spec.total_area / (spec.width * spec.height);
  const double most = 2147483647.0 - static_cast<double>(n);
  if (!(wanted <= most))
    throw Error("make_fillers: the region [" + std::to_string(xl) + ", " + std::to_string(xh) + ") x [" +
                std::to_string(yl) + ", " + std::to_string(yh) + ") needs a filler count of " + std::to_string(wanted) +
                " (total filler area " + std::to_string(spec.total_area) + " over fillers of " +
                std::to_string(spec.width) + " x " + std::to_string(spec.height) + "), more than the " +
                std::to_string(static_cast<long long>(most)) + " an ElectrostaticSystem takes beside " +
                std::to_string(n) + " movable cells (2^31 - 1 cells in all)");
  spec.count = static_cast<std::int64_t>(std::llround(wanted));
  return spec;
}

BinGrid default_bin_grid(const CellSizes& movable, double xl, double yl, double xh, double yh,
                         double target_density) {
  const char* who = "default_bin_grid";
  check_region(who, xl, yl, xh, yh);
  check_movable(who, movable);
  check_td(who, target_density);
  double area = 0;
  for (size_t i = 0; i < movable.widths.size(); ++i) area += movable.widths[i] * movable.heights[i];
  const double avg = area / static_cast<double>(movable.widths.size());
  const double W = xh - xl, H = yh - yl;
  const double ideal_count = W * H / (avg / target_density);
  // RePlAce: the largest power of two n with n^2 <= K, within [2, 4096].
  long long n = 2;
  while (n < 4096 && static_cast<double>(2 * n) * static_cast<double>(2 * n) <= ideal_count) n *= 2;
  const int r = static_cast<int>(std::lround(std::log2(W / H)));
  const int up = (r >= 0) ? (r + 1) / 2 : -((-r) / 2);    // ceil(r / 2)
  const int down = (r >= 0) ? r / 2 : -((-r + 1) / 2);    // floor(r / 2)
  const auto scaled = [](long long base, int shift) {
    double v = std::ldexp(static_cast<double>(base), shift);
    return static_cast<int>(std::min(4096.0, std::max(1.0, v)));
  };
  BinGrid g;
  g.num_bins_x = scaled(n, up);
  g.num_bins_y = scaled(n, -down);
  return g;
}

}  // namespace efield
