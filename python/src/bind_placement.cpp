// efield._efield.make_fillers and default_bin_grid: what a placer computes once before its first
// iteration (include/efield/placement_helpers.hpp).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <vector>

#include "bindings.hpp"
#include "conversions.hpp"
#include "host_array.hpp"
#include "efield/placement_helpers.hpp"

namespace py = pybind11;

namespace efield::python {
void bind_placement(py::module_& m) {
  m.def(
      "make_fillers",
      [](const HostArray& movable_w, const HostArray& movable_h, const HostArray& fixed_w, const HostArray& fixed_h,
         const HostArray& fixed_x, const HostArray& fixed_y, double xl, double yl, double xh, double yh,
         double target_density, double row_height) {
        const FillerSpec f = make_fillers(CellSizes{to_vector(movable_w), to_vector(movable_h)},
                                          FixedCells{to_vector(fixed_w), to_vector(fixed_h), to_vector(fixed_x),
                                                     to_vector(fixed_y)},
                                          xl, yl, xh, yh, target_density, row_height);
        return py::make_tuple(f.width, f.height, f.count, f.total_area);
      },
      py::arg("movable_w"), py::arg("movable_h"), py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"),
      py::arg("fixed_y"), py::arg("xl"), py::arg("yl"), py::arg("xh"), py::arg("yh"), py::arg("target_density"),
      py::arg("row_height") = 0.0, "Filler cells (docs/math.md, Fillers): (width, height, count, total_area)");
  m.def(
      "make_region_fillers",
      [](const HostArray& movable_w, const HostArray& movable_h,
         const py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>& region_id,
         const std::vector<HostArray>& fences, const HostArray& fixed_w, const HostArray& fixed_h,
         const HostArray& fixed_x, const HostArray& fixed_y, double xl, double yl, double xh, double yh,
         double target_density, double row_height, const HostArray& field_target_density) {
        const std::vector<FenceRegion> regions = fence_regions(fences);
        RegionFillerOptions options;
        options.target_density = target_density;
        options.row_height = row_height;
        options.field_target_density = to_vector(field_target_density);
        const std::vector<RegionFillerSpec> specs = make_region_fillers(
            CellSizes{to_vector(movable_w), to_vector(movable_h)},
            std::vector<int>(region_id.data(), region_id.data() + region_id.size()), regions,
            FixedCells{to_vector(fixed_w), to_vector(fixed_h), to_vector(fixed_x), to_vector(fixed_y)}, xl, yl, xh, yh,
            options);
        py::list out;
        for (const RegionFillerSpec& f : specs) {
          py::dict d;
          d["width"] = f.fillers.width;
          d["height"] = f.fillers.height;
          d["count"] = f.fillers.count;
          d["total_area"] = f.fillers.total_area;
          d["target_density"] = f.target_density;
          d["placeable_area"] = f.placeable_area;
          d["movable_area"] = f.movable_area;
          d["utilization"] = f.utilization;
          d["num_movable"] = f.num_movable;
          out.append(d);
        }
        return out;
      },
      py::arg("movable_w"), py::arg("movable_h"), py::arg("region_id"), py::arg("fences"), py::arg("fixed_w"),
      py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"), py::arg("xl"), py::arg("yl"), py::arg("xh"),
      py::arg("yh"), py::arg("target_density"), py::arg("row_height"), py::arg("field_target_density"),
      "Fillers per fence region (docs/math.md): one dict per field, the K fences then the default field");
  m.def(
      "default_bin_grid",
      [](const HostArray& movable_w, const HostArray& movable_h, double xl, double yl, double xh, double yh,
         double target_density) {
        const BinGrid g = default_bin_grid(CellSizes{to_vector(movable_w), to_vector(movable_h)}, xl, yl, xh, yh,
                                           target_density);
        return py::make_tuple(g.num_bins_x, g.num_bins_y);
      },
      py::arg("movable_w"), py::arg("movable_h"), py::arg("xl"), py::arg("yl"), py::arg("xh"), py::arg("yh"),
      py::arg("target_density"), "The RePlAce/DREAMPlace bin grid: (num_bins_x, num_bins_y)");
}

}  // namespace efield::python
