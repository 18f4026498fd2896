"""DREAMPlace's own call into efield.torch.ElectricPotential: the op built from exactly the keyword
list PlaceObj.build_electric_potential passes, with the values it makes (fence arguments None,
node2fence_region_map all INT_MAX, a sorted node map, bin centres), runs DREAMPlace's call
sequence (forward, backward, mode="overflow", cells inflated in place, reset(), forward,
backward) against the float64 reference with the movable-macro rule (docs/math.md 2.1); the
rule's no-op at td = 1, fast_mode, the fence arguments (the per-region op: test_fence_op.py),
bad input, and efield.ElectrostaticSystem's movable_macro_mask."""

import types

import numpy as np
import pytest

import reference
from conftest import CUDA_REASON, torch

import efield

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

if torch is not None:
    from efield.torch import ElectricPotential

    TOL = {torch.float32: 1e-4, torch.float64: 1e-10}

INT_MAX = 2 ** 31 - 1


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


class PlaceObjDesign:
    """A random design in DREAMPlace's layout (60 movable nodes, 4 terminals, 2 terminal_NIs, 20
    fillers) as the tensors DREAMPlace's PlaceObj hands to its op. Three movable nodes are macros
    (5 x 4 bins); the mask, when asked for, marks them and every ninth small node."""

    def __init__(self, rng, td, masked, dtype, device):
        d = reference.random_design(rng)
        d["td"] = td
        self.d = d
        self.nm, self.nt, self.ni, self.nf = 60, 4, 2, 20
        nm = self.nm
        xl, yl, xh, yh = d["region"]
        M, N = d["bins"]
        self.bin_size = ((xh - xl) / M, (yh - yl) / N)
        mw, mh = d["movable"]
        macros = np.array([5, 17, 40])
        mw[macros], mh[macros] = 5 * self.bin_size[0], 4 * self.bin_size[1]
        mask = np.zeros(nm, dtype=bool)
        if masked:
            mask[macros] = True
            mask[3::9] = True
        fw, fh, fx, fy = d["fixed"]
        size_x = np.concatenate([mw, fw, [0.5, 0.5], d["fillers"][0]])
        size_y = np.concatenate([mh, fh, [0.5, 0.5], d["fillers"][1]])
        self.n = n = len(size_x)
        x = np.concatenate([d["x"][:nm], fx, [1.0, 2.0], d["x"][nm:]])
        y = np.concatenate([d["y"][:nm], fy, [1.0, 2.0], d["y"][nm:]])
        self.dtype, self.device = dtype, device
        t = lambda a, dt=dtype: torch.tensor(a, dtype=dt, device=device)  # noqa: E731
        self.node_size_x, self.node_size_y = t(size_x), t(size_y)
        self.pos = t(np.concatenate([x, y]))
        self.movable_macro_mask = torch.tensor(mask, device=device)
        self.region, self.bins = (xl, yl, xh, yh), (M, N)
        assert n == nm + self.nt + self.ni + self.nf

    def op(self, **changes):
        """ElectricPotential(...) as PlaceObj.build_electric_potential calls it, keyword for keyword."""
        xl, yl, xh, yh = self.region
        M, N = self.bins
        bsx, bsy = self.bin_size
        t = lambda a: torch.tensor(a, dtype=self.dtype, device=self.device)  # noqa: E731
        kwargs = dict(
            node_size_x=self.node_size_x,
            node_size_y=self.node_size_y,
            bin_center_x=t(xl + (np.arange(M) + 0.5) * bsx),
            bin_center_y=t(yl + (np.arange(N) + 0.5) * bsy),
            target_density=self.d["td"],
            xl=xl,
            yl=yl,
            xh=xh,
            yh=yh,
            bin_size_x=bsx,
            bin_size_y=bsy,
            num_movable_nodes=self.nm,
            num_terminals=self.nt,
            num_filler_nodes=self.nf,
            padding=0,
            deterministic_flag=True,
            sorted_node_map=torch.sort(self.node_size_x[:self.nm])[1].to(torch.int32),
            movable_macro_mask=self.movable_macro_mask,
            fast_mode=False,
            region_id=None,
            fence_regions=None,
            node2fence_region_map=torch.full((self.n,), INT_MAX, dtype=torch.int32, device=self.device),
            placedb=types.SimpleNamespace(),  # PlaceDB; the op reads nothing of it
        )
        kwargs.update(changes)
        return ElectricPotential(**kwargs)

    def reference(self, pos):
        """The float64 reference at pos with the current node sizes: the reference's dict and the
        gradient in pos's layout."""
        n, nm, nt, nf = self.n, self.nm, self.nt, self.nf
        p = pos.detach().double().cpu().numpy()
        sx, sy = self.node_size_x.double().cpu().numpy(), self.node_size_y.double().cpu().numpy()
        x, y = p[:n], p[n:]
        cells = np.r_[0:nm, n - nf:n]
        fixed = (sx[nm:nm + nt], sy[nm:nm + nt], x[nm:nm + nt], y[nm:nm + nt])
        ref = reference.electrostatics(self.region, self.bins, self.d["td"], (sx[:nm], sy[:nm]),
                                       (sx[n - nf:], sy[n - nf:]), fixed, x[cells], y[cells],
                                       macro_mask=self.movable_macro_mask.cpu().numpy())
        g = np.zeros(2 * n)
        g[cells], g[n + cells] = ref["gx"], ref["gy"]
        return ref, g


