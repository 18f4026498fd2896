"""What runs the fields of efield.torch.MultiFieldElectricPotential: efield.MultiFieldSystem (the
C++ batched evaluate) when the extension has it, else one efield.ElectrostaticSystem per field
over contiguous gathered arrays. Both take (x, y, grad_x, grad_y) torch tensors of num_nodes
entries, write every field's gradient at its entries (others untouched) and return one
EvaluateResult per field."""

import numpy as np
import torch

from . import _efield
from .system import ElectrostaticSystem


def native_available():
    return hasattr(_efield, "MultiFieldSystem")


def make_backend(fields, num_nodes, grid, options, dtype, device, use_native, pipeline="auto"):
    if use_native and not native_available():
        raise RuntimeError("use_native=True but this efield extension has no MultiFieldSystem")
    if use_native is None:
        use_native = native_available()
    if not use_native:
        if pipeline not in ("auto", "per_field"):
            raise ValueError(f"pipeline={pipeline!r} needs efield.MultiFieldSystem (use_native=False takes one "
                             "system per field)")
        return _SeparateFields(fields, num_nodes, grid, options, dtype, device)
    return _NativeFields(fields, num_nodes, grid, dict(options, pipeline=pipeline), dtype, device)


class _Field:
    __slots__ = ("system", "index", "x", "y", "gx", "gy")


class _SeparateFields:
    """One ElectrostaticSystem per field: gather the field's positions (index_select), evaluate,
    write its gradient back at its entries."""

    name = "separate"

    def __init__(self, fields, num_nodes, grid, options, dtype, device):
        torch_device = torch.device("cpu") if device < 0 else torch.device("cuda", device)
        tdtype = getattr(torch, dtype)
        self.fields = []
        for spec in fields:
            f = _Field()
            f.system = ElectrostaticSystem(spec.movable, spec.fillers, spec.fixed, **grid,
                                           target_density=spec.target_density, dtype=dtype, device=device,
                                           movable_macro_mask=spec.movable_macro_mask, **options)
            f.index = torch.from_numpy(np.concatenate([spec.movable_index, spec.filler_index])).to(torch_device)
            f.x, f.y, f.gx, f.gy = (torch.empty(len(f.index), dtype=tdtype, device=torch_device) for _ in range(4))
            self.fields.append(f)

    def evaluate(self, x, y, grad_x, grad_y):
        results = []
        for f in self.fields:
            torch.index_select(x, 0, f.index, out=f.x)
            torch.index_select(y, 0, f.index, out=f.y)
            results.append(f.system.evaluate(f.x, f.y, f.gx, f.gy))
            grad_x.index_put_((f.index,), f.gx)
            grad_y.index_put_((f.index,), f.gy)
        return results

    def field(self, k):
        return self.fields[k].system


class _NativeFields:
    """efield.MultiFieldSystem (C++): all fields in one evaluate."""

    name = "native"

    def __init__(self, fields, num_nodes, grid, options, dtype, device):
        from .multi_field import MultiFieldSystem

        self.system = MultiFieldSystem([f.spec for f in fields], **grid, num_entries=num_nodes, dtype=dtype,
                                       device=device, **options)

    def evaluate(self, x, y, grad_x, grad_y):
        return self.system.evaluate(x, y, grad_x, grad_y)

    def field(self, k):
        return self.system.field(k)
