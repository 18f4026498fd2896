"""efield.ElectrostaticSystem: the electrostatic density penalty of analytical placement
(docs/math.md section 2) on any caller's arrays, mirroring the C++ class
efield::ElectrostaticSystem (include/efield/electrostatic_system.hpp).

    es = efield.ElectrostaticSystem((w, h), fillers=(fw, fh), fixed=(xw, xh, xx, xy),
                                    xl=0, yl=0, xh=W, yh=H, num_bins_x=512, num_bins_y=512,
                                    target_density=0.9, dtype="float32", device="cuda")
    r = es.evaluate(x, y)        # r.energy, r.overflow, r.max_density, r.grad_x, r.grad_y

Positions are lower-left corners. Index layout (as in C++): movable cell i -> x[i]; filler j ->
x[filler_offset + j] (filler_offset defaults to the movable count). DREAMPlace's flat
pos = [x..., y...] over all nodes works without copies: filler_offset = num_nodes - num_fillers,
x = pos[:num_nodes], y = pos[num_nodes:]; entries between the movable cells and the fillers are
neither read nor written.

The system lives on one device ("cpu", "cuda", "cuda:N"): CUDA arrays of that device are used in
place, on the caller's current stream (ordered after it), host arrays on a CPU system. Inputs
of construction (sizes, fixed cells) may be any arrays or sequences; they are copied once.
"""

from dataclasses import dataclass
from typing import Any

from . import _arrays, _efield, _torch_fast


@dataclass
class EvaluateResult:
    """One evaluate: the energy E = sum phi rho (docs/math.md 2.8), the overflow of the movable
    cells (2.10), the maximum bin density, and the gradient arrays (the caller's kind, on the
    system's device)."""

    energy: float
    overflow: float
    max_density: float
    movable_area_outside: float = 0.0  # stretched cell area outside the region (in no bin)
    filler_area_outside: float = 0.0
    grad_x: Any = None
    grad_y: Any = None

    @classmethod
    def _of(cls, r, grad_x=None, grad_y=None):
        return cls(r.energy, r.overflow, r.max_density, r.movable_area_outside, r.filler_area_outside, grad_x, grad_y)


def _pair(cells, name):
    if cells is None:
        return None, None
    if len(cells) != 2:
        raise ValueError(f"{name} must be (widths, heights)")
    return _arrays.to_numpy_f64(cells[0], f"{name} widths"), _arrays.to_numpy_f64(cells[1], f"{name} heights")


def _fixed(fixed):
    if fixed is None:
        return [None] * 4
    if len(fixed) != 4:
        raise ValueError("fixed must be (widths, heights, x, y)")
    return [_arrays.to_numpy_f64(a, f"fixed {n}") for a, n in zip(fixed, ("widths", "heights", "x", "y"))]


def _prepare_arrays(system, x, y, grad_x, grad_y, accumulate):
    """The arrays of an evaluate on `system` (which has .dtype and .device): checked, the gradients
    allocated like x (zero-filled) when None. Returns ([x, y, grad_x, grad_y] as the extension
    reads them, grad_x, grad_y, the caller's stream)."""
    k, dtype, device, shape = _arrays.describe(x)
    if dtype != system.dtype:
        raise TypeError(f"x has dtype {dtype}; this system was made for {system.dtype}")
    if device != system.device:
        raise ValueError(f"x is on {_arrays.device_name(device)} but the system is on "
                         f"{_arrays.device_name(system.device)}")
    if accumulate and (grad_x is None or grad_y is None):
        raise ValueError("accumulate=True adds into grad_x and grad_y: pass them")
    if grad_x is None:
        grad_x = _arrays.empty_like(x, k, dtype, device, shape, zero=True)
    if grad_y is None:
        grad_y = _arrays.empty_like(x, k, dtype, device, shape, zero=True)
    plain = [_arrays.readable(x, k), _arrays.readable(y, _arrays.kind(y), "y"),
             _arrays.writable(grad_x, "grad_x"), _arrays.writable(grad_y, "grad_y")]
    return plain, grad_x, grad_y, _arrays.current_stream(x, k, device)


def _empty():
    import numpy as np

    return np.zeros(0)