def expect_density(f, op, pos, tol):
    """forward and backward at pos against the reference."""
    pos.grad = None
    energy = op(pos)
    assert energy.dim() == 0 and energy.dtype == pos.dtype and energy.device == pos.device
    energy.backward()
    ref, g = f.reference(pos)
    assert rel(energy.item(), ref["energy"]) <= tol
    assert rel(pos.grad.double().cpu().numpy(), g) <= tol
    return energy.detach().clone(), pos.grad.clone()


@pytest.mark.parametrize("td", [1.0, 0.9])
@pytest.mark.parametrize("masked", [False, True], ids=["mask-all-false", "mask"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dreamplace_call_sequence(device, td, masked, dtype, rng):
    dt = getattr(torch, dtype)
    f = PlaceObjDesign(rng, td, masked, dt, device)
    op = f.op()  # no pos: the terminals are read at the first forward, as DREAMPlace's op does
    pos = f.pos.clone().requires_grad_(True)
    expect_density(f, op, pos, TOL[dt])

    overflow, max_density = op(pos, mode="overflow")
    ref, _ = f.reference(pos)
    for value in (overflow, max_density):
        assert value.dim() == 0 and value.dtype == dt and value.device == pos.device and not value.requires_grad
    assert rel(overflow.item(), ref["overflow_area"]) <= TOL[dt]
    assert rel(max_density.item(), ref["max_density"]) <= TOL[dt]

    # DREAMPlace's routability flow: cells inflated in place (fillers shrink), then reset().
    with torch.no_grad():
        f.node_size_x[:f.nm:3] *= 1.3
        f.node_size_y[:f.nm:4] *= 1.2
        f.node_size_x[f.n - f.nf:] *= 0.9
    if masked:
        f.movable_macro_mask[7] = True
    op.reset()
    energy, grad = expect_density(f, op, pos, TOL[dt])
    fresh = f.op()  # an op built anew from the inflated sizes gives the same bits
    pos_fresh = f.pos.clone().requires_grad_(True)
    energy_fresh = fresh(pos_fresh)
    energy_fresh.backward()
    assert energy.item() == energy_fresh.item()
    assert torch.equal(grad, pos_fresh.grad)
    assert [v.item() for v in op(pos, mode="overflow")] == [v.item() for v in fresh(pos, mode="overflow")]


def test_overflow_mode_keeps_the_forward_gradient(rng):
    f = PlaceObjDesign(rng, 0.9, True, torch.float64, "cpu")
    op = f.op()
    pos = f.pos.clone().requires_grad_(True)
    energy = op(pos)
    moved = (pos.detach() + 0.7).contiguous()
    op(moved, mode="overflow")  # another placement, between the forward and its backward
    energy.backward()
    _, g = f.reference(pos)
    assert rel(pos.grad.numpy(), g) <= 1e-10


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mask_at_target_density_one_changes_nothing(device, dtype, rng):
    dt = getattr(torch, dtype)
    f = PlaceObjDesign(rng, 1.0, True, dt, device)
    results = []
    for mask in (f.movable_macro_mask, None):
        op = f.op(movable_macro_mask=mask)
        pos = f.pos.clone().requires_grad_(True)
        energy = op(pos)
        energy.backward()
        results.append((energy.item(), pos.grad.clone(), [v.item() for v in op(pos, mode="overflow")]))
    assert results[0][0] == results[1][0]
    assert torch.equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_mask_changes_the_result_below_one(rng):
    f = PlaceObjDesign(rng, 0.8, True, torch.float64, "cpu")
    with_mask = f.op()(f.pos).item()
    without = f.op(movable_macro_mask=None)(f.pos).item()
    assert abs(with_mask - without) > 1e-6 * abs(without)


def test_fast_mode_has_nothing_to_skip(rng):
    f = PlaceObjDesign(rng, 0.9, True, torch.float64, "cpu")
    fast = f.op(fast_mode=True)(f.pos)
    assert fast.item() == f.op(fast_mode=False)(f.pos).item() != 0  # the true energy either way


def test_fence_arguments(rng):
    f = PlaceObjDesign(rng, 0.9, True, torch.float64, "cpu")
    plain = f.op()(f.pos).item()
    # DREAMPlace's whole-design op (region_id None) ignores the map, whatever regions it names.
    regions = torch.zeros(f.n, dtype=torch.int32)
    assert f.op(node2fence_region_map=regions)(f.pos).item() == plain
    assert f.op(node2fence_region_map=None, placedb=None)(f.pos).item() == plain
    # The per-region op (test_fence_op.py) reads placedb and checks the rectangles.
    with pytest.raises(TypeError, match="placedb has no attribute 'regions'"):
        f.op(region_id=0)
    with pytest.raises(ValueError, match="outside the placement region"):
        f.op(fence_regions=torch.tensor([[0.0, 0.0, 10.0, 10.0]]))


def test_bad_input(rng):
    f = PlaceObjDesign(rng, 0.9, True, torch.float64, "cpu")
    with pytest.raises(ValueError, match="movable_macro_mask has 59 entries"):
        f.op(movable_macro_mask=f.movable_macro_mask[:-1])
    with pytest.raises(TypeError, match="movable_macro_mask must be a boolean array"):
        f.op(movable_macro_mask=f.movable_macro_mask.to(torch.float32))
    op = f.op()
    with pytest.raises(ValueError, match="mode must be 'density' or 'overflow'"):
        op(f.pos, mode="overflows")
    with pytest.raises(ValueError, match="bin_center_x has 15 entries"):
        f.op(bin_center_x=torch.zeros(15, dtype=torch.float64))
    with pytest.raises(ValueError, match="bin_center_y is not the centres"):
        f.op(bin_center_y=torch.zeros(12, dtype=torch.float64))
    with pytest.raises(ValueError, match="sorted_node_map"):
        f.op(sorted_node_map=torch.arange(5))
    with pytest.raises(TypeError, match="unexpected keyword"):
        f.op(movable_macro_masks=None)
    with pytest.raises(TypeError, match="float32 or float64"):
        op(f.pos.to(torch.int64), mode="overflow")
    # A mask that no longer fits at reset().
    f.node_size_x.resize_(f.n - 1)
    with pytest.raises(ValueError, match="reset"):
        op.reset()


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_reset_and_overflow_allocate_nothing_on_cuda(rng):
    f = PlaceObjDesign(rng, 0.9, True, torch.float32, "cuda")
    op = f.op()
    pos = f.pos.clone().requires_grad_(True)
    op(pos).backward()
    op(pos, mode="overflow")  # first call: its scratch gradient
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    with torch.no_grad():
        f.node_size_x[:f.nm:2] *= 1.1
    op.reset()
    for _ in range(3):
        op(pos).backward()
        overflow, max_density = op(pos, mode="overflow")
        del overflow, max_density
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() == before


def test_system_mask_against_reference_and_update(rng):
    d = reference.random_design(rng)
    d["td"] = 0.85
    nm = len(d["movable"][0])
    mask = np.zeros(nm, dtype=bool)
    mask[::4] = True
    xl, yl, xh, yh = d["region"]
    opts = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=d["bins"][0], num_bins_y=d["bins"][1], target_density=0.85,
                dtype="float64", device="cpu")
    es = efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], movable_macro_mask=mask, **opts)
    r = es.evaluate(d["x"], d["y"])
    ref = reference.electrostatics(d["region"], d["bins"], 0.85, d["movable"], d["fillers"], d["fixed"], d["x"], d["y"],
                                   macro_mask=mask)
    assert rel(r.energy, ref["energy"]) <= 1e-10
    assert rel(np.concatenate([r.grad_x, r.grad_y]), np.concatenate([ref["gx"], ref["gy"]])) <= 1e-10
    assert rel(r.overflow, ref["overflow"]) <= 1e-10
    # Summed in fixed point (2^-20 bin areas per cell), as test_system.py checks it.
    assert abs(r.movable_area_outside - ref["movable_area_outside"]) <= 1e-6 * ref["movable_area"]

    plain = efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], **opts)
    plain.update_movable_sizes(d["movable"], movable_macro_mask=mask)  # the mask through the size update
    assert plain.evaluate(d["x"], d["y"]).energy == r.energy
    plain.update_movable_sizes(d["movable"])  # None keeps it
    assert plain.evaluate(d["x"], d["y"]).energy == r.energy
    with pytest.raises(ValueError, match="movable_macro_mask has"):
        plain.update_movable_sizes(d["movable"], movable_macro_mask=mask[1:])
    with pytest.raises(TypeError, match="boolean"):
        efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], movable_macro_mask=mask.astype(int), **opts)
