// efield._efield.MultiFieldSystem, FieldSpec, make_fence_fields, fence_blockages,
// make_batch_fields (include/efield/multi_field_system.hpp). As ElectrostaticSystem's binding:
// the caller's arrays in place (NumPy, PyTorch, CuPy), CUDA work on the caller's stream, on the
// system's device.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "array_view.hpp"
#include "bindings.hpp"
#include "cuda_device.hpp"
#include "efield/multi_field_system.hpp"
#include "conversions.hpp"
#include "host_array.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

using IndexArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

template <typename T>
py::array_t<T> numpy_of(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// make_region_fillers' dicts (efield.make_region_fillers) back into RegionFillerSpecs.
std::vector<RegionFillerSpec> region_fillers(const py::list& dicts) {
  std::vector<RegionFillerSpec> out;
  for (const py::handle& h : dicts) {
    const py::dict d = py::reinterpret_borrow<py::dict>(h);
    RegionFillerSpec f;
    f.fillers.width = d["width"].cast<double>();
    f.fillers.height = d["height"].cast<double>();
    f.fillers.count = d["count"].cast<std::int64_t>();
    f.fillers.total_area = d.contains("total_area") ? d["total_area"].cast<double>() : 0.0;
    f.target_density = d["target_density"].cast<double>();
    out.push_back(f);
  }
  return out;
}

class MultiSystem {
 public:
  MultiSystem(const std::vector<FieldSpec>& fields, double xl, double yl, double xh, double yh, int num_bins_x,
              int num_bins_y, const std::string& dtype, int device, bool deterministic, std::uintptr_t stream,
              int cpu_threads, bool use_cuda_graph, const std::string& gradient_scale, std::int64_t num_entries,
              bool zero_other_entries, const std::string& plan_effort, const std::string& pipeline)
      : device_(device) {
    if (dtype != "float32" && dtype != "float64")
      throw py::type_error("dtype must be float32 or float64 (got " + dtype + ")");
    dtype_ = dtype == "float32" ? DType::Float32 : DType::Float64;
    MultiFieldOptions o;
    ElectrostaticOptions& s = o.system;
    s.xl = xl, s.yl = yl, s.xh = xh, s.yh = yh;
    s.num_bins_x = num_bins_x, s.num_bins_y = num_bins_y;
    s.precision = dtype_ == DType::Float32 ? Precision::Float : Precision::Double;
    s.backend = device < 0 ? Backend::Cpu : Backend::Cuda;
    s.deterministic = deterministic;
    s.stream = stream_from_protocol(stream);
    s.cpu_threads = cpu_threads;
    s.use_cuda_graph = use_cuda_graph;
    s.gradient_scale = parse_gradient_scale(gradient_scale);
    s.plan_effort = parse_plan_effort(plan_effort);
    o.num_entries = num_entries;
    o.zero_other_entries = zero_other_entries;
    if (pipeline != "auto" && pipeline != "per_field" && pipeline != "batched")
      throw py::value_error("pipeline must be 'auto', 'per_field' or 'batched' (got '" + pipeline + "')");
    o.pipeline = pipeline == "batched"     ? MultiFieldPipeline::Batched
                 : pipeline == "per_field" ? MultiFieldPipeline::PerField
                                           : MultiFieldPipeline::Auto;
    stream_ = s.stream;
    py::gil_scoped_release release;
    DeviceGuard guard(device_);
    system_ = std::make_unique<MultiFieldSystem>(o, fields);
  }

  std::vector<EvaluateResult> evaluate(py::handle x, py::handle y, py::handle gx, py::handle gy, std::uintptr_t stream,
                                       const std::vector<double>& weights, bool accumulate) {
    ArrayView views[4];
    view_evaluate_arrays(views, x, y, gx, gy, stream, dtype_, device_, system_->num_entries(), "num_entries");
    const Stream caller = stream_from_protocol(stream);
    for (const ArrayView& v : views)
      if (v.has_producer_stream) order_after(v.producer_stream, caller);
    MultiEvaluateOptions eo;
    eo.weights = weights;
    eo.accumulate = accumulate;
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    if (device_ >= 0 && caller != stream_) {
      system_->set_stream(caller);
      stream_ = caller;
    }
    if (dtype_ == DType::Float32)
      return system_->evaluate(static_cast<const float*>(views[0].data), static_cast<const float*>(views[1].data),
                               static_cast<float*>(views[2].data), static_cast<float*>(views[3].data), eo);
    return system_->evaluate(static_cast<const double*>(views[0].data), static_cast<const double*>(views[1].data),
                             static_cast<double*>(views[2].data), static_cast<double*>(views[3].data), eo);
  }

  py::array_t<double> map(int k, std::vector<double> (ElectrostaticSystem::*get)() const) {
    std::vector<double> v;
    const ElectrostaticSystem& f = system_->field(k);
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      v = (f.*get)();
    }
    return to_numpy(v, f.options().num_bins_x, f.options().num_bins_y);
  }
  // Either pipeline (the batched one keeps no per-field systems for map()).
  py::array_t<double> density_map(int k) {
    std::vector<double> v;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      v = system_->density_map(k);
    }
    const ElectrostaticOptions& o = system_->options().system;
    return to_numpy(v, o.num_bins_x, o.num_bins_y);
  }

  // From the field's spec and the shared options (either pipeline).
  py::dict field_info(int k) const {
    const FieldSpec& f = system_->field_spec(k);
    const ElectrostaticOptions& o = system_->options().system;
    py::dict d;
    d["num_movable"] = f.movable_index.size(), d["num_fillers"] = f.filler_index.size();
    d["num_fixed"] = f.fixed.widths.size();
    d["bin_width"] = (o.xh - o.xl) / o.num_bins_x, d["bin_height"] = (o.yh - o.yl) / o.num_bins_y;
    d["target_density"] = f.target_density;
    return d;
  }

  const MultiFieldSystem& system() const { return *system_; }
  int device() const { return device_; }
  std::string dtype() const { return to_string(dtype_); }

 private:
  int device_;
  DType dtype_ = DType::Float32;
  Stream stream_ = nullptr;
  std::unique_ptr<MultiFieldSystem> system_;
  std::mutex mutex_;
};

