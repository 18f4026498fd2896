"""efield.torch.ElectricPotential: the electrostatic density penalty as a PyTorch autograd op
that takes what DREAMPlace's ElectricPotential takes for the same job and drops into a
DREAMPlace-style placer.

    op = ElectricPotential(node_size_x, node_size_y, xl=xl, yl=yl, xh=xh, yh=yh,
                           num_bins_x=512, num_bins_y=512, num_movable_nodes=nm,
                           num_terminals=nt, num_filler_nodes=nf, target_density=0.9, pos=pos)
    energy = op(pos)            # 0-d tensor; pos = [x..., y...] over all nodes
    (wl + density_weight * energy).backward()

DREAMPlace's own call works unchanged (its whole keyword list, with its meaning; PlaceObj's
`import dreamplace.ops.electric_potential.electric_potential as electric_potential` becomes
`import efield.torch as electric_potential`):
  - movable_macro_mask: DREAMPlace's movable-macro rule (docs/math.md 2.1).
  - reset(): re-reads node_size_x, node_size_y and movable_macro_mask from the objects given at
    construction (DREAMPlace's routability flow inflates cells by writing into them in place).
  - forward(pos, mode="overflow"): (overflow, max_density) as DREAMPlace's op returns them.
  - bin_center_x, bin_center_y: checked against the grid (the bins' centres are derived from the
    region and the bin sizes); sorted_node_map: checked and not needed (it orders DREAMPlace's own
    CUDA launches).
  - fast_mode: nothing to skip. DREAMPlace's fast mode skips its potential transform and returns
    a zero energy; here the energy comes out of the spectral pass the field needs anyway
    (docs/math.md 2.8), so the op returns the true energy in either mode at no cost.
  - region_id, fence_regions, node2fence_region_map, placedb: DREAMPlace 3.0's per-region op (one
    per field of a fence-region design, as PlaceObj builds them): with region_id k the op sees
    only field k's charges (the movable nodes with node2fence_region_map == k, or >= K for the
    default region k = K = len(placedb.regions); field k's fillers, the slice
    placedb.filler_start_map[k:k + 2]), rasterizes the fence_regions rectangles (the virtual
    macros) as fixed blocks with the terminals, uses target_density as given (DREAMPlace passes
    placedb.target_density_fence_region[k]), and its gradient is exactly 0 at every other entry
    of pos. mode="overflow" gives the field's (overflow, max_density). Made by
    efield._region_op.RegionElectricPotential (a subclass; eager PyTorch: torch.compile and CUDA
    graph capture are not supported for it); without region_id and fence_regions the
    whole-design op runs as before, node2fence_region_map and placedb unread. All K + 1 fields
    in one op: efield.torch.MultiFieldElectricPotential.from_dreamplace.

Layout (DREAMPlace's): nodes are movable first, then `num_terminals` fixed terminals, then any
other nodes that take no part in the density (DREAMPlace's terminal_NIs), fillers last;
pos = [x..., y...] holds the lower-left corners of all of them. The fixed terminals' positions
are read from `pos` when the system is made (at construction when `pos` is given, else at the
first forward); terminals of zero area are left out of the fixed map.

The gradient written to pos.grad is grad_output times the system's gradient
(docs/math.md 2.9: -r sum ox oy E, DREAMPlace's field estimate), for movable cells and fillers,
and zero at every other entry (fixed terminals, terminal_NIs). float32 and float64 tensors, CPU
and CUDA (any device: the op runs on pos's device). CUDA tensors are used in place on the current
stream; no host round trip. Forward waits for its evaluate and has overflow and max_density at
hand; with asynchronous=True it does not wait (the energy is a device tensor written on the
stream; reading overflow or max_density then waits for it), and inside CUDA graph capture it
never waits. The op computes the gradient in forward into a buffer made at the first call, and
backward returns grad_output * that buffer: a backward belongs to the op's latest forward (an
older one raises).
"""

