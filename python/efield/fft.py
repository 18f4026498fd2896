"""scipy.fft's DCT and DST functions, computed by efield's transforms: the same signatures
(`type`, `n`/`s`, `axis`/`axes`, `norm`, `overwrite_x`, `workers`) and the same results, on NumPy
arrays, PyTorch tensors (CPU and CUDA) and CuPy arrays (results are the input's kind on its device).

    from efield import fft
    y = fft.dctn(x, type=2, norm="ortho")      # == scipy.fft.dctn(x, type=2, norm="ortho")

Types 2 and 3 of the DCT and the DST; types 1 and 4 raise NotImplementedError (use scipy.fft).
`n=` and `s=` (padding or cropping) must be None. float32 and float64 in, the same dtype out;
integer and bool arrays are converted to float64 and float16 to float32 as SciPy does; complex
arrays raise TypeError.

How each result is computed from efield's unnormalised transforms (docs/math.md section 1), per
transformed axis of length N, with E = efield's DCT-II and I = its DCT-III (`idct`):
- DCT-II  = E then one scaling pass: 2 (backward), 1/N (forward), or 1/sqrt(N) at k = 0 and
  sqrt(2/N) elsewhere (ortho).
- DCT-III = I, with no pass at all (backward), one scaling pass by 1/(2N) (forward), or one pass
  weighting the input by 1/sqrt(N) at n = 0 and 1/sqrt(2N) elsewhere (ortho).
- DST-II(x)[k]  = DCT-II((-1)^n x[n])[N-1-k]: a sign pass on the input, a reversal on the output.
- DST-III(x)[k] = (-1)^k DCT-III(x[N-1-n])[k]: a reversal on the input, a sign on the output.
- idct/idst of type t with norm m = dct/dst of the other type with backward and forward swapped.
DST-II and DST-III with norm="ortho" are therefore orthogonal, as SciPy documents (its index N-1
carries the 1/sqrt(2)); older SciPy releases (1.10 among them) rescale index 0 instead, which is
not orthogonal, and differ from efield there.
Weights of several axes are combined into one factor so that each side costs at most one pass.

Copies: when the transformed axes are the trailing ones of a C-contiguous array, the DCT reads x in
place and writes one new array (or x itself with overwrite_x=True), exactly as efield.dct2 does;
DST and the ortho DCT-III make one weighted copy of the input. Other axes are moved to the end by
one copy (fused with any input weighting), and the result is returned as a view with the axes moved
back (not C-contiguous). More than three axes are transformed three at a time.

Results equal SciPy's to max |efield - scipy| <= tol * max |scipy|, tol = 1e-12 in float64 and
2e-6 in float32 (tests/python/test_fft.py). `workers` sets the CPU backend's threads (negative
counts from os.cpu_count() as in SciPy); None means efield's default, every hardware thread, not
SciPy's one. CUDA arrays run on the caller's current stream; `workers` does not apply to them.
"""

import math
import operator
import os
import sys

from . import _arrays
from .transforms import _cache

__all__ = ["dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"]

_NORMS = ("backward", "ortho", "forward")
# efield's transform over the trailing 1, 2 or 3 axes, per DCT type.
_CORE = {(2, 1): "dct", (2, 2): "dct2", (2, 3): "dct2_3d", (3, 1): "idct", (3, 2): "idct2", (3, 3): "idct2_3d"}


class _Ops:
    """The few array operations the scalings need, for NumPy, CuPy and PyTorch arrays."""

    def __init__(self, kind):
        self.kind = kind
        self.torch = sys.modules.get("torch") if kind == "torch" else None
        if kind == "cupy":
            self.xp = sys.modules["cupy"]
        else:
            import numpy

            self.xp = numpy

    def is_contiguous(self, a):
        return a.is_contiguous() if self.torch else a.flags.c_contiguous

    def contiguous(self, a):
        return a.contiguous() if self.torch else self.xp.ascontiguousarray(a)

    def transpose(self, a, perm):
        return a.permute(*perm) if self.torch else self.xp.transpose(a, perm)

    def flip(self, a, axes):
        return self.torch.flip(a, dims=list(axes)) if self.torch else self.xp.flip(a, axis=tuple(axes))

    def astype(self, a, dtype):
        return a.to(getattr(self.torch, dtype)) if self.torch else a.astype(dtype)

    def weights(self, values, like):
        """values (a float64 NumPy array) as an array of like's kind, dtype and device."""
        if self.torch:
            return self.torch.as_tensor(values, dtype=like.dtype, device=like.device)
        if self.kind == "cupy":
            with self.xp.cuda.Device(like.device.id):
                return self.xp.asarray(values.astype(like.dtype))
        return values.astype(like.dtype)

    def scaled(self, a, factor, owned):
        """a * factor in one pass: in a's memory when the caller owns it (a contiguous array),
        else into a new C-contiguous array."""
        if owned and self.is_contiguous(a):
            out = a
        else:
            _, dtype, device, shape = _arrays.describe(a)
            out = _arrays.empty_like(a, self.kind, dtype, device, shape)
        if self.torch:
            return self.torch.mul(a, factor, out=out)
        return self.xp.multiply(a, factor, out=out)


