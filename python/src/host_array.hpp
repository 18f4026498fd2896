#pragma once
// Construction-time inputs (cell sizes, fixed cells) arrive as float64 NumPy arrays: the Python
// layer converts whatever the caller passed, once; they are copied into the library's vectors.
#include <pybind11/numpy.h>

#include <cstdint>
#include <vector>

namespace efield::python {

using HostArray = pybind11::array_t<double, pybind11::array::c_style | pybind11::array::forcecast>;

inline std::vector<double> to_vector(const HostArray& a) { return std::vector<double>(a.data(), a.data() + a.size()); }

// A per-cell mask (CellSizes::movable_macro_mask) as uint8 NumPy array; the Python layer checks
// the caller's dtype first (bool expected).
using HostMask = pybind11::array_t<std::uint8_t, pybind11::array::c_style | pybind11::array::forcecast>;

inline std::vector<std::uint8_t> to_mask(const HostMask& a) {
  return std::vector<std::uint8_t>(a.data(), a.data() + a.size());
}

}  // namespace efield::python
