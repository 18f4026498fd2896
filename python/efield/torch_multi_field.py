"""efield.torch.MultiFieldElectricPotential: many electrostatic fields in one PyTorch op, each
field's energy an entry of its output (DREAMPlace 3.0's merged fence-region density op), and
efield.torch.BatchedElectricPotential: a batch of placements of one design, one energy each.

    op = MultiFieldElectricPotential.from_dreamplace(node_size_x, node_size_y, ..., placedb=placedb,
                                                     node2fence_region_map=m, pos=pos)
    energies = op(pos)                      # (K + 1,): field k's energy E_k
    loss = wl + (lambdas * energies).sum()  # backward: each cell gets lambda_k times its field's gradient
    overflow, max_density = op(pos, mode="overflow")   # (K + 1,) each, as DREAMPlace's merged op

A field (efield.FieldSpec, made by efield.field_spec or efield.make_fence_fields) is an ordinary
electrostatic system over its own charges, movable cells and fillers, each an entry i of
pos = [x..., y...] (x at pos[i], y at pos[num_nodes + i]), its own fixed cells (virtual
blockages included) and target density (docs/math.md 2.11). No entry belongs to two fields, so
one gradient buffer holds every field's gradient and backward scales each entry by grad_output
of its field; entries of no field get 0. Each field gives the bits of a separately built system
of the same cells (deterministic mode), so the energies equal those of K + 1 separate ops.

The fields run on efield.MultiFieldSystem (the C++ batched evaluate) when the extension has it,
else on one efield.ElectrostaticSystem per field; `backend` says which. torch.compile and CUDA
graph capture are not supported by these ops (they run eagerly; the whole-design
ElectricPotential keeps both). float32 and float64, CPU and CUDA (the device and dtype of the
first forward's pos, or of `pos` at construction).
"""

import math

import numpy as np
import torch

from . import _arrays, _fence_fields
from . import multi_field as _multi_field
from .system import make_region_fillers
from ._multi_field_backend import make_backend

__all__ = ["MultiFieldElectricPotential", "BatchedElectricPotential"]


class _Field:
    """What the op keeps of an efield.FieldSpec: NumPy copies of its arrays."""

    __slots__ = ("spec", "movable_index", "filler_index", "movable", "fillers", "fixed", "target_density",
                 "movable_macro_mask")

    def __init__(self, spec):
        self.spec = spec
        self.movable_index = np.asarray(spec.movable_index, dtype=np.int64)
        self.filler_index = np.asarray(spec.filler_index, dtype=np.int64)
        self.movable = (np.asarray(spec.movable_widths), np.asarray(spec.movable_heights))
        self.fillers = (np.asarray(spec.filler_widths), np.asarray(spec.filler_heights))
        self.fixed = tuple(np.asarray(a) for a in (spec.fixed_widths, spec.fixed_heights, spec.fixed_x, spec.fixed_y))
        self.target_density = float(spec.target_density)
        mask = np.asarray(spec.movable_macro_mask)
        self.movable_macro_mask = mask.astype(bool) if mask.size else None


def _checked(spec, k, num_nodes):
    """Field k as a _Field: an efield.FieldSpec, or a dict as efield.MultiFieldSystem takes it;
    its entries checked against num_nodes (the exception names field k and the input)."""
    f = _Field(_multi_field._field(spec, k))
    for name, idx, (w, h) in (("movable", f.movable_index, f.movable), ("filler", f.filler_index, f.fillers)):
        if not len(idx) == len(w) == len(h):
            raise ValueError(f"fields[{k}]: {len(idx)} {name} indices but {len(w)} widths and {len(h)} heights")
    td = f.target_density
    if not 0 < td <= 1:
        raise ValueError(f"fields[{k}].target_density must be in (0, 1] (got {td})")
    for name, idx in (("movable_index", f.movable_index), ("filler_index", f.filler_index)):
        if idx.size and (idx.min() < 0 or idx.max() >= num_nodes):
            raise ValueError(f"fields[{k}].{name} has entries outside [0, {num_nodes}) (num_nodes)")
    return f