def _as_float_array(x, name):
    """(ops, x, converted): x as a float32/float64 array of a kind efield takes (converted as SciPy
    does; `converted` when that made a new array)."""
    original, kind = x, _arrays.kind(x)
    if kind == "other":
        import numpy

        if hasattr(x, "__cuda_array_interface__"):
            raise TypeError(f"{name}: CUDA arrays must be PyTorch tensors or CuPy arrays (got {type(x).__name__})")
        x, kind = numpy.asarray(x), "numpy"
    converted = kind == "numpy" and x is not original
    ops = _Ops(kind)
    if ops.torch:
        if x.is_complex():
            raise TypeError(f"{name}: x has complex dtype {x.dtype}; efield.fft takes real arrays")
        if x.device.type not in ("cpu", "cuda"):
            raise ValueError(f"{name}: efield takes CPU and CUDA tensors; x is on {x.device}")
        x = x.detach()
        if _arrays.dtype_name(x.dtype) in ("float32", "float64"):
            return ops, x, False
        return ops, ops.astype(x, "float32" if x.is_floating_point() else "float64"), True
    code, size = x.dtype.kind, x.dtype.itemsize
    if code == "c":
        raise TypeError(f"{name}: x has complex dtype {x.dtype}; efield.fft takes real arrays")
    if code in "biu":
        return ops, x.astype("float64"), True
    if code == "f" and size == 2:
        return ops, x.astype("float32"), True
    if code != "f" or size not in (4, 8):
        raise TypeError(f"{name}: x has dtype {x.dtype}; efield.fft takes float32 or float64")
    return ops, x, converted


def _check_arguments(name, type, sizes, norm, orthogonalize, workers):
    """(norm, cpu threads) after checking what efield supports of scipy.fft's arguments."""
    if type not in (1, 2, 3, 4):
        raise ValueError(f"{name}: invalid type {type!r}; scipy.fft has types 1, 2, 3 and 4")
    if type in (1, 4):
        raise NotImplementedError(f"{name}: type {type} is not computed by efield (types 2 and 3 are); use scipy.fft")
    if sizes is not None:
        raise ValueError(f"{name}: {sizes[0]}={sizes[1]!r}; efield.fft does not pad or crop, so it must be None "
                         "(pad or slice x yourself)")
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f"{name}: invalid norm {norm!r}; expected None, 'backward', 'ortho' or 'forward'")
    if orthogonalize is not None and bool(orthogonalize) != (norm == "ortho"):
        raise NotImplementedError(f"{name}: orthogonalize={orthogonalize!r} with norm={norm!r} is not supported; "
                                  "leave it None")
    if workers is None:
        return norm, 0
    workers = operator.index(workers)
    if workers == 0:
        raise ValueError(f"{name}: workers must not be 0")
    threads = workers if workers > 0 else (os.cpu_count() or 1) + 1 + workers
    if threads < 1:
        raise ValueError(f"{name}: workers={workers} asks for fewer than one thread on {os.cpu_count()} CPUs")
    return norm, threads


def _normalize_axes(name, axes, ndim):
    try:
        axes = [operator.index(a) for a in axes]
    except TypeError:
        raise TypeError(f"{name}: axes must be integers (got {axes!r})") from None
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of range for an array of {ndim} dimension(s)")
    axes = [a % ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name}: axes must be unique (got {axes})")
    return sorted(axes)


def _axis_factors(dst, type, norm, n):
    """(input flip, input weights, output weights, output flip) of one axis of length n; weights
    are a float64 NumPy vector, a float, or None for 1. Index domains: input weights multiply the
    (flipped, for DST-III) input; output weights multiply the (flipped, for DST-II) output."""
    import numpy as np

    ortho = norm == "ortho"
    if type == 2:
        if ortho:
            out = np.full(n, math.sqrt(2.0 / n))
            out[0] = 1.0 / math.sqrt(n)
        else:
            out = 2.0 if norm == "backward" else 1.0 / n
        if not dst:
            return False, None, out, False
        sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        return False, sign, (out[::-1].copy() if ortho else out), True
    pre = None
    if ortho:
        pre = np.full(n, 1.0 / math.sqrt(2.0 * n))
        pre[0] = 1.0 / math.sqrt(n)
    out = 1.0 / (2.0 * n) if norm == "forward" else None
    if dst:
        sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        out = sign if out is None else sign * out
    return dst, pre, out, False


def _combined(ops, like, ndim, axes, factors):
    """One factor for the axes' weights: a float, an array broadcasting over `like`, or None."""
    import numpy as np

    scalar, vectors = 1.0, []
    for axis, f in zip(axes, factors):
        if f is None:
            continue
        if isinstance(f, float):
            scalar *= f
        else:
            shape = [1] * ndim
            shape[axis] = f.size
            vectors.append(f.reshape(shape))
    if not vectors:
        return None if scalar == 1.0 else scalar
    vectors[0] = vectors[0] * scalar
    factor = ops.weights(vectors[0], like)
    for v in vectors[1:]:
        factor = factor * ops.weights(v, like)  # the outer product over the axes only
    return factor


