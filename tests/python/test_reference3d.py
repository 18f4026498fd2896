"""The float64 3D reference (reference3d.py) against docs/math.md section 4: the relation to the
2D reference at L = 1, the Exact gradient against finite differences, the discrete Poisson
relation, Parseval, and the reference's own input checks. CPU only, NumPy only."""

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import reference  # noqa: E402
import reference3d  # noqa: E402


def _full_depth(rng, bins2d, region2d, zl=0.5, zh=3.5):
    """A 2D design and the same design as full-depth cuboids in one bin layer."""
    design = reference.random_design(rng, num_movable=30, num_fillers=8, num_fixed=3, bins=bins2d, region=region2d)
    mw, mh = design["movable"]
    fw, fh = design["fillers"]
    xw, xh_, xx, xy = design["fixed"]
    depth = zh - zl
    xl, yl, xh, yh = region2d
    ones = np.ones
    design3d = {
        "region": (xl, yl, zl, xh, yh, zh), "bins": (*bins2d, 1), "td": design["td"],
        "movable": (mw, mh, depth * ones(len(mw))), "fillers": (fw, fh, depth * ones(len(fw))),
        "fixed": (xw, xh_, depth * ones(len(xw)), xx, xy, zl * ones(len(xw))),
        "x": design["x"], "y": design["y"], "z": zl * ones(len(design["x"])),
    }
    return design, design3d, depth


@pytest.mark.parametrize("bins2d,macros", [((8, 6), False), ((7, 9), False), ((5, 11), True), ((13, 2), False)])
def test_one_layer_of_full_depth_cells_is_the_2d_system(bins2d, macros):
    rng = np.random.default_rng(sum(bins2d))
    region2d = (2.0, -1.0, 42.0, 23.0)  # bins not square
    design, design3d, depth = _full_depth(rng, bins2d, region2d)
    if macros:  # every third movable cell a macro (td = 0.8 < 1)
        mask = np.arange(len(design["movable"][0])) % 3 == 0
        design, design3d = {**design, "macro_mask": mask}, {**design3d, "macro_mask": mask}
    ref2 = reference.electrostatics(**design)
    ref3 = reference3d.electrostatics3d(**design3d)
    for key in ("rho", "phi", "ex", "ey", "fixed"):
        factor = depth if key == "fixed" else 1.0  # F is in volume units
        np.testing.assert_allclose(ref3[key][:, :, 0], factor * ref2[key], rtol=1e-12, atol=1e-12, err_msg=key)
    assert np.all(ref3["ez"] == 0)
    for key in ("energy", "overflow", "max_density"):
        assert ref3[key] == pytest.approx(ref2[key], rel=1e-12), key
    assert ref3["overflow_area"] == pytest.approx(depth * ref2["overflow_area"], rel=1e-12)
    assert ref3["movable_volume_outside"] == pytest.approx(depth * ref2["movable_area_outside"], rel=1e-12, abs=1e-9)
    # The DreamPlace scale multiplies by the region's depth; the Exact scale is the same.
    np.testing.assert_allclose(ref3["gx"], depth * ref2["gx"], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ref3["gy"], depth * ref2["gy"], rtol=1e-10, atol=1e-10)
    assert np.all(ref3["gz"] == 0)


def test_one_layer_exact_gradient_is_the_2d_exact_gradient():
    """The 2D Exact formula of section 2.9, from the 2D reference's phi, equals exact_gx/gy."""
    rng = np.random.default_rng(5)
    design, design3d, _ = _full_depth(rng, (7, 5), (0.0, 0.0, 21.0, 10.0))
    ref2 = reference.electrostatics(**design)
    ref3 = reference3d.electrostatics3d(**design3d)
    xl, yl, xh, yh = design["region"]
    M, N = design["bins"]
    bx, by = (xh - xl) / M, (yh - yl) / N
    w = np.concatenate([design["movable"][0], design["fillers"][0]])
    h = np.concatenate([design["movable"][1], design["fillers"][1]])
    ws, hs = np.maximum(w, np.sqrt(2) * bx), np.maximum(h, np.sqrt(2) * by)
    xs, ys = design["x"] + (w - ws) / 2 - xl, design["y"] + (h - hs) / 2 - yl
    r = w * h / (ws * hs)
    oy = reference.overlaps(ys, ys + hs, 0.0, by, N)
    ox = reference.overlaps(xs, xs + ws, 0.0, bx, M)
    phi = ref2["phi"]
    gx, gy = np.zeros(len(w)), np.zeros(len(w))
    for i in range(len(w)):
        mr, ml = int(np.floor((xs[i] + ws[i]) / bx)), int(np.floor(xs[i] / bx))
        nt, nb = int(np.floor((ys[i] + hs[i]) / by)), int(np.floor(ys[i] / by))
        gx[i] = (oy[i] @ phi[mr] if mr < M else 0) - (oy[i] @ phi[ml] if 0 <= ml else 0)
        gy[i] = (ox[i] @ phi[:, nt] if nt < N else 0) - (ox[i] @ phi[:, nb] if 0 <= nb else 0)
    scale = 2 * r / (bx * by)
    np.testing.assert_allclose(ref3["exact_gx"], scale * gx, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ref3["exact_gy"], scale * gy, rtol=1e-10, atol=1e-12)


