// efield._efield.ElectrostaticSystem: the library's system on the caller's arrays. CUDA work runs
// on the caller's stream (set_stream before each call that names another) and on the system's
// device, made current around every call (the caller's device restored after).
#include <pybind11/numpy.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "array_view.hpp"
#include "bindings.hpp"
#include "conversions.hpp"
#include "cuda_device.hpp"
#include "efield/electrostatic_system.hpp"
#include "host_array.hpp"
#include "system_accessors.hpp"
#include "system_ops.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

constexpr int kResultValues = 5;  // device_result(): energy, overflow, max_density, two outside areas

class System {
 public:
  System(double xl, double yl, double xh, double yh, int num_bins_x, int num_bins_y, double target_density,
         const std::string& dtype, int device, bool deterministic, std::uintptr_t stream, int cpu_threads,
         std::int64_t filler_offset, bool use_cuda_graph, const std::string& gradient_scale, bool zero_gap_gradient,
         const HostArray& movable_w, const HostArray& movable_h, const HostArray& filler_w, const HostArray& filler_h,
         const HostArray& fixed_w, const HostArray& fixed_h, const HostArray& fixed_x, const HostArray& fixed_y,
         const HostMask& movable_macro_mask, const std::string& plan_effort)
      : device_(device) {
    if (dtype != "float32" && dtype != "float64")
      throw py::type_error("dtype must be float32 or float64 (got " + dtype + ")");
    dtype_ = dtype == "float32" ? DType::Float32 : DType::Float64;
    ElectrostaticOptions o;
    o.xl = xl, o.yl = yl, o.xh = xh, o.yh = yh;
    o.num_bins_x = num_bins_x, o.num_bins_y = num_bins_y;
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
    o.plan_effort = parse_plan_effort(plan_effort);
    stream_ = o.stream;
    CellSizes movable{to_vector(movable_w), to_vector(movable_h), to_mask(movable_macro_mask)};
    CellSizes fillers{to_vector(filler_w), to_vector(filler_h)};
    FixedCells fixed = fixed_cells(fixed_w, fixed_h, fixed_x, fixed_y);
    py::gil_scoped_release release;
    DeviceGuard guard(device_);  // the system belongs to the device current at construction
    system_ = std::make_unique<ElectrostaticSystem>(o, movable, fillers, fixed);
    if (device_ >= 0) slot_ = std::make_unique<PinnedSlot>();
    const std::int64_t fo = system_->options().filler_offset;
    required_length_ = std::max(system_->num_movable(), fo + system_->num_fillers());
  }

  // The checked path: any arrays, validated against the system. async: evaluate_async.
  EvaluateResult evaluate(py::handle x, py::handle y, py::handle gx, py::handle gy, std::uintptr_t stream,
                          double weight, bool accumulate, bool async) {
    ArrayView views[4];
    view_evaluate_arrays(views, x, y, gx, gy, stream, dtype_, device_, required_length_,
                         "movable cells, then fillers from index " + std::to_string(system_->options().filler_offset));
    if (async && device_ < 0) throw py::value_error("evaluate_async needs a CUDA system (this one runs on the CPU)");
    const Stream caller = stream_from_protocol(stream);
    for (const ArrayView& v : views)
      if (v.has_producer_stream) order_after(v.producer_stream, caller);
    return run(views[0].data, views[1].data, views[2].data, views[3].data, stream, {weight, accumulate}, async, 0);
  }

  // The fast path of ElectrostaticSystem.evaluate for PyTorch tensors: pointers of arrays the caller
  // has checked (dtype, device, contiguity, length: efield/_torch_fast.py), no array protocol read.
  // Returns the result's five scalars as a tuple (energy, overflow, max_density,
  // movable_area_outside, filler_area_outside): cheaper to make and to read than a bound object.
  py::tuple evaluate_pointers(std::uintptr_t x, std::uintptr_t y, std::uintptr_t gx, std::uintptr_t gy,
                              std::uintptr_t stream, double weight, bool accumulate) {
    const EvaluateResult r = run(reinterpret_cast<void*>(x), reinterpret_cast<void*>(y), reinterpret_cast<void*>(gx),
                                 reinterpret_cast<void*>(gy), stream, {weight, accumulate}, false, 0);
    return py::make_tuple(r.energy, r.overflow, r.max_density, r.movable_area_outside, r.filler_area_outside);
  }