class _MultiFieldFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pos, op):
        energies, grad = op._evaluate(pos)
        ctx.grad, ctx.owner = grad, op._owner
        return energies

    @staticmethod
    def backward(ctx, grad_output):
        # Entry i of field k: grad_output[k] * g_i; entries of no field index the appended 0.
        scale = torch.cat([grad_output, grad_output.new_zeros(1)]).index_select(0, ctx.owner)
        return ctx.grad * scale, None


class MultiFieldElectricPotential(torch.nn.Module):
    """K fields on one bin grid: forward(pos) gives their energies, shape (K,).

    fields: a list of efield.FieldSpec (efield.field_spec, efield.make_fence_fields) or of dicts as
    efield.MultiFieldSystem takes them. num_nodes: entries of each half of pos (pos has 2 * num_nodes).
    xl, yl, xh, yh, num_bins_x, num_bins_y: the region and bins, shared. deterministic,
    cpu_threads, gradient_scale: as efield.ElectricPotential. pos: builds the systems now (dtype,
    device); else the first forward does. use_native: None picks efield.MultiFieldSystem when the
    extension has it, False always takes one system per field. pipeline: efield.MultiFieldSystem's
    ("auto", "per_field" or "batched"; "batched" needs the native system and CUDA).
    """

    def __init__(self, fields, *, num_nodes, xl, yl, xh, yh, num_bins_x, num_bins_y, deterministic=True,
                 cpu_threads=0, gradient_scale="dreamplace", pos=None, use_native=None, pipeline="auto"):
        super().__init__()
        self.num_nodes = _arrays.to_int(num_nodes, "num_nodes", 0)
        fields = list(fields)
        if not fields:
            raise ValueError("MultiFieldElectricPotential needs at least one field")
        self.fields = [_checked(f, k, self.num_nodes) for k, f in enumerate(fields)]
        owner = np.full(self.num_nodes, len(fields), dtype=np.int64)
        for k, f in enumerate(self.fields):
            for idx in (f.movable_index, f.filler_index):
                taken = owner[idx] != len(fields)
                if taken.any() or len(np.unique(idx)) != len(idx):
                    i = int(idx[np.flatnonzero(taken)[0]]) if taken.any() else int(idx[0])
                    raise ValueError(f"entry {i} belongs to two cells (field {k} and field "
                                     f"{min(int(owner[i]), k)}); every entry belongs to at most one field")
                owner[idx] = k
        self._owner_host = np.concatenate([owner, owner])
        self._owner = None
        self.movable_area = np.array([float(np.dot(*f.movable)) for f in self.fields])
        self.grid = dict(xl=_arrays.to_float(xl, "xl"), yl=_arrays.to_float(yl, "yl"), xh=_arrays.to_float(xh, "xh"),
                         yh=_arrays.to_float(yh, "yh"), num_bins_x=_arrays.to_int(num_bins_x, "num_bins_x", 1),
                         num_bins_y=_arrays.to_int(num_bins_y, "num_bins_y", 1))
        self.options = dict(deterministic=bool(deterministic),
                            cpu_threads=_arrays.to_int(cpu_threads, "cpu_threads", 0),
                            gradient_scale=str(gradient_scale))
        self.use_native = use_native
        self.pipeline = str(pipeline)
        self._backend = None
        self._results = None
        self.dtype = self.device = None
        if pos is not None:
            self._build(pos)

    @property
    def num_fields(self):
        return len(self.fields)

    @property
    def backend(self):
        """'native' (efield.MultiFieldSystem), 'separate' (one system per field), None before the build."""
        return None if self._backend is None else self._backend.name

    def _check(self, pos):
        if not isinstance(pos, torch.Tensor):
            raise TypeError(f"pos must be a torch.Tensor (got {type(pos).__name__})")
        if pos.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"pos has dtype {pos.dtype}; MultiFieldElectricPotential takes float32 or float64")
        if pos.device.type not in ("cpu", "cuda") or pos.layout is not torch.strided:
            raise ValueError(f"pos must be a dense CPU or CUDA tensor (got {pos.layout} on {pos.device})")
        if pos.dim() != 1 or pos.numel() != 2 * self.num_nodes:
            raise ValueError(f"pos must be one-dimensional with 2 * num_nodes = {2 * self.num_nodes} entries "
                             f"(got shape {tuple(pos.shape)})")
        if self._backend is not None and (pos.dtype != self.dtype or pos.device != self.device):
            raise ValueError(f"pos is {pos.dtype} on {pos.device} but the op was built for {self.dtype} on "
                             f"{self.device}")

    def _build(self, pos):
        self._check(pos)
        self.dtype, self.device = pos.dtype, pos.device
        self._backend = make_backend(self.fields, self.num_nodes, self.grid, self.options,
                                     _arrays.dtype_name(pos.dtype), pos.get_device(), self.use_native, self.pipeline)
        self._owner = torch.from_numpy(self._owner_host).to(pos.device)

    def _evaluate(self, pos, grad=None):
        """(energies, gradient) of pos: the gradient of every field at its entries, 0 elsewhere."""
        if grad is None:
            grad = torch.zeros_like(pos, memory_format=torch.contiguous_format)
        n = self.num_nodes
        self._results = self._backend.evaluate(pos[:n], pos[n:], grad[:n], grad[n:])
        energies = torch.tensor([r.energy for r in self._results], dtype=torch.float64).to(pos.dtype)
        return energies.to(pos.device), grad

    def forward(self, pos, mode="density"):
        """mode="density": the (K,) energies with autograd. mode="overflow": (overflow area,
        max density), each (K,) of pos's dtype and device, without autograd: per field, the sum
        over bins of max(0, movable and fixed density - td_k * bin area), and the maximum bin
        density (fillers take no part); overflow / movable_area is the normalised overflow."""
        if mode not in ("density", "overflow"):
            raise ValueError(f"MultiFieldElectricPotential: mode must be 'density' or 'overflow' (got {mode!r})")
        self._check(pos)
        if pos.is_neg():
            pos = pos.resolve_neg()
        pos = pos.contiguous()
        if self._backend is None:
            self._build(pos)
        if mode == "overflow":
            with torch.no_grad():
                self._evaluate(pos.detach())
            area = np.where(self.movable_area > 0, self.overflow * self.movable_area, 0.0)
            area = torch.tensor(area, dtype=pos.dtype)
            return area.to(pos.device), torch.tensor(self.max_density, dtype=pos.dtype).to(pos.device)
        return _MultiFieldFunction.apply(pos, self)

    def _values(self, name):
        if self._results is None:
            return np.full(self.num_fields, math.nan)
        return np.array([getattr(r, name) for r in self._results])

    @property
    def overflow(self):
        """Per-field overflow of the latest evaluate (normalised by the field's movable area), a
        float64 NumPy array; NaN before it."""
        return self._values("overflow")

    @property
    def max_density(self):
        """Per-field maximum bin density of the latest evaluate (float64 NumPy array)."""
        return self._values("max_density")

    def energies(self):
        """Per-field energies of the latest evaluate (float64 NumPy array)."""
        return self._values("energy")

    def field_system(self, k):
        """Field k's efield.ElectrostaticSystem-like object (maps of the latest evaluate)."""
        return self._backend.field(k)

    @classmethod
    def from_dreamplace(cls, node_size_x, node_size_y, *, xl, yl, xh, yh, num_movable_nodes, num_terminals,
                        num_filler_nodes, placedb, node2fence_region_map, pos, num_bins_x=None, num_bins_y=None,
                        bin_size_x=None, bin_size_y=None, fence_regions=None, target_density=None,
                        movable_macro_mask=None, deterministic=True, **options):
        """DREAMPlace 3.0's K + 1 fence-region fields of one design, as its per-region ops hold
        them (efield.torch.ElectricPotential with region_id k): field k's nodes from
        node2fence_region_map and placedb.filler_start_map, its blockages from fence_regions[k]
        (default placedb.virtual_macro_fence_region), its td from target_density[k] (default
        placedb.target_density_fence_region). The terminals are read from pos (lower-left corners,
        DREAMPlace's layout); pos also fixes dtype and device."""
        region = tuple(_arrays.to_float(v, n) for v, n in zip((xl, yl, xh, yh), ("xl", "yl", "xh", "yh")))
        nbx = _bins(num_bins_x, bin_size_x, region[2] - region[0], "x")
        nby = _bins(num_bins_y, bin_size_y, region[3] - region[1], "y")
        K = _fence_fields.num_regions(placedb)
        if fence_regions is None:
            fence_regions = _fence_fields.placedb_value(placedb, "virtual_macro_fence_region")
        if target_density is None:
            target_density = _fence_fields.placedb_value(placedb, "target_density_fence_region")
        if len(fence_regions) != K + 1 or len(target_density) != K + 1:
            raise ValueError(f"fence_regions and target_density need K + 1 = {K + 1} entries (one per field; got "
                             f"{len(fence_regions)} and {len(target_density)})")
        size_x = _arrays.to_numpy_f64(node_size_x, "node_size_x")
        size_y = _arrays.to_numpy_f64(node_size_y, "node_size_y")
        n = len(size_x)
        nm, nt, nf = (_arrays.to_int(v, name, 0) for v, name in ((num_movable_nodes, "num_movable_nodes"),
                                                                 (num_terminals, "num_terminals"),
                                                                 (num_filler_nodes, "num_filler_nodes")))
        if len(size_y) != n or nm + nt + nf > n:
            raise ValueError(f"node sizes of {len(size_x)} and {len(size_y)} entries for {nm} movable + {nt} "
                             f"terminals + {nf} fillers")
        if not isinstance(pos, torch.Tensor) or pos.numel() != 2 * n:
            raise ValueError(f"pos must be a tensor of 2 * {n} entries (DREAMPlace's [x..., y...])")
        host = pos.detach().to("cpu", torch.float64).numpy()
        terminals = _terminals(size_x, size_y, host, n, nm, nt)
        mask = None if movable_macro_mask is None else _arrays.to_numpy_mask(
            movable_macro_mask, "movable_macro_mask", nm).astype(bool)
        fo = n - nf
        fields = []
        for k in range(K + 1):
            sel = _fence_fields.RegionSelection(n, nm, nt, nf, k, node2fence_region_map, placedb)
            rects = _fence_fields.rectangles(fence_regions[k], region, f"fence_regions[{k}]")
            fillers = np.arange(fo + sel.filler_begin, fo + sel.filler_end)
            fixed = _fence_fields.join_fixed(terminals, _fence_fields.as_fixed_cells(rects))
            fields.append(_multi_field.field_spec(sel.movable, (size_x[sel.movable], size_y[sel.movable]),
                                                  (size_x[fillers], size_y[fillers]), fillers, fixed,
                                                  float(target_density[k]), sel.gather_mask(mask)))
        return cls(fields, num_nodes=n, xl=region[0], yl=region[1], xh=region[2], yh=region[3], num_bins_x=nbx,
                   num_bins_y=nby, deterministic=deterministic, pos=pos, **options)

    @classmethod
    def from_fence_design(cls, movable, region_id, fences, fixed, *, xl, yl, xh, yh, num_bins_x, num_bins_y,
                          target_density, row_height, field_target_density=None, movable_macro_mask=None,
                          filler_offset=-1, num_entries=-1, **options):
        """The K + 1 fields of a fence-region design (docs/math.md 2.11), built by
        efield.make_region_fillers (each field's fillers and td by DREAMPlace 3.0's rule, or
        field_target_density) and efield.make_fence_fields (blockages). movable: (widths,
        heights); region_id: per movable cell (k, or K / 2**31 - 1 for the default region);
        fences: K arrays of rectangles (xl, yl, xh, yh); fixed: (widths, heights, x, y).
        Layout of pos = [x..., y...]: movable cell i at entry i, the fillers from filler_offset
        (-1: after the movable cells), field 0's first; num_entries (-1: just enough) entries
        each half. op.fillers holds the K + 1 filler dicts, op.filler_offset their first entry."""
        fillers = make_region_fillers(movable, region_id, fences, fixed, xl, yl, xh, yh, target_density, row_height,
                                      field_target_density)
        fields, entries = _multi_field.make_fence_fields(movable, region_id, fences, fixed, xl, yl, xh, yh, fillers,
                                                         filler_offset, num_entries, movable_macro_mask)
        op = cls(fields, num_nodes=entries, xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=num_bins_x,
                 num_bins_y=num_bins_y, **options)
        op.fillers = fillers
        op.filler_offset = int(filler_offset) if filler_offset >= 0 else sum(len(f.movable_index) for f in op.fields)
        return op

    @staticmethod
    def batch(count, node_size_x, node_size_y, **design):
        """A BatchedElectricPotential of `count` placements of one design (its docstring)."""
        return BatchedElectricPotential(count, node_size_x, node_size_y, **design)

    def extra_repr(self):
        return (f"num_fields={self.num_fields}, num_nodes={self.num_nodes}, "
                f"bins={self.grid['num_bins_x']}x{self.grid['num_bins_y']}, backend={self.backend}")


