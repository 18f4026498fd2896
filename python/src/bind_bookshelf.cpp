// efield._efield.load_bookshelf and the synthetic designs: a design as NumPy arrays (a dict;
// python/efield/bookshelf.py wraps it). The netlist is efield::placement_netlist's view (CSR): net
// k's pins are pin_* [net_pin_start[k], net_pin_start[k+1]), offsets from the node's centre with
// its orientation applied; node i's pins are node_pins[node_pin_start[i] .. node_pin_start[i+1]).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "efield/bookshelf.hpp"
#include "efield/placement_netlist.hpp"
#include "efield/synthetic_design.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

template <typename T, typename Get>
py::array_t<T> column(std::size_t n, Get get) {
  py::array_t<T> a(static_cast<py::ssize_t>(n));
  T* p = a.mutable_data();
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(get(i));
  return a;
}

template <typename T, typename U>
py::array_t<T> column(const std::vector<U>& v) {
  return column<T>(v.size(), [&](std::size_t i) { return v[i]; });
}

py::dict design_arrays(const Design& d) {
  const std::size_t nodes = d.node_names.size(), pins = d.pins.size(), rows = d.rows.size();
  const PlacementNetlist nl = placement_netlist(d);
  py::dict out;
  out["name"] = d.name;
  out["node_names"] = d.node_names;
  out["width"] = column<double>(d.width);
  out["height"] = column<double>(d.height);
  out["footprint_width"] = column<double>(nodes, [&](std::size_t i) { return d.footprint_width(static_cast<int>(i)); });
  out["footprint_height"] = column<double>(nodes, [&](std::size_t i) { return d.footprint_height(static_cast<int>(i)); });
  out["x"] = column<double>(d.x);
  out["y"] = column<double>(d.y);
  out["kind"] = column<std::uint8_t>(nodes, [&](std::size_t i) { return static_cast<std::uint8_t>(d.kind[i]); });
  out["orientation"] = column<std::uint8_t>(nodes, [&](std::size_t i) { return static_cast<std::uint8_t>(d.orientation[i]); });
  out["node_weight"] = column<double>(d.node_weight);
  out["has_nets"] = d.has_nets;
  out["net_names"] = d.net_names;
  out["net_weight"] = column<double>(nl.net_weight);
  out["net_pin_start"] = column<std::int64_t>(nl.net_pin_start.empty() ? std::vector<int>{0} : nl.net_pin_start);
  out["pin_node"] = column<std::int64_t>(nl.pin_node);
  out["pin_offset_x"] = column<double>(nl.pin_offset_x);
  out["pin_offset_y"] = column<double>(nl.pin_offset_y);
  out["node_pin_start"] =
      column<std::int64_t>(nl.node_pin_start.empty() ? std::vector<int>(nodes + 1, 0) : nl.node_pin_start);
  out["node_pins"] = column<std::int64_t>(nl.node_pins);
  out["pin_direction"] = column<std::uint8_t>(pins, [&](std::size_t i) { return static_cast<std::uint8_t>(d.pins[i].direction); });
  py::dict r;
  r["y"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].y; });
  r["height"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].height; });
  r["x_min"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].x_min; });
  r["x_max"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].x_max; });
  r["site_width"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].site_width; });
  r["site_spacing"] = column<double>(rows, [&](std::size_t i) { return d.rows[i].site_spacing; });
  r["num_sites"] = column<std::int64_t>(rows, [&](std::size_t i) { return d.rows[i].num_sites; });
  out["rows"] = r;
  const Region region = d.region();
  out["region"] = py::make_tuple(region.xl, region.yl, region.xh, region.yh);
  py::list fences;
  for (const FenceRegion& f : d.fences) {
    py::array_t<double> rects({static_cast<py::ssize_t>(f.rects.size()), py::ssize_t{4}});
    double* p = rects.mutable_data();
    for (const Rect& r : f.rects) *p++ = r.xl, *p++ = r.yl, *p++ = r.xh, *p++ = r.yh;
    fences.append(rects);
  }
  out["fences"] = fences;
  out["region_id"] = column<std::int32_t>(d.region_id);
  return out;
}

}  // namespace

