#pragma once
// Conversions shared by the bindings: fixed cells and fences from NumPy arrays, the gradient
// scale's name, a row-major map to NumPy.
#include <pybind11/numpy.h>

#include <algorithm>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/fence_region.hpp"
#include "host_array.hpp"

namespace efield::python {

inline pybind11::array_t<double> to_numpy(const std::vector<double>& v, int rows, int cols) {
  pybind11::array_t<double> a({static_cast<pybind11::ssize_t>(rows), static_cast<pybind11::ssize_t>(cols)});
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

inline FixedCells fixed_cells(const HostArray& w, const HostArray& h, const HostArray& x, const HostArray& y) {
  return FixedCells{to_vector(w), to_vector(h), to_vector(x), to_vector(y)};
}

inline GradientScale parse_gradient_scale(const std::string& name) {
  if (name == "dreamplace") return GradientScale::DreamPlace;
  if (name == "exact") return GradientScale::Exact;
  throw pybind11::value_error("gradient_scale must be 'dreamplace' or 'exact' (got '" + name + "')");
}

// K arrays of shape (rects, 4), rows (xl, yl, xh, yh).
inline std::vector<FenceRegion> fence_regions(const std::vector<HostArray>& fences) {
  std::vector<FenceRegion> regions(fences.size());
  for (std::size_t k = 0; k < fences.size(); ++k) {
    if (fences[k].ndim() != 2 || fences[k].shape(1) != 4)
      throw pybind11::value_error("fences[" + std::to_string(k) + "] must be an array of shape (rects, 4)");
    const double* p = fences[k].data();
    for (pybind11::ssize_t j = 0; j < fences[k].shape(0); ++j, p += 4)
      regions[k].rects.push_back(Rect{p[0], p[1], p[2], p[3]});
  }
  return regions;
}

}  // namespace efield::python
