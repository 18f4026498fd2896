#pragma once
// ElectrostaticSystem.evaluate's fast path for PyTorch tensors in C++ (efield._torch_ops
// .evaluate_tensors): the four tensors' checks (dtype, device, one dimension of unit stride,
// length) read from their at::Tensor, the current CUDA stream from PyTorch's C++ API, and the
// blocking evaluate through the system's table (python/src/system_ops.hpp): one Python call where
// efield/_torch_fast.py makes about 25 attribute calls (bench_ispd/results/python.md).
#include <pybind11/pybind11.h>

#include <cstdint>

namespace efield::torch_ops {

// torch.Tensor, given once by efield/_compiled_op.py: only tensors of exactly this class are read.
void set_tensor_class(pybind11::handle cls);

// The evaluate of the system registered under `handle` (system_registry.hpp) on x, y, grad_x,
// grad_y: its five result values (energy, overflow, max_density, movable and filler area
// outside) as a tuple, or None when an argument is not a tensor the system takes in place or the
// evaluate failed: the caller's Python paths then take the call and name the problem.
pybind11::object evaluate_tensors(std::int64_t handle, pybind11::handle x, pybind11::handle y, pybind11::handle grad_x,
                                  pybind11::handle grad_y, double weight, bool accumulate);

}  // namespace efield::torch_ops