  // The fast path of ElectrostaticSystem.evaluate for NumPy arrays on a CPU system: the checked
  // path's checks (dtype, 1-D, C-contiguous, writable gradients, length) read from the arrays'
  // own fields, no array protocol. Returns None when an argument is not a fitting ndarray (the
  // checked path then names the problem), else evaluate_pointers' tuple.
  py::object evaluate_numpy(py::handle x, py::handle y, py::handle gx, py::handle gy, double weight,
                            bool accumulate) {
    if (device_ >= 0) return py::none();
    const py::dtype want = dtype_ == DType::Float32 ? py::dtype::of<float>() : py::dtype::of<double>();
    const py::handle arrays[4] = {x, y, gx, gy};
    void* data[4];
    for (int i = 0; i < 4; ++i) {
      if (!py::isinstance<py::array>(arrays[i])) return py::none();
      auto a = py::reinterpret_borrow<py::array>(arrays[i]);
      if (a.ndim() != 1 || a.shape(0) < required_length_ || !(a.flags() & py::array::c_style) ||
          !(a.dtype().is(want) || a.dtype().equal(want)) || (i >= 2 && !a.writeable()))
        return py::none();
      data[i] = const_cast<void*>(a.data());
    }
    const EvaluateResult r = run(data[0], data[1], data[2], data[3], 0, {weight, accumulate}, false, 0);
    return py::make_tuple(r.energy, r.overflow, r.max_density, r.movable_area_outside, r.filler_area_outside);
  }

  // The fast path of efield.torch on a flat pos = [x..., y...] and its gradient buffer of the same
  // layout (pointers the caller has checked; the y halves start `half` bytes in). Runs the blocking
  // evaluate and writes its energy into `energy` (0 = nowhere; else one value of the system's dtype
  // in its device's memory, written on the stream, or host memory on the CPU). With `async`, or
  // while the stream is capturing a CUDA graph (a blocking evaluate cannot be captured), runs
  // evaluate_async instead, copies the five result values on the stream into `results` (device
  // memory of kResultValues doubles) and leaves `energy` alone. Returns whether it ran
  // evaluate_async. One lock, one device switch and no Python object made per call.
  bool evaluate_flat(std::uintptr_t pos, std::uintptr_t grad, std::uintptr_t half, std::uintptr_t stream,
                     std::uintptr_t energy, std::uintptr_t results, bool async) {
    py::gil_scoped_release release;
    return evaluate_flat_nogil(reinterpret_cast<char*>(pos), reinterpret_cast<char*>(grad), half, stream, energy,
                               results, async);
  }

  // evaluate_flat for callers without the GIL (the compiled op of efield._torch_ops).
  bool evaluate_flat_nogil(char* p, char* g, std::uintptr_t half, std::uintptr_t stream, std::uintptr_t energy,
                           std::uintptr_t results, bool async) {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    const Stream caller = stream_from_protocol(stream);
    async = device_ >= 0 && (async || stream_capturing(caller));
    follow(caller);
    const EvaluateResult r = run_locked(p, p + half, g, g + half, {}, async, results);
    if (energy && !async) write_energy(reinterpret_cast<void*>(energy), r.energy);
    return async;
  }

  // An evaluate of arrays the caller has checked, for callers without the GIL (also the table's
  // evaluate: efield._torch_ops reads PyTorch tensors in C++). async: evaluate_async, whose
  // result values go into `results` (device memory) when it is not 0.
  EvaluateResult run_nogil(void* x, void* y, void* gx, void* gy, std::uintptr_t stream, EvaluateOptions eo,
                           bool async = false, std::uintptr_t results = 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    follow(stream_from_protocol(stream));
    return run_locked(x, y, gx, gy, eo, async, results);
  }

