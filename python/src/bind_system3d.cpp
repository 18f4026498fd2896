// efield._efield.ElectrostaticSystem3D and make_fillers_3d: the 3D system on the caller's arrays,
// with bind_system.cpp's conventions (NumPy, PyTorch CPU/CUDA, CuPy; CUDA work on the caller's
// stream and the system's device, made current around every call).
#include <pybind11/numpy.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "array_view.hpp"
#include "bindings.hpp"
#include "conversions.hpp"
#include "cuda_device.hpp"
#include "efield/electrostatic_system3d.hpp"
#include "host_array.hpp"
#include "system_accessors.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

constexpr int kResultValues = 5;  // device_result(): energy, overflow, max_density, two outside volumes
constexpr const char* kNames[6] = {"x", "y", "z", "grad_x", "grad_y", "grad_z"};

class System3D {
 public:
  System3D(double xl, double yl, double zl, double xh, double yh, double zh, int num_bins_x, int num_bins_y,
           int num_bins_z, double target_density, const std::string& dtype, int device, bool deterministic,
           std::uintptr_t stream, int cpu_threads, std::int64_t filler_offset, bool use_cuda_graph,
           const std::string& gradient_scale, bool zero_gap_gradient, const HostArray& movable_w,
           const HostArray& movable_h, const HostArray& movable_d, const HostArray& filler_w, const HostArray& filler_h,
           const HostArray& filler_d, const HostArray& fixed_w, const HostArray& fixed_h, const HostArray& fixed_d,
           const HostArray& fixed_x, const HostArray& fixed_y, const HostArray& fixed_z,
           const HostMask& movable_macro_mask)
      : device_(device) {
    if (dtype != "float32" && dtype != "float64")
      throw py::type_error("dtype must be float32 or float64 (got " + dtype + ")");
    dtype_ = dtype == "float32" ? DType::Float32 : DType::Float64;
    ElectrostaticOptions3D o;
    o.xl = xl, o.yl = yl, o.zl = zl, o.xh = xh, o.yh = yh, o.zh = zh;
    o.num_bins_x = num_bins_x, o.num_bins_y = num_bins_y, o.num_bins_z = num_bins_z;
    o.target_density = target_density;
    o.precision = dtype_ == DType::Float32 ? Precision::Float : Precision::Double;
    o.backend = device < 0 ? Backend::Cpu : Backend::Cuda;
    o.deterministic = deterministic;
    o.stream = stream_from_protocol(stream);
    o.cpu_threads = cpu_threads;
    o.filler_offset = filler_offset;
    o.use_cuda_graph = use_cuda_graph;
    o.gradient_scale = parse_gradient_scale(gradient_scale);
    o.zero_gap_gradient = zero_gap_gradient;
    stream_ = o.stream;
    CellSizes3D movable{to_vector(movable_w), to_vector(movable_h), to_vector(movable_d),
                        to_mask(movable_macro_mask)};
    CellSizes3D fillers{to_vector(filler_w), to_vector(filler_h), to_vector(filler_d)};
    FixedCells3D fixed{to_vector(fixed_w), to_vector(fixed_h), to_vector(fixed_d),
                       to_vector(fixed_x), to_vector(fixed_y), to_vector(fixed_z)};
    py::gil_scoped_release release;
    DeviceGuard guard(device_);  // the system belongs to the device current at construction
    system_ = std::make_unique<ElectrostaticSystem3D>(o, movable, fillers, fixed);
    const std::int64_t fo = system_->options().filler_offset;
    required_length_ = std::max(system_->num_movable(), fo + system_->num_fillers());
  }

  // The checked path: any arrays, validated against the system. async: evaluate_async.
  EvaluateResult evaluate(py::handle x, py::handle y, py::handle z, py::handle gx, py::handle gy, py::handle gz,
                          std::uintptr_t stream, double weight, bool accumulate, bool async) {
    const py::handle handles[6] = {x, y, z, gx, gy, gz};
    const std::string need =
        "movable cells, then fillers from index " + std::to_string(system_->options().filler_offset);
    std::vector<ArrayView> views;
    for (int i = 0; i < 6; ++i)
      views.push_back(view_evaluate_array(handles[i], kNames[i], i >= 3, stream, dtype_, device_, required_length_, need));
    const Stream caller = stream_from_protocol(stream);
    for (const ArrayView& v : views)
      if (v.has_producer_stream) order_after(v.producer_stream, caller);
    void* p[6];
    for (int i = 0; i < 6; ++i) p[i] = views[i].data;
    return run(p, stream, {weight, accumulate}, async);
  }

  // Pointers of arrays the caller has checked (dtype, device, contiguity, length): the PyTorch op's path.
  EvaluateResult evaluate_pointers(std::uintptr_t x, std::uintptr_t y, std::uintptr_t z, std::uintptr_t gx,
                                   std::uintptr_t gy, std::uintptr_t gz, std::uintptr_t stream, double weight,
                                   bool accumulate, bool async) {
    void* p[6] = {reinterpret_cast<void*>(x),  reinterpret_cast<void*>(y),  reinterpret_cast<void*>(z),
                  reinterpret_cast<void*>(gx), reinterpret_cast<void*>(gy), reinterpret_cast<void*>(gz)};
    return run(p, stream, {weight, accumulate}, async);
  }

