"""efield.torch.ElectricPotential3D: the 3D electrostatic density penalty (ePlace-3D's model for
stacked dies, docs/math.md section 4) as a PyTorch autograd op, in the argument style of
efield.torch.ElectricPotential with a depth axis.

    op = ElectricPotential3D(node_size_x, node_size_y, node_size_z, xl=0, yl=0, zl=0, xh=W, yh=H,
                             zh=T * D, num_bins_x=64, num_bins_y=64, num_bins_z=2 * T,
                             num_movable_nodes=nm, num_terminals=nt, num_filler_nodes=nf,
                             target_density=1.0, pos=pos)
    energy = op(pos)            # 0-d tensor; pos = [x..., y..., z...] over all nodes
    (wl + density_weight * energy).backward()

Layout (the 2D op's): movable nodes first, then `num_terminals` fixed terminals, then any other
nodes that take no part in the density, fillers last; pos = [x..., y..., z...] holds the lower
corners of all of them. The terminals' positions are read from `pos` at the build (at
construction when `pos` is given, else at the first forward); terminals of zero volume are left
out of the fixed map.

The gradient written to pos.grad is grad_output times the system's gradient for movable cells
and fillers (docs/math.md 4.9: "dreamplace", the default, the field estimate -r sum ox oy oz E;
"exact", dE/d(x, y, z) of the returned energy), zero at every other entry. float32 and float64
tensors, CPU and CUDA (the op runs on pos's device, on the current stream). Each forward computes
its gradient into a tensor of its own, kept for its backward: any forward's backward is exact
(torch.autograd.gradcheck works on it).
"""

import math

import numpy as np
import torch

from . import _arrays

__all__ = ["ElectricPotential3D"]

_AXES = ("x", "y", "z")


class _ElectricPotential3DFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, pos, op):
        energy, grad = op._evaluate(pos)
        ctx.save_for_backward(grad)
        return energy

    @staticmethod
    def backward(ctx, grad_output):
        (grad,) = ctx.saved_tensors
        return grad_output * grad, None