class _SystemMaps:
    """What the 2D and 3D systems' Python classes forward to their binding alike: the maps of the
    latest evaluate (float64 NumPy arrays, [num_bins_x][num_bins_y] or [..][..][num_bins_z]; docs/math.md
    2.3-2.7 and 4.2-4.7) and the sizes."""

    def density_map(self):
        """rho = D / (bin area or volume), fixed cells included."""
        return self._system.density_map()

    def field_x_map(self):
        return self._system.field_x_map()

    def field_y_map(self):
        return self._system.field_y_map()

    def potential_map(self):
        """phi (computed on request unless evaluate computed it)."""
        return self._system.potential_map()

    def fixed_map(self):
        """The fixed map F in bin area (2D) or volume (3D) units."""
        return self._system.fixed_map()

    num_movable = property(lambda self: self._system.num_movable)
    num_fillers = property(lambda self: self._system.num_fillers)
    num_fixed = property(lambda self: self._system.num_fixed)
    filler_offset = property(lambda self: self._system.filler_offset)
    required_length = property(lambda self: self._system.required_length,
                               doc="The shortest position and gradient arrays the system takes")
    bin_width = property(lambda self: self._system.bin_width)
    bin_height = property(lambda self: self._system.bin_height)
    num_bins_x = property(lambda self: self._system.num_bins_x)
    num_bins_y = property(lambda self: self._system.num_bins_y)
    backend = property(lambda self: self._system.backend)


