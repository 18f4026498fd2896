"""efield.torch.MultiFieldElectricPotential and BatchedElectricPotential: the stacked energies of
a fence-region design equal DREAMPlace's K + 1 per-region ops (bitwise, deterministic mode),
autograd through each field (gradcheck; lambdas * energies), the overflow mode, batches of
placements bitwise equal to separate ops, and bad input."""

import numpy as np
import pytest

from conftest import torch
from fence_reference import FenceDesign
from test_fence_op import TOL, Placer, rel

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

if torch is not None:
    import efield.torch as et
    from efield.torch import BatchedElectricPotential, ElectricPotential, MultiFieldElectricPotential

import efield
from efield import field_spec

BACKENDS = [True, False]  # efield.MultiFieldSystem, one efield.ElectrostaticSystem per field


def merged_op(p, **options):
    """The per-field pipeline unless the test names one: the per-region ops' bits (bitwise())."""
    options.setdefault("pipeline", "per_field")
    d = p.d
    xl, yl, xh, yh = d.region
    return MultiFieldElectricPotential.from_dreamplace(
        p.node_size_x, p.node_size_y, xl=xl, yl=yl, xh=xh, yh=yh, bin_size_x=d.bin_size[0], bin_size_y=d.bin_size[1],
        num_movable_nodes=d.nm, num_terminals=d.nt, num_filler_nodes=d.nf, placedb=d.placedb,
        node2fence_region_map=p.node2fence_region_map, movable_macro_mask=p.movable_macro_mask, pos=p.pos, **options)


def bitwise(device, dt):
    """Whether the merged op gives the per-region ops' bits. On CUDA in float32 the merged op's
    fields run evaluate_async (64-bit bins) while a per-region op's blocking evaluate takes exact
    float maps: both deterministic, their last bits differ."""
    return not (torch.device(device).type == "cuda" and dt == torch.float32)


def same(a, b, exact):
    if exact:
        return torch.equal(a, b)
    return torch.allclose(a, b, rtol=1e-4, atol=1e-5 * b.abs().max().item())


def separate(p, pos, weights):
    """DREAMPlace's merged op over its per-region ops: energies and the gradient of weights . E."""
    pos = pos.clone().requires_grad_(True)
    energies = torch.stack([op(pos) for op in p.ops()])
    (weights * energies).sum().backward()
    return energies.detach(), pos.grad


@pytest.mark.parametrize("use_native", BACKENDS, ids=lambda v: "native" if v else "separate")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "mask"])
def test_equals_the_per_region_ops(device, dtype, masked, use_native, rng):
    dt = getattr(torch, dtype)
    d = FenceDesign(rng, td=0.8, masked=masked)
    p = Placer(d, dt, device)
    if not masked:
        p.movable_macro_mask = None
    op = merged_op(p, use_native=use_native)
    assert op.num_fields == d.K + 1 and op.backend == ("native" if use_native else "separate")
    weights = torch.tensor([0.5, 2.0, 1.25], dtype=dt, device=device)
    want_energy, want_grad = separate(p, p.pos, weights)
    pos = p.pos.clone().requires_grad_(True)
    energies = op(pos)
    assert energies.shape == (d.K + 1,) and energies.dtype == dt and energies.device == pos.device
    loss = pos.sum() * 0 + (weights * energies).sum()  # wl + lambdas . E
    loss.backward()
    exact = bitwise(device, dt)
    assert same(energies.detach(), want_energy, exact)
    assert same(pos.grad, want_grad, exact)
    for k in range(d.K + 1):
        ref, _ = d.reference(k, d.pos, masked=masked)
        assert rel(energies[k].item(), ref["energy"]) <= TOL[dt]
        assert rel(op.overflow[k], ref["overflow"]) <= TOL[dt]
        assert rel(op.max_density[k], ref["max_density"]) <= TOL[dt]
    overflow, max_density = op(pos, mode="overflow")
    assert overflow.shape == max_density.shape == (d.K + 1,) and not overflow.requires_grad
    ops = p.ops()
    for k, single in enumerate(ops):
        o, m = single(p.pos, mode="overflow")
        assert rel(overflow[k].item(), o.item()) <= TOL[dt]
        assert max_density[k].item() == m.item() if exact else rel(max_density[k].item(), m.item()) <= 1e-5