  // profile_stages on arrays the caller has checked (benchmarks): median milliseconds per stage.
  py::dict profile(std::uintptr_t x, std::uintptr_t y, std::uintptr_t gx, std::uintptr_t gy, std::uintptr_t stream,
                   int repetitions) {
    StageTimes t;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      DeviceGuard guard(device_);
      follow(stream_from_protocol(stream));
      if (dtype_ == DType::Float32)
        t = system_->profile_stages(reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y),
                                    reinterpret_cast<float*>(gx), reinterpret_cast<float*>(gy), repetitions);
      else
        t = system_->profile_stages(reinterpret_cast<const double*>(x), reinterpret_cast<const double*>(y),
                                    reinterpret_cast<double*>(gx), reinterpret_cast<double*>(gy), repetitions);
    }
    return stage_times_dict(t);
  }

  // Benchmarks: `count` evaluates of arrays the caller has checked in one call (blocking, or with
  // `async` evaluate_async, the latest's scalars left for wait_result), so that a client's CUDA
  // events around the call time the C++ evaluate as they time calls from Python, with no Python
  // between the evaluates. Returns the latest blocking evaluate's energy (NaN after async ones).
  double evaluate_repeated(std::uintptr_t x, std::uintptr_t y, std::uintptr_t gx, std::uintptr_t gy,
                           std::uintptr_t stream, int count, bool async) {
    if (count < 1) throw py::value_error("evaluate_repeated: count must be >= 1");
    if (async && device_ < 0) throw py::value_error("evaluate_repeated: async needs a CUDA system");
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    follow(stream_from_protocol(stream));
    EvaluateResult r;
    r.energy = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < count; ++i)
      r = run_locked(reinterpret_cast<void*>(x), reinterpret_cast<void*>(y), reinterpret_cast<void*>(gx),
                     reinterpret_cast<void*>(gy), {}, async, 0);
    return async ? std::numeric_limits<double>::quiet_NaN() : r.energy;
  }

  EvaluateResult wait_result() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    return system_->wait_result();
  }

  // Copies the latest evaluate's five result values into `out` (a float64 CUDA array of the
  // system's device) on the caller's stream.
  void copy_result(py::handle out, std::uintptr_t stream) {
    const ArrayView v = view_result_array(out, stream, device_, kResultValues);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    follow(stream_from_protocol(stream));
    copy_async(v.data, system_->device_result(), kResultValues * sizeof(double), stream_);
  }

  void update_fixed_cells(const HostArray& w, const HostArray& h, const HostArray& x, const HostArray& y) {
    FixedCells fixed = fixed_cells(w, h, x, y);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    system_->update_fixed_cells(fixed);
  }

  void update_sizes(const HostArray& w, const HostArray& h, const HostMask& movable_macro_mask, bool fillers) {
    CellSizes sizes{to_vector(w), to_vector(h), to_mask(movable_macro_mask)};
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    if (fillers) system_->update_filler_sizes(sizes);
    else system_->update_movable_sizes(sizes);
  }

  py::array_t<double> map(std::vector<double> (ElectrostaticSystem::*get)() const) {
    std::vector<double> v;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      v = (system_.get()->*get)();
    }
    return to_numpy(v, system_->options().num_bins_x, system_->options().num_bins_y);
  }

  // The table of system_ops.hpp for efield._torch_ops, owning one reference to `self`.
  static py::capsule ops(const std::shared_ptr<System>& self) {
    auto* t = new SystemOps;
    t->system = new std::shared_ptr<System>(self);
    t->release = [](void* s) { delete static_cast<std::shared_ptr<System>*>(s); };
    t->evaluate_flat = [](void* s, const void* pos, void* grad, std::size_t half, std::uintptr_t stream, void* energy,
                          void* results, int async, char* error, std::size_t error_size) -> int {
      try {
        System& sys = **static_cast<std::shared_ptr<System>*>(s);
        return sys.evaluate_flat_nogil(static_cast<char*>(const_cast<void*>(pos)), static_cast<char*>(grad), half,
                                       stream, reinterpret_cast<std::uintptr_t>(energy),
                                       reinterpret_cast<std::uintptr_t>(results), async != 0)
                   ? 1
                   : 0;
      } catch (const std::exception& e) {
        std::snprintf(error, error_size, "%s", e.what());
        return -1;
      }
    };
    t->evaluate = [](void* s, const void* x, const void* y, void* gx, void* gy, std::uintptr_t stream, double weight,
                     int accumulate, double* result, char* error, std::size_t error_size) -> int {
      try {
        System& sys = **static_cast<std::shared_ptr<System>*>(s);
        const EvaluateResult r = sys.run_nogil(const_cast<void*>(x), const_cast<void*>(y), gx, gy, stream,
                                               {weight, accumulate != 0});
        result[0] = r.energy, result[1] = r.overflow, result[2] = r.max_density;
        result[3] = r.movable_area_outside, result[4] = r.filler_area_outside;
        return 0;
      } catch (const std::exception& e) {
        std::snprintf(error, error_size, "%s", e.what());
        return -1;
      }
    };
    t->device = self->device_;
    t->element_size = self->dtype_ == DType::Float32 ? 4 : 8;
    t->required_length = self->required_length_;
    t->result_values = kResultValues;
    return py::capsule(t, kSystemOpsCapsule, [](PyObject* capsule) {
      auto* table = static_cast<SystemOps*>(PyCapsule_GetPointer(capsule, kSystemOpsCapsule));
      if (table && table->system) table->release(table->system);
      delete table;
    });
  }

  const ElectrostaticSystem& system() const { return *system_; }
  int device() const { return device_; }
  std::string dtype() const { return to_string(dtype_); }
  std::int64_t required_length() const { return required_length_; }

 private:
  // CUDA: later work goes on the caller's stream (the system orders it after its earlier work).
  void follow(Stream caller) {
    if (device_ >= 0 && caller != stream_) {
      system_->set_stream(caller);
      stream_ = caller;
    }
  }

  EvaluateResult run(void* x, void* y, void* gx, void* gy, std::uintptr_t stream_value, EvaluateOptions eo, bool async,
                     std::uintptr_t results) {
    py::gil_scoped_release release;
    return run_nogil(x, y, gx, gy, stream_value, eo, async, results);
  }

  // run() with the lock held and the system's device current, on the caller's stream.
  EvaluateResult run_locked(void* x, void* y, void* gx, void* gy, EvaluateOptions eo, bool async,
                            std::uintptr_t results) {
    const bool f = dtype_ == DType::Float32;
    if (!async) {
      return f ? system_->evaluate(static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(gx),
                                   static_cast<float*>(gy), eo)
               : system_->evaluate(static_cast<const double*>(x), static_cast<const double*>(y),
                                   static_cast<double*>(gx), static_cast<double*>(gy), eo);
    }
    if (f) system_->evaluate_async(static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(gx),
                                   static_cast<float*>(gy), eo);
    else system_->evaluate_async(static_cast<const double*>(x), static_cast<const double*>(y),
                                 static_cast<double*>(gx), static_cast<double*>(gy), eo);
    if (results)
      copy_async(reinterpret_cast<void*>(results), system_->device_result(), kResultValues * sizeof(double), stream_);
    return EvaluateResult{};
  }

  // With the lock held and the device current, after a blocking evaluate: the last copy from the
  // pinned slot has run (the evaluate waited for the stream it was queued on, or, after a change
  // of stream, for the one that follows it).
  void write_energy(void* energy, double value) {
    const std::size_t bytes = dtype_ == DType::Float32 ? sizeof(float) : sizeof(double);
    void* host = device_ >= 0 ? slot_->get() : energy;
    if (dtype_ == DType::Float32) *static_cast<float*>(host) = static_cast<float>(value);
    else *static_cast<double*>(host) = value;
    if (device_ >= 0) copy_async(energy, host, bytes, stream_);
  }

  int device_;
  DType dtype_ = DType::Float32;
  std::unique_ptr<PinnedSlot> slot_;  // CUDA systems only
  Stream stream_ = nullptr;  // the stream the system enqueues on now
  std::int64_t required_length_ = 0;
  std::unique_ptr<ElectrostaticSystem> system_;
  std::mutex mutex_;
};

}  // namespace

