// efield._efield.TransformPlan: one Plan1D, Plan2D or Plan3D of the library, executed on any
// caller's arrays (batched over leading axes: 1D in one batched call, 2D and 3D one slice at a
// time).
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "array_view.hpp"
#include "bindings.hpp"
#include "conversions.hpp"
#include "cuda_device.hpp"
#include "efield/transforms.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

struct KindInfo {
  int rank = 0;  // 1, 2 or 3
  Transform1D t1 = Transform1D::Dct;
  Transform2D t2 = Transform2D::Dct2;
  Transform3D t3 = Transform3D::Dct;
};

KindInfo parse_kind(const std::string& kind) {
  if (kind == "dct") return {1, Transform1D::Dct};
  if (kind == "idct") return {1, Transform1D::Idct};
  if (kind == "idxst") return {1, Transform1D::Idxst};
  if (kind == "dct2") return {2, {}, Transform2D::Dct2};
  if (kind == "idct2") return {2, {}, Transform2D::Idct2};
  if (kind == "idct_idxst") return {2, {}, Transform2D::IdctIdxst};
  if (kind == "idxst_idct") return {2, {}, Transform2D::IdxstIdct};
  if (kind == "dct2_3d") return {3, {}, {}, Transform3D::Dct};
  if (kind == "idct2_3d") return {3, {}, {}, Transform3D::Idct};
  throw py::value_error("unknown transform '" + kind +
                        "'; expected dct, idct, idxst, dct2, idct2, idct_idxst, idxst_idct, dct2_3d or idct2_3d");
}

DType parse_dtype(const std::string& dtype) {
  if (dtype == "float32") return DType::Float32;
  if (dtype == "float64") return DType::Float64;
  throw py::type_error("dtype must be float32 or float64 (got " + dtype + ")");
}

int to_int(std::int64_t value, const char* what) {
  if (value < 1 || value > 0x7fffffff)
    throw py::value_error(std::string(what) + " must be in 1..2^31-1 (got " + std::to_string(value) + ")");
  return static_cast<int>(value);
}

class TransformPlan {
 public:
  TransformPlan(const std::string& kind, const std::vector<std::int64_t>& dims, std::int64_t batch,
                const std::string& dtype, int device, int cpu_threads, const std::string& effort)
      : kind_(kind), info_(parse_kind(kind)), dims_(dims), batch_(batch), dtype_(parse_dtype(dtype)), device_(device) {
    if (static_cast<int>(dims.size()) != info_.rank)
      throw py::value_error(kind + " takes " + std::to_string(info_.rank) + " dimension(s), got " +
                            std::to_string(dims.size()));
    if (info_.rank != 1 && batch != 1) throw py::value_error("only 1D plans have a batch");
    PlanOptions options;
    options.backend = device < 0 ? Backend::Cpu : Backend::Cuda;
    options.cpu_threads = cpu_threads;
    options.effort = parse_plan_effort(effort, "effort");
    DeviceGuard guard(device);
    if (dtype_ == DType::Float32) make<float>(options);
    else make<double>(options);
  }

  void execute(py::handle in, py::handle out, std::uintptr_t stream_value) {
    ArrayView x = view_array(in, "x", stream_value);
    ArrayView y = view_array(out, "out", stream_value);
    require_float(x, "x", dtype_);
    require_float(y, "out", dtype_);
    require_device(x, "x", device_);
    require_device(y, "out", device_);
    require_contiguous(x, "x");
    require_contiguous(y, "out");
    require_writable(y, "out");
    if (x.shape != y.shape)
      throw py::value_error("out has shape " + y.shape_string() + " but x has shape " + x.shape_string());
    const std::int64_t count = slices(x);
    if (count == 0) return;  // an empty batch: nothing to transform (empty in, empty out)
    const Stream stream = stream_from_protocol(stream_value);
    if (x.has_producer_stream) order_after(x.producer_stream, stream);
    if (y.has_producer_stream) order_after(y.producer_stream, stream);
    const std::int64_t bytes = (dtype_ == DType::Float32 ? 4 : 8) * (x.size() / count);
    const char* src = static_cast<const char*>(x.data);
    char* dst = static_cast<char*>(y.data);
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceGuard guard(device_);
    for (std::int64_t i = 0; i < count; ++i) run_(src + i * bytes, dst + i * bytes, stream);
  }

  const std::string& kind() const { return kind_; }
  const std::vector<std::int64_t>& dims() const { return dims_; }
  std::int64_t batch() const { return batch_; }
  std::string dtype() const { return to_string(dtype_); }
  int device() const { return device_; }
  const std::string& cuda_2d_method() const { return method_; }

