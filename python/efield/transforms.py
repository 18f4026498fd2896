"""DCT-II, DCT-III and DXST transforms in 1D, 2D and 3D on any array (NumPy, PyTorch CPU/CUDA,
CuPy), without copies: CUDA arrays are transformed in place in device memory on the caller's
current stream (no host round trip, no synchronisation), host arrays on the CPU backend
(FFTW). Results come back as the caller's array kind on the same device.

Definitions are unnormalised (docs/math.md section 1): dct(x) = scipy.fft.dct(x, type=2) / 2,
idct(X) = scipy.fft.dct(X, type=3), dct2(x) = scipy.fft.dctn(x, type=2, axes=(-2, -1)) / 4; each
function's docstring gives its relation to scipy.fft, and python/README.md's table all of them.
`efield.fft` has scipy.fft's own signatures (`type=`, `norm=`, `axes=`) on these transforms.
`dct2_3d` and `idct2_3d` were called `dct3` and `idct3`, which read as DCT type 3; those names
remain as deprecated aliases that warn once.

So idct(dct(x)) = N x and idct2(dct2(x)) = M N x. Leading axes are a batch: 1D transforms run
as one batched plan, 2D and 3D ones once per leading index. Arrays must be C-contiguous
float32 or float64; anything else raises (TypeError for the dtype, ValueError otherwise).

Plans are cached by (kind, shape, batch, dtype, device; CPU threads for efield.fft's `workers`)
in a cache of at most ``plan_cache_max_size()`` plans (least recently used dropped first), like
torch.fft's cuFFT plan cache; ``plan_cache_clear()`` empties it. Plan1D, Plan2D and Plan3D are plans the caller
holds, for loops that should not look anything up.
"""

import collections
import math
import threading
import warnings

from . import _arrays, _efield

_RANK = {
    "dct": 1, "idct": 1, "idxst": 1,
    "dct2": 2, "idct2": 2, "idct_idxst": 2, "idxst_idct": 2,
    "dct2_3d": 3, "idct2_3d": 3,
}


class _PlanCache:
    def __init__(self, max_size=32):
        self._plans = collections.OrderedDict()
        self._lock = threading.Lock()
        self.max_size = max_size

    def get(self, key):
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                return plan
        kind, dims, batch, dtype, device, *threads = key  # CPU threads: efield.fft's `workers`
        plan = _efield.TransformPlan(kind, list(dims), batch, dtype, device, *threads)
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self.max_size:
                self._plans.popitem(last=False)
        return plan

    def clear(self):
        with self._lock:
            self._plans.clear()

    def __len__(self):
        return len(self._plans)


_cache = _PlanCache()


def plan_cache_clear():
    """Drops every cached plan (their device memory is freed once no call holds them)."""
    _cache.clear()


def plan_cache_size():
    """How many plans the cache holds now."""
    return len(_cache)


def plan_cache_max_size(value=None):
    """The cache's limit; with `value`, sets it (>= 0; 0 disables caching) and returns it."""
    if value is not None:
        if int(value) < 0:
            raise ValueError("plan_cache_max_size must be >= 0")
        _cache.max_size = int(value)
        with _cache._lock:
            while len(_cache._plans) > _cache.max_size:
                _cache._plans.popitem(last=False)
    return _cache.max_size


def _prepare(x, out, plan_for):
    """(x, out, plan, stream): `plan_for(dtype, device, shape)` gives the plan (and checks the
    shape) before out is allocated like x when not given. None for the plan: x holds no
    transform (an empty batch), out is returned as it is."""
    k, dtype, device, shape = _arrays.describe(x)
    x = _arrays.readable(x, k)
    plan = plan_for(dtype, device, tuple(shape))
    if out is None:
        out = _arrays.empty_like(x, k, dtype, device, shape)
    else:
        out = _arrays.writable(out, "out")
    return x, out, plan, _arrays.current_stream(x, k, device)


