#pragma once
// The maps and sizes both electrostatic-system bindings (2D and 3D) expose alike. Wrapper is the
// binding's class (map(), device(), dtype(), required_length(), system()); Sys the C++ system.
#include <pybind11/pybind11.h>

namespace efield::python {

template <typename Wrapper, typename Sys, typename PyClass>
void def_system_accessors(PyClass& c) {
  c.def("density_map", [](Wrapper& s) { return s.map(&Sys::density_map); })
      .def("field_x_map", [](Wrapper& s) { return s.map(&Sys::field_x_map); })
      .def("field_y_map", [](Wrapper& s) { return s.map(&Sys::field_y_map); })
      .def("potential_map", [](Wrapper& s) { return s.map(&Sys::potential_map); })
      .def("fixed_map", [](Wrapper& s) { return s.map(&Sys::fixed_map); })
      .def_property_readonly("device", &Wrapper::device)
      .def_property_readonly("dtype", &Wrapper::dtype)
      .def_property_readonly("required_length", &Wrapper::required_length)
      .def_property_readonly("num_movable", [](const Wrapper& s) { return s.system().num_movable(); })
      .def_property_readonly("num_fillers", [](const Wrapper& s) { return s.system().num_fillers(); })
      .def_property_readonly("num_fixed", [](const Wrapper& s) { return s.system().num_fixed(); })
      .def_property_readonly("filler_offset", [](const Wrapper& s) { return s.system().options().filler_offset; })
      .def_property_readonly("bin_width", [](const Wrapper& s) { return s.system().bin_width(); })
      .def_property_readonly("bin_height", [](const Wrapper& s) { return s.system().bin_height(); })
      .def_property_readonly("num_bins_x", [](const Wrapper& s) { return s.system().options().num_bins_x; })
      .def_property_readonly("num_bins_y", [](const Wrapper& s) { return s.system().options().num_bins_y; });
}

}  // namespace efield::python
