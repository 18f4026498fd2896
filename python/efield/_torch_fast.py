"""ElectrostaticSystem.evaluate's fast path for PyTorch tensors: the checks of the binding's
checked path done on the tensors' own attributes (no array protocol, no pointer query), and the
data pointers handed to the binding. Anything else (other array kinds, tensor subclasses, arrays
that do not fit) takes the checked path, which names the problem."""

import sys


def pointers(system, x, y, grad_x, grad_y):
    """(x, y, grad_x, grad_y data pointers, the current stream) when all four are contiguous 1-D
    torch.Tensors of the system's dtype and device with at least required_length entries, else
    None."""
    torch = sys.modules.get("torch")
    if torch is None or grad_x is None or grad_y is None:
        return None
    fit = system.__dict__.get("_torch_fit")
    if fit is None:
        fit = system._torch_fit = (getattr(torch, system.dtype), system.device, system.required_length)
    dtype, device, length = fit
    tensor = torch.Tensor
    for a in (x, y, grad_x, grad_y):
        if (type(a) is not tensor or a.dtype is not dtype or a.get_device() != device or a.dim() != 1
                or a.shape[0] < length or not a.is_contiguous()):
            return None
    stream = torch._C._cuda_getCurrentRawStream(device) if device >= 0 else 0
    return x.data_ptr(), y.data_ptr(), grad_x.data_ptr(), grad_y.data_ptr(), stream
