"""efield.torch.ElectricPotential with DREAMPlace 3.0's per-region arguments: each field's op,
built with the keyword list PlaceObj.build_electric_potential passes (region_id,
fence_regions = the virtual macros, node2fence_region_map, placedb), against the float64
reference built the way DREAMPlace builds one region's op (fence_reference.py); DREAMPlace's
merged density and overflow ops over them; reset(); the zero gradient outside the field; bad
input."""

import numpy as np
import pytest

from conftest import CUDA_REASON, torch
from fence_reference import INT_MAX, FenceDesign

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

if torch is not None:
    from efield.torch import ElectricPotential

    TOL = {torch.float32: 2e-4, torch.float64: 1e-10}


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


class Placer:
    """What DREAMPlace's PlaceObj holds for a FenceDesign: its tensors, and its op builder."""

    def __init__(self, design, dtype, device, map_length=None):
        self.d, self.dtype, self.device = design, dtype, device
        t = lambda a: torch.tensor(np.asarray(a), dtype=dtype, device=device)  # noqa: E731
        self.node_size_x, self.node_size_y = t(design.size_x), t(design.size_y)
        self.pos = t(design.pos)
        ids = np.full(map_length or design.n, INT_MAX, dtype=np.int32)
        ids[:design.nm] = np.minimum(design.ids, INT_MAX)
        self.node2fence_region_map = torch.tensor(ids, device=device)
        self.movable_macro_mask = torch.tensor(design.movable_macro_mask, device=device)

    def op(self, region_id, **changes):
        """ElectricPotential(...) as PlaceObj.build_electric_potential calls it for one region."""
        d = self.d
        xl, yl, xh, yh = d.region
        M, N = d.bins
        bsx, bsy = d.bin_size
        t = lambda a: torch.tensor(a, dtype=self.dtype, device=self.device)  # noqa: E731
        k = region_id if region_id in range(d.K + 1) else 0  # a bad region_id gets field 0's td and rectangles
        kwargs = dict(
            node_size_x=self.node_size_x, node_size_y=self.node_size_y,
            bin_center_x=t(xl + (np.arange(M) + 0.5) * bsx), bin_center_y=t(yl + (np.arange(N) + 0.5) * bsy),
            target_density=d.placedb.target_density_fence_region[k],
            xl=xl, yl=yl, xh=xh, yh=yh, bin_size_x=bsx, bin_size_y=bsy,
            num_movable_nodes=d.nm, num_terminals=d.nt, num_filler_nodes=d.nf, padding=0, deterministic_flag=True,
            sorted_node_map=torch.sort(self.node_size_x[:d.nm])[1].to(torch.int32),
            movable_macro_mask=self.movable_macro_mask, fast_mode=False, region_id=region_id,
            fence_regions=torch.from_numpy(d.placedb.virtual_macro_fence_region[k]).to(self.device),
            node2fence_region_map=self.node2fence_region_map, placedb=d.placedb)
        kwargs.update(changes)
        return ElectricPotential(**kwargs)

    def ops(self):
        return [self.op(k) for k in range(self.d.K + 1)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "mask"])
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled-op", "python-op"])
def test_each_field_against_the_reference(device, dtype, masked, compiled, rng, monkeypatch):
    if compiled and not ElectricPotential.use_compiled_op:
        pytest.skip("efield._torch_ops was not built")
    monkeypatch.setattr(ElectricPotential, "use_compiled_op", compiled)
    dt = getattr(torch, dtype)
    d = FenceDesign(rng, td=0.8, masked=masked)
    p = Placer(d, dt, device)
    for k in range(d.K + 1):
        op = p.op(k, movable_macro_mask=p.movable_macro_mask if masked else None)
        assert op.region_id == k and isinstance(op, ElectricPotential)
        pos = p.pos.clone().requires_grad_(True)
        energy = op(pos)
        assert energy.dim() == 0 and energy.dtype == dt and energy.device == pos.device
        energy.backward()
        assert op.compiled == compiled
        ref, g = d.reference(k, d.pos, masked=masked)
        assert rel(energy.item(), ref["energy"]) <= TOL[dt], k
        grad = pos.grad.double().cpu().numpy()
        assert rel(grad, g) <= TOL[dt], k
        assert np.all(grad[g == 0] == 0), k  # exactly 0 outside the field (terminals included)
        assert rel(op.overflow, ref["overflow"]) <= TOL[dt]
        assert rel(op.max_density, ref["max_density"]) <= TOL[dt]
        overflow, max_density = op(pos, mode="overflow")
        assert overflow.dim() == 0 and overflow.dtype == dt and not overflow.requires_grad
        assert rel(overflow.item(), ref["overflow_area"]) <= TOL[dt]
        assert rel(max_density.item(), ref["max_density"]) <= TOL[dt]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dreamplace_merged_ops_and_reset(device, dtype, rng):
    """PlaceObj's merged density op (stacked energies, density_weight.dot), its merged overflow op
    (EvalMetrics divides by total_movable_node_area_fence_region), and the routability flow's
    in-place inflation followed by reset()."""
    dt = getattr(torch, dtype)
    d = FenceDesign(rng, td=0.8)
    p = Placer(d, dt, device, map_length=d.nm)  # node2fence_region_map of the movable nodes only
    ops = p.ops()
    weights = torch.tensor([0.5, 2.0, 1.25], dtype=dt, device=device)

    def merged(pos):
        return torch.stack([op(pos, mode="density") for op in ops])

    def check(size_x, size_y):
        pos = p.pos.clone().requires_grad_(True)
        density = merged(pos)
        assert density.shape == (d.K + 1,)
        (pos.sum() * 0 + weights.dot(density)).backward()
        want = np.zeros(2 * d.n)
        for k in range(d.K + 1):
            ref, g = d.reference(k, d.pos, size_x, size_y)
            assert rel(density[k].item(), ref["energy"]) <= TOL[dt]
            want += weights[k].item() * g
        assert rel(pos.grad.double().cpu().numpy(), want) <= TOL[dt]
        overflow, max_density = (torch.stack(v) for v in zip(*[op(pos, mode="overflow") for op in ops]))
        normalized = overflow.double().cpu().numpy() / d.placedb.total_movable_node_area_fence_region
        for k in range(d.K + 1):
            ref, _ = d.reference(k, d.pos, size_x, size_y)
            assert rel(overflow[k].item(), ref["overflow_area"]) <= TOL[dt]
            if size_x is d.size_x:  # the placedb's areas are those before any inflation
                assert rel(normalized[k], ref["overflow"]) <= TOL[dt]
            assert rel(max_density[k].item(), ref["max_density"]) <= TOL[dt]

    check(d.size_x, d.size_y)
    with torch.no_grad():  # cells inflated in place (terminals too), then reset()
        p.node_size_x[:d.nm:3] *= 1.2
        p.node_size_y[d.nm] *= 1.5
    for op in ops:
        op.reset()
    check(p.node_size_x.double().cpu().numpy(), p.node_size_y.double().cpu().numpy())