@pytest.mark.parametrize("use_native", BACKENDS, ids=lambda v: "native" if v else "separate")
def test_from_fence_design_equals_dreamplace_construction(device, use_native, rng):
    """efield's own fence builder (make_region_fillers, make_fence_fields) with the fillers where
    DREAMPlace puts them gives DREAMPlace's per-region fields (its blockages cut otherwise: equal
    up to rounding) and the float64 reference."""
    d = FenceDesign(rng, td=0.8)
    xl, yl, xh, yh = d.region
    movable = (d.size_x[:d.nm], d.size_y[:d.nm])
    op = MultiFieldElectricPotential.from_fence_design(
        movable, d.ids, d.fences, d.terminals, xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=d.bins[0],
        num_bins_y=d.bins[1], target_density=0.8, row_height=d.row_height, filler_offset=d.n - d.nf, num_entries=d.n,
        use_native=use_native)
    assert op.num_fields == d.K + 1 and op.num_nodes == d.n and op.filler_offset == d.n - d.nf
    assert [f["count"] for f in op.fillers] == list(np.diff(d.filler_start_map))
    p = Placer(d, torch.float64, device)
    p.movable_macro_mask = None
    want, want_grad = separate(p, p.pos, torch.ones(d.K + 1, dtype=torch.float64, device=device))
    pos = p.pos.clone().requires_grad_(True)
    energies = op(pos)
    energies.sum().backward()
    assert rel(energies.detach().cpu().numpy(), want.cpu().numpy()) <= 1e-12
    assert rel(pos.grad.cpu().numpy(), want_grad.cpu().numpy()) <= 1e-12
    for k in range(d.K + 1):
        ref, _ = d.reference(k, d.pos)
        assert rel(energies[k].item(), ref["energy"]) <= 1e-10


def test_overflow_mode_keeps_the_forward_gradient(rng):
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    op = merged_op(p)
    pos = p.pos.clone().requires_grad_(True)
    energies = op(pos)
    op((pos.detach() + 0.5), mode="overflow")
    energies.sum().backward()
    _, want = separate(p, p.pos, torch.ones(d.K + 1, dtype=torch.float64))
    assert torch.equal(pos.grad, want)


def test_gradcheck_on_a_tiny_design(rng):
    """The exact gradient (gradient_scale="exact") of every weighted sum of the energies."""
    d = FenceDesign(rng, num_movable=12)
    p = Placer(d, torch.float64, "cpu")
    op = merged_op(p, gradient_scale="exact")
    pos = p.pos.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda q: op(q), (pos,), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("use_native", BACKENDS, ids=lambda v: "native" if v else "separate")
