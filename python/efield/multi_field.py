"""efield.MultiFieldSystem: many electrostatic fields over one bin grid in one evaluate
(include/efield/multi_field_system.hpp, docs/math.md 2.11): DREAMPlace 3.0's fence regions
(K fences -> K + 1 fields) and batches of placements of one design.

    fields, n = efield.make_fence_fields((w, h), region_id, fences, fixed, xl, yl, xh, yh, fillers)
    mf = efield.MultiFieldSystem(fields, xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=256, num_bins_y=256,
                                 num_entries=n, dtype="float32", device="cuda")
    results = mf.evaluate(x, y, weights=lambdas)   # one EvaluateResult per field
    results[0].grad_x is results[1].grad_x         # the one gradient array of all fields

Each field is an ordinary ElectrostaticSystem over its own cells (entries of the shared x, y),
fixed cells and target density; the gradient of a cell comes from its own field only, times
that field's weight. Arrays as ElectrostaticSystem takes them: NumPy, PyTorch, CuPy, in place.
"""

from . import _arrays, _efield
from .system import EvaluateResult, _default_stream, _empty, _fixed, _pair, _fences, _prepare_arrays, _region_id

FieldSpec = _efield.FieldSpec


def _index(a, name):
    import numpy as np

    if a is None:
        return np.zeros(0, np.int64)
    k = _arrays.kind(a)
    if k == "torch":
        a = a.detach().cpu().numpy()
    elif k == "cupy":
        a = _arrays._cupy().asnumpy(a)
    arr = np.asarray(a)
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{name} must be a one-dimensional integer array, got {arr.dtype} of shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def field_spec(movable_index, movable, fillers=None, filler_index=None, fixed=None, target_density=1.0,
               movable_macro_mask=None):
    """One field: movable_index (the entry of each movable cell in x, y), movable (widths,
    heights), fillers (widths, heights) with filler_index, fixed (widths, heights, x, y) (its
    blockages included), target_density."""
    mw, mh = _pair(movable, "movable")
    if mw is None:
        raise ValueError("movable must be (widths, heights)")
    fw, fh = _pair(fillers, "fillers")
    e = _empty()
    xw, xh, xx, xy = [(e if a is None else a) for a in _fixed(fixed)]
    return _efield.FieldSpec(
        movable_index=_index(movable_index, "movable_index"), movable_w=mw, movable_h=mh,
        movable_macro_mask=_arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(mw)),
        filler_index=_index(filler_index, "filler_index"), filler_w=e if fw is None else fw,
        filler_h=e if fh is None else fh, fixed_w=xw, fixed_h=xh, fixed_x=xx, fixed_y=xy,
        target_density=_arrays.to_float(target_density, "target_density"))


def _field(f, k):
    if isinstance(f, _efield.FieldSpec):
        return f
    if isinstance(f, dict):
        d = dict(f)
        try:
            movable = (d.pop("movable_widths"), d.pop("movable_heights"))
            fillers = None
            if "filler_widths" in d:
                fillers = (d.pop("filler_widths"), d.pop("filler_heights"))
            fixed = None
            if "fixed_widths" in d:
                fixed = (d.pop("fixed_widths"), d.pop("fixed_heights"), d.pop("fixed_x"), d.pop("fixed_y"))
        except KeyError as missing:
            raise ValueError(f"fields[{k}] lacks {missing}") from None
        spec = field_spec(d.pop("movable_index"), movable, fillers, d.pop("filler_index", None), fixed,
                          d.pop("target_density", 1.0), d.pop("movable_macro_mask", None))
        if d:
            raise ValueError(f"fields[{k}] has unknown keys {sorted(d)}")
        return spec
    raise TypeError(f"fields[{k}] must be an efield.FieldSpec or a dict (got {type(f).__name__})")


class FieldView:
    """Field k of a MultiFieldSystem: its system's maps of the latest evaluate (float64 NumPy
    [num_bins_x, num_bins_y]) and counts."""

    def __init__(self, system, k):
        self._s, self._k = system, k
        info = system.field_info(k)
        for name, value in info.items():
            setattr(self, name, value)

    def density_map(self):
        return self._s.density_map(self._k)

    def field_x_map(self):
        return self._s.field_x_map(self._k)

    def field_y_map(self):
        return self._s.field_y_map(self._k)

    def potential_map(self):
        return self._s.potential_map(self._k)

    def fixed_map(self):
        return self._s.fixed_map(self._k)


