#pragma once
// One function per part of the module efield._efield (module.cpp calls them in turn).
#include <pybind11/pybind11.h>

namespace efield::python {

void bind_transforms(pybind11::module_& m);
void bind_system(pybind11::module_& m);
void bind_system3d(pybind11::module_& m);
void bind_bookshelf(pybind11::module_& m);
void bind_placement(pybind11::module_& m);
void bind_build_config(pybind11::module_& m);
void bind_multi_field(pybind11::module_& m);

}  // namespace efield::python
