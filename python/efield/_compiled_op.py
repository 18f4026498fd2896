"""The compiled electric-potential op (python/torch_ops/: torch.ops.efield.electric_potential,
registered with PyTorch in C++, autograd included) as efield.torch.ElectricPotential uses it when
efield._torch_ops was built against the installed PyTorch. Without it AVAILABLE is False and
REASON says why; ElectricPotential then runs its Python path.

The op takes pos and an int handle: the system's entry in the extension's registry (registered
here, dropped when the CompiledEvaluator is collected), so the op never sees a raw pointer."""

import functools
import math
import weakref

import torch
import torch.utils.dlpack

try:
    from . import _torch_ops
except ImportError as e:  # not built (no libtorch at build time) or built for another PyTorch
    _torch_ops = None
    REASON = f"efield._torch_ops is not available: {e}"
else:
    REASON = None
    _torch_ops.set_tensor_class(torch.Tensor)  # the tensors ElectrostaticSystem.evaluate reads in C++

AVAILABLE = _torch_ops is not None
# The op's entry points (OpOverloads: no overload resolution per call).
electric_potential = torch.ops.efield.electric_potential.default if AVAILABLE else None
electric_potential_forward = torch.ops.efield.electric_potential_forward.default if AVAILABLE else None


def overflow_values(system, results, device, movable_area, dtype):
    """mode="overflow"'s (overflow area, max density) after its evaluate, as 0-d tensors of dtype:
    from the CUDA results array on the stream (no host sync), else from the system on the host."""
    if device >= 0:
        return (results[1] * movable_area).to(dtype), results[2].to(dtype)
    r = system.wait_result()
    return torch.tensor(r.overflow * movable_area, dtype=dtype), torch.tensor(r.max_density, dtype=dtype)


def tensor_evaluate(system):
    """ElectrostaticSystem.evaluate's C++ path for PyTorch tensors (python/torch_ops/tensor_evaluate.hpp)
    for `system` (an efield.ElectrostaticSystem): a callable (x, y, grad_x, grad_y, weight,
    accumulate) -> the result's five values, or None when the tensors do not fit or the evaluate
    failed. The system is registered with the op's registry until it is collected. None where the
    compiled op is not built."""
    if not AVAILABLE:
        return None
    handle = _torch_ops.register_system(system._system._ops(), system.required_length, False)
    weakref.finalize(system, _torch_ops.unregister_system, handle)
    return functools.partial(_torch_ops.evaluate_tensors, handle)


class CompiledEvaluator:
    """One system registered with the compiled op: its handle, and what the op's checks and
    scalars need."""

    def __init__(self, system, pos, num_nodes, asynchronous):
        self.system = system  # the _efield.ElectrostaticSystem (the registry holds its own reference)
        self.handle = _torch_ops.register_system(system._ops(), num_nodes, asynchronous)
        weakref.finalize(self, _torch_ops.unregister_system, self.handle)
        self.dtype = pos.dtype
        self.device_index = pos.get_device()  # the CUDA ordinal, -1 on the CPU
        self.numel = pos.numel()
        self.half = num_nodes * pos.element_size()  # bytes from x to y in pos
        results = _torch_ops.results(self.handle)
        self.results = None if results is None else torch.utils.dlpack.from_dlpack(results)
        self.scratch = None  # mode="overflow"'s gradient, made at its first call

    def fits(self, pos):
        return (isinstance(pos, torch.Tensor) and pos.dtype is self.dtype and pos.get_device() == self.device_index
                and pos.layout is torch.strided and not pos.is_meta and pos.dim() == 1 and pos.numel() == self.numel
                and pos.is_contiguous())

    def overflow(self, pos, movable_area):
        """ElectricPotential's mode="overflow" (as its Python path computes it): (overflow area, max
        density) of pos as 0-d tensors of its dtype on its device; the evaluate's gradient goes to a
        scratch buffer. CUDA: no host sync."""
        if not self.fits(pos):
            return None
        if self.scratch is None:
            self.scratch = torch.empty_like(pos, memory_format=torch.contiguous_format)
        device = self.device_index
        stream = torch.cuda.current_stream(device).cuda_stream if device >= 0 else 0
        results_ptr = self.results.data_ptr() if self.results is not None else 0
        self.system.evaluate_flat(pos.data_ptr(), self.scratch.data_ptr(), self.half, stream, 0, results_ptr,
                                  device >= 0)
        return overflow_values(self.system, self.results, device, movable_area, self.dtype)

    def scalar(self, index, name):
        latest = _torch_ops.latest(self.handle)
        if latest < 0:
            return math.nan
        if latest == 1:
            return float(self.results[index])  # waits for the stream to reach it
        return getattr(self.system.wait_result(), name)  # the latest blocking evaluate's
