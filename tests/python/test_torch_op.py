"""efield.torch.ElectricPotential: energy and gradient against the NumPy reference in
DREAMPlace's layout (movable, fixed terminals, terminal_NIs, fillers), the direction of the
gradient against finite differences of the energy (float64), torch.autograd end to end, and
the module's DREAMPlace-style arguments."""

import numpy as np
import pytest

import reference
from conftest import CUDA_REASON, torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

if torch is not None:
    from efield.torch import ElectricPotential

TOL = {torch.float32: 1e-4, torch.float64: 1e-10} if torch is not None else {}


@pytest.fixture(autouse=True, params=["compiled", "python"])
def op_path(request):
    """Every test on both paths of the op: the compiled one (efield._torch_ops) where it was built,
    and the Python one."""
    from efield import _compiled_op

    if request.param == "compiled" and not _compiled_op.AVAILABLE:
        pytest.skip(_compiled_op.REASON)
    ElectricPotential.use_compiled_op = request.param == "compiled"
    yield request.param
    ElectricPotential.use_compiled_op = _compiled_op.AVAILABLE


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


class FlatDesign:
    """A random design in DREAMPlace's layout: 60 movable nodes, 5 terminals (one of zero area),
    3 terminal_NIs, 20 fillers; pos = [x..., y...]."""

    def __init__(self, rng):
        d = reference.random_design(rng)
        self.d = d
        self.nm, self.nt, self.ni, self.nf = 60, 5, 3, 20
        fw, fh, fx, fy = d["fixed"]
        tw, th = np.append(fw, 0.0), np.append(fh, 2.0)  # terminal 4 has no area
        tx, ty = np.append(fx, 10.0), np.append(fy, 5.0)
        niw, nih = np.full(3, 0.5), np.full(3, 0.5)
        self.size_x = np.concatenate([d["movable"][0], tw, niw, d["fillers"][0]])
        self.size_y = np.concatenate([d["movable"][1], th, nih, d["fillers"][1]])
        self.n = len(self.size_x)
        nm = self.nm
        x = np.concatenate([d["x"][:nm], tx, [1.0, 2.0, 3.0], d["x"][nm:]])
        y = np.concatenate([d["y"][:nm], ty, [1.0, 2.0, 3.0], d["y"][nm:]])
        self.pos = np.concatenate([x, y])

    def op(self, pos=None, **kwargs):
        xl, yl, xh, yh = self.d["region"]
        return ElectricPotential(self.size_x, self.size_y, xl, yl, xh, yh, self.d["bins"][0], self.d["bins"][1],
                                 self.nm, self.nt, self.nf, self.d["td"], pos=pos, **kwargs)

    def reference(self, pos):
        """Energy and the gradient in pos's layout (zeros outside movable cells and fillers)."""
        n, nm, nf = self.n, self.nm, self.nf
        x, y = pos[:n], pos[n:]
        cx, cy = np.concatenate([x[:nm], x[n - nf:]]), np.concatenate([y[:nm], y[n - nf:]])
        d = self.d
        ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"], cx, cy)
        g = np.zeros(2 * n)
        g[:nm], g[n - nf:n] = ref["gx"][:nm], ref["gx"][nm:]
        g[n:n + nm], g[2 * n - nf:] = ref["gy"][:nm], ref["gy"][nm:]
        return ref["energy"], g, ref


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_energy_and_gradient(device, dtype, rng):
    dt = getattr(torch, dtype)
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, dtype=dt, device=device, requires_grad=True)
    op = f.op(pos)
    energy = op(pos)
    assert energy.dim() == 0 and energy.dtype == dt and energy.device == pos.device
    (3.0 * energy).backward()
    e_ref, g_ref, ref = f.reference(f.pos)
    assert rel(energy.item(), e_ref) <= TOL[dt]
    g = pos.grad.double().cpu().numpy()
    assert rel(g, 3.0 * g_ref) <= TOL[dt]
    n, nm, nf = f.n, f.nm, f.nf
    assert np.all(g[nm:n - nf] == 0) and np.all(g[n + nm:2 * n - nf] == 0), "terminal entries must be zero"
    assert np.any(g[n - nf:n] != 0), "fillers get a gradient"
    assert op.overflow == pytest.approx(ref["overflow"], rel=TOL[dt])
    assert op.max_density == pytest.approx(ref["max_density"], rel=TOL[dt])
    assert rel(op.system.density_map(), ref["rho"]) <= TOL[dt]


def test_terminals_read_at_first_forward_without_pos(device, rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, device=device)
    a, b = f.op(pos), f.op()  # b reads the terminals from its first forward
    assert a(pos).item() == b(pos).item()
    moved = pos.clone()
    moved[f.nm:f.nm + f.nt] += 3.0  # terminals moved after construction do not count
    assert a(moved).item() == a(pos).item()


