"""efield.torch.ElectricPotential3D: energy and gradient against the float64 reference of
docs/math.md section 4 (reference3d.py) in the op's layout (movable, terminals, terminal_NIs,
fillers), torch.autograd end to end (gradcheck with the Exact scale), float32 and float64, CPU
and CUDA, and clear errors for bad input."""

import numpy as np
import pytest

import reference3d
from conftest import CUDA_REASON, torch

import efield

pytestmark = [pytest.mark.skipif(torch is None, reason="PyTorch is not installed"),
              pytest.mark.skipif(not hasattr(efield, "ElectrostaticSystem3D"),
                                 reason="efield was built without ElectrostaticSystem3D")]

if torch is not None:
    from efield.torch import ElectricPotential3D

TOL = {"float32": 2e-4, "float64": 1e-9}
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON)))]


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


class FlatDesign3D:
    """reference3d's random design in the op's layout: movable nodes, terminals (the design's
    fixed cuboids plus one of zero volume), 2 terminal_NIs, fillers; pos = [x..., y..., z...]."""

    def __init__(self, seed=1, **kwargs):
        d = reference3d.random_design3d(np.random.default_rng(seed), **kwargs)
        self.d = d
        self.nm, self.nf = len(d["movable"][0]), len(d["fillers"][0])
        fw, fh, fd, fx, fy, fz = d["fixed"]
        self.nt = len(fw) + 1
        terminals = [np.append(fw, 1.0), np.append(fh, 1.0), np.append(fd, 0.0)]  # the last has no volume
        corners = [np.append(fx, 3.0), np.append(fy, 2.0), np.append(fz, 1.0)]
        ni = np.full(2, 0.5)
        sizes = [np.concatenate([m, t, ni, f]) for m, t, f in zip(d["movable"], terminals, d["fillers"])]
        self.size_x, self.size_y, self.size_z = sizes
        self.n = len(self.size_x)
        nm = self.nm
        coords = [np.concatenate([c[:nm], t, [1.0, 2.0], c[nm:]]) for c, t in zip((d["x"], d["y"], d["z"]), corners)]
        self.pos = np.concatenate(coords)
        self.moving = np.r_[np.arange(nm), np.arange(self.n - self.nf, self.n)]

    def op(self, pos=None, **kwargs):
        xl, yl, zl, xh, yh, zh = self.d["region"]
        M, N, L = self.d["bins"]
        return ElectricPotential3D(self.size_x, self.size_y, self.size_z, xl, yl, zl, xh, yh, zh, M, N, L, self.nm,
                                   self.nt, self.nf, self.d["td"], pos=pos, **kwargs)

    def reference(self, pos):
        d, n = self.d, self.n
        p = np.asarray(pos, dtype=np.float64)
        x, y, z = (p[k * n:(k + 1) * n][self.moving] for k in range(3))
        return reference3d.electrostatics3d(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                            x, y, z)

    def expand(self, gx, gy, gz):
        """The reference's movable-and-filler gradient in the op's layout (zero elsewhere)."""
        out = np.zeros(3 * self.n)
        for k, g in enumerate((gx, gy, gz)):
            out[k * self.n + self.moving] = g
        return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", ["dreamplace", "exact"])
def test_energy_and_gradient_match_the_reference(device, dtype, scale):
    f = FlatDesign3D()
    pos = torch.tensor(f.pos, dtype=getattr(torch, dtype), device=device, requires_grad=True)
    op = f.op(gradient_scale=scale)
    energy = op(pos)
    energy.backward()
    ref = f.reference(f.pos)
    assert energy.dtype == pos.dtype and energy.device == pos.device and energy.dim() == 0
    assert rel(float(energy), ref["energy"]) < TOL[dtype]
    keys = ("gx", "gy", "gz") if scale == "dreamplace" else ("exact_gx", "exact_gy", "exact_gz")
    want = f.expand(*(ref[k] for k in keys))
    got = pos.grad.detach().cpu().double().numpy()
    assert rel(got, want) < 10 * TOL[dtype]
    # Terminals and terminal_NIs get no gradient.
    others = np.setdiff1d(np.arange(3 * f.n), np.concatenate([k * f.n + f.moving for k in range(3)]))
    assert np.all(got[others] == 0)
    assert abs(op.overflow - ref["overflow"]) < 10 * TOL[dtype]
    assert abs(op.max_density - ref["max_density"]) < 10 * TOL[dtype] * max(1.0, ref["max_density"])


def test_autograd_end_to_end_gradcheck():
    """torch.autograd.gradcheck of a function of pos through the op (Exact scale, float64) on a
    tiny design whose cells stay between bin boundaries under gradcheck's perturbation."""
    f = FlatDesign3D(seed=3, num_movable=6, num_fillers=2, num_fixed=1, bins=(4, 3, 2))
    op = f.op(gradient_scale="exact")
    pos = torch.tensor(f.pos, dtype=torch.float64, requires_grad=True)

    def objective(p):
        return 0.5 * op(p) + (p ** 2).sum() * 1e-3  # the op inside a larger graph

    assert torch.autograd.gradcheck(objective, (pos,), eps=1e-6, atol=1e-5, rtol=1e-4)