def _core(ops, x, family, k, threads, owned):
    """efield's DCT-II (family 2) or DCT-III (3) of the trailing k axes of C-contiguous x; into x
    itself when the caller owns it."""
    if k > 3:
        ndim = x.ndim
        x = _core(ops, x, family, 3, threads, owned)
        rest = list(range(ndim - k, ndim - 3))
        perm = [a for a in range(ndim) if a not in rest] + rest
        moved = ops.contiguous(ops.transpose(x, perm))
        moved = _core(ops, moved, family, k - 3, threads, True)
        return ops.contiguous(ops.transpose(moved, _inverse(perm)))
    kind = ops.kind
    _, dtype, device, shape = _arrays.describe(x)
    dims = tuple(shape[len(shape) - k:])
    batch = math.prod(shape[: len(shape) - k]) if k == 1 else 1
    plan = _cache.get((_CORE[(family, k)], dims, batch, dtype, device, threads if device < 0 else 0))
    out = x if owned else _arrays.empty_like(x, kind, dtype, device, shape)
    plan.execute(x, out, _arrays.current_stream(x, kind, device))
    return out


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def _transform(name, dst, x, type, sizes, axes, norm, overwrite_x, workers, orthogonalize, inverse):
    norm, threads = _check_arguments(name, type, sizes, norm, orthogonalize, workers)
    if inverse:  # idct/idst of type t: dct/dst of the other type with backward and forward swapped
        type = 5 - type
        norm = {"backward": "forward", "forward": "backward"}.get(norm, norm)
    ops, y, converted = _as_float_array(x, name)
    ndim = y.ndim
    axes = _normalize_axes(name, range(ndim) if axes is None else axes, ndim)
    for a in axes:
        if y.shape[a] == 0:
            raise ValueError(f"{name}: axis {a} of x has length 0")
    if not axes or 0 in y.shape:
        return y * 1
    # Write into x's memory only where the caller allows it (and no autograd history is bypassed).
    owned = converted or (overwrite_x and not getattr(x, "requires_grad", False)
                          and getattr(getattr(x, "flags", None), "writeable", True))

    perm = None
    trailing = list(range(ndim - len(axes), ndim))
    if axes != trailing:
        perm = [a for a in range(ndim) if a not in axes] + axes
        y = ops.transpose(y, perm)
    lengths = [y.shape[a] for a in trailing]
    flip_in, pre, post, flip_out = zip(*(_axis_factors(dst, type, norm, n) for n in lengths))

    if any(flip_in):  # torch.flip copies, NumPy's and CuPy's flip is a view
        y, owned = ops.flip(y, [a for a, f in zip(trailing, flip_in) if f]), ops.torch is not None
    factor = _combined(ops, y, ndim, trailing, pre)
    if factor is not None:
        y, owned = ops.scaled(y, factor, owned and ops.is_contiguous(y)), True
    if not ops.is_contiguous(y):
        y, owned = ops.contiguous(y), True
    y = _core(ops, y, type, len(axes), threads, owned)

    if any(flip_out):
        y = ops.flip(y, [a for a, f in zip(trailing, flip_out) if f])
        owned_out = ops.torch is not None
    else:
        owned_out = True
    factor = _combined(ops, y, ndim, trailing, post)
    if factor is not None:
        y = ops.scaled(y, factor, owned_out)
    elif not owned_out:
        y = ops.contiguous(y)
    return y if perm is None else ops.transpose(y, _inverse(perm))


def _1d(name, dst, inverse):
    def transform(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
        return _transform(name, dst, x, type, None if n is None else ("n", n), [axis], norm, overwrite_x, workers,
                          orthogonalize, inverse)

    transform.__name__ = transform.__qualname__ = name
    what = ("the inverse of the " if inverse else "the ") + ("DST" if dst else "DCT")
    transform.__doc__ = f"scipy.fft.{name}: {what} of `type` (2 or 3) along `axis`."
    return transform


dct = _1d("dct", False, False)
idct = _1d("idct", False, True)
dst = _1d("dst", True, False)
idst = _1d("idst", True, True)


def _nd(name, dst, inverse):
    def transform(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, orthogonalize=None):
        if axes is not None and not hasattr(axes, "__iter__"):
            axes = [axes]
        return _transform(name, dst, x, type, None if s is None else ("s", s), axes, norm, overwrite_x, workers,
                          orthogonalize, inverse)

    transform.__name__ = transform.__qualname__ = name
    what = ("inverse of " if inverse else "") + ("dstn" if dst else "dctn")
    transform.__doc__ = (f"scipy.fft.{name}: the {what} of `type` (2 or 3) over `axes` (default: all), "
                         "a 1D transform along each.")
    return transform


dctn = _nd("dctn", False, False)
idctn = _nd("idctn", False, True)
dstn = _nd("dstn", True, False)
idstn = _nd("idstn", True, True)
