#pragma once
// Internal: the input checks shared by the filler and bin-grid helpers (placement_helpers.cpp,
// region_fillers.cpp).
#include <cmath>
#include <string>

#include "efield/electrostatic_system.hpp"
#include "efield/error.hpp"

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

}  // namespace efield::detail
