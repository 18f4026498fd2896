"""efield.torch.ElectricPotential's per-region op: DREAMPlace 3.0's ElectricPotential with
region_id / fence_regions (one op per field of a fence-region design; efield/_fence_fields.py says
which nodes a field holds). `ElectricPotential(..., region_id=k, ...)` makes one of these.

The op is the whole-design op over the field's nodes only (its movable nodes, the terminals, its
fillers: contiguous arrays of their sizes), with the fence_regions rectangles added to the
terminals as fixed cells. Each forward gathers the field's entries of pos (index_select) and
evaluates them; backward scatters the gradient back, so every entry outside the field gets
exactly 0. torch.compile and CUDA graph capture are not supported here (the gather is an eager
autograd.Function); the whole-design op keeps them.
"""

import inspect

import numpy as np
import torch

from . import _arrays, _fence_fields
from .torch import ElectricPotential

__all__ = ["RegionElectricPotential"]

_SIGNATURE = inspect.signature(ElectricPotential.__init__)


class _Gather(torch.autograd.Function):
    """pos at index (DREAMPlace's pos[pos_mask]); backward writes grad at index, 0 elsewhere
    (unique indices: deterministic, no accumulation)."""

    @staticmethod
    def forward(ctx, pos, index):
        ctx.save_for_backward(index)
        ctx.numel = pos.numel()
        return pos.index_select(0, index)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        out = grad.new_zeros(ctx.numel)
        out.index_put_((index,), grad)
        return out, None


class RegionElectricPotential(ElectricPotential):
    """DREAMPlace 3.0's per-region electric potential (efield.torch's module docstring)."""

    def __init__(self, *args, **kwargs):
        a = _SIGNATURE.bind(self, *args, **kwargs)
        a.apply_defaults()
        a = dict(a.arguments)
        del a["self"]
        size_x = _arrays.to_numpy_f64(a["node_size_x"], "node_size_x")
        size_y = _arrays.to_numpy_f64(a["node_size_y"], "node_size_y")
        n = len(size_x)
        if len(size_y) != n:
            raise ValueError(f"node_size_x has {n} entries but node_size_y {len(size_y)}")
        if a["num_movable_nodes"] is None:
            raise TypeError("ElectricPotential needs num_movable_nodes")
        nm, nt, nf = (_arrays.to_int(a[k], k, 0) for k in ("num_movable_nodes", "num_terminals", "num_filler_nodes"))
        if nm + nt + nf > n:
            raise ValueError(f"{nm} movable + {nt} terminals + {nf} fillers exceed the {n} nodes of node_size_x")
        placedb = a["placedb"]
        if placedb is not None and hasattr(placedb, "num_nodes") and a["region_id"] is not None:
            if int(placedb.num_nodes) != n:
                raise ValueError(f"placedb.num_nodes is {placedb.num_nodes} but node_size_x has {n} entries")
        selection = _fence_fields.RegionSelection(n, nm, nt, nf, a["region_id"], a["node2fence_region_map"], placedb)
        if a["sorted_node_map"] is not None and len(a["sorted_node_map"]) != nm:
            raise ValueError(f"sorted_node_map has {len(a['sorted_node_map'])} entries for {nm} movable nodes")
        if None in (a["xl"], a["yl"], a["xh"], a["yh"]):
            raise TypeError("ElectricPotential needs the region xl, yl, xh, yh")
        region = tuple(_arrays.to_float(a[k], k) for k in ("xl", "yl", "xh", "yh"))
        rects = np.zeros((0, 4))
        if a["fence_regions"] is not None:
            rects = _fence_fields.rectangles(a["fence_regions"], region)
        mask = a["movable_macro_mask"]
        full_mask = None if mask is None else _arrays.to_numpy_mask(mask, "movable_macro_mask", nm).astype(bool)
        pos = a["pos"]
        sources = (a["node_size_x"], a["node_size_y"], mask)  # reset() reads them again
        # The whole-design op over the field's nodes: their sizes gathered, the counts of the field.
        a.update(node_size_x=selection.gather(size_x), node_size_y=selection.gather(size_y),
                 num_movable_nodes=selection.num_movable, num_filler_nodes=selection.num_fillers,
                 movable_macro_mask=selection.gather_mask(full_mask), sorted_node_map=None, pos=None,
                 region_id=None, fence_regions=None, node2fence_region_map=None, placedb=None)
        super().__init__(**a)
        self.selection = selection
        self.region_id = selection.region_id
        self.fence_regions = rects
        self._blockages = _fence_fields.as_fixed_cells(rects)
        self._full_sources = sources
        self._full_num_nodes = n
        self._full_num_movable = nm
        # DREAMPlace's attributes of a per-region op (its placer freezes a field's cells with
        # pos_mask): the field's movable nodes; its entries of pos, every non-movable,
        # non-filler node included, as DREAMPlace marks them.
        device = sources[0].device if isinstance(sources[0], torch.Tensor) else torch.device("cpu")
        movable = np.zeros(nm, dtype=bool)
        movable[selection.movable] = True
        entries = np.zeros(n, dtype=bool)
        entries[:nm] = movable
        entries[nm:n - nf] = True
        entries[n - nf + selection.filler_begin:n - nf + selection.filler_end] = True
        self.fence_region_mask = torch.from_numpy(movable).to(device)
        self.pos_mask = torch.from_numpy(np.concatenate([entries, entries])).to(device)
        if pos is not None:
            self._check(pos, n)
            self._build(pos.detach().index_select(0, selection.pos_index(pos.device)))

    def _fixed_cells(self):
        """The terminals with an area, then the fence_regions rectangles with an area."""
        return _fence_fields.join_fixed(super()._fixed_cells(), self._blockages)

    def _read_sources(self):
        src_x, src_y, src_mask = self._full_sources
        size_x = _arrays.to_numpy_f64(src_x, "node_size_x")
        size_y = _arrays.to_numpy_f64(src_y, "node_size_y")
        n = self._full_num_nodes
        if len(size_x) != n or len(size_y) != n:
            raise ValueError(f"reset: node_size_x and node_size_y now have {len(size_x)} and {len(size_y)} entries; "
                             f"the op was made for {n} nodes")
        mask = None
        if src_mask is not None:
            mask = _arrays.to_numpy_mask(src_mask, "movable_macro_mask", self._full_num_movable).astype(bool)
        sel = self.selection
        return sel.gather(size_x), sel.gather(size_y), sel.gather_mask(mask)

    def forward(self, pos, mode="density"):
        """ElectricPotential.forward of the field: pos holds every node of the design."""
        if mode not in ("density", "overflow"):
            raise ValueError(f"ElectricPotential: mode must be 'density' or 'overflow' (got {mode!r})")
        self._check(pos, self._full_num_nodes)
        if pos.is_neg():
            pos = pos.resolve_neg()
        index = self.selection.pos_index(pos.device)
        if mode == "overflow" or not torch.is_grad_enabled() or not pos.requires_grad:
            field_pos = pos.detach().index_select(0, index)
        else:
            field_pos = _Gather.apply(pos, index)
        return super().forward(field_pos, mode)

    def extra_repr(self):
        return (f"region_id={self.region_id}, fence_rectangles={len(self.fence_regions)}, "
                f"num_nodes={self._full_num_nodes} (field: {super().extra_repr()})")