  // profile_stages on pointers the caller has checked (benchmarks): median milliseconds per stage.
  py::dict profile(std::uintptr_t x, std::uintptr_t y, std::uintptr_t z, std::uintptr_t gx, std::uintptr_t gy,
                   std::uintptr_t gz, std::uintptr_t stream, int repetitions) {
    StageTimes t;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      DeviceGuard guard(device_);
      follow(stream_from_protocol(stream));
      if (dtype_ == DType::Float32) t = profile_typed<float>(x, y, z, gx, gy, gz, repetitions);
      else t = profile_typed<double>(x, y, z, gx, gy, gz, repetitions);
    }
    return stage_times_dict(t);
  }

  EvaluateResult wait_result() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    return system_->wait_result();
  }

  // The latest evaluate's five result values into `out` (a float64 CUDA array of the system's
  // device) on the caller's stream.
  void copy_result(py::handle out, std::uintptr_t stream) {
    const ArrayView v = view_result_array(out, stream, device_, kResultValues);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    follow(stream_from_protocol(stream));
    copy_async(v.data, system_->device_result(), kResultValues * sizeof(double), stream_);
  }

  void update_fixed_cells(const HostArray& w, const HostArray& h, const HostArray& d, const HostArray& x,
                          const HostArray& y, const HostArray& z) {
    FixedCells3D fixed{to_vector(w), to_vector(h), to_vector(d), to_vector(x), to_vector(y), to_vector(z)};
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    system_->update_fixed_cells(fixed);
  }

  void update_sizes(const HostArray& w, const HostArray& h, const HostArray& d, const HostMask& mask, bool fillers) {
    CellSizes3D sizes{to_vector(w), to_vector(h), to_vector(d), to_mask(mask)};
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    if (fillers) system_->update_filler_sizes(sizes);
    else system_->update_movable_sizes(sizes);
  }

  // A map of the latest evaluate as a float64 array [M, N, L].
  py::array_t<double> map(std::vector<double> (ElectrostaticSystem3D::*get)() const) {
    std::vector<double> v;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      DeviceGuard guard(device_);
      v = (system_.get()->*get)();
    }
    const ElectrostaticOptions3D& o = system_->options();
    py::array_t<double> a({static_cast<py::ssize_t>(o.num_bins_x), static_cast<py::ssize_t>(o.num_bins_y),
                           static_cast<py::ssize_t>(o.num_bins_z)});
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
  }

  const ElectrostaticSystem3D& system() const { return *system_; }
  int device() const { return device_; }
  std::string dtype() const { return to_string(dtype_); }
  std::int64_t required_length() const { return required_length_; }

 private:
  void follow(Stream caller) {
    if (device_ >= 0 && caller != stream_) {
      system_->set_stream(caller);
      stream_ = caller;
    }
  }

  EvaluateResult run(void* const (&p)[6], std::uintptr_t stream_value, EvaluateOptions eo, bool async) {
    if (async && device_ < 0) throw py::value_error("evaluate_async needs a CUDA system (this one runs on the CPU)");
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    follow(stream_from_protocol(stream_value));
    if (dtype_ == DType::Float32) return call<float>(p, eo, async);
    return call<double>(p, eo, async);
  }

  template <typename T>
  EvaluateResult call(void* const (&p)[6], const EvaluateOptions& eo, bool async) {
    const T* x = static_cast<const T*>(p[0]);
    const T* y = static_cast<const T*>(p[1]);
    const T* z = static_cast<const T*>(p[2]);
    T* gx = static_cast<T*>(p[3]);
    T* gy = static_cast<T*>(p[4]);
    T* gz = static_cast<T*>(p[5]);
    if (!async) return system_->evaluate(x, y, z, gx, gy, gz, eo);
    system_->evaluate_async(x, y, z, gx, gy, gz, eo);
    return EvaluateResult{};
  }

  template <typename T>
  StageTimes profile_typed(std::uintptr_t x, std::uintptr_t y, std::uintptr_t z, std::uintptr_t gx, std::uintptr_t gy,
                           std::uintptr_t gz, int repetitions) {
    return system_->profile_stages(reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                                   reinterpret_cast<const T*>(z), reinterpret_cast<T*>(gx), reinterpret_cast<T*>(gy),
                                   reinterpret_cast<T*>(gz), repetitions);
  }

  int device_;
  DType dtype_ = DType::Float32;
  Stream stream_ = nullptr;
  std::int64_t required_length_ = 0;
  std::unique_ptr<ElectrostaticSystem3D> system_;
  std::mutex mutex_;
};

}  // namespace

