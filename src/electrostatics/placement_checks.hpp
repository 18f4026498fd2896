#pragma once
// Internal: the input checks (and the fixed area inside the region) shared by the filler and bin-grid helpers (placement_helpers.cpp,
// region_fillers.cpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"
#include "efield/fence_region.hpp"

namespace efield::detail {

inline void check_region(const char* who, double xl, double yl, double xh, double yh) {
  if (!std::isfinite(xl) || !std::isfinite(yl) || !std::isfinite(xh) || !std::isfinite(yh) || !(xh > xl) ||
      !(yh > yl))
    throw Error(std::string(who) + ": region [" + std::to_string(xl) + ", " + std::to_string(xh) + ") x [" +
                std::to_string(yl) + ", " + std::to_string(yh) + ") is empty or not finite");
}

inline void check_movable(const char* who, const CellSizes& movable) {
  if (movable.widths.empty()) throw Error(std::string(who) + ": no movable cells");
  if (movable.widths.size() != movable.heights.size())
    throw Error(std::string(who) + ": movable widths and heights differ in count");
  for (size_t i = 0; i < movable.widths.size(); ++i) {
    const double w = movable.widths[i], h = movable.heights[i];
    if (!std::isfinite(w) || !std::isfinite(h) || w <= 0 || h <= 0)
      throw Error(std::string(who) + ": movable cell " + std::to_string(i) + " has size " + std::to_string(w) +
                  " x " + std::to_string(h) + " (sizes must be finite and > 0)");
  }
}

inline void check_td(const char* who, double td) {
  if (!(td > 0 && td <= 1))
    throw Error(std::string(who) + ": target_density " + std::to_string(td) + " is outside (0, 1]");
}

// Sum over fixed cells of the area of each cell's part inside the region (overlaps between fixed
// cells counted once per cell: make_fillers' rule); non-finite parts count nothing.
inline double fixed_area_inside(const FixedCells& fixed, double xl, double yl, double xh, double yh) {
  double area = 0;
  for (size_t i = 0; i < fixed.widths.size(); ++i) {
    const double ox = std::min(fixed.x[i] + fixed.widths[i], xh) - std::max(fixed.x[i], xl);
    const double oy = std::min(fixed.y[i] + fixed.heights[i], yh) - std::max(fixed.y[i], yl);
    if (std::isfinite(ox) && std::isfinite(oy) && ox > 0 && oy > 0) area += ox * oy;
  }
  return area;
}

// Fences: each with rectangles, none empty or non-finite, all inside the region, none overlapping
// another (within a fence or across fences). region_fillers.cpp.
void check_fences(const char* who, const std::vector<FenceRegion>& fences, double xl, double yl, double xh, double yh);

}  // namespace efield::detail