def _energy(design, **moved):
    return reference3d.electrostatics3d(**{**design, **moved})["energy"]


@pytest.mark.parametrize("bins", [(6, 5, 2), (7, 4, 3), (5, 5, 8)])
def test_exact_gradient_is_the_derivative_of_the_energy(bins):
    rng = np.random.default_rng(bins[2])
    design = reference3d.random_design3d(rng, bins=bins)
    ref = reference3d.electrostatics3d(**design)
    step = 1e-6
    for axis in "xyz":
        fd = np.empty(len(design[axis]))
        for i in range(len(fd)):
            plus, minus = design[axis].copy(), design[axis].copy()
            plus[i] += step
            minus[i] -= step
            fd[i] = (_energy(design, **{axis: plus}) - _energy(design, **{axis: minus})) / (2 * step)
        exact = ref["exact_g" + axis]
        assert np.linalg.norm(exact - fd) <= 1e-6 * np.linalg.norm(fd), axis


@pytest.mark.parametrize("bins", [(4, 6, 2), (5, 3, 7), (8, 8, 8)])
def test_potential_solves_the_discrete_poisson_problem(bins):
    rng = np.random.default_rng(3)
    design = reference3d.random_design3d(rng, bins=bins)
    ref = reference3d.electrostatics3d(**design)
    xl, yl, zl, xh, yh, zh = design["region"]
    M, N, L = bins
    sizes = ((xh - xl) / M, (yh - yl) / N, (zh - zl) / L)
    rho = ref["rho"]
    np.testing.assert_allclose(reference3d.laplacian_operator(ref["phi"], bins, sizes), rho - rho.mean(), atol=1e-12)
    assert abs(ref["phi"].sum()) < 1e-10 * np.abs(ref["phi"]).sum()  # the mean charge has no potential
    assert ref["energy"] == pytest.approx(ref["energy_parseval"], rel=1e-12)
    assert ref["energy"] >= 0


def test_field_is_the_derivative_of_the_cosine_interpolant():
    """Section 4.7: Ex = -dphi/dm, Ey = -(bx/by) dphi/dn, Ez = -(bx/bz) dphi/dk, on the continuous
    cosine interpolant of phi, checked by finite differences at the bin centres."""
    rng = np.random.default_rng(8)
    bins = (5, 4, 3)
    design = reference3d.random_design3d(rng, bins=bins)
    ref = reference3d.electrostatics3d(**design)
    M, N, L = bins
    xl, yl, zl, xh, yh, zh = design["region"]
    bx, by, bz = (xh - xl) / M, (yh - yl) / N, (zh - zl) / L
    coeff = reference3d.dct3d(ref["phi"]) / (M * N * L) * np.einsum(
        "u,v,l->uvl", *(reference.c_weights(K) for K in bins))

    def interpolant(m, n, k):
        cu, cv, cl = (np.cos(np.pi * np.arange(K) * (2 * t + 1) / (2 * K)) for K, t in zip(bins, (m, n, k)))
        return np.einsum("uvl,u,v,l->", coeff, cu, cv, cl)

    h = 1e-5
    for (m, n, k) in [(0, 0, 0), (2, 1, 1), (4, 3, 2), (1, 2, 0)]:
        assert interpolant(m, n, k) == pytest.approx(ref["phi"][m, n, k], abs=1e-12)
        dm = (interpolant(m + h, n, k) - interpolant(m - h, n, k)) / (2 * h)
        dn = (interpolant(m, n + h, k) - interpolant(m, n - h, k)) / (2 * h)
        dk = (interpolant(m, n, k + h) - interpolant(m, n, k - h)) / (2 * h)
        assert ref["ex"][m, n, k] == pytest.approx(-dm, abs=1e-7)
        assert ref["ey"][m, n, k] == pytest.approx(-(bx / by) * dn, abs=1e-7)
        assert ref["ez"][m, n, k] == pytest.approx(-(bx / bz) * dk, abs=1e-7)


def test_transforms_match_scipy_conventions():
    scipy_fft = pytest.importorskip("scipy.fft")
    x = np.random.default_rng(1).standard_normal((5, 4, 3))
    np.testing.assert_allclose(scipy_fft.dctn(x, type=2), 8 * reference3d.dct3d(x), atol=1e-12)
    np.testing.assert_allclose(scipy_fft.dctn(x, type=3), reference3d.idct3d(x), atol=1e-12)
    np.testing.assert_allclose(reference3d.idct3d(reference3d.dct3d(x)), 60 * x, atol=1e-12)
    # idxst along one axis: scipy's DST-III of the coefficients shifted down by one.
    shifted = np.concatenate([x[1:], np.zeros((1, 4, 3))], axis=0)
    expected = scipy_fft.dct(scipy_fft.dct(scipy_fft.dst(shifted, type=3, axis=0), type=3, axis=1), type=3, axis=2)
    np.testing.assert_allclose(reference3d.idxst_idct_idct(x), expected, atol=1e-12)