class ElectricPotential3D(torch.nn.Module):
    """The 3D density penalty of all movable and filler nodes on an M x N x L bin grid.

    node_size_x, node_size_y, node_size_z: sizes of all nodes (tensor, array or sequence) in
    pos's order. xl, yl, zl, xh, yh, zh: the region. num_bins_x, num_bins_y, num_bins_z: the bin
    grid (or bin_size_x, bin_size_y, bin_size_z: the counts are then round(extent / size)).
    num_movable_nodes, num_terminals, num_filler_nodes: the layout above. target_density: in
    (0, 1]. deterministic: bitwise identical results from run to run. pos: the positions the
    terminals are read from (also fixes dtype and device); without it the first forward's pos is
    used. cpu_threads: worker threads of the CPU backend (0 = all). gradient_scale:
    "dreamplace" (default) or "exact" (docs/math.md 4.9).

    Movable cells and fillers must have positive sizes and be no deeper than the region
    (docs/math.md section 4); terminals may have any size >= 0 and reach outside the region.
    """

    def __init__(self, node_size_x, node_size_y, node_size_z, xl=None, yl=None, zl=None, xh=None, yh=None,
                 zh=None, num_bins_x=None, num_bins_y=None, num_bins_z=None, num_movable_nodes=None,
                 num_terminals=0, num_filler_nodes=0, target_density=1.0, deterministic=True, pos=None, *,
                 bin_size_x=None, bin_size_y=None, bin_size_z=None, cpu_threads=0, gradient_scale="dreamplace"):
        super().__init__()
        region = (xl, yl, zl, xh, yh, zh)
        if None in region:
            raise TypeError("ElectricPotential3D needs the region xl, yl, zl, xh, yh, zh")
        if num_movable_nodes is None:
            raise TypeError("ElectricPotential3D needs num_movable_nodes")
        self.xl, self.yl, self.zl, self.xh, self.yh, self.zh = (
            _arrays.to_float(v, n) for v, n in zip(region, ("xl", "yl", "zl", "xh", "yh", "zh")))
        for axis, lo, hi in zip(_AXES, (self.xl, self.yl, self.zl), (self.xh, self.yh, self.zh)):
            if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
                raise ValueError(f"ElectricPotential3D: region along {axis} is [{lo}, {hi}); it must be finite "
                                 "with a positive extent")
        self.size_x, self.size_y, self.size_z = (_arrays.to_numpy_f64(s, f"node_size_{a}")
                                                 for s, a in zip((node_size_x, node_size_y, node_size_z), _AXES))
        self.num_nodes = len(self.size_x)
        if len(self.size_y) != self.num_nodes or len(self.size_z) != self.num_nodes:
            raise ValueError(f"node_size_x, node_size_y, node_size_z have {self.num_nodes}, {len(self.size_y)} and "
                             f"{len(self.size_z)} entries; they must be equally long")
        extents = (self.xh - self.xl, self.yh - self.yl, self.zh - self.zl)
        self.num_bins_x, self.num_bins_y, self.num_bins_z = (
            self._bins(c, s, e, a) for c, s, e, a in zip((num_bins_x, num_bins_y, num_bins_z),
                                                         (bin_size_x, bin_size_y, bin_size_z), extents, _AXES))
        self.num_movable_nodes = _arrays.to_int(num_movable_nodes, "num_movable_nodes", 0)
        self.num_terminals = _arrays.to_int(num_terminals, "num_terminals", 0)
        self.num_filler_nodes = _arrays.to_int(num_filler_nodes, "num_filler_nodes", 0)
        if self.num_movable_nodes + self.num_terminals + self.num_filler_nodes > self.num_nodes:
            raise ValueError(f"{self.num_movable_nodes} movable + {self.num_terminals} terminals + "
                             f"{self.num_filler_nodes} fillers exceed the {self.num_nodes} nodes of node_size_x")
        self._check_cell_sizes()
        self.target_density = _arrays.to_float(target_density, "target_density")
        self.deterministic = bool(deterministic)
        self.cpu_threads = _arrays.to_int(cpu_threads, "cpu_threads", 0)
        if gradient_scale not in ("dreamplace", "exact"):
            raise ValueError(f"gradient_scale must be 'dreamplace' or 'exact' (got {gradient_scale!r})")
        self.gradient_scale = gradient_scale
        self._es = None
        self._result = None
        if pos is not None:
            self._build(pos)

    @staticmethod
    def _bins(count, size, extent, axis):
        if count is None:
            if size is None:
                raise TypeError(f"ElectricPotential3D needs num_bins_{axis} (or bin_size_{axis})")
            size = _arrays.to_float(size, f"bin_size_{axis}")
            if not size > 0:
                raise ValueError(f"bin_size_{axis} must be > 0 (got {size})")
            count = max(1, round(extent / size))
        return _arrays.to_int(count, f"num_bins_{axis}", 1)

    @property
    def filler_offset(self):
        return self.num_nodes - self.num_filler_nodes

    def _check_cell_sizes(self):
        """Movable cells and fillers: sizes positive and finite, depth within the region's."""
        depth = self.zh - self.zl
        nm, fo = self.num_movable_nodes, self.filler_offset
        for name, idx in (("movable node", np.arange(nm)), ("filler node", np.arange(fo, self.num_nodes))):
            for axis, sizes in zip(_AXES, (self.size_x, self.size_y, self.size_z)):
                s = sizes[idx]
                bad = ~(np.isfinite(s) & (s > 0))
                if bad.any():
                    i = int(idx[np.flatnonzero(bad)[0]])
                    raise ValueError(f"{name} {i} has node_size_{axis} = {sizes[i]}; movable and filler sizes must be "
                                     "positive and finite")
            too_deep = self.size_z[idx] > depth
            if too_deep.any():
                i = int(idx[np.flatnonzero(too_deep)[0]])
                raise ValueError(f"{name} {i} has node_size_z = {self.size_z[i]}, deeper than the region "
                                 f"[{self.zl}, {self.zh}) ({depth})")

    def _check(self, pos):
        if not isinstance(pos, torch.Tensor):
            raise TypeError(f"pos must be a torch.Tensor (got {type(pos).__name__})")
        if pos.layout is not torch.strided:
            raise ValueError(f"pos is a {pos.layout} tensor; ElectricPotential3D takes dense tensors")
        if pos.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"pos has dtype {pos.dtype}; ElectricPotential3D takes float32 or float64")
        if pos.device.type not in ("cpu", "cuda"):
            raise ValueError(f"pos is on {pos.device}; ElectricPotential3D takes CPU and CUDA tensors")
        if pos.dim() != 1 or pos.numel() != 3 * self.num_nodes:
            raise ValueError(f"pos must be one-dimensional with 3 * num_nodes = {3 * self.num_nodes} entries "
                             f"([x..., y..., z...]; got shape {tuple(pos.shape)})")
        if self._es is not None:
            if pos.dtype != self.dtype:
                raise TypeError(f"pos has dtype {pos.dtype} but the op was made for {self.dtype}")
            if pos.device != self.device:
                raise ValueError(f"pos is on {pos.device} but the op was made for {self.device}")

    def _fixed_cells(self, host):
        """(w, h, d, x, y, z) of the terminals with a volume (the others add nothing)."""
        n, nm, nt = self.num_nodes, self.num_movable_nodes, self.num_terminals
        t = slice(nm, nm + nt)
        sizes = [self.size_x[t], self.size_y[t], self.size_z[t]]
        for axis, s in zip(_AXES, sizes):
            bad = ~(np.isfinite(s) & (s >= 0))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"terminal {i} (node {nm + i}) has node_size_{axis} = {s[i]}; terminal sizes must "
                                 "be finite and >= 0 (zero-volume terminals take no part in the density)")
        keep = (sizes[0] > 0) & (sizes[1] > 0) & (sizes[2] > 0)
        corners = [host[k * n + nm:k * n + nm + nt][keep] for k in range(3)]
        return tuple(s[keep] for s in sizes) + tuple(corners)

    def _build(self, pos):
        import efield

        self._check(pos)
        host = pos.detach().resolve_neg().to("cpu", torch.float64).numpy()
        nm, fo = self.num_movable_nodes, self.filler_offset
        movable = (self.size_x[:nm], self.size_y[:nm], self.size_z[:nm])
        fillers = (self.size_x[fo:], self.size_y[fo:], self.size_z[fo:]) if self.num_filler_nodes else None
        device = pos.get_device()  # the CUDA ordinal, -1 on the CPU
        self._es = efield.ElectrostaticSystem3D(
            movable, fillers, self._fixed_cells(host), xl=self.xl, yl=self.yl, zl=self.zl, xh=self.xh, yh=self.yh,
            zh=self.zh, num_bins_x=self.num_bins_x, num_bins_y=self.num_bins_y, num_bins_z=self.num_bins_z,
            target_density=self.target_density, dtype=_arrays.dtype_name(pos.dtype), device=device,
            deterministic=self.deterministic, cpu_threads=self.cpu_threads, filler_offset=fo,
            gradient_scale=self.gradient_scale)
        self.dtype, self.device = pos.dtype, pos.device

    def _evaluate(self, pos):
        """(energy as a 0-d tensor, gradient as a tensor like pos) of pos."""
        n = self.num_nodes
        pos = pos.detach()
        if pos.is_neg():
            pos = pos.resolve_neg()
        pos = pos.contiguous()
        grad = torch.zeros_like(pos)  # entries of terminals and the like stay zero
        r = self._es.evaluate(pos[:n], pos[n:2 * n], pos[2 * n:], grad[:n], grad[n:2 * n], grad[2 * n:])
        self._result = r
        return torch.tensor(r.energy, dtype=pos.dtype, device=pos.device), grad

    def forward(self, pos):
        """The energy E = sum phi rho of the placement pos (docs/math.md 4.8), a 0-d tensor of
        pos's dtype on its device; its backward gives the gradient."""
        if self._es is None:
            self._build(pos)
        else:
            self._check(pos)
        return _ElectricPotential3DFunction.apply(pos, self)

    def _scalar(self, name):
        return math.nan if self._result is None else float(getattr(self._result, name))

    @property
    def overflow(self):
        """Overflow of the latest forward (docs/math.md 4.10; movable cells only, volumes)."""
        return self._scalar("overflow")

    @property
    def max_density(self):
        """Maximum bin density of the latest forward (movable and fixed)."""
        return self._scalar("max_density")

    @property
    def system(self):
        """The efield.ElectrostaticSystem3D underneath (None before the build): its maps are
        those of the latest forward."""
        return self._es

    def extra_repr(self):
        return (f"num_nodes={self.num_nodes}, num_movable_nodes={self.num_movable_nodes}, "
                f"num_terminals={self.num_terminals}, num_filler_nodes={self.num_filler_nodes}, "
                f"bins={self.num_bins_x}x{self.num_bins_y}x{self.num_bins_z}, target_density={self.target_density}")