import math
import threading

import numpy as np
import torch

from . import _arrays, _compiled_op
from .system import ElectrostaticSystem

__all__ = ["ElectricPotential", "MultiFieldElectricPotential", "BatchedElectricPotential", "ElectricPotential3D"]

_MODES = ("density", "overflow")


# The current stream's handle through PyTorch's private binding where present (no Python stream
# object per call), else its public API.
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream",
                      lambda device: torch.cuda.current_stream(device).cuda_stream)
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", lambda: False)
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


class _Evaluator:
    """What one forward needs, made at the op's build: a plain object, since every attribute set
    on a torch.nn.Module goes through its Python __setattr__."""

    __slots__ = ("system", "dtype", "device_index", "numel", "grad", "grad_ptr", "half", "asynchronous",
                 "energy_like", "results", "results_ptr", "result_energy", "generation", "last_async", "scratch",
                 "lock")

    def __init__(self, system, pos, num_nodes, asynchronous):
        self.system = system
        self.dtype = pos.dtype
        self.device_index = pos.get_device()  # the CUDA ordinal, -1 on the CPU
        self.numel = pos.numel()
        # Zero once: entries the system never writes (terminals, terminal_NIs) stay zero.
        self.grad = torch.zeros_like(pos, memory_format=torch.contiguous_format).detach()
        self.grad_ptr = self.grad.data_ptr()
        self.half = num_nodes * pos.element_size()  # bytes from x to y in pos and in the gradient
        self.asynchronous = asynchronous and self.device_index >= 0
        self.energy_like = torch.empty((), dtype=pos.dtype, device=pos.device)  # each output's template
        # CUDA: energy, overflow, max_density, two outside areas of an asynchronous evaluate,
        # written on the stream.
        self.results = self.result_energy = None
        self.results_ptr = 0
        if self.device_index >= 0:
            self.results = torch.zeros(5, dtype=torch.float64, device=pos.device)
            self.results_ptr = self.results.data_ptr()
            self.result_energy = self.results[0]
        self.generation = 0
        self.last_async = False
        self.scratch = None  # mode="overflow"'s gradient, made at its first call
        # One evaluate (or backward's read of the gradient) at a time: the gradient buffer, the
        # results and the generation are the op's per-call state, shared by every thread.
        self.lock = threading.Lock()

    def fits(self, pos):
        return (pos.dtype is self.dtype and pos.get_device() == self.device_index and pos.numel() == self.numel
                and pos.dim() == 1 and not pos.is_meta and pos.layout is torch.strided and pos.is_contiguous())

    def __call__(self, pos):
        """(energy, generation) of pos, or None when pos does not fit (the op names the problem)."""
        if not self.fits(pos):
            return None
        with self.lock:
            return self._evaluate(pos), self.generation

    def _evaluate(self, pos):
        self.generation += 1
        device = self.device_index
        # The blocking evaluate writes the energy into the output on the stream (no kernel of
        # PyTorch's); the asynchronous one (asked for, or inside CUDA graph capture) leaves it in
        # the results, copied from there on the stream.
        energy = torch.empty_like(self.energy_like)
        self.last_async = self.system.evaluate_flat(pos.data_ptr(), self.grad_ptr, self.half,
                                                    _raw_stream(device) if device >= 0 else 0, energy.data_ptr(),
                                                    self.results_ptr, self.asynchronous)
        if self.last_async:
            energy.copy_(self.result_energy)
        return energy

    def overflow(self, pos, movable_area):
        """DREAMPlace's mode="overflow": (overflow area, max density) of pos as 0-d tensors of its
        dtype on its device. The evaluate writes its gradient into a scratch buffer, so the latest
        forward's gradient stays for its backward. CUDA: no host sync (the values are formed from
        the result array on the stream)."""
        if not self.fits(pos):
            return None
        with self.lock:
            return self._overflow(pos, movable_area)

    def _overflow(self, pos, movable_area):
        if self.scratch is None:
            self.scratch = torch.zeros_like(self.grad)
        device = self.device_index
        stream = _raw_stream(device) if device >= 0 else 0
        self.last_async = self.system.evaluate_flat(pos.data_ptr(), self.scratch.data_ptr(), self.half, stream, 0,
                                                    self.results_ptr, device >= 0)
        return _compiled_op.overflow_values(self.system, self.results, device, movable_area, self.dtype)

    def scalar(self, index, name):
        if self.generation == 0:
            return math.nan
        if self.last_async:
            return float(self.results[index])  # waits for the stream to reach it
        return getattr(self.system.wait_result(), name)  # the latest blocking evaluate's