class MultiFieldSystem:
    """Many fields over one bin grid (fields: efield.FieldSpec objects or dicts with
    movable_index, movable_widths, movable_heights, [movable_macro_mask], [filler_index,
    filler_widths, filler_heights], [fixed_widths, fixed_heights, fixed_x, fixed_y],
    [target_density]). Options (keyword only) as ElectrostaticSystem's, target_density and
    filler_offset excepted (per field); num_entries: the length of x, y and the gradients, every
    index below it; zero_other_entries: write 0 at entries no field owns on evaluates that do not
    accumulate; pipeline: "auto" (the default: "batched" on CUDA with two or more fields and the
    DREAMPlace gradient scale, else "per_field"), "per_field" (each field its own system: every
    field bitwise as its own ElectrostaticSystem) or "batched" (CUDA only: all fields in one
    pipeline, docs/design.md; field(k) then gives density_map() and the counts only). The
    attribute `pipeline` says which one runs."""

    def __init__(self, fields, *, xl, yl, xh, yh, num_bins_x, num_bins_y, num_entries, dtype="float32", device="cpu",
                 deterministic=True, cpu_threads=0, use_cuda_graph=True, gradient_scale="dreamplace",
                 zero_other_entries=False, stream=None, plan_effort="estimate", pipeline="auto"):
        specs = [_field(f, k) for k, f in enumerate(fields)]
        self.dtype = _arrays.dtype_name(dtype)
        self.device = _arrays.parse_device(device)
        if stream is None:
            stream = _default_stream(self.device)
        self._system = _efield.MultiFieldSystem(
            specs, xl=_arrays.to_float(xl, "xl"), yl=_arrays.to_float(yl, "yl"), xh=_arrays.to_float(xh, "xh"),
            yh=_arrays.to_float(yh, "yh"), num_bins_x=_arrays.to_int(num_bins_x, "num_bins_x", 1),
            num_bins_y=_arrays.to_int(num_bins_y, "num_bins_y", 1), dtype=self.dtype, device=self.device,
            deterministic=bool(deterministic), stream=int(stream), cpu_threads=_arrays.to_int(cpu_threads, "cpu_threads", 0),
            use_cuda_graph=bool(use_cuda_graph), gradient_scale=str(gradient_scale),
            num_entries=_arrays.to_int(num_entries, "num_entries", 0), zero_other_entries=bool(zero_other_entries),
            plan_effort=str(plan_effort), pipeline=str(pipeline))
        self.fields = specs
        self.pipeline = self._system.pipeline

    def evaluate(self, x, y, grad_x=None, grad_y=None, weights=None, accumulate=False):
        """One iteration of every field: reads x, y (1-D, >= num_entries) and writes (adds, with
        accumulate=True) weights[k] times field k's gradient at field k's entries. grad_x, grad_y
        are allocated like x, zero-filled, when None. Returns one EvaluateResult per field, all
        holding the same grad_x, grad_y."""
        plain, grad_x, grad_y, stream = _prepare_arrays(self, x, y, grad_x, grad_y, accumulate)
        w = [] if weights is None else [_arrays.to_float(v, f"weights[{i}]") for i, v in enumerate(_list(weights))]
        rs = self._system.evaluate(*plain, stream, w, bool(accumulate))
        return [EvaluateResult._of(r, grad_x, grad_y) for r in rs]

    def field(self, k):
        """Field k's maps and counts (a FieldView)."""
        return FieldView(self._system, int(k))

    num_fields = property(lambda self: self._system.num_fields)
    num_entries = property(lambda self: self._system.num_entries)
    backend = property(lambda self: self._system.backend)


def _list(values):
    k = _arrays.kind(values)
    if k == "torch":
        return values.detach().cpu().tolist()
    if k in ("numpy", "cupy"):
        return values.tolist()
    return list(values)


def make_fence_fields(movable, region_id, fences, fixed, xl, yl, xh, yh, fillers, filler_offset=-1, num_entries=-1,
                      movable_macro_mask=None):
    """DREAMPlace 3.0's fence-region fields (docs/math.md 2.11): K fences -> K + 1 FieldSpecs,
    the default field last. movable: (widths, heights); movable cell i is entry i; region_id,
    fences as make_region_fillers takes them; fillers: make_region_fillers' K + 1 dicts. The
    fillers follow at filler_offset (-1: the movable count), field 0's first. Returns
    (fields, num_entries)."""
    mw, mh = _pair(movable, "movable")
    e = _empty()
    w, h, x, y = [(e if a is None else a) for a in _fixed(fixed)]
    mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(mw))
    return _efield.make_fence_fields(mw, mh, mask, _region_id(region_id), _fences(fences), w, h, x, y, xl, yl, xh, yh,
                                     list(fillers), int(filler_offset), int(num_entries))


def fence_blockages(k, fences, fixed, xl, yl, xh, yh):
    """The blockage rectangles of fence field k (k = K: the default field): (rects, 4) float64."""
    e = _empty()
    w, h, x, y = [(e if a is None else a) for a in _fixed(fixed)]
    return _efield.fence_blockages(int(k), _fences(fences), w, h, x, y, xl, yl, xh, yh)


def make_batch_fields(count, movable, fillers=None, fixed=None, target_density=1.0, stride=-1,
                      movable_macro_mask=None):
    """`count` placements of one design: member k's movable cells at entries
    [k * stride, k * stride + n), its fillers right after; stride -1: n + number of fillers."""
    mw, mh = _pair(movable, "movable")
    fw, fh = _pair(fillers, "fillers")
    e = _empty()
    w, h, x, y = [(e if a is None else a) for a in _fixed(fixed)]
    mask = _arrays.to_numpy_mask(movable_macro_mask, "movable_macro_mask", len(mw))
    return _efield.make_batch_fields(int(count), mw, mh, mask, e if fw is None else fw, e if fh is None else fh, w, h,
                                     x, y, float(target_density), int(stride))
