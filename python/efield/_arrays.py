"""What the Python layer needs to know of a caller's array: its kind (NumPy, PyTorch, CuPy or
another array protocol), dtype, device and the stream its work runs on, and how to make a new
array of the same kind on the same device. The C++ extension reads the data pointer itself."""

import math
import numbers
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
    if isinstance(device, numbers.Integral) and not isinstance(device, bool):
        if device < -1:
            raise ValueError(f"device must be -1 (cpu) or a CUDA ordinal >= 0 (got {device})")
        return _available(int(device))
    text = str(device)
    if text == "cpu":
        return -1
    if text == "cuda":
        t = _torch()
        if t is not None and t.cuda.is_available():
            return t.cuda.current_device()
        return _available(max(_efield.current_device(), 0))
    if text.startswith("cuda:") and text[len("cuda:"):].isdigit():
        return _available(int(text[len("cuda:"):]))
    raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N' (got {device!r})")


def _available(device):
    """device, or a ValueError when it names a CUDA device this process cannot use."""
    if device < 0:
        return device
    count = _efield.cuda_device_count()
    if device >= count:
        why = ("efield was built without CUDA" if not _efield.built_with_cuda()
               else f"{count} usable CUDA device(s) ({_efield.cuda_unavailable_reason()})" if count == 0
               else f"{count} usable CUDA device(s)")
        raise _efield.Error(f"device cuda:{device} is not available: {why}")
    return device


def _is_bool(value):
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _real(value, name, what):
    """float(value) for real numbers (Python, NumPy, 0-d arrays and tensors); bools, complex
    numbers and strings raise naming `name`."""
    if (_is_bool(value) or isinstance(value, (str, bytes))
            or (isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real))):
        raise TypeError(f"{name} must be {what} (got {type(value).__name__} {value!r})")
    dtype = getattr(value, "dtype", None)
    if dtype is not None and ("complex" in str(dtype) or "bool" in str(dtype)):
        raise TypeError(f"{name} must be {what} (got {dtype} {value!r})")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {what} (got {type(value).__name__} {value!r})") from None


def to_int(value, name, minimum=None):
    """value as an int: integers, and real numbers that hold an integer (16.0); bools, complex
    numbers, NaN and fractions raise naming `name`."""
    if isinstance(value, numbers.Integral) and not _is_bool(value):
        result = int(value)
    else:
        v = _real(value, name, "an integer")
        if not math.isfinite(v) or v != math.floor(v):
            raise ValueError(f"{name} must be an integer (got {value!r})")
        result = int(v)
    if minimum is not None and result < minimum:
        raise ValueError(f"{name} must be >= {minimum} (got {result})")
    return result


def to_float(value, name):
    """value as a finite float; bools, complex numbers, NaN and infinities raise naming `name`."""
    v = _real(value, name, "a real number")
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite (got {v})")
    return v


def device_name(device):
    return "cpu" if device < 0 else f"cuda:{device}"


def describe(x):
    """(kind, dtype name, device, shape) of an array; device is -1 for host memory."""
    k = kind(x)
    if k == "torch":
        if x.device.type not in ("cpu", "cuda"):
            raise ValueError(f"efield takes CPU and CUDA tensors; this one is on {x.device}")
        if x.layout is not _torch().strided:
            raise ValueError(f"efield takes dense (strided) tensors; this one is {x.layout} (use .to_dense())")
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


def readable(x, k, name="x"):
    """An array efield reads: x, or for a torch view with a negative or conjugate bit (whose
    memory does not hold its values) a materialised copy; without autograd history. Sparse
    tensors raise."""
    if k == "torch":
        if x.layout is not _torch().strided:
            raise ValueError(f"{name} is a {x.layout} tensor; efield reads dense tensors only (use .to_dense())")
        if x.is_neg() or x.is_conj():
            x = x.resolve_conj().resolve_neg()
    return detached(x, k)


def writable(x, name):
    """An array efield writes: x itself (without autograd history); a torch view with a negative
    or conjugate bit or a sparse tensor raises (writing its memory would not give its values)."""
    k = kind(x)
    if k == "torch":
        if x.layout is not _torch().strided:
            raise ValueError(f"{name} is a {x.layout} tensor; efield writes into dense tensors only")
        if x.is_neg() or x.is_conj():
            raise ValueError(f"{name} is a view with a negative or conjugate bit; efield cannot write into it "
                             f"(pass a plain tensor, e.g. torch.empty_like({name}))")
    return detached(x, k)


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
        if a.device.type not in ("cpu", "cuda") or a.layout is not _torch().strided:
            raise ValueError(f"{name} must be a dense CPU or CUDA tensor (got {a.layout} on {a.device})")
        a = a.detach().resolve_conj().resolve_neg().cpu().numpy()
    elif k == "cupy":
        a = _cupy().asnumpy(a)
    arr = np.asarray(a)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers (got dtype {arr.dtype})")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (got shape {arr.shape})")
    return np.ascontiguousarray(arr, dtype=np.float64)


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