class ElectrostaticSystem(_SystemMaps):
    """The electrostatic system of one design on one device.

    movable: (widths, heights) of the movable cells. fillers: (widths, heights) or None.
    fixed: (widths, heights, x, y) of fixed cells (lower-left corners) or None.
    movable_macro_mask: None or a boolean array with one entry per movable cell, True for a
    movable macro (DREAMPlace's rule, docs/math.md 2.1: when target_density < 1 a macro's density
    ratio is target_density instead of w h / (w' h'); with target_density = 1 it changes nothing).
    Options (keyword only, as efield::ElectrostaticOptions): xl, yl, xh, yh (region), num_bins_x,
    num_bins_y, target_density, dtype ("float32"/"float64": the type of the position and gradient
    arrays), device ("cpu", "cuda", "cuda:N"), deterministic, cpu_threads, filler_offset (-1:
    after the movable cells), use_cuda_graph, gradient_scale ("dreamplace": DREAMPlace's field
    estimate, the default; "exact": dE/dx of the returned energy, one more inverse transform),
    zero_gap_gradient (write 0 into the gradient entries between the movable cells and the
    fillers on evaluates that do not accumulate), stream (the CUDA stream handle the system is
    made with; each call then moves it to the caller's current stream), plan_effort ("estimate":
    the built-in rules; "measure": the GPU-dependent choices timed once at construction and kept
    in the wisdom, see efield.save_wisdom; CUDA only, the same results either way).
    """

    # evaluate's C++ path for PyTorch tensors: None until tensors fit the first time, then the
    # callable or False (efield/_torch_fast.py).
    _tensor_call = None

    def __init__(self, movable, fillers=None, fixed=None, *, xl, yl, xh, yh, num_bins_x, num_bins_y,
                 target_density=1.0, dtype="float32", device="cpu", deterministic=True, cpu_threads=0,
                 filler_offset=-1, use_cuda_graph=True, gradient_scale="dreamplace", zero_gap_gradient=False,
                 stream=None, movable_macro_mask=None, plan_effort="estimate"):
        mw, mh = _pair(movable, "movable")
        if mw is None:
            raise ValueError("movable must be (widths, heights)")
        self._movable_macro_mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(mw))
        fw, fh = _pair(fillers, "fillers")
        xw, xh_, xx, xy = _fixed(fixed)
        self.dtype = _arrays.dtype_name(dtype)
        self.device = _arrays.parse_device(device)
        if stream is None:
            stream = _default_stream(self.device)
        e = _empty()
        self._system = _efield.ElectrostaticSystem(
            xl=_arrays.to_float(xl, "xl"), yl=_arrays.to_float(yl, "yl"), xh=_arrays.to_float(xh, "xh"),
            yh=_arrays.to_float(yh, "yh"), num_bins_x=_arrays.to_int(num_bins_x, "num_bins_x", 1),
            num_bins_y=_arrays.to_int(num_bins_y, "num_bins_y", 1),
            target_density=_arrays.to_float(target_density, "target_density"), dtype=self.dtype,
            device=self.device, deterministic=bool(deterministic), stream=int(stream),
            cpu_threads=_arrays.to_int(cpu_threads, "cpu_threads", 0),
            filler_offset=_arrays.to_int(filler_offset, "filler_offset", -1), use_cuda_graph=bool(use_cuda_graph),
            gradient_scale=str(gradient_scale), zero_gap_gradient=bool(zero_gap_gradient),
            movable_w=mw, movable_h=mh, filler_w=e if fw is None else fw, filler_h=e if fh is None else fh,
            fixed_w=e if xw is None else xw, fixed_h=e if xh_ is None else xh_, fixed_x=e if xx is None else xx,
            fixed_y=e if xy is None else xy, movable_macro_mask=self._movable_macro_mask,
            plan_effort=str(plan_effort))

    def _prepared(self, x, y, grad_x, grad_y, accumulate):
        return _prepare_arrays(self, x, y, grad_x, grad_y, accumulate)

    def evaluate(self, x, y, grad_x=None, grad_y=None, weight=1.0, accumulate=False):
        """One iteration: reads x, y (1-D, length >= required_length) and writes
        weight * gradient of every movable and filler cell into grad_x, grad_y (adds it with
        accumulate=True). grad_x, grad_y are allocated like x, zero-filled, when None. Returns an
        EvaluateResult (blocks until its scalars are ready)."""
        call = self._tensor_call
        if call and grad_y is not None:  # PyTorch tensors read in C++ (efield/_torch_fast.py)
            r = call(x, y, grad_x, grad_y, float(weight), bool(accumulate))
            if r is not None:
                return EvaluateResult(*r, grad_x, grad_y)
        fast = _torch_fast.pointers(self, x, y, grad_x, grad_y)
        if fast is not None:
            return EvaluateResult(*self._system.evaluate_pointers(*fast, float(weight), bool(accumulate)), grad_x, grad_y)
        if self.device < 0 and grad_x is not None and grad_y is not None:  # NumPy's fast path
            r = self._system.evaluate_numpy(x, y, grad_x, grad_y, float(weight), bool(accumulate))
            if r is not None:
                return EvaluateResult(*r, grad_x, grad_y)
        plain, grad_x, grad_y, stream = self._prepared(x, y, grad_x, grad_y, accumulate)
        r = self._system.evaluate(*plain, stream, _arrays.to_float(weight, "weight"), bool(accumulate), False)
        return EvaluateResult._of(r, grad_x, grad_y)

    def evaluate_async(self, x, y, grad_x=None, grad_y=None, weight=1.0, accumulate=False, result=None):
        """evaluate without a host sync (CUDA systems, CUDA arrays): enqueued on the caller's
        current stream. `result`, a float64 CUDA array of >= 5 entries, receives energy,
        overflow, max_density, movable_area_outside, filler_area_outside on that stream.
        Returns (grad_x, grad_y); wait_result() gives the scalars on the host. The deterministic
        float pipeline accumulates in 64-bit bins here (it cannot re-run after a pile-up without
        the host)."""
        plain, grad_x, grad_y, stream = self._prepared(x, y, grad_x, grad_y, accumulate)
        self._system.evaluate(*plain, stream, _arrays.to_float(weight, "weight"), bool(accumulate), True)
        if result is not None:
            self._system.copy_result(_arrays.writable(result, "result"), stream)
        return grad_x, grad_y

    def wait_result(self):
        """Waits for the latest evaluate_async and returns its scalars (an EvaluateResult
        without gradient arrays)."""
        return EvaluateResult._of(self._system.wait_result())

    def update_movable_sizes(self, movable, movable_macro_mask=None):
        """New (widths, heights) of the movable cells, same count, and optionally a new
        movable_macro_mask (None keeps the current one): no re-planning, no allocation."""
        w, h = _pair(movable, "movable")
        mask = self._movable_macro_mask
        if movable_macro_mask is not None:
            mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(w))
        self._system.update_movable_sizes(w, h, mask)
        self._movable_macro_mask = mask

    def update_filler_sizes(self, fillers):
        """New (widths, heights) of the fillers, same count."""
        w, h = _pair(fillers, "fillers")
        self._system.update_filler_sizes(w, h)

    def update_fixed_cells(self, fixed):
        """Recomputes the fixed map from (widths, heights, x, y); the count may change (None:
        no fixed cells)."""
        w, h, x, y = [(_empty() if a is None else a) for a in _fixed(fixed)]
        self._system.update_fixed_cells(w, h, x, y)


