// efield._efield: the C++ side of the Python package (python/efield wraps it).
#include <pybind11/pybind11.h>

#include <pybind11/stl.h>

#include "array_view.hpp"
#include "bindings.hpp"
#include "cuda_device.hpp"
#include "efield/device.hpp"
#include "efield/error.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_efield, m) {
  m.doc() = "efield's C++ library: transforms, the electrostatic system, Bookshelf designs";
  // Every efield::Error reaches Python as efield.Error, a ValueError.
  py::register_exception<efield::Error>(m, "Error", PyExc_ValueError);
  m.def("built_with_cuda", &efield::built_with_cuda, "True when the library has the CUDA backend");
  m.def("cuda_device_count", &efield::cuda_device_count, "Usable CUDA devices (0 without CUDA or a driver)");
  m.def("current_device", &efield::python::current_device, "The current CUDA device (-1 without CUDA)");
  m.def(
      "array_info",
      [](py::handle x) {
        const efield::python::ArrayView v = efield::python::view_array(x, "x", 0);
        return py::make_tuple(py::tuple(py::cast(v.shape)), v.dtype_name, v.device);
      },
      py::arg("x"), "(shape, dtype name, device) of any array, as the extension reads it (device -1: host)");
  efield::python::bind_transforms(m);
  efield::python::bind_system(m);
  efield::python::bind_system3d(m);
  efield::python::bind_bookshelf(m);
  efield::python::bind_placement(m);
  efield::python::bind_build_config(m);
  efield::python::bind_multi_field(m);
}