def test_dreamplace_pos_mask_freezes_a_field(device, rng):
    """NonLinearPlace's freeze of a field: pos.data.masked_scatter_(op.pos_mask, backup[op.pos_mask])."""
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, device)
    for k, op in enumerate(p.ops()):
        movable, fillers = d.field_nodes(k)
        want = np.zeros(d.n, dtype=bool)
        want[movable] = want[fillers] = True
        want[d.nm:d.n - d.nf] = True  # DREAMPlace marks every terminal and terminal_NI as well
        assert op.pos_mask.dtype == torch.bool and op.pos_mask.device == p.pos.device
        assert np.array_equal(op.pos_mask.cpu().numpy(), np.concatenate([want, want]))
        assert np.array_equal(op.fence_region_mask.cpu().numpy(), np.isin(np.arange(d.nm), movable))
        pos = p.pos.clone()
        backup = pos.clone()
        pos += 1.0
        pos.masked_scatter_(op.pos_mask, backup[op.pos_mask])
        assert torch.equal(pos[op.pos_mask], backup[op.pos_mask])


def test_whole_design_with_fence_regions(rng):
    """region_id None with fence_regions: every movable node and filler, the rectangles added to
    the terminals (DREAMPlace's op without region_id)."""
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    rects = d.virtual_macros[-1]
    op = p.op(None, fence_regions=torch.from_numpy(rects), target_density=0.8)
    pos = p.pos.clone().requires_grad_(True)
    energy = op(pos)
    energy.backward()
    import reference

    n, nm, nt = d.n, d.nm, d.nt
    cells = np.r_[0:nm, n - d.nf:n]
    fixed = (np.r_[d.size_x[nm:nm + nt], rects[:, 2] - rects[:, 0]],
             np.r_[d.size_y[nm:nm + nt], rects[:, 3] - rects[:, 1]],
             np.r_[d.x[nm:nm + nt], rects[:, 0]], np.r_[d.y[nm:nm + nt], rects[:, 1]])
    ref = reference.electrostatics(d.region, d.bins, 0.8, (d.size_x[:nm], d.size_y[:nm]),
                                   (d.size_x[n - d.nf:], d.size_y[n - d.nf:]), fixed, d.x[cells], d.y[cells])
    assert rel(energy.item(), ref["energy"]) <= 1e-10
    g = np.zeros(2 * n)
    g[cells], g[n + cells] = ref["gx"], ref["gy"]
    assert rel(pos.grad.numpy(), g) <= 1e-10


