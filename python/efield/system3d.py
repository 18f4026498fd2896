"""efield.ElectrostaticSystem3D: the 3D electrostatic density system (ePlace-3D's model for
stacked dies, docs/math.md section 4), mirroring the C++ class efield::ElectrostaticSystem3D
(include/efield/electrostatic_system3d.hpp).

    es = efield.ElectrostaticSystem3D((w, h, d), fillers=(fw, fh, fd), fixed=(xw, xh, xd, xx, xy, xz),
                                      xl=0, yl=0, zl=0, xh=W, yh=H, zh=Z,
                                      num_bins_x=256, num_bins_y=256, num_bins_z=4,
                                      target_density=0.9, dtype="float32", device="cuda")
    r = es.evaluate(x, y, z)    # r.energy, r.overflow, r.max_density, r.grad_x, r.grad_y, r.grad_z

Positions are lower corners. Index layout as in efield.ElectrostaticSystem: movable cell i ->
x[i]; filler j -> x[filler_offset + j]. overflow, max_density and the *_area_outside values are
in volumes here (docs/math.md 4.10). Maps are float64 NumPy arrays [num_bins_x, num_bins_y,
num_bins_z]. Arrays may be NumPy, PyTorch (CPU or CUDA) or CuPy, as for the 2D system.
"""

from dataclasses import dataclass
from typing import Any

from . import _arrays, _efield
from .system import _default_stream, _empty, _SystemMaps


@dataclass
class EvaluateResult3D:
    """One 3D evaluate: the energy (docs/math.md 4.8), the overflow of the movable cells and the
    maximum bin density (4.10), the stretched volume outside the region, and the gradient arrays
    (the caller's kind, on the system's device)."""

    energy: float
    overflow: float
    max_density: float
    movable_volume_outside: float = 0.0
    filler_volume_outside: float = 0.0
    grad_x: Any = None
    grad_y: Any = None
    grad_z: Any = None

    @classmethod
    def _of(cls, r, grads=(None, None, None)):
        return cls(r.energy, r.overflow, r.max_density, r.movable_area_outside, r.filler_area_outside, *grads)


def _triple(cells, name):
    if cells is None:
        return None
    if len(cells) != 3:
        raise ValueError(f"{name} must be (widths, heights, depths)")
    return [_arrays.to_numpy_f64(a, f"{name} {n}") for a, n in zip(cells, ("widths", "heights", "depths"))]


def _fixed(fixed):
    if fixed is None:
        return [_empty()] * 6
    if len(fixed) != 6:
        raise ValueError("fixed must be (widths, heights, depths, x, y, z)")
    return [_arrays.to_numpy_f64(a, f"fixed {n}") for a, n in zip(fixed, ("widths", "heights", "depths", "x", "y", "z"))]


