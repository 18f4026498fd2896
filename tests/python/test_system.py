"""efield.ElectrostaticSystem against the float64 NumPy reference of docs/math.md section 2
(tests/python/reference.py) on small random designs: energy, overflow, max density, gradients
and maps, for every array kind and device this machine has."""

import numpy as np
import pytest

import efield
import reference
from arrays import KIND_IDS, KINDS, host, make, same_kind_and_device

# Relative L2 error (scalars: relative error). float32 runs in float arithmetic (and, on CUDA
# in deterministic mode, with contributions rounded to 2^-18 bin areas).
TOL = {"float32": 1e-4, "float64": 1e-10}


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def make_system(d, dtype, device, **options):
    xl, yl, xh, yh = d["region"]
    return efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], xl=xl, yl=yl, xh=xh, yh=yh,
                                      num_bins_x=d["bins"][0], num_bins_y=d["bins"][1], target_density=d["td"],
                                      dtype=dtype, device=device, **options)


def expect_matches(es, r, ref, tol):
    assert rel(r.energy, ref["energy"]) <= tol
    assert rel(r.overflow, ref["overflow"]) <= tol
    assert rel(r.max_density, ref["max_density"]) <= tol
    # The outside areas are fixed-point sums (order-free), exact to about 1e-7 of the cells' area.
    assert abs(r.movable_area_outside - ref["movable_area_outside"]) <= max(tol, 1e-6) * ref["movable_area"]
    assert abs(r.filler_area_outside - ref["filler_area_outside"]) <= max(tol, 1e-6) * ref["filler_area"]
    assert rel(es.density_map(), ref["rho"]) <= tol
    assert rel(es.field_x_map(), ref["ex"]) <= tol
    assert rel(es.field_y_map(), ref["ey"]) <= tol
    assert rel(es.potential_map(), ref["phi"]) <= tol
    assert rel(es.fixed_map(), ref["fixed"]) <= 1e-12


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_reference(kind, device, dtype, rng):
    d = reference.random_design(rng)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    es = make_system(d, dtype, device)
    assert es.num_movable == 60 and es.num_fillers == 20 and es.num_fixed == 4
    assert es.density_map().shape == d["bins"]
    x, y = make(kind, device, d["x"].astype(dtype)), make(kind, device, d["y"].astype(dtype))
    r = es.evaluate(x, y)
    same_kind_and_device(r.grad_x, kind, device)
    expect_matches(es, r, ref, TOL[dtype])
    assert rel(host(r.grad_x), ref["gx"]) <= TOL[dtype]
    assert rel(host(r.grad_y), ref["gy"]) <= TOL[dtype]


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_flat_layout_and_given_gradients(kind, device, rng):
    """DREAMPlace's pos = [x..., y...]: movable nodes, 5 nodes the system ignores, fillers last;
    the gradient goes into the caller's arrays, the ignored entries untouched."""
    d = reference.random_design(rng)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    nm, nf, gap = 60, 20, 5
    n = nm + gap + nf
    flat = np.zeros(2 * n)
    flat[:nm], flat[n - nf:n] = d["x"][:nm], d["x"][nm:]
    flat[n:n + nm], flat[2 * n - nf:] = d["y"][:nm], d["y"][nm:]
    es = make_system(d, "float64", device, filler_offset=n - nf)
    assert es.required_length == n
    pos = make(kind, device, flat)
    grad = make(kind, device, np.full(2 * n, 7.0))
    r = es.evaluate(pos[:n], pos[n:], grad[:n], grad[n:])
    assert r.grad_x is not None
    g = host(grad)
    assert np.all(g[nm:n - nf] == 7.0) and np.all(g[n + nm:2 * n - nf] == 7.0)
    assert rel(np.concatenate([g[:nm], g[n - nf:n]]), ref["gx"]) <= 1e-10
    assert rel(np.concatenate([g[n:n + nm], g[2 * n - nf:]]), ref["gy"]) <= 1e-10
    assert rel(r.energy, ref["energy"]) <= 1e-10