def test_gradient_direction_against_finite_differences(rng):
    """docs/math.md 2.9: the gradient is the ePlace field estimate, proportional to dE/dx only up
    to discretisation. On cells larger than the bins (no stretching), inside the region (where
    moving a cell drops no charge across the boundary), its direction agrees with central finite
    differences of the energy."""
    nm, nt, bins, side = 40, 2, 32, 320.0
    w, h = rng.uniform(15.0, 30.0, nm + nt), rng.uniform(15.0, 30.0, nm + nt)
    x, y = rng.uniform(1.0, side - 1.0 - w), rng.uniform(1.0, side - 1.0 - h)
    pos = torch.tensor(np.concatenate([x, y]), dtype=torch.float64, requires_grad=True)
    op = ElectricPotential(w, h, 0.0, 0.0, side, side, bins, bins, nm, nt, 0, 0.9, pos=pos)
    op(pos).backward()
    n = nm + nt
    entries = np.concatenate([np.arange(nm), n + np.arange(nm)])
    ge = pos.grad.numpy()[entries]
    step = 0.05 * side / bins
    fd = np.empty(len(entries))
    with torch.no_grad():
        for k, i in enumerate(entries):
            p = pos.detach().clone()
            p[i] += step
            up = op(p).item()
            p[i] -= 2 * step
            fd[k] = (up - op(p).item()) / (2 * step)
    cosine = ge @ fd / (np.linalg.norm(ge) * np.linalg.norm(fd))
    assert cosine >= 0.9, cosine
    # A small step against the gradient lowers the energy.
    with torch.no_grad():
        base = op(pos).item()
        assert op(pos - 0.5 * step / np.abs(ge).max() * pos.grad).item() < base


def wirelength(pos, n):
    """A smooth stand-in for a placer's wirelength: squared distances along a chain of nodes."""
    x, y = pos[:n], pos[n:]
    return ((x[1:] - x[:-1]) ** 2).sum() + ((y[1:] - y[:-1]) ** 2).sum()


def test_autograd_end_to_end(device, rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, device=device, requires_grad=True)
    op = f.op(pos)
    lam = 0.37
    loss = wirelength(pos, f.n) + lam * op(pos)
    loss.backward()
    p2 = pos.detach().clone().requires_grad_(True)
    wirelength(p2, f.n).backward()
    _, g_ref, _ = f.reference(f.pos)
    expected = p2.grad.cpu().numpy() + lam * g_ref
    assert rel(pos.grad.cpu().numpy(), expected) <= 1e-10
    # Twice more: gradients accumulate in pos.grad as autograd does.
    pos.grad = None
    for _ in range(2):
        (wirelength(pos, f.n) + lam * op(pos)).backward()
    assert rel(pos.grad.cpu().numpy(), 2 * expected) <= 1e-10


def test_backward_of_an_older_forward_raises(rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, requires_grad=True)
    op = f.op(pos)
    if op.compiled:
        pytest.skip("the compiled op's backward belongs to its own forward (test_torch_compiled_op.py)")
    first = op(pos)
    op(pos)
    with pytest.raises(RuntimeError, match="latest forward"):
        first.backward()


def test_dreamplace_arguments(rng):
    f = FlatDesign(rng)
    xl, yl, xh, yh = f.d["region"]
    pos = torch.tensor(f.pos)
    by_count = f.op(pos)
    by_size = ElectricPotential(node_size_x=torch.tensor(f.size_x), node_size_y=torch.tensor(f.size_y),
                                bin_center_x=None, bin_center_y=None, target_density=f.d["td"], xl=xl, yl=yl, xh=xh,
                                yh=yh, bin_size_x=(xh - xl) / 16, bin_size_y=(yh - yl) / 12, num_movable_nodes=f.nm,
                                num_terminals=f.nt, num_filler_nodes=f.nf, padding=0, deterministic_flag=True,
                                sorted_node_map=None, fast_mode=False, pos=pos)
    assert (by_size.num_bins_x, by_size.num_bins_y) == (16, 12)
    assert by_size(pos).item() == by_count(pos).item()
    with pytest.raises(TypeError, match="unexpected keyword"):
        f.op(pos, not_an_argument=1)
    with pytest.raises(ValueError, match="padding"):
        f.op(pos, padding=1)
    assert "num_filler_nodes=20" in repr(by_count)


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_no_allocation_per_call_after_the_first(rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, dtype=torch.float32, device="cuda", requires_grad=True)
    op = f.op(pos)
    op(pos).backward()  # first call: the gradient buffer, graph capture
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    stats = torch.cuda.memory_stats()["allocation.all.allocated"]
    with torch.no_grad():
        energy = op(pos)
    # forward allocates its 0-d output and nothing else (the compiled op: and its gradient)
    assert torch.cuda.memory_stats()["allocation.all.allocated"] - stats == (2 if op.compiled else 1)
    del energy
    for _ in range(5):
        op(pos).backward()
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == before