def test_gradient_flows_through_views_and_scales_by_grad_output():
    f = FlatDesign3D()
    base = torch.tensor(f.pos, dtype=torch.float64)
    op = f.op(pos=base)
    shift = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    (3.0 * op(base + shift)).backward()
    ref = f.reference(f.pos)
    want = 3.0 * sum(ref[k].sum() for k in ("gx", "gy", "gz"))
    assert abs(float(shift.grad) - want) < 1e-9 * max(1.0, abs(want))


def test_each_forward_keeps_its_own_gradient():
    f = FlatDesign3D()
    op = f.op(gradient_scale="exact")
    a = torch.tensor(f.pos, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(f.pos + 0.3, dtype=torch.float64, requires_grad=True)
    ea, eb = op(a), op(b)
    ea.backward()
    eb.backward()
    ref = f.reference(f.pos)
    want = f.expand(ref["exact_gx"], ref["exact_gy"], ref["exact_gz"])
    assert rel(a.grad.numpy(), want) < 1e-9
    assert not np.allclose(a.grad.numpy(), b.grad.numpy())


def test_bin_sizes_give_the_counts():
    f = FlatDesign3D()
    xl, yl, zl, xh, yh, zh = f.d["region"]
    M, N, L = f.d["bins"]
    op = ElectricPotential3D(f.size_x, f.size_y, f.size_z, xl, yl, zl, xh, yh, zh, num_movable_nodes=f.nm,
                             num_terminals=f.nt, num_filler_nodes=f.nf, target_density=f.d["td"],
                             bin_size_x=(xh - xl) / M, bin_size_y=(yh - yl) / N, bin_size_z=(zh - zl) / L)
    assert (op.num_bins_x, op.num_bins_y, op.num_bins_z) == (M, N, L)
    energy = op(torch.tensor(f.pos, dtype=torch.float64))
    assert rel(float(energy), f.reference(f.pos)["energy"]) < 1e-9


def _bad(f, **changes):
    xl, yl, zl, xh, yh, zh = f.d["region"]
    args = dict(node_size_x=f.size_x, node_size_y=f.size_y, node_size_z=f.size_z, xl=xl, yl=yl, zl=zl, xh=xh,
                yh=yh, zh=zh, num_bins_x=4, num_bins_y=4, num_bins_z=2, num_movable_nodes=f.nm, num_terminals=f.nt,
                num_filler_nodes=f.nf)
    args.update(changes)
    return ElectricPotential3D(**args)


def test_bad_input_gets_a_clear_error():
    f = FlatDesign3D()
    depth = f.size_z.copy()
    depth[0] = 0.0
    with pytest.raises(ValueError, match="movable node 0 has node_size_z = 0"):
        _bad(f, node_size_z=depth)
    depth = f.size_z.copy()
    depth[-1] = -1.0
    with pytest.raises(ValueError, match=f"filler node {f.n - 1} has node_size_z = -1"):
        _bad(f, node_size_z=depth)
    deep = f.size_z.copy()
    deep[1] = 100.0
    with pytest.raises(ValueError, match="deeper than the region"):
        _bad(f, node_size_z=deep)
    with pytest.raises(ValueError, match="equally long"):
        _bad(f, node_size_z=f.size_z[:-1])
    with pytest.raises(ValueError, match="region along z"):
        _bad(f, zh=f.d["region"][2])
    with pytest.raises(TypeError, match="num_bins_z"):
        _bad(f, num_bins_z=None)
    with pytest.raises(ValueError, match="exceed"):
        _bad(f, num_filler_nodes=f.n)
    with pytest.raises(ValueError, match="gradient_scale"):
        _bad(f, gradient_scale="steep")
    op = _bad(f)
    with pytest.raises(ValueError, match=r"3 \* num_nodes"):
        op(torch.zeros(2 * f.n, dtype=torch.float64))
    with pytest.raises(TypeError, match="float32 or float64"):
        op(torch.zeros(3 * f.n, dtype=torch.int32))
    op(torch.tensor(f.pos, dtype=torch.float64))
    with pytest.raises(TypeError, match="made for torch.float64"):
        op(torch.tensor(f.pos, dtype=torch.float32))


def test_terminal_sizes_must_be_finite():
    f = FlatDesign3D()
    depth = f.size_z.copy()
    depth[f.nm] = np.nan
    op = _bad(f, node_size_z=depth)
    with pytest.raises(ValueError, match=f"terminal 0 \\(node {f.nm}\\)"):
        op(torch.tensor(f.pos, dtype=torch.float64))