def test_update_fixed_cells(device, rng):
    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    moved = (d["fixed"][0][:3], d["fixed"][1][:3], d["fixed"][2][:3] + 1.5, d["fixed"][3][:3] - 0.5)
    es.update_fixed_cells(moved)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], moved, d["x"], d["y"])
    kind = "numpy" if device == "cpu" else "torch"
    r = es.evaluate(make(kind, device, d["x"]), make(kind, device, d["y"]))
    expect_matches(es, r, ref, 1e-10)


def test_properties_and_helpers(rng):
    d = reference.random_design(rng)
    es = make_system(d, "float64", "cpu")
    xl, yl, xh, yh = d["region"]
    assert es.bin_width == pytest.approx((xh - xl) / 16) and es.bin_height == pytest.approx((yh - yl) / 12)
    assert (es.num_bins_x, es.num_bins_y) == (16, 12) and es.backend == "cpu" and es.filler_offset == 60
    width, height, count, area = efield.make_fillers(d["movable"], d["fixed"], xl, yl, xh, yh, 0.9, row_height=2.5)
    assert height == 2.5 and width > 0 and count == round(area / (width * height))
    nx, ny = efield.default_bin_grid(d["movable"], xl, yl, xh, yh, 0.9)
    assert nx >= 1 and ny >= 1


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_weight_accumulate_and_zero_gap(kind, device, rng):
    """grad = weight * g, grad += weight * g, and zeros between the movable cells and fillers."""
    d = reference.random_design(rng)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    nm, nf, gap = 60, 20, 5
    n = nm + gap + nf
    x, y = np.zeros(n), np.zeros(n)
    x[:nm], x[n - nf:], y[:nm], y[n - nf:] = d["x"][:nm], d["x"][nm:], d["y"][:nm], d["y"][nm:]
    es = make_system(d, "float64", device, filler_offset=n - nf, zero_gap_gradient=True)
    gx, gy = make(kind, device, np.full(n, 5.0)), make(kind, device, np.full(n, 5.0))
    xa, ya = make(kind, device, x), make(kind, device, y)
    es.evaluate(xa, ya, gx, gy, weight=2.0)
    expected = np.zeros(n)
    expected[:nm], expected[n - nf:] = 2 * ref["gx"][:nm], 2 * ref["gx"][nm:]
    assert rel(host(gx), expected) <= 1e-10  # the gap is zero: zero_gap_gradient
    es.evaluate(xa, ya, gx, gy, weight=-0.5, accumulate=True)
    assert rel(host(gx), 0.75 * expected) <= 1e-10  # (2 - 0.5) g
    with pytest.raises(ValueError, match="accumulate"):
        es.evaluate(xa, ya, accumulate=True)


def test_exact_gradient_against_finite_differences(rng):
    """gradient_scale='exact' is dE/dx of the returned energy: central differences agree (steps
    well above the double pipeline's fixed-point resolution, 2^-40 bin areas a contribution)."""
    d = reference.random_design(rng, num_fillers=0)
    es = make_system(d, "float64", "cpu", gradient_scale="exact")
    x, y = d["x"].copy(), d["y"].copy()
    r = es.evaluate(x, y)
    scale = max(np.abs(r.grad_x).max(), np.abs(r.grad_y).max())
    h = 1e-3
    for i in range(0, 60, 7):
        for coords, grad in ((x, r.grad_x), (y, r.grad_y)):
            keep = coords[i]
            coords[i] = keep + h
            up = es.evaluate(x, y).energy
            coords[i] = keep - h
            down = es.evaluate(x, y).energy
            coords[i] = keep
            fd = (up - down) / (2 * h)
            assert abs(fd - grad[i]) / (1e-3 * scale + abs(fd)) < 1e-5


def test_update_movable_and_filler_sizes(device, rng):
    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    bigger = (d["movable"][0] * 1.3, d["movable"][1])
    fillers = (d["fillers"][0] * 0.5, d["fillers"][1])
    es.update_movable_sizes(bigger)
    es.update_filler_sizes(fillers)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], bigger, fillers, d["fixed"], d["x"], d["y"])
    kind = "numpy" if device == "cpu" else "torch"
    r = es.evaluate(make(kind, device, d["x"]), make(kind, device, d["y"]))
    expect_matches(es, r, ref, 1e-10)
    with pytest.raises(efield.Error):
        es.update_movable_sizes((d["movable"][0][:10], d["movable"][1][:10]))