void bind_system(py::module_& m) {
  py::class_<EvaluateResult>(m, "EvaluateResult")
      .def_readonly("energy", &EvaluateResult::energy)
      .def_readonly("overflow", &EvaluateResult::overflow)
      .def_readonly("max_density", &EvaluateResult::max_density)
      .def_readonly("movable_area_outside", &EvaluateResult::movable_area_outside)
      .def_readonly("filler_area_outside", &EvaluateResult::filler_area_outside);

  py::class_<System, std::shared_ptr<System>> cls(m, "ElectrostaticSystem");
  cls
      .def(py::init<double, double, double, double, int, int, double, const std::string&, int, bool, std::uintptr_t, int,
                    std::int64_t, bool, const std::string&, bool, const HostArray&, const HostArray&, const HostArray&,
                    const HostArray&, const HostArray&, const HostArray&, const HostArray&, const HostArray&,
                    const HostMask&, const std::string&>(),
           py::arg("xl"), py::arg("yl"), py::arg("xh"), py::arg("yh"), py::arg("num_bins_x"), py::arg("num_bins_y"),
           py::arg("target_density"), py::arg("dtype"), py::arg("device"), py::arg("deterministic"), py::arg("stream"),
           py::arg("cpu_threads"), py::arg("filler_offset"), py::arg("use_cuda_graph"), py::arg("gradient_scale"),
           py::arg("zero_gap_gradient"), py::arg("movable_w"), py::arg("movable_h"), py::arg("filler_w"),
           py::arg("filler_h"), py::arg("fixed_w"), py::arg("fixed_h"), py::arg("fixed_x"), py::arg("fixed_y"),
           py::arg("movable_macro_mask"), py::arg("plan_effort") = "estimate")
      .def("evaluate", &System::evaluate, py::arg("x"), py::arg("y"), py::arg("grad_x"), py::arg("grad_y"),
           py::arg("stream") = 0, py::arg("weight") = 1.0, py::arg("accumulate") = false, py::arg("async_") = false)
      .def("evaluate_pointers", &System::evaluate_pointers, py::arg("x"), py::arg("y"), py::arg("grad_x"),
           py::arg("grad_y"), py::arg("stream"), py::arg("weight"), py::arg("accumulate"))
      .def("evaluate_numpy", &System::evaluate_numpy, py::arg("x"), py::arg("y"), py::arg("grad_x"),
           py::arg("grad_y"), py::arg("weight"), py::arg("accumulate"))
      .def("evaluate_flat", &System::evaluate_flat, py::arg("pos"), py::arg("grad"), py::arg("half"),
           py::arg("stream"), py::arg("energy"), py::arg("results"), py::arg("async_"))
      .def("evaluate_repeated", &System::evaluate_repeated, py::arg("x"), py::arg("y"), py::arg("grad_x"),
           py::arg("grad_y"), py::arg("stream"), py::arg("count"), py::arg("async_") = false,
           "Benchmarks: `count` evaluates on pointers in one call (no Python between them)")
      .def("wait_result", &System::wait_result)
      .def("_ops", &System::ops, "A capsule of the system's C table (python/src/system_ops.hpp) for efield._torch_ops")
      .def("profile", &System::profile, py::arg("x"), py::arg("y"), py::arg("grad_x"), py::arg("grad_y"),
           py::arg("stream"), py::arg("repetitions"),
           "profile_stages on pointers (benchmarks): median ms of each stage and of one whole evaluate")
      .def("copy_result", &System::copy_result, py::arg("out"), py::arg("stream") = 0)
      .def("update_fixed_cells", &System::update_fixed_cells, py::arg("widths"), py::arg("heights"), py::arg("x"),
           py::arg("y"))
      .def("update_movable_sizes",
           [](System& s, const HostArray& w, const HostArray& h, const HostMask& mask) {
             s.update_sizes(w, h, mask, false);
           },
           py::arg("widths"), py::arg("heights"), py::arg("movable_macro_mask"))
      .def("update_filler_sizes",
           [](System& s, const HostArray& w, const HostArray& h) { s.update_sizes(w, h, HostMask(0), true); },
           py::arg("widths"), py::arg("heights"));
  def_system_accessors<System, ElectrostaticSystem>(cls);
  cls.def_property_readonly("backend", [](const System& s) { return std::string(to_string(s.system().backend())); });
}

}  // namespace efield::python