FieldSpec make_field_spec(const IndexArray& movable_index, const HostArray& movable_w, const HostArray& movable_h,
                          const HostMask& movable_macro_mask, const IndexArray& filler_index, const HostArray& filler_w,
                          const HostArray& filler_h, const HostArray& fixed_w, const HostArray& fixed_h,
                          const HostArray& fixed_x, const HostArray& fixed_y, double target_density) {
  FieldSpec f;
  f.movable_index.assign(movable_index.data(), movable_index.data() + movable_index.size());
  f.movable = CellSizes{to_vector(movable_w), to_vector(movable_h), to_mask(movable_macro_mask)};
  f.filler_index.assign(filler_index.data(), filler_index.data() + filler_index.size());
  f.fillers = CellSizes{to_vector(filler_w), to_vector(filler_h)};
  f.fixed = fixed_cells(fixed_w, fixed_h, fixed_x, fixed_y);
  f.target_density = target_density;
  return f;
}

}  // namespace

void bind_multi_field(py::module_& m) {
  py::class_<FieldSpec>(m, "FieldSpec")
      .def(py::init(&make_field_spec), py::arg("movable_index"), py::arg("movable_w"), py::arg("movable_h"),
           py::arg("movable_macro_mask"), py::arg("filler_index"), py::arg("filler_w"), py::arg("filler_h"),
           py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"), py::arg("target_density"))
      .def_property_readonly("movable_index", [](const FieldSpec& f) { return numpy_of(f.movable_index); })
      .def_property_readonly("movable_widths", [](const FieldSpec& f) { return numpy_of(f.movable.widths); })
      .def_property_readonly("movable_heights", [](const FieldSpec& f) { return numpy_of(f.movable.heights); })
      .def_property_readonly("movable_macro_mask",
                             [](const FieldSpec& f) { return numpy_of(f.movable.movable_macro_mask); })
      .def_property_readonly("filler_index", [](const FieldSpec& f) { return numpy_of(f.filler_index); })
      .def_property_readonly("filler_widths", [](const FieldSpec& f) { return numpy_of(f.fillers.widths); })
      .def_property_readonly("filler_heights", [](const FieldSpec& f) { return numpy_of(f.fillers.heights); })
      .def_property_readonly("fixed_widths", [](const FieldSpec& f) { return numpy_of(f.fixed.widths); })
      .def_property_readonly("fixed_heights", [](const FieldSpec& f) { return numpy_of(f.fixed.heights); })
      .def_property_readonly("fixed_x", [](const FieldSpec& f) { return numpy_of(f.fixed.x); })
      .def_property_readonly("fixed_y", [](const FieldSpec& f) { return numpy_of(f.fixed.y); })
      .def_readonly("target_density", &FieldSpec::target_density)
      .def_property_readonly("num_movable", [](const FieldSpec& f) { return f.movable_index.size(); })
      .def_property_readonly("num_fillers", [](const FieldSpec& f) { return f.filler_index.size(); })
      .def_property_readonly("num_fixed", [](const FieldSpec& f) { return f.fixed.widths.size(); });

  py::class_<MultiSystem, std::shared_ptr<MultiSystem>>(m, "MultiFieldSystem")
      .def(py::init<const std::vector<FieldSpec>&, double, double, double, double, int, int, const std::string&, int,
                    bool, std::uintptr_t, int, bool, const std::string&, std::int64_t, bool, const std::string&,
                    const std::string&>(),
           py::arg("fields"), py::arg("xl"), py::arg("yl"), py::arg("xh"), py::arg("yh"), py::arg("num_bins_x"),
           py::arg("num_bins_y"), py::arg("dtype"), py::arg("device"), py::arg("deterministic"), py::arg("stream"),
           py::arg("cpu_threads"), py::arg("use_cuda_graph"), py::arg("gradient_scale"), py::arg("num_entries"),
           py::arg("zero_other_entries"), py::arg("plan_effort") = "estimate", py::arg("pipeline") = "auto")
      .def("evaluate", &MultiSystem::evaluate, py::arg("x"), py::arg("y"), py::arg("grad_x"), py::arg("grad_y"),
           py::arg("stream") = 0, py::arg("weights") = std::vector<double>{}, py::arg("accumulate") = false)
      .def("density_map", &MultiSystem::density_map, py::arg("k"))
      .def("field_x_map", [](MultiSystem& s, int k) { return s.map(k, &ElectrostaticSystem::field_x_map); })
      .def("field_y_map", [](MultiSystem& s, int k) { return s.map(k, &ElectrostaticSystem::field_y_map); })
      .def("potential_map", [](MultiSystem& s, int k) { return s.map(k, &ElectrostaticSystem::potential_map); })
      .def("fixed_map", [](MultiSystem& s, int k) { return s.map(k, &ElectrostaticSystem::fixed_map); })
      .def("field_info", &MultiSystem::field_info, py::arg("k"))
      .def_property_readonly("num_fields", [](const MultiSystem& s) { return s.system().num_fields(); })
      .def_property_readonly("num_entries", [](const MultiSystem& s) { return s.system().num_entries(); })
      .def_property_readonly("pipeline",
                             [](const MultiSystem& s) {
                               return std::string(s.system().options().pipeline == MultiFieldPipeline::Batched
                                                      ? "batched"
                                                      : "per_field");
                             })
      .def_property_readonly("device", &MultiSystem::device)
      .def_property_readonly("dtype", &MultiSystem::dtype)
      .def_property_readonly("backend", [](const MultiSystem& s) { return std::string(to_string(s.system().backend())); });

  m.def(
      "make_fence_fields",
      [](const HostArray& movable_w, const HostArray& movable_h, const HostMask& movable_macro_mask,
         const py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>& region_id,
         const std::vector<HostArray>& fences, const HostArray& fixed_w, const HostArray& fixed_h,
         const HostArray& fixed_x, const HostArray& fixed_y, double xl, double yl, double xh, double yh,
         const py::list& fillers, std::int64_t filler_offset, std::int64_t num_entries) {
        const CellSizes movable{to_vector(movable_w), to_vector(movable_h), to_mask(movable_macro_mask)};
        const std::vector<RegionFillerSpec> specs = region_fillers(fillers);
        FenceFieldLayout layout;
        layout.filler_offset = filler_offset;
        layout.num_entries = num_entries;
        std::vector<FieldSpec> fields = make_fence_fields(
            movable, std::vector<int>(region_id.data(), region_id.data() + region_id.size()), fence_regions(fences),
            fixed_cells(fixed_w, fixed_h, fixed_x, fixed_y), xl, yl, xh, yh, specs, layout);
        const std::int64_t entries = fence_fields_num_entries(static_cast<std::int64_t>(movable.widths.size()), specs, layout);
        return py::make_tuple(fields, entries);
      },
      py::arg("movable_w"), py::arg("movable_h"), py::arg("movable_macro_mask"), py::arg("region_id"), py::arg("fences"),
      py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"), py::arg("xl"), py::arg("yl"),
      py::arg("xh"), py::arg("yh"), py::arg("fillers"), py::arg("filler_offset"), py::arg("num_entries"),
      "DREAMPlace 3.0's fence-region fields: (list of K + 1 FieldSpec, num_entries)");
  m.def(
      "fence_blockages",
      [](int k, const std::vector<HostArray>& fences, const HostArray& fixed_w, const HostArray& fixed_h,
         const HostArray& fixed_x, const HostArray& fixed_y, double xl, double yl, double xh, double yh) {
        const std::vector<Rect> rects =
            fence_blockages(k, fence_regions(fences), fixed_cells(fixed_w, fixed_h, fixed_x, fixed_y), xl, yl, xh, yh);
        py::array_t<double> a({static_cast<py::ssize_t>(rects.size()), py::ssize_t{4}});
        double* p = a.mutable_data();
        for (const Rect& r : rects) *p++ = r.xl, *p++ = r.yl, *p++ = r.xh, *p++ = r.yh;
        return a;
      },
      py::arg("k"), py::arg("fences"), py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"),
      py::arg("xl"), py::arg("yl"), py::arg("xh"), py::arg("yh"),
      "The blockage rectangles of fence field k (k = K: the default field), shape (rects, 4)");
  m.def(
      "make_batch_fields",
      [](int count, const HostArray& movable_w, const HostArray& movable_h, const HostMask& movable_macro_mask,
         const HostArray& filler_w, const HostArray& filler_h, const HostArray& fixed_w, const HostArray& fixed_h,
         const HostArray& fixed_x, const HostArray& fixed_y, double target_density, std::int64_t stride) {
        return make_batch_fields(count, CellSizes{to_vector(movable_w), to_vector(movable_h), to_mask(movable_macro_mask)},
                                 CellSizes{to_vector(filler_w), to_vector(filler_h)},
                                 fixed_cells(fixed_w, fixed_h, fixed_x, fixed_y), target_density, stride);
      },
      py::arg("count"), py::arg("movable_w"), py::arg("movable_h"), py::arg("movable_macro_mask"), py::arg("filler_w"),
      py::arg("filler_h"), py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"),
      py::arg("target_density"), py::arg("stride"), "`count` placements of one design as FieldSpecs");
}

}  // namespace efield::python