void bind_bookshelf(py::module_& m) {
  m.def(
      "load_bookshelf",
      [](const std::string& aux, bool allow_missing_nets) {
        BookshelfLoadOptions options;
        options.allow_missing_nets = allow_missing_nets;
        Design design;
        {
          py::gil_scoped_release release;
          design = load_bookshelf(aux, options);
        }
        return design_arrays(design);
      },
      py::arg("aux"), py::arg("allow_missing_nets") = false,
      "Loads a Bookshelf design (.aux) into a dict of NumPy arrays");
  m.def(
      "generate_synthetic_design",
      [](std::int64_t num_movable, int num_fixed_macros, int num_io_pads, double utilization,
         double macro_area_fraction, bool with_nets, std::uint64_t seed, int num_movable_macros, int num_fences,
         double fence_area_fraction, double fenced_cell_fraction, bool l_shaped_fences) {
        SyntheticDesignSpec spec;
        spec.name = "synthetic" + std::to_string(num_movable);
        spec.num_movable = num_movable;
        spec.num_fixed_macros = num_fixed_macros;
        spec.num_movable_macros = num_movable_macros;
        spec.num_io_pads = num_io_pads;
        spec.utilization = utilization;
        spec.macro_area_fraction = macro_area_fraction;
        spec.with_nets = with_nets;
        spec.seed = seed;
        spec.num_fences = num_fences;
        spec.fence_area_fraction = fence_area_fraction;
        spec.fenced_cell_fraction = fenced_cell_fraction;
        spec.l_shaped_fences = l_shaped_fences;
        Design design;
        {
          py::gil_scoped_release release;
          design = generate_synthetic_design(spec);
        }
        return design_arrays(design);
      },
      py::arg("num_movable"), py::arg("num_fixed_macros") = 40, py::arg("num_io_pads") = 200,
      py::arg("utilization") = 0.7, py::arg("macro_area_fraction") = 0.2, py::arg("with_nets") = true,
      py::arg("seed") = 1, py::arg("num_movable_macros") = 0, py::arg("num_fences") = 0,
      py::arg("fence_area_fraction") = 0.3, py::arg("fenced_cell_fraction") = 0.3, py::arg("l_shaped_fences") = true,
      "A seeded synthetic design (the library's generator) as a dict of NumPy arrays");
  m.def(
      "ispd2005_standin",
      [](const std::string& name, std::uint64_t seed, double scale) {
        SyntheticDesignSpec spec = ispd2005_standin_spec(name, seed);
        if (!(scale > 0 && scale <= 1)) throw py::value_error("scale must lie in (0, 1]");
        if (scale < 1) {  // a smaller design of the same kind (tests, quick sweeps)
          spec.num_movable = std::max<std::int64_t>(1, std::llround(scale * static_cast<double>(spec.num_movable)));
          spec.num_fixed_macros = std::max(1, static_cast<int>(std::lround(scale * spec.num_fixed_macros)));
        }
        Design design;
        {
          py::gil_scoped_release release;
          design = generate_synthetic_design(spec);
        }
        return design_arrays(design);
      },
      py::arg("name"), py::arg("seed") = 1, py::arg("scale") = 1.0,
      "A synthetic stand-in with an ISPD2005 design's cell count, terminals and utilization (no nets); "
      "scale < 1 scales the cell and terminal counts");
  m.def(
      "ispd2005_designs",
      [] {
        py::list out;
        for (const auto& d : ispd2005_designs())
          out.append(py::make_tuple(d.name, d.num_movable, d.num_terminals, d.utilization, d.bins));
        return out;
      },
      "The ISPD2005 designs' published statistics: (name, movable cells, terminals, utilization, DREAMPlace's "
      "bins per axis)");
}

}  // namespace efield::python