def test_field_specs(use_native, rng):
    """A list of FieldSpec: two fields over disjoint cells, each the single-field system of its
    cells; an entry of no field gets 0."""
    d = FenceDesign(rng)
    xl, yl, xh, yh = d.region
    grid = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=d.bins[0], num_bins_y=d.bins[1])
    n, nm = d.n, d.nm
    fixed = tuple(a.copy() for a in d.terminals)
    specs = [field_spec(np.arange(0, 30), (d.size_x[:30], d.size_y[:30]), target_density=0.9, fixed=fixed),
             dict(movable_index=np.arange(30, nm - 1), movable_widths=d.size_x[30:nm - 1],
                  movable_heights=d.size_y[30:nm - 1], filler_index=np.arange(n - 5, n),
                  filler_widths=d.size_x[n - 5:], filler_heights=d.size_y[n - 5:], target_density=0.7)]
    separate = [(np.arange(0, 30), (d.size_x[:30], d.size_y[:30]), None, fixed, 0.9),
                (np.r_[30:nm - 1, n - 5:n], (d.size_x[30:nm - 1], d.size_y[30:nm - 1]),
                 (d.size_x[n - 5:], d.size_y[n - 5:]), None, 0.7)]
    op = MultiFieldElectricPotential(specs, num_nodes=n, use_native=use_native, **grid)
    pos = torch.tensor(d.pos).requires_grad_(True)
    energies = op(pos)
    energies.backward(torch.tensor([3.0, 0.25], dtype=torch.float64))
    for k, ((cells, movable, fillers, fixed, td), w) in enumerate(zip(separate, (3.0, 0.25))):
        es = efield.ElectrostaticSystem(movable, fillers, fixed, target_density=td, dtype="float64", **grid)
        r = es.evaluate(d.x[cells], d.y[cells])
        assert energies[k].item() == r.energy
        assert np.array_equal(pos.grad[cells].numpy(), w * r.grad_x)
        assert np.array_equal(pos.grad[n + cells].numpy(), w * r.grad_y)
    assert pos.grad[nm - 1].item() == 0 and pos.grad[nm].item() == 0  # no field's entries


@pytest.mark.parametrize("use_native", BACKENDS, ids=lambda v: "native" if v else "separate")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_equals_separate_ops(device, dtype, use_native, rng):
    dt = getattr(torch, dtype)
    d = FenceDesign(rng)
    xl, yl, xh, yh = d.region
    design = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=d.bins[0], num_bins_y=d.bins[1], num_movable_nodes=d.nm,
                  num_terminals=d.nt, num_filler_nodes=d.nf, target_density=0.85)
    size_x, size_y = torch.tensor(d.size_x, dtype=dt), torch.tensor(d.size_y, dtype=dt)
    count = 3
    base = torch.tensor(d.pos, dtype=dt, device=device)
    members = []
    for k in range(count):  # movable nodes and fillers moved; the terminals stay
        shift = torch.zeros_like(base)
        movable = np.r_[0:d.nm, d.n - d.nf:d.n]
        shift[movable] = torch.tensor(rng.uniform(-3, 3, len(movable)), dtype=dt, device=device)
        members.append(base + shift)
    weights = torch.tensor([1.0, 0.5, 4.0], dtype=dt, device=device)
    want_e, want_g = [], []
    for k, m in enumerate(members):
        op = ElectricPotential(size_x, size_y, **design)
        q = m.clone().requires_grad_(True)
        e = op(q)
        (weights[k] * e).backward()
        want_e.append(e.detach())
        want_g.append(q.grad)
    batch = MultiFieldElectricPotential.batch(count, size_x, size_y, use_native=use_native, **design)
    stacked = torch.stack(members).requires_grad_(True)
    energies = batch(stacked)
    assert energies.shape == (count,)
    (weights * energies).sum().backward()
    exact = bitwise(device, dt)
    assert same(energies.detach(), torch.stack(want_e), exact)
    assert same(stacked.grad, torch.stack(want_g), exact)
    listed = [m.clone().requires_grad_(True) for m in members]
    energies = batch(listed)
    energies.sum().backward()
    assert same(energies.detach(), torch.stack(want_e), exact)
    for k in range(count):
        assert same(listed[k].grad * weights[k], want_g[k], exact)
    overflow, _ = batch(stacked, mode="overflow")
    assert overflow.shape == (count,)
    assert len(batch.overflow) == count and batch.op.backend == ("native" if use_native else "separate")


