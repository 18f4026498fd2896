#pragma once
// Conversions shared by the bindings: fixed cells and fences from NumPy arrays, the gradient
// scale's name, a row-major map to NumPy.
#include <pybind11/numpy.h>

#include <algorithm>
#include <string>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "efield/fence_region.hpp"
#include "array_view.hpp"
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

// A PlanEffort from its Python spelling; `option` names the argument in the error.
inline PlanEffort parse_plan_effort(const std::string& name, const char* option = "plan_effort") {
  if (name == "estimate") return PlanEffort::Estimate;
  if (name == "measure") return PlanEffort::Measure;
  throw pybind11::value_error(std::string(option) + " must be 'estimate' or 'measure' (got '" + name + "')");
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

// One array of an evaluate, read from the caller's object and checked: dtype, device, C order,
// writable (gradients), one dimension of at least `required` entries (`need` says what they hold,
// for the message).
inline ArrayView view_evaluate_array(pybind11::handle object, const char* name, bool writable, std::uintptr_t stream,
                                     DType dtype, int device, std::int64_t required, const std::string& need) {
  ArrayView v = view_array(object, name, stream);
  require_float(v, name, dtype);
  require_device(v, name, device);
  require_contiguous(v, name);
  if (writable) require_writable(v, name);
  if (v.shape.size() != 1)
    throw pybind11::value_error(std::string(name) + " must be one-dimensional (got shape " + v.shape_string() + ")");
  if (v.size() < required)
    throw pybind11::value_error(std::string(name) + " has " + std::to_string(v.size()) + " entries; the system needs " +
                                std::to_string(required) + " (" + need + ")");
  return v;
}

// The array copy_result writes a system's result values into: float64, on the system's CUDA
// device, C order, writable, at least `values` entries.
inline ArrayView view_result_array(pybind11::handle out, std::uintptr_t stream, int device, int values) {
  if (device < 0) throw pybind11::value_error("the result array is for CUDA systems (this one runs on the CPU)");
  ArrayView v = view_array(out, "out", stream);
  require_float(v, "out", DType::Float64);
  require_device(v, "out", device);
  require_contiguous(v, "out");
  require_writable(v, "out");
  if (v.size() < values) throw pybind11::value_error("out needs at least " + std::to_string(values) + " entries");
  return v;
}

// profile_stages' medians as the bindings' `profile` returns them.
inline pybind11::dict stage_times_dict(const StageTimes& t) {
  pybind11::dict d;
  d["rasterize_ms"] = t.rasterize_ms, d["forward_fft_ms"] = t.forward_fft_ms, d["spectral_ms"] = t.spectral_ms;
  d["inverse_fft_ms"] = t.inverse_fft_ms, d["gather_ms"] = t.gather_ms, d["total_ms"] = t.total_ms;
  return d;
}

// The four arrays of an evaluate (x, y, grad_x, grad_y), each checked by view_evaluate_array.
inline void view_evaluate_arrays(ArrayView (&views)[4], pybind11::handle x, pybind11::handle y, pybind11::handle gx,
                                 pybind11::handle gy, std::uintptr_t stream, DType dtype, int device,
                                 std::int64_t required, const std::string& need) {
  const char* names[4] = {"x", "y", "grad_x", "grad_y"};
  const pybind11::handle objects[4] = {x, y, gx, gy};
  for (int i = 0; i < 4; ++i)
    views[i] = view_evaluate_array(objects[i], names[i], i >= 2, stream, dtype, device, required, need);
}

}  // namespace efield::python