def test_pos_at_construction_and_no_grad(rng):
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    built = p.op(1, pos=p.pos)
    assert built.system is not None
    lazy = p.op(1)
    assert built(p.pos).item() == lazy(p.pos).item()
    with torch.no_grad():
        assert built(p.pos.clone().requires_grad_(True)).item() == lazy(p.pos).item()


def test_without_fence_arguments_nothing_changes(rng):
    """No region_id, no fence_regions: the whole-design op, node2fence_region_map and placedb unread."""
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    plain = p.op(None, fence_regions=None, placedb=None, node2fence_region_map=None)
    assert type(plain) is ElectricPotential
    ignored = p.op(None, fence_regions=None)
    assert plain(p.pos).item() == ignored(p.pos).item()


def test_bad_input(rng):
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    with pytest.raises(ValueError, match="region_id 3 is out of range: placedb has 2 fence regions"):
        p.op(3)
    with pytest.raises(ValueError, match="region_id -1 is out of range"):
        p.op(-1, fence_regions=None)
    with pytest.raises(TypeError, match="region_id must be an integer"):
        p.op(0.5, target_density=0.8, fence_regions=None)
    with pytest.raises(TypeError, match="needs placedb"):
        p.op(0, placedb=None)
    with pytest.raises(TypeError, match="needs node2fence_region_map"):
        p.op(0, node2fence_region_map=None)
    with pytest.raises(ValueError, match="node2fence_region_map has 10 entries for 60 movable nodes"):
        p.op(0, node2fence_region_map=p.node2fence_region_map[:10])
    bad = p.node2fence_region_map.clone()
    bad[7] = -2
    with pytest.raises(ValueError, match=r"node2fence_region_map\[7\] = -2"):
        p.op(0, node2fence_region_map=bad)
    with pytest.raises(TypeError, match="integer array"):
        p.op(0, node2fence_region_map=p.node2fence_region_map.double())
    outside = torch.tensor([[0.0, 0.0, 10.0, 10.0]], dtype=torch.float64)
    with pytest.raises(ValueError, match=r"fence_regions\[0\] .* lies outside the placement region"):
        p.op(0, fence_regions=outside)
    with pytest.raises(ValueError, match="is not a rectangle"):
        p.op(0, fence_regions=torch.tensor([[10.0, 10.0, 5.0, 12.0]]))
    with pytest.raises(ValueError, match="shape"):
        p.op(0, fence_regions=torch.zeros(3, 3))
    import types

    for starts, match in ((d.filler_start_map[:-1], "K \\+ 2 = 4 entries"),
                          (d.filler_start_map + 1, "must rise from 0"),
                          (d.filler_start_map[::-1].copy(), "must rise from 0")):
        db = types.SimpleNamespace(**{**vars(d.placedb), "filler_start_map": starts})
        with pytest.raises(ValueError, match=match):
            p.op(0, placedb=db)
    db = types.SimpleNamespace(**{**vars(d.placedb), "num_nodes": d.n + 1})
    with pytest.raises(ValueError, match="placedb.num_nodes"):
        p.op(0, placedb=db)
    db = types.SimpleNamespace(filler_start_map=d.filler_start_map)
    with pytest.raises(TypeError, match="placedb has no attribute 'regions'"):
        p.op(0, placedb=db)
    with pytest.raises(ValueError, match="sorted_node_map has 5 entries for 60"):
        p.op(0, sorted_node_map=torch.arange(5))
    with pytest.raises(ValueError, match="movable_macro_mask has 59 entries"):
        p.op(0, movable_macro_mask=p.movable_macro_mask[:-1])
    op = p.op(0)
    with pytest.raises(ValueError, match=f"2 \\* num_nodes = {2 * d.n} entries"):
        op(p.pos[:-2])
    with pytest.raises(ValueError, match="mode must be"):
        op(p.pos, mode="energy")
    op(p.pos)
    with pytest.raises(TypeError, match="dtype"):
        op(p.pos.float())
    p.node_size_x.resize_(d.n - 1)
    with pytest.raises(ValueError, match="reset"):
        op.reset()


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_cuda_agrees_with_cpu_in_float64(rng):
    d = FenceDesign(rng)
    results = []
    for device in ("cpu", "cuda"):
        p = Placer(d, torch.float64, device)
        row = []
        for op in p.ops():
            pos = p.pos.clone().requires_grad_(True)
            energy = op(pos)
            energy.backward()
            row.append((energy.item(), pos.grad.cpu()))
        results.append(row)
    for (e_cpu, g_cpu), (e_cuda, g_cuda) in zip(*results):
        assert rel(e_cuda, e_cpu) <= 1e-12
        assert rel(g_cuda.numpy(), g_cpu.numpy()) <= 1e-12