class _ElectricPotentialFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pos, op):
        evaluator = op._evaluator
        done = evaluator(pos)
        if done is None:
            op._refuse(pos)
        energy, ctx.generation = done
        ctx.evaluator = evaluator
        return energy

    @staticmethod
    def backward(ctx, grad_output):
        evaluator = ctx.evaluator
        with evaluator.lock:
            if ctx.generation != evaluator.generation:
                raise RuntimeError("efield.torch.ElectricPotential: backward of an older forward (a later one ran, "
                                   "in this thread or another); the op keeps the gradient of its latest forward "
                                   "only (run backward before the next forward, or give each thread its own op)")
            return grad_output * evaluator.grad, None


# Function.apply's C++ implementation. PyTorch 2 wraps it in Python for functorch transforms (vmap,
# grad, ...: the op takes the wrapper while one is active) and for tensors that escaped a finished
# transform; outside them the wrapper only costs time.
_apply = super(torch.autograd.Function, _ElectricPotentialFunction).apply


class ElectricPotential(torch.nn.Module):
    """The density penalty of all movable and filler nodes on a bin grid.

    node_size_x, node_size_y: sizes of all nodes (tensor, array or sequence), in pos's order;
    reset() reads them again. xl, yl, xh, yh: the placement region. num_bins_x, num_bins_y: the
    bin grid (or give bin_size_x, bin_size_y as DREAMPlace does; the counts are then
    round(width / bin_size)). num_movable_nodes, num_terminals, num_filler_nodes: the layout
    above. target_density: in (0, 1]. deterministic (or DREAMPlace's deterministic_flag): bitwise
    identical results from run to run. pos: the positions the fixed terminals are read from (also
    fixes dtype and device); without it the first forward's pos is used. padding must be 0
    (DREAMPlace's bin padding is not supported). movable_macro_mask: None or a bool tensor (array)
    with one entry per movable node, True for a movable macro: below target density 1 a macro's
    density ratio is target_density instead of its area over its stretched area (DREAMPlace's
    rule, docs/math.md 2.1); reset() reads it again. cpu_threads: worker threads of the CPU
    backend (0 = all). gradient_scale: "dreamplace" (the default, DREAMPlace's field estimate) or
    "exact" (dE/dx of the returned energy). asynchronous (CUDA): False (default) runs the
    blocking evaluate (the fastest at scale: the deterministic float pipeline sums in 32-bit
    bins and re-runs in 64-bit ones only after a pile-up); True never waits for the device (the
    deterministic float pipeline then always sums in 64-bit bins, see
    ElectrostaticSystem.evaluate_async; bench_ispd/results/python.md measures both). plan_effort
    (CUDA): "estimate" (default) or "measure", as ElectrostaticSystem's (the same results).
    DREAMPlace's other keywords (bin_center_x, bin_center_y, sorted_node_map, fast_mode,
    region_id, fence_regions, node2fence_region_map, placedb): see the module's docstring.

    The op runs as torch.ops.efield.electric_potential (compiled in C++, autograd included: works
    under torch.compile and CUDA graph capture) when efield._torch_ops was built, else through
    Python; `compiled` says which, after the build. Setting the class attribute
    use_compiled_op = False before the build picks the Python path. The compiled op's forward
    returns a new gradient per call, so a backward of any forward is exact.
    """

    use_compiled_op = _compiled_op.AVAILABLE

    def __new__(cls, *args, region_id=None, fence_regions=None, **kwargs):
        """With region_id or fence_regions: the per-region op (the module's docstring)."""
        if cls is ElectricPotential and (region_id is not None or fence_regions is not None):
            from ._region_op import RegionElectricPotential
            cls = RegionElectricPotential
        return super().__new__(cls)

    def __init__(self, node_size_x, node_size_y, xl=None, yl=None, xh=None, yh=None, num_bins_x=None,
                 num_bins_y=None, num_movable_nodes=None, num_terminals=0, num_filler_nodes=0, target_density=1.0,
                 deterministic=True, pos=None, *, bin_size_x=None, bin_size_y=None, deterministic_flag=None,
                 padding=0, movable_macro_mask=None, cpu_threads=0, gradient_scale="dreamplace", asynchronous=False,
                 bin_center_x=None, bin_center_y=None, sorted_node_map=None, fast_mode=False, region_id=None,
                 fence_regions=None, node2fence_region_map=None, placedb=None, plan_effort="estimate"):
        super().__init__()
        if None in (xl, yl, xh, yh):
            raise TypeError("ElectricPotential needs the region xl, yl, xh, yh")
        if num_movable_nodes is None:
            raise TypeError("ElectricPotential needs num_movable_nodes")
        if padding:
            raise ValueError("ElectricPotential: padding > 0 is not supported (pass 0)")
        # The objects reset() reads the sizes and the mask from again (DREAMPlace changes them in place).
        self._size_sources = (node_size_x, node_size_y, movable_macro_mask)
        self.size_x = _arrays.to_numpy_f64(node_size_x, "node_size_x")
        self.size_y = _arrays.to_numpy_f64(node_size_y, "node_size_y")
        self.num_nodes = len(self.size_x)
        if len(self.size_y) != self.num_nodes:
            raise ValueError(f"node_size_x has {self.num_nodes} entries but node_size_y {len(self.size_y)}")
        self.xl, self.yl, self.xh, self.yh = (_arrays.to_float(v, name)
                                              for v, name in zip((xl, yl, xh, yh), ("xl", "yl", "xh", "yh")))
        self.num_bins_x = self._bins(num_bins_x, bin_size_x, self.xh - self.xl, "x")
        self.num_bins_y = self._bins(num_bins_y, bin_size_y, self.yh - self.yl, "y")
        self._check_bin_centers(bin_center_x, self.xl, self.xh, self.num_bins_x, "x")
        self._check_bin_centers(bin_center_y, self.yl, self.yh, self.num_bins_y, "y")
        self.num_movable_nodes = _arrays.to_int(num_movable_nodes, "num_movable_nodes")
        self.num_terminals = _arrays.to_int(num_terminals, "num_terminals")
        self.num_filler_nodes = _arrays.to_int(num_filler_nodes, "num_filler_nodes")
        if min(self.num_movable_nodes, self.num_terminals, self.num_filler_nodes) < 0:
            raise ValueError("num_movable_nodes, num_terminals and num_filler_nodes must be >= 0")
        if self.num_movable_nodes + self.num_terminals + self.num_filler_nodes > self.num_nodes:
            raise ValueError(f"{self.num_movable_nodes} movable + {self.num_terminals} terminals + "
                             f"{self.num_filler_nodes} fillers exceed the {self.num_nodes} nodes of node_size_x")
        if sorted_node_map is not None and len(sorted_node_map) != self.num_movable_nodes:
            raise ValueError(f"sorted_node_map has {len(sorted_node_map)} entries for {self.num_movable_nodes} "
                             "movable nodes")
        self.movable_macro_mask = self._read_mask(movable_macro_mask)
        self.movable_area = self._movable_area()
        self.target_density = _arrays.to_float(target_density, "target_density")
        self.deterministic = bool(deterministic if deterministic_flag is None else deterministic_flag)
        self.fast_mode = bool(fast_mode)  # nothing to skip (the module's docstring)
        self.cpu_threads = _arrays.to_int(cpu_threads, "cpu_threads", 0)
        self.gradient_scale = str(gradient_scale)
        self.asynchronous = bool(asynchronous)
        self.plan_effort = str(plan_effort)
        self._es = None
        self._evaluator = None
        self.compiled = False
        self._fixed_positions = None  # the terminals' lower-left corners, read at the build
        if pos is not None:
            self._build(pos)

    @staticmethod
    def _bins(count, size, extent, axis):
        if count is None:
            if size is None:
                raise TypeError(f"ElectricPotential needs num_bins_{axis} (or bin_size_{axis})")
            size = _arrays.to_float(size, f"bin_size_{axis}")
            if size <= 0:
                raise ValueError(f"bin_size_{axis} must be > 0 (got {size})")
            count = round(extent / size)
        return _arrays.to_int(count, f"num_bins_{axis}", 1)

    @staticmethod
    def _check_bin_centers(centers, lo, hi, count, axis):
        """DREAMPlace's bin_center_x/y must be the grid's own centres lo + (i + 1/2) b (within a
        thousandth of a bin: they may come as float32)."""
        if centers is None:
            return
        c = _arrays.to_numpy_f64(centers, f"bin_center_{axis}")
        if len(c) != count:
            raise ValueError(f"bin_center_{axis} has {len(c)} entries for {count} bins along {axis}")
        b = (hi - lo) / count
        worst = float(np.max(np.abs(c - (lo + (np.arange(count) + 0.5) * b))))
        if not worst <= 1e-3 * b:
            raise ValueError(f"bin_center_{axis} is not the centres of {count} bins of size {b} from {lo} "
                             f"(off by up to {worst}); the op derives them from the region and the bin grid")

    @property
    def filler_offset(self):
        return self.num_nodes - self.num_filler_nodes

    def _read_mask(self, mask):
        """A checked bool NumPy copy of movable_macro_mask (None for none)."""
        if mask is None:
            return None
        return _arrays.to_numpy_mask(mask, "movable_macro_mask", self.num_movable_nodes).astype(bool)

    def _movable_area(self):
        """The movable nodes' total area (the denominator of the system's overflow)."""
        nm = self.num_movable_nodes
        return float((self.size_x[:nm] * self.size_y[:nm]).sum())

    def _check(self, pos, num_nodes=None):
        if not isinstance(pos, torch.Tensor):
            raise TypeError(f"pos must be a torch.Tensor (got {type(pos).__name__})")
        if pos.layout is not torch.strided:
            raise ValueError(f"pos is a {pos.layout} tensor; ElectricPotential takes dense tensors (pos.to_dense())")
        if pos.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"pos has dtype {pos.dtype}; ElectricPotential takes float32 or float64")
        if pos.device.type not in ("cpu", "cuda"):
            raise ValueError(f"pos is on {pos.device}; ElectricPotential takes CPU and CUDA tensors")
        num_nodes = self.num_nodes if num_nodes is None else num_nodes
        if pos.dim() != 1 or pos.numel() != 2 * num_nodes:
            raise ValueError(f"pos must be one-dimensional with 2 * num_nodes = {2 * num_nodes} entries "
                             f"(got shape {tuple(pos.shape)})")
        if not pos.is_contiguous():
            raise ValueError("pos is not contiguous; pass pos.contiguous()")

    def _fixed_cells(self):
        """(widths, heights, x, y) of the terminals with an area (the others add nothing)."""
        nm, nt = self.num_movable_nodes, self.num_terminals
        tw, th = self.size_x[nm:nm + nt], self.size_y[nm:nm + nt]
        bad = ~((tw >= 0) & (th >= 0) & np.isfinite(tw) & np.isfinite(th))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"terminal {i} (node {nm + i}) has size {tw[i]} x {th[i]}; terminal sizes must be finite "
                             "and >= 0 (zero-area terminals take no part in the density)")
        keep = (tw > 0) & (th > 0)
        tx, ty = self._fixed_positions
        return tw[keep], th[keep], tx[keep], ty[keep]

    def _build(self, pos):
        self._check(pos)
        n, nm, nt, nf = self.num_nodes, self.num_movable_nodes, self.num_terminals, self.num_filler_nodes
        host = pos.detach().resolve_neg().to("cpu", torch.float64).numpy()
        self._fixed_positions = (host[nm:nm + nt].copy(), host[n + nm:n + nm + nt].copy())
        fo = self.filler_offset
        fillers = (self.size_x[fo:], self.size_y[fo:]) if nf else None
        self.dtype = pos.dtype
        self.device = pos.device
        device = pos.get_device()  # the CUDA ordinal, -1 on the CPU
        compiled = self.use_compiled_op and _compiled_op.AVAILABLE
        self._es = ElectrostaticSystem(
            (self.size_x[:nm], self.size_y[:nm]), fillers, self._fixed_cells(), xl=self.xl, yl=self.yl, xh=self.xh,
            yh=self.yh, num_bins_x=self.num_bins_x, num_bins_y=self.num_bins_y, target_density=self.target_density,
            dtype=_arrays.dtype_name(pos.dtype), device=device, deterministic=self.deterministic,
            cpu_threads=self.cpu_threads, filler_offset=fo, gradient_scale=self.gradient_scale,
            stream=_raw_stream(device) if device >= 0 else 0, movable_macro_mask=self.movable_macro_mask,
            zero_gap_gradient=compiled, plan_effort=self.plan_effort)
        if compiled:
            self._evaluator = _compiled_op.CompiledEvaluator(self._es._system, pos, self.num_nodes, self.asynchronous)
        else:
            self._evaluator = _Evaluator(self._es._system, pos, self.num_nodes, self.asynchronous)
        self.compiled = compiled

    def reset(self):
        """Reads node_size_x, node_size_y and movable_macro_mask again from the objects given at
        construction (DREAMPlace's routability flow inflates cells in place, then calls reset()).
        The system takes them through its size updates: no re-planning, no allocation; the results
        are those of an op built anew from them. The terminals' map is recomputed only if their
        sizes changed (at the positions read at the build: fixed nodes do not move)."""
        size_x, size_y, mask = self._read_sources()
        nm, nt = self.num_movable_nodes, self.num_terminals
        terminals_changed = not (np.array_equal(size_x[nm:nm + nt], self.size_x[nm:nm + nt])
                                 and np.array_equal(size_y[nm:nm + nt], self.size_y[nm:nm + nt]))
        self.size_x, self.size_y, self.movable_macro_mask = size_x, size_y, mask
        self.movable_area = self._movable_area()
        if self._es is None:
            return  # the build reads them
        self._es.update_movable_sizes((size_x[:nm], size_y[:nm]),
                                      np.zeros(nm, dtype=bool) if mask is None else mask)
        if self.num_filler_nodes:
            fo = self.filler_offset
            self._es.update_filler_sizes((size_x[fo:], size_y[fo:]))
        if terminals_changed:
            self._es.update_fixed_cells(self._fixed_cells())

    def _read_sources(self):
        """(size_x, size_y, mask) read again from the objects given at construction."""
        src_x, src_y, src_mask = self._size_sources
        size_x = _arrays.to_numpy_f64(src_x, "node_size_x")
        size_y = _arrays.to_numpy_f64(src_y, "node_size_y")
        if len(size_x) != self.num_nodes or len(size_y) != self.num_nodes:
            raise ValueError(f"reset: node_size_x and node_size_y now have {len(size_x)} and {len(size_y)} entries; "
                             f"the op was made for {self.num_nodes} nodes")
        return size_x, size_y, self._read_mask(src_mask)

    def _refuse(self, pos):
        """Raises naming what makes pos unfit for the op as built."""
        self._check(pos)
        if pos.dtype != self.dtype:
            raise TypeError(f"pos has dtype {pos.dtype} but the op was made for {self.dtype}")
        raise ValueError(f"pos is on {pos.device} but the op was made for {self.device}")

    def forward(self, pos, mode="density"):
        """mode="density": the energy E = sum phi rho of the placement pos, as a 0-d tensor of
        pos's dtype (its backward gives the gradient). mode="overflow": DREAMPlace's
        (overflow, max_density) of pos, 0-d tensors of pos's dtype on its device, without autograd:
        the overflow in area units, sum over bins of max(0, movable and fixed density - td * bin
        area) (docs/math.md 2.10 before the division by the movable area), and the maximum bin
        density; fillers take no part."""
        if mode not in _MODES:
            raise ValueError(f"ElectricPotential: mode must be 'density' or 'overflow' (got {mode!r})")
        if self._evaluator is None:
            self._build(pos)
        if self.compiled and mode == "density":
            # PyTorch's dispatcher resolves negative and conjugate views for the op. The op checks
            # pos itself (RuntimeError); only when it refuses, or pos is no tensor, does fits() run,
            # so that the error names the problem as _check does (TypeError, ValueError). A meta
            # tensor would pass through the op's shape function: refused here outside tracing.
            handle = self._evaluator.handle
            if _is_compiling():
                return _compiled_op.electric_potential(pos, handle)
            try:
                if not pos.is_meta:
                    return _compiled_op.electric_potential(pos, handle)
            except (RuntimeError, TypeError, AttributeError):
                if self._evaluator.fits(pos):
                    raise  # pos fits: the evaluate itself failed
            self._refuse(pos)
        if isinstance(pos, torch.Tensor) and pos.is_neg():
            pos = pos.resolve_neg()  # a negative view's memory does not hold its values
        if mode == "overflow":
            return self._overflow(pos)
        if _functorch_active():
            return _ElectricPotentialFunction.apply(pos, self)
        return _apply(pos, self)

    def _overflow(self, pos):
        out = self._evaluator.overflow(pos, self.movable_area)
        if out is None:
            self._refuse(pos)
        return out

    def _scalar(self, index, name):
        return math.nan if self._evaluator is None else self._evaluator.scalar(index, name)

    @property
    def overflow(self):
        """Overflow of the latest forward (docs/math.md 2.10; movable cells only)."""
        return self._scalar(1, "overflow")

    @property
    def max_density(self):
        """Maximum bin density of the latest forward."""
        return self._scalar(2, "max_density")

    @property
    def movable_area_outside(self):
        """Movable cell area (stretched footprints) outside the region in the latest forward."""
        return self._scalar(3, "movable_area_outside")

    @property
    def system(self):
        """The efield.ElectrostaticSystem underneath (None before the first build): its maps are
        those of the latest forward."""
        return self._es

    def extra_repr(self):
        return (f"num_nodes={self.num_nodes}, num_movable_nodes={self.num_movable_nodes}, "
                f"num_terminals={self.num_terminals}, num_filler_nodes={self.num_filler_nodes}, "
                f"bins={self.num_bins_x}x{self.num_bins_y}, target_density={self.target_density}")


# The many-field ops (fence regions, batches of placements): torch_multi_field.py.
from .torch_multi_field import BatchedElectricPotential, MultiFieldElectricPotential  # noqa: E402

# The 3D op (ePlace-3D's stacked-die model, docs/math.md section 4) lives in its own file.
from .torch3d import ElectricPotential3D  # noqa: E402