def _transform(kind, x, out):
    rank = _RANK[kind]

    def plan_for(dtype, device, shape):
        if len(shape) < rank:
            raise ValueError(f"{kind} needs an array of at least {rank} dimension(s); got shape {shape}")
        if dtype not in ("float32", "float64"):
            raise TypeError(f"x has dtype {dtype}; efield transforms take float32 or float64")
        dims = shape[len(shape) - rank:]
        if min(dims) < 1:
            raise ValueError(f"{kind} needs transform axes of length >= 1; got shape {shape}")
        leading = math.prod(shape[: len(shape) - rank])
        if leading == 0:
            return None  # an empty batch: empty in, empty out (as scipy.fft)
        return _cache.get((kind, dims, leading if rank == 1 else 1, dtype, device))

    x, out, plan, stream = _prepare(x, out, plan_for)
    if plan is not None:
        plan.execute(x, out, stream)
    return out


def dct(x, out=None):
    """DCT-II along the last axis: X[k] = sum_n x[n] cos(pi k (2n+1) / 2N)
    (= scipy.fft.dct(x, type=2) / 2)."""
    return _transform("dct", x, out)


def idct(x, out=None):
    """DCT-III along the last axis: x[n] = sum_k c_k X[k] cos(pi k (2n+1) / 2N), c_0 = 1, c_k = 2
    (= scipy.fft.dct(X, type=3)); idct(dct(x)) = N x."""
    return _transform("idct", x, out)


def idxst(x, out=None):
    """x[n] = sum_k 2 X[k] sin(pi k (2n+1) / 2N) along the last axis
    (= scipy.fft.dst(Z, type=3), Z = [X[1], ..., X[N-1], 0])."""
    return _transform("idxst", x, out)


def dct2(x, out=None):
    """2D DCT-II of the last two axes (= scipy.fft.dctn(x, type=2, axes=(-2, -1)) / 4)."""
    return _transform("dct2", x, out)


def idct2(x, out=None):
    """2D DCT-III of the last two axes (= scipy.fft.dctn(X, type=3, axes=(-2, -1)));
    idct2(dct2(x)) = M N x."""
    return _transform("idct2", x, out)


def idct_idxst(x, out=None):
    """idct along axis -2 and idxst along axis -1."""
    return _transform("idct_idxst", x, out)


def idxst_idct(x, out=None):
    """idxst along axis -2 and idct along axis -1."""
    return _transform("idxst_idct", x, out)


def dct2_3d(x, out=None):
    """3D DCT-II of the last three axes (= scipy.fft.dctn(x, type=2, axes=(-3, -2, -1)) / 8)."""
    return _transform("dct2_3d", x, out)


def idct2_3d(x, out=None):
    """3D DCT-III of the last three axes, the inverse of dct2_3d up to d0 d1 d2
    (= scipy.fft.dctn(X, type=3, axes=(-3, -2, -1)))."""
    return _transform("idct2_3d", x, out)


_RENAMED = {"dct3": "dct2_3d", "idct3": "idct2_3d"}
_warned = set()


def _renamed(old):
    """The new name of a deprecated transform name, warning once per process and name."""
    new = _RENAMED[old]
    if old not in _warned:
        _warned.add(old)
        warnings.warn(f"efield: {old!r} is deprecated (it reads as DCT type 3); it is {new!r}, the 3D DCT-II family",
                      DeprecationWarning, stacklevel=3)
    return new


def dct3(x, out=None):
    """Deprecated name of dct2_3d."""
    return _transform(_renamed("dct3"), x, out)


def idct3(x, out=None):
    """Deprecated name of idct2_3d."""
    return _transform(_renamed("idct3"), x, out)


