"""What the Python layer needs to know of a caller's array: its kind (NumPy, PyTorch, CuPy or
another array protocol), dtype, device and the stream its work runs on, and how to make a new
array of the same kind on the same device. The C++ extension reads the data pointer itself."""

import sys

from . import _efield


def _torch():
    return sys.modules.get("torch")


def _cupy():
    return sys.modules.get("cupy")


def kind(x):
    """'torch', 'numpy', 'cupy' or 'other' (any object with an array protocol)."""
    t = _torch()
    if t is not None and isinstance(x, t.Tensor):
        return "torch"
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray):
        return "numpy"
    cp = _cupy()
    if cp is not None and isinstance(x, cp.ndarray):
        return "cupy"
    return "other"


def dtype_name(dtype):
    """'float32', 'float64', ... from a string, NumPy dtype or type, or torch dtype."""
    if isinstance(dtype, str):
        name = dtype
    else:
        name = str(dtype)
        if name.startswith("torch."):
            name = name[len("torch."):]
        elif hasattr(dtype, "__name__"):  # numpy.float32, the type
            name = dtype.__name__
    aliases = {"float": "float32", "double": "float64", "f4": "float32", "f8": "float64"}
    return aliases.get(name, name)


def parse_device(device):
    """-1 for the CPU, else the CUDA ordinal; takes 'cpu', 'cuda', 'cuda:1', an int or a
    torch.device. 'cuda' without an index is the current CUDA device."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    text = str(device)
    if text == "cpu":
        return -1
    if text == "cuda":
        t = _torch()
        if t is not None and t.cuda.is_available():
            return t.cuda.current_device()
        return max(_efield.current_device(), 0)
    if text.startswith("cuda:"):
        return int(text[len("cuda:"):])
    raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N' (got {device!r})")


def device_name(device):
    return "cpu" if device < 0 else f"cuda:{device}"


def describe(x):
    """(kind, dtype name, device, shape) of an array; device is -1 for host memory."""
    k = kind(x)
    if k == "torch":
        if x.device.type not in ("cpu", "cuda"):
            raise ValueError(f"efield takes CPU and CUDA tensors; this one is on {x.device}")
        return k, dtype_name(x.dtype), (x.device.index if x.device.type == "cuda" else -1), tuple(x.shape)
    if k == "numpy":
        return k, x.dtype.name, -1, x.shape
    if k == "cupy":
        return k, x.dtype.name, x.device.id, x.shape
    shape, dtype, device = _efield.array_info(x)
    return k, dtype, device, tuple(shape)


def current_stream(x, k, device):
    """The stream the caller's framework runs work on for x's device (0 = legacy default)."""
    if device < 0:
        return 0
    if k == "torch":
        t = _torch()
        raw = getattr(t._C, "_cuda_getCurrentRawStream", None)  # no Python stream object made
        if raw is not None:
            return raw(device)
        return t.cuda.current_stream(device).cuda_stream
    if k == "cupy":
        cp = _cupy()
        with cp.cuda.Device(device):
            return cp.cuda.get_current_stream().ptr
    return 0


def detached(x, k):
    """x without autograd history (DLPack and the CUDA array interface refuse tensors that
    require grad); the same memory."""
    if k == "torch" and x.requires_grad:
        return x.detach()
    return x


def empty_like(x, k, dtype, device, shape, zero=False):
    """A new array of x's kind (NumPy for host arrays of other kinds, CuPy for CUDA ones) on x's
    device."""
    shp = tuple(shape)
    if k == "torch":
        t = _torch()
        make = t.zeros if zero else t.empty
        return make(shp, dtype=getattr(t, dtype), device=x.device)
    if device < 0:
        import numpy as np

        return (np.zeros if zero else np.empty)(shp, dtype=dtype)
    cp = _cupy()
    if cp is None:
        raise TypeError(
            "efield cannot allocate an output like this CUDA array without CuPy; pass `out=` (or grad_x=, grad_y=)"
        )
    with cp.cuda.Device(device):
        return (cp.zeros if zero else cp.empty)(shp, dtype=dtype)


def to_numpy_f64(a, name):
    """A float64 NumPy copy of a construction-time input (sizes, fixed cells): any array kind,
    or a sequence. None stays None."""
    import numpy as np

    if a is None:
        return None
    k = kind(a)
    if k == "torch":
        a = a.detach().cpu().numpy()
    elif k == "cupy":
        a = _cupy().asnumpy(a)
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.float64)).reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    return arr


def to_numpy_mask(a, name, count):
    """A uint8 NumPy copy (1 = set) of a boolean per-cell mask with `count` entries: a bool array
    of any kind, or a sequence of bools. None gives an empty mask (no cell set)."""
    import numpy as np

    if a is None:
        return np.zeros(0, dtype=np.uint8)
    k = kind(a)
    if k == "torch":
        a = a.detach().cpu().numpy()
    elif k == "cupy":
        a = _cupy().asnumpy(a)
    arr = np.asarray(a)
    if arr.dtype != np.bool_ and not (arr.size == 0 and count == 0):
        raise TypeError(f"{name} must be a boolean array (got dtype {arr.dtype}); pass mask.bool() or mask != 0")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (got shape {arr.shape})")
    if arr.size != count:
        raise ValueError(f"{name} has {arr.size} entries but there are {count} movable cells (one entry per movable "
                         "cell)")
    return np.ascontiguousarray(arr, dtype=np.uint8)