void bind_system3d(py::module_& m) {
  py::class_<System3D, std::shared_ptr<System3D>> cls(m, "ElectrostaticSystem3D");
  cls
      .def(py::init<double, double, double, double, double, double, int, int, int, double, const std::string&, int, bool,
                    std::uintptr_t, int, std::int64_t, bool, const std::string&, bool, const HostArray&,
                    const HostArray&, const HostArray&, const HostArray&, const HostArray&, const HostArray&,
                    const HostArray&, const HostArray&, const HostArray&, const HostArray&, const HostArray&,
                    const HostArray&, const HostMask&>(),
           py::arg("xl"), py::arg("yl"), py::arg("zl"), py::arg("xh"), py::arg("yh"), py::arg("zh"),
           py::arg("num_bins_x"), py::arg("num_bins_y"), py::arg("num_bins_z"), py::arg("target_density"),
           py::arg("dtype"), py::arg("device"), py::arg("deterministic"), py::arg("stream"), py::arg("cpu_threads"),
           py::arg("filler_offset"), py::arg("use_cuda_graph"), py::arg("gradient_scale"),
           py::arg("zero_gap_gradient"), py::arg("movable_w"), py::arg("movable_h"), py::arg("movable_d"),
           py::arg("filler_w"), py::arg("filler_h"), py::arg("filler_d"), py::arg("fixed_w"), py::arg("fixed_h"),
           py::arg("fixed_d"), py::arg("fixed_x"), py::arg("fixed_y"), py::arg("fixed_z"),
           py::arg("movable_macro_mask"))
      .def("evaluate", &System3D::evaluate, py::arg("x"), py::arg("y"), py::arg("z"), py::arg("grad_x"),
           py::arg("grad_y"), py::arg("grad_z"), py::arg("stream") = 0, py::arg("weight") = 1.0,
           py::arg("accumulate") = false, py::arg("async_") = false)
      .def("evaluate_pointers", &System3D::evaluate_pointers, py::arg("x"), py::arg("y"), py::arg("z"),
           py::arg("grad_x"), py::arg("grad_y"), py::arg("grad_z"), py::arg("stream"), py::arg("weight"),
           py::arg("accumulate"), py::arg("async_"))
      .def("wait_result", &System3D::wait_result)
      .def("profile", &System3D::profile, py::arg("x"), py::arg("y"), py::arg("z"), py::arg("grad_x"),
           py::arg("grad_y"), py::arg("grad_z"), py::arg("stream"), py::arg("repetitions"),
           "profile_stages on pointers (benchmarks): median ms of each stage and of one whole evaluate")
      .def("copy_result", &System3D::copy_result, py::arg("out"), py::arg("stream") = 0)
      .def("update_fixed_cells", &System3D::update_fixed_cells, py::arg("widths"), py::arg("heights"),
           py::arg("depths"), py::arg("x"), py::arg("y"), py::arg("z"))
      .def("update_movable_sizes",
           [](System3D& s, const HostArray& w, const HostArray& h, const HostArray& d, const HostMask& mask) {
             s.update_sizes(w, h, d, mask, false);
           },
           py::arg("widths"), py::arg("heights"), py::arg("depths"), py::arg("movable_macro_mask"))
      .def("update_filler_sizes",
           [](System3D& s, const HostArray& w, const HostArray& h, const HostArray& d) {
             s.update_sizes(w, h, d, HostMask(0), true);
           },
           py::arg("widths"), py::arg("heights"), py::arg("depths"));
  def_system_accessors<System3D, ElectrostaticSystem3D>(cls);
  cls.def("field_z_map", [](System3D& s) { return s.map(&ElectrostaticSystem3D::field_z_map); })
      .def_property_readonly("bin_depth", [](const System3D& s) { return s.system().bin_depth(); })
      .def_property_readonly("num_bins_z", [](const System3D& s) { return s.system().options().num_bins_z; })
      .def_property_readonly("backend",
                             [](const System3D& s) { return std::string(to_string(s.system().backend())); });

  m.def(
      "make_fillers_3d",
      [](const HostArray& mw, const HostArray& mh, const HostArray& md, const HostArray& fw, const HostArray& fh,
         const HostArray& fd, const HostArray& fx, const HostArray& fy, const HostArray& fz, double xl, double yl,
         double zl, double xh, double yh, double zh, double target_density, double height, double depth) {
        const FillerSpec3D s = make_fillers_3d(CellSizes3D{to_vector(mw), to_vector(mh), to_vector(md)},
                                               FixedCells3D{to_vector(fw), to_vector(fh), to_vector(fd), to_vector(fx),
                                                            to_vector(fy), to_vector(fz)},
                                               xl, yl, zl, xh, yh, zh, target_density, height, depth);
        return py::make_tuple(s.width, s.height, s.depth, s.count, s.total_volume);
      },
      py::arg("movable_w"), py::arg("movable_h"), py::arg("movable_d"), py::arg("fixed_w"), py::arg("fixed_h"),
      py::arg("fixed_d"), py::arg("fixed_x"), py::arg("fixed_y"), py::arg("fixed_z"), py::arg("xl"), py::arg("yl"),
      py::arg("zl"), py::arg("xh"), py::arg("yh"), py::arg("zh"), py::arg("target_density"), py::arg("height") = 0.0,
      py::arg("depth") = 0.0,
      "Fillers of a 3D design (docs/math.md 4.11): (width, height, depth, count, total_volume)");
}

}  // namespace efield::python