class _Plan:
    """A plan the caller holds: made once for one shape, dtype and device."""

    _rank = 0
    _kinds = ()
    _dim_names = ()

    def __init__(self, kind, dims, batch, dtype, device, cpu_threads, effort="estimate"):
        if kind in _RENAMED and _RENAMED[kind] in self._kinds:
            kind = _renamed(kind)
        if kind not in self._kinds:
            raise ValueError(f"{type(self).__name__} kind must be one of {', '.join(self._kinds)} (got {kind!r})")
        self.dtype = _arrays.dtype_name(dtype)
        self.device = _arrays.parse_device(device)
        # Integers only (16.9 or True would be taken as 16 or 1); the ranges are checked in C++.
        dims = [_arrays.to_int(d, name) for d, name in zip(dims, self._dim_names)]
        batch = _arrays.to_int(batch, "batch")
        cpu_threads = _arrays.to_int(cpu_threads, "cpu_threads")
        self._plan = _efield.TransformPlan(kind, dims, batch, self.dtype, self.device, cpu_threads, str(effort))

    @property
    def kind(self):
        return self._plan.kind

    @property
    def shape(self):
        return tuple(self._plan.dims)

    @property
    def cuda_2d_method(self):
        """The CUDA method a 2D plan runs ('' on the CPU and for 1D/3D plans)."""
        return self._plan.cuda_2d_method

    def __call__(self, x, out=None):
        """Transforms x (the plan's shape, with leading batch axes for 2D/3D plans) into out
        (allocated like x when None; may be x itself) and returns out."""
        x, out, plan, stream = _prepare(x, out, self._check)
        plan.execute(x, out, stream)  # with an empty batch it checks out and runs nothing
        return out

    def _check(self, dtype, device, shape):
        rank = len(self.shape)
        if tuple(shape[len(shape) - rank:]) != self.shape or len(shape) < rank:
            raise ValueError(f"{self.kind} plan of shape (..., {', '.join(map(str, self.shape))}) cannot take x of "
                             f"shape {tuple(shape)}")
        if dtype != self.dtype:
            raise TypeError(f"x has dtype {dtype}; this plan was made for {self.dtype}")
        return self._plan

    def __repr__(self):
        return (f"{type(self).__name__}({self.kind!r}, shape={self.shape}, dtype={self.dtype}, "
                f"device={_arrays.device_name(self.device)!r})")


class Plan1D(_Plan):
    """Batched 1D plan: kind 'dct', 'idct' or 'idxst' of length n, `batch` rows; takes arrays
    of shape (..., n) whose leading axes hold exactly `batch` rows."""

    _kinds = ("dct", "idct", "idxst")
    _dim_names = ("n",)

    def __init__(self, kind, n, batch=1, dtype="float32", device="cpu", cpu_threads=0):
        super().__init__(kind, [n], batch, dtype, device, cpu_threads)


class Plan2D(_Plan):
    """2D plan: kind 'dct2', 'idct2', 'idct_idxst' or 'idxst_idct' of rows x cols; takes arrays
    of shape (..., rows, cols). effort (CUDA): "estimate" takes the method table (or the wisdom's
    choice), "measure" times the methods that take the shape once on this GPU and keeps the
    fastest in the wisdom (efield.save_wisdom)."""

    _kinds = ("dct2", "idct2", "idct_idxst", "idxst_idct")
    _dim_names = ("rows", "cols")

    def __init__(self, kind, rows, cols, dtype="float32", device="cpu", cpu_threads=0, effort="estimate"):
        super().__init__(kind, [rows, cols], 1, dtype, device, cpu_threads, effort)


class Plan3D(_Plan):
    """3D plan: kind 'dct2_3d' or 'idct2_3d' of d0 x d1 x d2; takes arrays of shape (..., d0, d1, d2)."""

    _kinds = ("dct2_3d", "idct2_3d")
    _dim_names = ("d0", "d1", "d2")

    def __init__(self, kind, d0, d1, d2, dtype="float32", device="cpu", cpu_threads=0):
        super().__init__(kind, [d0, d1, d2], 1, dtype, device, cpu_threads)