def _bins(count, size, extent, axis):
    """The bin count along axis from num_bins or bin_size, as ElectricPotential takes them."""
    from .torch import ElectricPotential

    return ElectricPotential._bins(count, size, extent, axis)


def _terminals(size_x, size_y, host_pos, n, nm, nt):
    """(widths, heights, x, y) of the terminals with an area, as efield.torch.ElectricPotential
    reads them."""
    tw, th = size_x[nm:nm + nt], size_y[nm:nm + nt]
    if not ((tw >= 0) & (th >= 0) & np.isfinite(tw) & np.isfinite(th)).all():
        raise ValueError("terminal sizes must be finite and >= 0")
    keep = (tw > 0) & (th > 0)
    return tw[keep], th[keep], host_pos[nm:nm + nt][keep], host_pos[n + nm:n + nm + nt][keep]


class BatchedElectricPotential(torch.nn.Module):
    """`count` placements of one design (DREAMPlace's layout, as efield.torch.ElectricPotential
    takes it) evaluated together: forward(positions) takes a (count, 2 * num_nodes) tensor or a
    list of count tensors of 2 * num_nodes and returns the (count,) energies with autograd; each
    member's energy and gradient are the bits of its own ElectricPotential (deterministic mode).
    The members share the sizes, the fixed terminals (read from `pos`, one member's placement,
    or from member 0 of the first forward) and the target density.

    Keywords: xl, yl, xh, yh, num_bins_x, num_bins_y (or bin_size_x, bin_size_y),
    num_movable_nodes, num_terminals, num_filler_nodes, target_density, movable_macro_mask,
    deterministic, cpu_threads, gradient_scale, use_native."""

    def __init__(self, count, node_size_x, node_size_y, *, xl, yl, xh, yh, num_movable_nodes, num_terminals=0,
                 num_filler_nodes=0, target_density=1.0, num_bins_x=None, num_bins_y=None, bin_size_x=None,
                 bin_size_y=None, movable_macro_mask=None, pos=None, **options):
        super().__init__()
        self.count = _arrays.to_int(count, "count", 1)
        self.size_x = _arrays.to_numpy_f64(node_size_x, "node_size_x")
        self.size_y = _arrays.to_numpy_f64(node_size_y, "node_size_y")
        n = self.num_nodes = len(self.size_x)
        self.nm, self.nt, self.nf = (_arrays.to_int(v, name, 0) for v, name in (
            (num_movable_nodes, "num_movable_nodes"), (num_terminals, "num_terminals"),
            (num_filler_nodes, "num_filler_nodes")))
        if len(self.size_y) != n or self.nm + self.nt + self.nf > n:
            raise ValueError(f"node sizes of {n} and {len(self.size_y)} entries for {self.nm} movable + {self.nt} "
                             f"terminals + {self.nf} fillers")
        self.region = tuple(_arrays.to_float(v, k) for v, k in zip((xl, yl, xh, yh), ("xl", "yl", "xh", "yh")))
        self.bins = (_bins(num_bins_x, bin_size_x, self.region[2] - self.region[0], "x"),
                     _bins(num_bins_y, bin_size_y, self.region[3] - self.region[1], "y"))
        self.target_density = _arrays.to_float(target_density, "target_density")
        self.mask = None if movable_macro_mask is None else _arrays.to_numpy_mask(
            movable_macro_mask, "movable_macro_mask", self.nm).astype(bool)
        self.options = options
        self.op = None
        if pos is not None:
            self._build(pos)

    def _build(self, member):
        if not isinstance(member, torch.Tensor) or member.dim() != 1 or member.numel() != 2 * self.num_nodes:
            raise ValueError(f"a member's placement must be a 1-D tensor of 2 * num_nodes = {2 * self.num_nodes} "
                             "entries")
        n, nm, nt, nf = self.num_nodes, self.nm, self.nt, self.nf
        host = member.detach().to("cpu", torch.float64).numpy()
        fixed = _terminals(self.size_x, self.size_y, host, n, nm, nt)
        movable, fillers = np.arange(nm), np.arange(n - nf, n)
        fields = [_multi_field.field_spec(k * n + movable, (self.size_x[movable], self.size_y[movable]),
                                          (self.size_x[fillers], self.size_y[fillers]), k * n + fillers, fixed,
                                          self.target_density, self.mask)
                  for k in range(self.count)]
        xl, yl, xh, yh = self.region
        self.op = MultiFieldElectricPotential(fields, num_nodes=self.count * n, xl=xl, yl=yl, xh=xh, yh=yh,
                                              num_bins_x=self.bins[0], num_bins_y=self.bins[1], **self.options)

    def _stacked(self, positions):
        if isinstance(positions, (list, tuple)):
            if len(positions) != self.count:
                raise ValueError(f"{len(positions)} placements for a batch of {self.count}")
            for i, p in enumerate(positions):
                if not isinstance(p, torch.Tensor) or p.dim() != 1 or p.numel() != 2 * self.num_nodes:
                    raise ValueError(f"positions[{i}] must be a 1-D tensor of 2 * num_nodes = {2 * self.num_nodes} "
                                     "entries")
            positions = torch.stack(list(positions))
        if not isinstance(positions, torch.Tensor):
            raise TypeError(f"positions must be a tensor or a list of tensors (got {type(positions).__name__})")
        if tuple(positions.shape) != (self.count, 2 * self.num_nodes):
            raise ValueError(f"positions must have shape (count, 2 * num_nodes) = ({self.count}, "
                             f"{2 * self.num_nodes}) (got {tuple(positions.shape)})")
        return positions

    def forward(self, positions, mode="density"):
        """(count,) energies (mode="density", with autograd) or (overflow area, max density),
        each (count,), as MultiFieldElectricPotential gives them."""
        positions = self._stacked(positions)
        if self.op is None:
            self._build(positions[0])
        # [x of all members, y of all members]: member k's node i at k * n + i.
        flat = positions.view(self.count, 2, self.num_nodes).transpose(0, 1).reshape(-1)
        return self.op(flat, mode)

    @property
    def overflow(self):
        return math.nan if self.op is None else self.op.overflow

    @property
    def max_density(self):
        return math.nan if self.op is None else self.op.max_density