def _default_stream(device):
    """The current stream of PyTorch (else CuPy) for a CUDA device, when either is imported."""
    if device < 0:
        return 0
    t = _arrays._torch()
    if t is not None and t.cuda.is_available():
        return t.cuda.current_stream(device).cuda_stream
    cp = _arrays._cupy()
    if cp is not None:
        with cp.cuda.Device(device):
            return cp.cuda.get_current_stream().ptr
    return 0


def make_fillers(movable, fixed, xl, yl, xh, yh, target_density, row_height=0.0):
    """Filler cells per docs/math.md (Fillers): returns (width, height, count, total_area)."""
    mw, mh = _pair(movable, "movable")
    w, h, x, y = [(_empty() if a is None else a) for a in _fixed(fixed)]
    return _efield.make_fillers(mw, mh, w, h, x, y, xl, yl, xh, yh, target_density, row_height)


def make_region_fillers(movable, region_id, fences, fixed, xl, yl, xh, yh, target_density, row_height=0.0,
                        field_target_density=None):
    """Fillers per fence region (docs/math.md, Fillers per fence region), DREAMPlace 3.0's rule.

    movable: (widths, heights); region_id: per movable cell, k in [0, K) for fence k, K or
    2**31 - 1 (DREAMPlace's INT_MAX) for the default region, or None (every cell in it); fences: K
    array-likes of shape (rects, 4), rows (xl, yl, xh, yh); field_target_density: None, or K + 1
    values (0: the rule, else that field's td as given). Returns K + 1 dicts (width, height, count,
    total_area, target_density, placeable_area, movable_area, utilization, num_movable): the
    fences' fields, then the default field. With no fences: make_fillers' result exactly."""
    import numpy as np

    mw, mh = _pair(movable, "movable")
    w, h, x, y = [(_empty() if a is None else a) for a in _fixed(fixed)]
    ids = _region_id(region_id)
    ftd = _empty() if field_target_density is None else np.asarray(field_target_density, dtype=np.float64)
    return _efield.make_region_fillers(mw, mh, ids, _fences(fences), w, h, x, y, xl, yl, xh, yh, target_density,
                                       row_height, ftd)


def _fences(fences):
    """K fences as float64 NumPy arrays of shape (rects, 4)."""
    import numpy as np

    out = []
    for k, f in enumerate(fences):
        a = np.ascontiguousarray(f, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != 4:
            raise ValueError(f"fences[{k}] must have shape (rects, 4), got {a.shape}")
        out.append(a)
    return out


def _region_id(region_id):
    """region_id as an int32 NumPy array (empty for None: every cell in the default region)."""
    import numpy as np

    if region_id is None:
        return np.zeros(0, np.int32)
    ids = np.asarray(region_id)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"region_id must be a one-dimensional integer array, got {ids.dtype} of shape {ids.shape}")
    if ids.size and (ids.min() < np.iinfo(np.int32).min or ids.max() > np.iinfo(np.int32).max):
        raise ValueError("region_id has values outside the 32-bit range")
    return ids.astype(np.int32)


def default_bin_grid(movable, xl, yl, xh, yh, target_density):
    """The RePlAce/DREAMPlace bin grid for these movable (widths, heights): (num_bins_x, num_bins_y)."""
    mw, mh = _pair(movable, "movable")
    return _efield.default_bin_grid(mw, mh, xl, yl, xh, yh, target_density)
