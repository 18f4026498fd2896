// Fillers of a 3D design (docs/math.md 4.11): width and height by make_fillers' rule, the depth
// the caller's (a tier's) or the mean movable depth, the count from the free volume.
#include <cmath>
#include <string>

#include "efield/electrostatic_system3d.hpp"
#include "efield/error.hpp"
#include "efield/placement_helpers.hpp"

namespace efield {

CellSizes3D FillerSpec3D::sizes() const {
  CellSizes3D s;
  s.widths.assign(static_cast<std::size_t>(count), width);
  s.heights.assign(static_cast<std::size_t>(count), height);
  s.depths.assign(static_cast<std::size_t>(count), depth);
  return s;
}

FillerSpec3D make_fillers_3d(const CellSizes3D& movable, const FixedCells3D& fixed, double xl, double yl, double zl,
                             double xh, double yh, double zh, double target_density, double height, double depth) {
  const std::string who = "make_fillers_3d";
  if (!std::isfinite(zl) || !std::isfinite(zh) || !(zh > zl))
    throw Error(who + ": region [" + std::to_string(zl) + ", " + std::to_string(zh) +
                ") along z is empty or not finite");
  if (!std::isfinite(height) || !std::isfinite(depth)) throw Error(who + ": height or depth is not finite");
  const std::size_t n = movable.widths.size();
  if (movable.heights.size() != n || movable.depths.size() != n)
    throw Error(who + ": movable widths, heights and depths differ in count");
  const std::size_t nf = fixed.widths.size();
  if (fixed.heights.size() != nf || fixed.depths.size() != nf || fixed.x.size() != nf || fixed.y.size() != nf ||
      fixed.z.size() != nf)
    throw Error(who + ": fixed cells need widths, heights, depths, x, y and z of one count");
  // Width, height and the checks of the 2D rule (region in x and y, movable sizes, td).
  const FillerSpec plane = make_fillers(CellSizes{movable.widths, movable.heights}, FixedCells{}, xl, yl, xh, yh,
                                        target_density, height);
  double movable_volume = 0, depth_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = movable.depths[i];
    if (!std::isfinite(d) || d <= 0)
      throw Error(who + ": movable cell " + std::to_string(i) + " has depth " + std::to_string(d) +
                  " (must be finite and > 0)");
    movable_volume += movable.widths[i] * movable.heights[i] * d;
    depth_sum += d;
  }
  FillerSpec3D spec;
  spec.width = plane.width;
  spec.height = plane.height;
  spec.depth = depth > 0 ? depth : depth_sum / static_cast<double>(n);
  if (!(spec.depth > 0 && spec.depth <= zh - zl))
    throw Error(who + ": filler depth " + std::to_string(spec.depth) + " is outside (0, " + std::to_string(zh - zl) +
                "] (the region's depth)");
  // Fixed volume inside the region: per fixed cell, the part of it inside (overlaps counted per cell).
  double fixed_inside = 0;
  for (std::size_t i = 0; i < nf; ++i) {
    const double ox = std::fmin(fixed.x[i] + fixed.widths[i], xh) - std::fmax(fixed.x[i], xl);
    const double oy = std::fmin(fixed.y[i] + fixed.heights[i], yh) - std::fmax(fixed.y[i], yl);
    const double oz = std::fmin(fixed.z[i] + fixed.depths[i], zh) - std::fmax(fixed.z[i], zl);
    if (std::isfinite(ox) && std::isfinite(oy) && std::isfinite(oz) && ox > 0 && oy > 0 && oz > 0)
      fixed_inside += ox * oy * oz;
  }
  const double region = (xh - xl) * (yh - yl) * (zh - zl);
  spec.total_volume = std::fmax(target_density * (region - fixed_inside) - movable_volume, 0.0);
  const double wanted = spec.total_volume / (spec.width * spec.height * spec.depth);
  const double most = 2147483647.0 - static_cast<double>(n);
  if (!(wanted <= most))
    throw Error(who + ": the region needs " + std::to_string(wanted) + " fillers of " + std::to_string(spec.width) +
                " x " + std::to_string(spec.height) + " x " + std::to_string(spec.depth) + ", more than the " +
                std::to_string(static_cast<long long>(most)) + " a system takes beside the movable cells");
  spec.count = static_cast<std::int64_t>(std::llround(wanted));
  return spec;
}

}  // namespace efield