def test_fillers_fill_the_free_volume():
    rng = np.random.default_rng(2)
    design = reference3d.random_design3d(rng, num_movable=10, num_fixed=0)
    w, h, d = reference3d.make_fillers3d(design["region"], 0.9, design["movable"], design["fixed"])
    xl, yl, zl, xh, yh, zh = design["region"]
    free = 0.9 * (xh - xl) * (yh - yl) * (zh - zl) - np.sum(np.prod(design["movable"], axis=0))
    assert len(w) > 10
    assert np.sum(w * h * d) == pytest.approx(free, abs=w[0] * h[0] * d[0] / 2)
    with pytest.raises(ValueError, match="filler depth"):
        reference3d.make_fillers3d(design["region"], 0.9, design["movable"], design["fixed"], depth=0.0)


@pytest.mark.parametrize("depth,match", [(0.0, "zero or negative"), (-1.0, "zero or negative"), (6.5, "deeper than the region")])
def test_bad_depth_raises(depth, match):
    design = reference3d.random_design3d(np.random.default_rng(4))
    mw, mh, md = design["movable"]
    md = md.copy()
    md[3] = depth
    with pytest.raises(ValueError, match=match):
        reference3d.electrostatics3d(**{**design, "movable": (mw, mh, md)})


def test_bad_shapes_raise():
    design = reference3d.random_design3d(np.random.default_rng(6))
    with pytest.raises(ValueError, match="position z"):
        reference3d.electrostatics3d(**{**design, "z": design["z"][:-1]})
    mw, mh, md = design["movable"]
    with pytest.raises(ValueError, match="different lengths"):
        reference3d.electrostatics3d(**{**design, "movable": (mw, mh, md[:-1])})
    with pytest.raises(ValueError, match="extent"):
        reference3d.electrostatics3d(**{**design, "region": (0.0, 0.0, 1.0, 4.0, 4.0, 1.0)})
    with pytest.raises(ValueError, match="bins"):
        reference3d.electrostatics3d(**{**design, "bins": (4, 4, 0)})


def _inside_design(rng, bins, extent, n):
    """Cells of 1.5 to 3 bins per side, all inside the region (no fixed cells, no fillers): where
    the field estimate follows the derivative closely."""
    sizes = [rng.uniform(1.5, 3.0, n) * e / b for e, b in zip(extent, bins)]
    corners = [rng.uniform(0.0, e - s) for e, s in zip(extent, sizes)]
    return sizes, corners


def _scale_and_cosine(g, exact):
    return g @ exact / (exact @ exact), g @ exact / (np.linalg.norm(g) * np.linalg.norm(exact))


def test_dreamplace_scale_is_bx_times_bin_volume_over_two():
    """Section 4.9: g ~ (bx^2 by bz / 2) dE/d(x, y, z) on every axis, with bins of three sizes."""
    bins, extent = (8, 6, 6), (16.0, 9.0, 12.0)
    (w, h, d), (x, y, z) = _inside_design(np.random.default_rng(0), bins, extent, 100)
    empty = np.zeros(0)
    ref = reference3d.electrostatics3d((0.0, 0.0, 0.0, *extent), bins, 0.9, (w, h, d), (empty,) * 3,
                                       (empty,) * 6, x, y, z)
    bx, by, bz = (e / b for e, b in zip(extent, bins))
    for axis in "xyz":
        scale, cosine = _scale_and_cosine(ref["g" + axis], (bx * bx * by * bz / 2) * ref["exact_g" + axis])
        assert cosine > 0.9 and 0.8 < scale < 1.2, (axis, cosine, scale)


def test_2d_dreamplace_scale_on_non_square_bins():
    """Section 2.9: gx and gy both ~ (bx^2 by / 2) dE/d(x, y); here by = 2 bx."""
    bins, extent = (16, 8), (40.0, 40.0)
    (w, h), (x, y) = _inside_design(np.random.default_rng(1), bins, extent, 80)
    empty = np.zeros(0)
    design = {"region": (0.0, 0.0, *extent), "bins": bins, "td": 0.9, "movable": (w, h),
              "fillers": (empty, empty), "fixed": (empty,) * 4, "x": x, "y": y}
    ref = reference.electrostatics(**design)
    bx, by = extent[0] / bins[0], extent[1] / bins[1]
    step = 1e-6
    for axis in "xy":
        fd = np.empty(len(x))
        for i in range(len(x)):
            plus, minus = design[axis].copy(), design[axis].copy()
            plus[i] += step
            minus[i] -= step
            fd[i] = (reference.electrostatics(**{**design, axis: plus})["energy"]
                     - reference.electrostatics(**{**design, axis: minus})["energy"]) / (2 * step)
        scale, cosine = _scale_and_cosine(ref["g" + axis], (bx * bx * by / 2) * fd)
        assert cosine > 0.9 and 0.8 < scale < 1.2, (axis, cosine, scale)
