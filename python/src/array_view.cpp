// Reading an array's pointer, shape, dtype and device from the array protocols.
#include "array_view.hpp"

#include "cuda_device.hpp"
#include "dlpack_header.hpp"

namespace py = pybind11;

namespace efield::python {
namespace {

// "<f4" -> float32; anything else gets a readable name for the error message.
void read_typestr(const std::string& typestr, ArrayView& view) {
  if (typestr.size() < 3) {
    view.dtype_name = "'" + typestr + "'";
    return;
  }
  const char order = typestr[0], kind = typestr[1];
  const int bytes = std::atoi(typestr.c_str() + 2);
  const char* kind_name = kind == 'f' ? "float" : kind == 'i' ? "int" : kind == 'u' ? "uint"
                        : kind == 'c' ? "complex" : kind == 'b' ? "bool" : nullptr;
  if (!kind_name) {
    view.dtype_name = "'" + typestr + "'";
    return;
  }
  view.dtype_name = kind == 'b' ? std::string("bool") : kind_name + std::to_string(8 * bytes);
  if (order == '>' && bytes > 1) {
    view.dtype_name = "big-endian " + view.dtype_name;
    return;
  }
  if (kind == 'f' && bytes == 4) view.dtype = DType::Float32;
  if (kind == 'f' && bytes == 8) view.dtype = DType::Float64;
}

int element_bytes(const ArrayView& view) {
  return view.dtype == DType::Float32 ? 4 : 8;  // only float arrays are ever used
}

// strides in elements (DLPack) or bytes (the array interfaces, divided first); C order only.
bool is_c_contiguous(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
  for (std::int64_t extent : shape)
    if (extent == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

// The array interfaces' common fields: shape, typestr, data = (pointer, readonly), strides.
void read_interface(const py::dict& d, ArrayView& view, const char* name, const char* protocol) {
  for (py::handle item : d["shape"]) view.shape.push_back(item.cast<std::int64_t>());
  read_typestr(d["typestr"].cast<std::string>(), view);
  py::object data = d["data"];
  if (!py::isinstance<py::tuple>(data))
    throw py::type_error(std::string(name) + ": its " + protocol +
                         " gives no data pointer (buffer objects are not supported); pass a NumPy array");
  py::tuple pair = data.cast<py::tuple>();
  view.data = reinterpret_cast<void*>(pair[0].cast<std::uintptr_t>());
  view.readonly = pair[1].cast<bool>();
  if (d.contains("mask") && !d["mask"].is_none())
    throw py::type_error(std::string(name) + ": masked arrays are not supported");
  if (d.contains("strides") && !d["strides"].is_none() && view.dtype != DType::Other) {
    std::vector<std::int64_t> strides;
    for (py::handle item : d["strides"]) {
      const std::int64_t bytes = item.cast<std::int64_t>();
      strides.push_back(bytes % element_bytes(view) == 0 ? bytes / element_bytes(view) : -1);
    }
    view.contiguous = is_c_contiguous(view.shape, strides);
  }
}

void read_cuda_array_interface(py::handle obj, ArrayView& view, const char* name) {
  py::dict d = obj.attr("__cuda_array_interface__");
  read_interface(d, view, name, "__cuda_array_interface__");
  view.on_cuda = true;
  view.device = view.data ? pointer_device(view.data) : current_device();
  if (d.contains("stream") && !d["stream"].is_none()) {
    view.has_producer_stream = true;
    view.producer_stream = stream_from_protocol(d["stream"].cast<std::uintptr_t>());
  }
}

void read_array_interface(py::handle obj, ArrayView& view, const char* name) {
  py::dict d = obj.attr("__array_interface__");
  read_interface(d, view, name, "__array_interface__");
}

void read_dlpack(py::handle obj, ArrayView& view, const char* name, std::uintptr_t consumer_stream) {
  py::tuple device = obj.attr("__dlpack_device__")();
  const int device_type = device[0].cast<int>();
  const bool cuda = device_type == kDLCUDA || device_type == kDLCUDAManaged;
  if (!cuda && device_type != kDLCPU && device_type != kDLCUDAHost)
    throw py::value_error(std::string(name) + ": DLPack device type " + std::to_string(device_type) +
                          " is neither host memory nor CUDA");
  // DLPack's stream argument: 1 names the legacy default stream (our 0).
  py::object capsule = cuda ? obj.attr("__dlpack__")(py::arg("stream") = consumer_stream ? consumer_stream : 1)
                            : obj.attr("__dlpack__")();
  PyObject* raw = capsule.ptr();
  if (!PyCapsule_IsValid(raw, "dltensor"))
    throw py::type_error(std::string(name) + ": __dlpack__ did not return an unused DLPack capsule");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(raw, "dltensor"));
  PyCapsule_SetName(raw, "used_dltensor");  // we own it now: the capsule must not free it
  view.owner = std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  view.data = static_cast<char*>(t.data) + t.byte_offset;
  view.shape.assign(t.shape, t.shape + t.ndim);
  const char* kind_name = t.dtype.code == kDLFloat ? "float" : t.dtype.code == kDLInt ? "int"
                        : t.dtype.code == kDLUInt ? "uint" : t.dtype.code == kDLBfloat ? "bfloat" : "dlpack-code-";
  view.dtype_name = kind_name + std::to_string(t.dtype.bits);
  if (t.dtype.lanes != 1) view.dtype_name += "x" + std::to_string(t.dtype.lanes);
  if (t.dtype.code == kDLFloat && t.dtype.lanes == 1 && t.dtype.bits == 32) view.dtype = DType::Float32;
  if (t.dtype.code == kDLFloat && t.dtype.lanes == 1 && t.dtype.bits == 64) view.dtype = DType::Float64;
  if (t.strides) view.contiguous = is_c_contiguous(view.shape, std::vector<std::int64_t>(t.strides, t.strides + t.ndim));
  view.on_cuda = cuda;
  view.device = cuda ? device[1].cast<int>() : -1;
}

}  // namespace

std::int64_t ArrayView::size() const {
  std::int64_t n = 1;
  for (std::int64_t extent : shape) n *= extent;
  return n;
}

std::string ArrayView::shape_string() const {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string ArrayView::where() const { return on_cuda ? "cuda:" + std::to_string(device) : "cpu"; }

ArrayView view_array(py::handle obj, const char* name, std::uintptr_t consumer_stream) {
  ArrayView view;
  if (py::hasattr(obj, "__cuda_array_interface__")) {
    read_cuda_array_interface(obj, view, name);
  } else if (py::hasattr(obj, "__array_interface__")) {
    read_array_interface(obj, view, name);
  } else if (py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__dlpack_device__")) {
    read_dlpack(obj, view, name, consumer_stream);
  } else {
    throw py::type_error(std::string(name) + " must be an array (NumPy, PyTorch, CuPy, or anything with "
                         "__cuda_array_interface__, __array_interface__ or __dlpack__); got " +
                         std::string(Py_TYPE(obj.ptr())->tp_name));
  }
  return view;
}

void require_float(const ArrayView& view, const char* name, DType expected) {
  if (view.dtype != expected)
    throw py::type_error(std::string(name) + " has dtype " + view.dtype_name + "; expected " + to_string(expected));
}

void require_contiguous(const ArrayView& view, const char* name) {
  if (!view.contiguous)
    throw py::value_error(std::string(name) + " is not contiguous (C order); pass a contiguous array "
                          "(numpy.ascontiguousarray, tensor.contiguous(), cupy.ascontiguousarray)");
}

void require_writable(const ArrayView& view, const char* name) {
  if (view.readonly) throw py::value_error(std::string(name) + " is read-only");
}

void require_device(const ArrayView& view, const char* name, int device) {
  if (view.device != device)
    throw py::value_error(std::string(name) + " is on " + view.where() + " but must be on " +
                          (device < 0 ? std::string("cpu") : "cuda:" + std::to_string(device)));
}

const char* to_string(DType dtype) {
  return dtype == DType::Float32 ? "float32" : dtype == DType::Float64 ? "float64" : "an unsupported dtype";
}

}  // namespace efield::python