def test_bad_input(rng):
    d = FenceDesign(rng)
    p = Placer(d, torch.float64, "cpu")
    xl, yl, xh, yh = d.region
    grid = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=16, num_bins_y=12)
    one = field_spec(np.arange(5), (np.ones(5), np.ones(5)))
    with pytest.raises(ValueError, match="at least one field"):
        MultiFieldElectricPotential([], num_nodes=10, **grid)
    with pytest.raises(ValueError, match="entry 3 belongs to two cells"):
        MultiFieldElectricPotential([one, field_spec([3], ([1.0], [1.0]))], num_nodes=10, **grid)
    with pytest.raises(ValueError, match="belongs to two cells"):
        MultiFieldElectricPotential([field_spec([1, 1], ([1.0, 1], [1.0, 1]))], num_nodes=10, **grid)
    with pytest.raises(ValueError, match=r"fields\[0\].movable_index has entries outside \[0, 4\)"):
        MultiFieldElectricPotential([one], num_nodes=4, **grid)
    with pytest.raises(ValueError, match=r"fields\[0\]: 5 movable indices but 4 widths"):
        MultiFieldElectricPotential([field_spec(np.arange(5), (np.ones(4), np.ones(5)))], num_nodes=10, **grid)
    with pytest.raises(ValueError, match="target_density must be in"):
        MultiFieldElectricPotential([field_spec([0], ([1.0], [1.0]), target_density=1.5)], num_nodes=10, **grid)
    with pytest.raises(ValueError, match=r"fields\[0\] lacks"):
        MultiFieldElectricPotential([dict(movable_index=[0])], num_nodes=10, **grid)
    with pytest.raises(TypeError, match="FieldSpec"):
        MultiFieldElectricPotential([[0]], num_nodes=10, **grid)
    op = MultiFieldElectricPotential([one], num_nodes=10, **grid)
    with pytest.raises(ValueError, match="2 \\* num_nodes = 20"):
        op(torch.zeros(21, dtype=torch.float64))
    with pytest.raises(TypeError, match="float32 or float64"):
        op(torch.zeros(20, dtype=torch.int32))
    op(torch.zeros(20, dtype=torch.float64))
    with pytest.raises(ValueError, match="built for torch.float64"):
        op(torch.zeros(20, dtype=torch.float32))
    with pytest.raises(ValueError, match="mode must be"):
        op(torch.zeros(20, dtype=torch.float64), mode="x")
    with pytest.raises(ValueError, match="region_id|K \\+ 1 = 3"):
        merged_op(p, fence_regions=d.placedb.virtual_macro_fence_region[:2])
    batch = BatchedElectricPotential(2, d.size_x, d.size_y, xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=16, num_bins_y=12,
                                     num_movable_nodes=d.nm, num_terminals=d.nt, num_filler_nodes=d.nf)
    with pytest.raises(ValueError, match="3 placements for a batch of 2"):
        batch([p.pos] * 3)
    with pytest.raises(ValueError, match="shape \\(count, 2 \\* num_nodes\\)"):
        batch(torch.stack([p.pos] * 3))
    assert "MultiFieldElectricPotential" in et.__all__


def test_batched_pipeline(device, rng):
    """pipeline="batched" (efield.MultiFieldSystem's one CUDA pipeline for all fields): on CUDA the
    energies and gradient of the per-field pipeline to round-off (cuFFT's batched plans); on the
    CPU, and without the native system, a clear error."""
    dt = torch.float64
    d = FenceDesign(rng, td=0.8)
    p = Placer(d, dt, device)
    if torch.device(device).type != "cuda":
        with pytest.raises(Exception, match="Batched"):
            merged_op(p, pipeline="batched")
        return
    with pytest.raises(ValueError, match="pipeline"):
        merged_op(p, pipeline="batched", use_native=False)
    weights = torch.tensor([0.5, 2.0, 1.25], dtype=dt, device=device)
    runs = []
    for pipeline in ("per_field", "batched"):
        pos = p.pos.clone().requires_grad_(True)
        energies = merged_op(p, pipeline=pipeline)(pos)
        (weights * energies).sum().backward()
        runs.append((energies.detach(), pos.grad))
    assert torch.allclose(runs[1][0], runs[0][0], rtol=1e-12, atol=0)
    assert torch.allclose(runs[1][1], runs[0][1], rtol=0, atol=1e-12 * runs[0][1].abs().max().item())