 private:
  template <typename T>
  void make(const PlanOptions& options) {
    if (info_.rank == 1) {
      auto plan = std::make_shared<Plan1D<T>>(info_.t1, to_int(dims_[0], "n"), to_int(batch_, "batch"),
                                              DctAlgorithm::NPoint, options);
      run_ = [plan](const void* in, void* out, Stream s) { plan->execute(static_cast<const T*>(in), static_cast<T*>(out), s); };
    } else if (info_.rank == 2) {
      auto plan = std::make_shared<Plan2D<T>>(info_.t2, to_int(dims_[0], "rows"), to_int(dims_[1], "cols"), options);
      method_ = to_string(plan->cuda_2d_method());
      run_ = [plan](const void* in, void* out, Stream s) { plan->execute(static_cast<const T*>(in), static_cast<T*>(out), s); };
    } else {
      auto plan = std::make_shared<Plan3D<T>>(info_.t3, to_int(dims_[0], "d0"), to_int(dims_[1], "d1"),
                                              to_int(dims_[2], "d2"), options);
      run_ = [plan](const void* in, void* out, Stream s) { plan->execute(static_cast<const T*>(in), static_cast<T*>(out), s); };
    }
  }

  // How many transforms x holds: its trailing axes must be the plan's; a 1D plan's leading axes
  // must hold exactly its batch, a 2D or 3D plan runs once per leading index.
  std::int64_t slices(const ArrayView& x) const {
    const std::size_t rank = dims_.size();
    std::string expected = "(..., ";
    for (std::size_t i = 0; i < rank; ++i) expected += std::to_string(dims_[i]) + (i + 1 < rank ? ", " : ")");
    bool match = x.shape.size() >= rank;
    for (std::size_t i = 0; match && i < rank; ++i) match = x.shape[x.shape.size() - rank + i] == dims_[i];
    if (!match)
      throw py::value_error(kind_ + " plan of shape " + expected + " cannot take x of shape " + x.shape_string());
    std::int64_t leading = 1;
    for (std::size_t i = 0; i + rank < x.shape.size(); ++i) leading *= x.shape[i];
    if (rank == 1 && leading != batch_)
      throw py::value_error(kind_ + " plan of batch " + std::to_string(batch_) + " cannot take x of shape " +
                            x.shape_string() + " (" + std::to_string(leading) + " rows)");
    return rank == 1 ? 1 : leading;
  }

  std::string kind_;
  KindInfo info_;
  std::vector<std::int64_t> dims_;
  std::int64_t batch_;
  DType dtype_;
  int device_;
  std::string method_;
  std::function<void(const void*, void*, Stream)> run_;
  std::mutex mutex_;
};

}  // namespace

void bind_transforms(py::module_& m) {
  py::class_<TransformPlan>(m, "TransformPlan",
                            "A planned transform: kind, core shape, batch (1D only), dtype, device (-1 = CPU)")
      .def(py::init<const std::string&, const std::vector<std::int64_t>&, std::int64_t, const std::string&, int, int,
                    const std::string&>(),
           py::arg("kind"), py::arg("dims"), py::arg("batch"), py::arg("dtype"), py::arg("device"),
           py::arg("cpu_threads") = 0, py::arg("effort") = "estimate")
      .def("execute", &TransformPlan::execute, py::arg("x"), py::arg("out"), py::arg("stream") = 0,
           "Runs the plan from x into out (same shape; may be the same array) on `stream` (CUDA)")
      .def_property_readonly("kind", &TransformPlan::kind)
      .def_property_readonly("dims", &TransformPlan::dims)
      .def_property_readonly("batch", &TransformPlan::batch)
      .def_property_readonly("dtype", &TransformPlan::dtype)
      .def_property_readonly("device", &TransformPlan::device)
      .def_property_readonly("cuda_2d_method", &TransformPlan::cuda_2d_method);
  // The wisdom of measure mode (efield/transforms.hpp): Plan2D's methods and the electrostatic
  // systems' choices, per GPU.
  m.def("save_wisdom", &save_wisdom, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
        "Writes the current CUDA device's measured choices to `path` (raises efield.Error when it cannot)");
  m.def("load_wisdom", &load_wisdom, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
        "Adds the choices of a file written on this kind of GPU and returns True; a file from another GPU, "
        "corrupt or missing is ignored with a warning in the log and returns False");
  m.def("forget_wisdom", &forget_wisdom, "Drops every measured choice of the process");
}

}  // namespace efield::python
