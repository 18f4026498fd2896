#include "tensor_evaluate.hpp"

#include <ATen/ATen.h>
#include <c10/util/intrusive_ptr.h>

#ifdef EFIELD_TORCH_OPS_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include <cstdint>

#include "system_registry.hpp"

namespace py = pybind11;

namespace efield::torch_ops {
namespace {

PyObject* tensor_class = nullptr;  // torch.Tensor (a strong reference, kept for the process)
PyObject* cdata_name = nullptr;    // the interned "_cdata"

// The tensor behind `obj` when it is exactly a torch.Tensor (subclasses may mean something else
// by their data and go to the Python paths), else an undefined one. Its `_cdata` is the address of
// its TensorImpl (PyTorch's own getter, in every version); the caller holds `obj` for the call.
at::Tensor unpack(py::handle obj) {
  if (tensor_class == nullptr || Py_TYPE(obj.ptr()) != reinterpret_cast<PyTypeObject*>(tensor_class)) return {};
  PyObject* cdata = PyObject_GetAttr(obj.ptr(), cdata_name);
  if (cdata == nullptr) {
    PyErr_Clear();
    return {};
  }
  void* impl = PyLong_AsVoidPtr(cdata);
  Py_DECREF(cdata);
  if (impl == nullptr) {
    PyErr_Clear();
    return {};
  }
  return at::Tensor(c10::intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>::reclaim_copy(
      static_cast<c10::TensorImpl*>(impl)));
}

// Whether `t` is an array the system reads and writes in place: dense, its dtype, on its device,
// one dimension of unit stride with at least required_length entries, memory that holds its
// values (no negative or conjugate view).
bool fits(const at::Tensor& t, const python::SystemOps& ops, at::ScalarType dtype) {
  if (!t.defined() || t.layout() != at::kStrided || t.scalar_type() != dtype || !t.has_storage()) return false;
  const int device = t.is_cuda() ? t.get_device() : t.is_cpu() ? -1 : -2;
  if (device != ops.device || t.dim() != 1 || t.stride(0) != 1 || t.numel() < ops.required_length) return false;
  return !t.is_neg() && !t.is_conj();
}

std::uintptr_t current_stream(int device) {
#ifdef EFIELD_TORCH_OPS_CUDA
  if (device >= 0) return reinterpret_cast<std::uintptr_t>(c10::cuda::getCurrentCUDAStream(device).stream());
#endif
  (void)device;
  return 0;
}

}  // namespace

void set_tensor_class(py::handle cls) {
  if (tensor_class != nullptr) return;
  cdata_name = PyUnicode_InternFromString("_cdata");
  if (cdata_name == nullptr) throw py::error_already_set();
  tensor_class = cls.ptr();
  Py_INCREF(tensor_class);
}

py::object evaluate_tensors(std::int64_t handle, py::handle x, py::handle y, py::handle gx, py::handle gy,
                            double weight, bool accumulate) {
  const std::shared_ptr<RegisteredSystem> s = find_system(handle);
  const python::SystemOps& ops = s->ops;
  const at::ScalarType dtype = ops.element_size == 4 ? at::kFloat : at::kDouble;
  const at::Tensor tx = unpack(x), ty = unpack(y), tgx = unpack(gx), tgy = unpack(gy);
  if (!fits(tx, ops, dtype) || !fits(ty, ops, dtype) || !fits(tgx, ops, dtype) || !fits(tgy, ops, dtype))
    return py::none();
  double result[5];
  char error[1024] = "";
  int r;
  {
    py::gil_scoped_release release;
    r = ops.evaluate(ops.system, tx.data_ptr(), ty.data_ptr(), tgx.data_ptr(), tgy.data_ptr(),
                     current_stream(ops.device), weight, accumulate ? 1 : 0, result, error, sizeof(error));
  }
  if (r != 0) return py::none();  // the Python path evaluates again and raises its own exception
  return py::make_tuple(result[0], result[1], result[2], result[3], result[4]);
}

}  // namespace efield::torch_ops
