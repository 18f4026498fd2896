// efield._torch_ops: importing it registers the efield:: ops with PyTorch (electric_potential_op.cpp);
// its functions register the systems the ops evaluate (system_registry.hpp).
#include <ATen/DLConvertor.h>
#include <pybind11/pybind11.h>

#include "system_registry.hpp"
#include "tensor_evaluate.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_torch_ops, m) {
  m.doc() = "efield's compiled PyTorch ops (torch.ops.efield.*) and the registry of their systems";
  m.def(
      "register_system",
      [](py::capsule table, std::int64_t num_nodes, bool asynchronous) {
        auto* t = static_cast<efield::python::SystemOps*>(PyCapsule_GetPointer(table.ptr(), efield::python::kSystemOpsCapsule));
        if (!t) throw py::error_already_set();
        return efield::torch_ops::register_system(*t, num_nodes, asynchronous);
      },
      py::arg("table"), py::arg("num_nodes"), py::arg("asynchronous"),
      "Registers ElectrostaticSystem._ops() for a pos of 2 * num_nodes entries; returns its handle");
  m.def("unregister_system", &efield::torch_ops::unregister_system, py::arg("handle"));
  m.def(
      "latest", [](std::int64_t handle) { return efield::torch_ops::find_system(handle)->latest.load(); },
      py::arg("handle"),
      "The handle's latest evaluate: -1 none yet, 0 blocking (scalars from the system), 1 asynchronous (in results)");
  m.def(
      "results",
      [](std::int64_t handle) -> py::object {
        at::Tensor r = efield::torch_ops::find_system(handle)->results;
        if (!r.defined()) return py::none();
        return py::capsule(at::toDLPack(r), "dltensor", [](PyObject* c) {
          if (PyCapsule_IsValid(c, "dltensor")) {  // never consumed: free it here
            auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
            if (t->deleter) t->deleter(t);
          }
        });
      },
      py::arg("handle"), "A DLPack capsule of a CUDA system's results (energy, overflow, max_density, areas), None on the CPU");
  m.def("set_tensor_class", &efield::torch_ops::set_tensor_class, py::arg("cls"),
        "torch.Tensor: the class of the tensors evaluate_tensors reads (subclasses take the Python paths)");
  m.def("evaluate_tensors", &efield::torch_ops::evaluate_tensors, py::arg("handle"), py::arg("x"), py::arg("y"),
        py::arg("grad_x"), py::arg("grad_y"), py::arg("weight"), py::arg("accumulate"),
        "ElectrostaticSystem.evaluate on tensors read in C++: the result's five values, or None when a tensor "
        "does not fit or the evaluate failed (the Python paths then take the call)");
  m.def("built_with_cuda", []() {
#ifdef EFIELD_TORCH_OPS_CUDA
    return true;
#else
    return false;
#endif
  });
}