class ElectrostaticSystem3D(_SystemMaps):
    """The 3D electrostatic system of one design on one device.

    movable: (widths, heights, depths). fillers: (widths, heights, depths) or None. fixed:
    (widths, heights, depths, x, y, z) of fixed cuboids (lower corners) or None. Options (keyword
    only, as efield::ElectrostaticOptions3D): xl, yl, zl, xh, yh, zh (region), num_bins_x,
    num_bins_y, num_bins_z, target_density, dtype ("float32"/"float64"), device ("cpu", "cuda",
    "cuda:N"), deterministic, cpu_threads, filler_offset (-1: after the movable cells),
    use_cuda_graph, gradient_scale ("dreamplace" or "exact"), zero_gap_gradient, stream.
    movable_macro_mask: None or a boolean array, one entry per movable cell, True for a movable
    macro (DREAMPlace's rule, docs/math.md 4.1: with target_density < 1 its density ratio is
    target_density).
    """

    def __init__(self, movable, fillers=None, fixed=None, *, xl, yl, zl, xh, yh, zh, num_bins_x, num_bins_y,
                 num_bins_z, target_density=1.0, dtype="float32", device="cpu", deterministic=True, cpu_threads=0,
                 filler_offset=-1, use_cuda_graph=True, gradient_scale="dreamplace", zero_gap_gradient=False,
                 stream=None, movable_macro_mask=None):
        m = _triple(movable, "movable")
        if m is None:
            raise ValueError("movable must be (widths, heights, depths)")
        self._movable_macro_mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(m[0]))
        f = _triple(fillers, "fillers") or [_empty()] * 3
        x = _fixed(fixed)
        self.dtype = _arrays.dtype_name(dtype)
        self.device = _arrays.parse_device(device)
        if stream is None:
            stream = _default_stream(self.device)
        fl = _arrays.to_float
        self._system = _efield.ElectrostaticSystem3D(
            xl=fl(xl, "xl"), yl=fl(yl, "yl"), zl=fl(zl, "zl"), xh=fl(xh, "xh"), yh=fl(yh, "yh"), zh=fl(zh, "zh"),
            num_bins_x=_arrays.to_int(num_bins_x, "num_bins_x", 1), num_bins_y=_arrays.to_int(num_bins_y, "num_bins_y", 1),
            num_bins_z=_arrays.to_int(num_bins_z, "num_bins_z", 1), target_density=fl(target_density, "target_density"),
            dtype=self.dtype, device=self.device, deterministic=bool(deterministic), stream=int(stream),
            cpu_threads=_arrays.to_int(cpu_threads, "cpu_threads", 0),
            filler_offset=_arrays.to_int(filler_offset, "filler_offset", -1), use_cuda_graph=bool(use_cuda_graph),
            gradient_scale=str(gradient_scale), zero_gap_gradient=bool(zero_gap_gradient),
            movable_w=m[0], movable_h=m[1], movable_d=m[2], filler_w=f[0], filler_h=f[1], filler_d=f[2],
            fixed_w=x[0], fixed_h=x[1], fixed_d=x[2], fixed_x=x[3], fixed_y=x[4], fixed_z=x[5],
            movable_macro_mask=self._movable_macro_mask)

    def _prepared(self, x, y, z, grads, accumulate):
        k, dtype, device, shape = _arrays.describe(x)
        if dtype != self.dtype:
            raise TypeError(f"x has dtype {dtype}; this system was made for {self.dtype}")
        if device != self.device:
            raise ValueError(f"x is on {_arrays.device_name(device)} but the system is on "
                             f"{_arrays.device_name(self.device)}")
        if accumulate and any(g is None for g in grads):
            raise ValueError("accumulate=True adds into grad_x, grad_y and grad_z: pass them")
        grads = [_arrays.empty_like(x, k, dtype, device, shape, zero=True) if g is None else g for g in grads]
        plain = [_arrays.readable(x, k), _arrays.readable(y, _arrays.kind(y), "y"),
                 _arrays.readable(z, _arrays.kind(z), "z")]
        plain += [_arrays.writable(g, n) for g, n in zip(grads, ("grad_x", "grad_y", "grad_z"))]
        return plain, grads, _arrays.current_stream(x, k, device)

    def evaluate(self, x, y, z, grad_x=None, grad_y=None, grad_z=None, weight=1.0, accumulate=False):
        """One iteration: reads x, y, z (1-D, length >= required_length) and writes
        weight * gradient of every movable and filler cell into grad_x, grad_y, grad_z (adds it
        with accumulate=True); they are allocated like x, zero-filled, when None. Returns an
        EvaluateResult3D (blocks until its scalars are ready)."""
        plain, grads, stream = self._prepared(x, y, z, (grad_x, grad_y, grad_z), accumulate)
        r = self._system.evaluate(*plain, stream, _arrays.to_float(weight, "weight"), bool(accumulate), False)
        return EvaluateResult3D._of(r, grads)

    def evaluate_async(self, x, y, z, grad_x=None, grad_y=None, grad_z=None, weight=1.0, accumulate=False,
                       result=None):
        """evaluate without a host sync (CUDA systems, CUDA arrays), on the caller's current
        stream. `result`, a float64 CUDA array of >= 5 entries, receives energy, overflow,
        max_density and the two outside volumes on that stream. Returns (grad_x, grad_y, grad_z);
        wait_result() gives the scalars on the host."""
        plain, grads, stream = self._prepared(x, y, z, (grad_x, grad_y, grad_z), accumulate)
        self._system.evaluate(*plain, stream, _arrays.to_float(weight, "weight"), bool(accumulate), True)
        if result is not None:
            self._system.copy_result(_arrays.writable(result, "result"), stream)
        return tuple(grads)

    def wait_result(self):
        """Waits for the latest evaluate_async; its scalars (no gradient arrays)."""
        return EvaluateResult3D._of(self._system.wait_result())

    def update_movable_sizes(self, movable, movable_macro_mask=None):
        """New (widths, heights, depths) of the movable cells, same count, and optionally a new
        movable_macro_mask (None keeps the current one)."""
        m = _triple(movable, "movable")
        mask = self._movable_macro_mask
        if movable_macro_mask is not None:
            mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(m[0]))
        self._system.update_movable_sizes(*m, mask)
        self._movable_macro_mask = mask

    def update_filler_sizes(self, fillers):
        """New (widths, heights, depths) of the fillers, same count."""
        self._system.update_filler_sizes(*_triple(fillers, "fillers"))

    def update_fixed_cells(self, fixed):
        """Recomputes the fixed map from (widths, heights, depths, x, y, z); None: no fixed cells."""
        self._system.update_fixed_cells(*_fixed(fixed))

    def field_z_map(self):
        return self._system.field_z_map()

    bin_depth = property(lambda self: self._system.bin_depth)
    num_bins_z = property(lambda self: self._system.num_bins_z)


def make_fillers_3d(movable, fixed, xl, yl, zl, xh, yh, zh, target_density, height=0.0, depth=0.0):
    """Fillers of a 3D design (docs/math.md 4.11): returns (width, height, depth, count,
    total_volume). height <= 0: the mean movable height; depth <= 0: the mean movable depth (give
    the tier depth for a stacked design)."""
    m = _triple(movable, "movable")
    return _efield.make_fillers_3d(*m, *_fixed(fixed), xl, yl, zl, xh, yh, zh, target_density, height, depth)
