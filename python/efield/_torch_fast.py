"""ElectrostaticSystem.evaluate's fast path for PyTorch tensors: the checks of the binding's
checked path done on the tensors' own attributes (no array protocol, no pointer query), and the
data pointers handed to the binding. Anything else (other array kinds, tensor subclasses, arrays
that do not fit) takes the checked path, which names the problem.

Where the compiled op (efield._torch_ops) is built, the system's tensors are read in C++ instead
from the call after the first that fits (system._tensor_call: python/torch_ops/tensor_evaluate.hpp),
and this path takes the calls that path refuses.

Written for the per-call cost (bench_ispd/results/python.md): the checks are unrolled (no loop,
no generator), a 1-D contiguous tensor is the one whose stride() is (1,) (dim and contiguity in
one call), and what the system fixes (PyTorch's module, the dtype, the device, the length) is
looked up once and kept on the system."""

import sys

_UNIT_STRIDE = (1,)


def pointers(system, x, y, grad_x, grad_y):
    """(x, y, grad_x, grad_y data pointers, the current stream) when all four are contiguous 1-D
    torch.Tensors of the system's dtype and device with at least required_length entries, else
    None."""
    try:
        torch, tensor, dtype, device, length = system._torch_fit
    except AttributeError:
        torch = sys.modules.get("torch")
        if torch is None:  # no tensor can exist yet
            return None
        torch, tensor, dtype, device, length = system._torch_fit = (
            torch, torch.Tensor, getattr(torch, system.dtype), system.device, system.required_length)
    if not (type(x) is tensor and type(y) is tensor and type(grad_x) is tensor and type(grad_y) is tensor
            and x.dtype is dtype and y.dtype is dtype and grad_x.dtype is dtype and grad_y.dtype is dtype):
        return None
    if (x.get_device() != device or y.get_device() != device or grad_x.get_device() != device
            or grad_y.get_device() != device or x.stride() != _UNIT_STRIDE or y.stride() != _UNIT_STRIDE
            or grad_x.stride() != _UNIT_STRIDE or grad_y.stride() != _UNIT_STRIDE or x.numel() < length
            or y.numel() < length or grad_x.numel() < length or grad_y.numel() < length
            # a negative view's memory holds the values' negation (PyTorch applies the sign lazily)
            or x.is_neg() or y.is_neg() or grad_x.is_neg() or grad_y.is_neg()):
        return None
    stream = torch._C._cuda_getCurrentRawStream(device) if device >= 0 else 0
    if system._tensor_call is None:  # tensors fit for the first time: the C++ path from the next call on
        system._tensor_call = _tensor_call(system)
    return x.data_ptr(), y.data_ptr(), grad_x.data_ptr(), grad_y.data_ptr(), stream


def _tensor_call(system):
    """The compiled op's C++ path for the system's tensors (efield/_compiled_op.py tensor_evaluate),
    or False where it is not built."""
    try:
        from . import _compiled_op
    except ImportError:
        return False
    return _compiled_op.tensor_evaluate(system) or False
