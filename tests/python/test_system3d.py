"""efield.ElectrostaticSystem3D against the float64 dense 3D reference of docs/math.md section 4
(tests/python/reference3d.py) on small random designs: odd, even and prime bin counts per axis,
L = 1, 2, 3, 8; energy, overflow, max density, both gradient scales, the maps; float32 and
float64; every array kind and device this machine has. Finite differences of the energy against
the Exact gradient are reference3d's own tests (test_reference3d.py)."""

import numpy as np
import pytest

import efield
import reference3d
from arrays import KIND_IDS, KINDS, host, make, same_kind_and_device

TOL = {"float32": 2e-4, "float64": 1e-10}
BINS = [(7, 6, 3), (8, 8, 2), (5, 11, 1), (13, 4, 8), (6, 7, 5)]


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


def make_system(d, dtype, device, **options):
    xl, yl, zl, xh, yh, zh = d["region"]
    M, N, L = d["bins"]
    return efield.ElectrostaticSystem3D(d["movable"], d["fillers"], d["fixed"], xl=xl, yl=yl, zl=zl, xh=xh, yh=yh,
                                        zh=zh, num_bins_x=M, num_bins_y=N, num_bins_z=L, target_density=d["td"],
                                        dtype=dtype, device=device, **options)


def reference_of(d):
    return reference3d.electrostatics3d(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                        d["x"], d["y"], d["z"])


@pytest.mark.parametrize("bins", BINS, ids=["x".join(map(str, b)) for b in BINS])
@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", ["dreamplace", "exact"])
def test_matches_reference(bins, kind, device, dtype, scale):
    rng = np.random.default_rng(sum(bins) * 7 + bins[2])
    d = reference3d.random_design3d(rng, bins=bins)
    ref = reference_of(d)
    es = make_system(d, dtype, device, gradient_scale=scale)
    assert (es.num_movable, es.num_fillers, es.num_fixed) == (40, 10, 3)
    assert es.density_map().shape == bins
    x, y, z = (make(kind, device, d[a].astype(dtype)) for a in "xyz")
    r = es.evaluate(x, y, z)
    same_kind_and_device(r.grad_z, kind, device)
    tol = TOL[dtype]
    assert rel(r.energy, ref["energy"]) <= tol
    assert rel(r.overflow, ref["overflow"]) <= tol
    assert rel(r.max_density, ref["max_density"]) <= tol
    vol = sum(np.prod(c) for c in zip(*d["movable"]))
    assert abs(r.movable_volume_outside - ref["movable_volume_outside"]) <= max(tol, 1e-6) * vol
    fvol = sum(np.prod(c) for c in zip(*d["fillers"]))
    assert abs(r.filler_volume_outside - ref["filler_volume_outside"]) <= max(tol, 1e-6) * fvol
    for name, got in (("rho", es.density_map()), ("ex", es.field_x_map()), ("ey", es.field_y_map()),
                      ("phi", es.potential_map())):
        assert rel(got, ref[name]) <= tol, name
    if bins[2] > 1:
        assert rel(es.field_z_map(), ref["ez"]) <= tol
    else:
        assert np.abs(es.field_z_map()).max() <= 1e-6 * np.abs(ref["ex"]).max()
    assert rel(es.fixed_map(), ref["fixed"]) <= 1e-12
    prefix = "exact_" if scale == "exact" else ""
    for axis, g in zip("xyz", (r.grad_x, r.grad_y, r.grad_z)):
        expected = ref[prefix + "g" + axis]
        if np.linalg.norm(expected) == 0:
            assert np.abs(host(g)).max() <= 1e-6
        else:
            assert rel(host(g), expected) <= max(tol, 1e-9 if dtype == "float64" else tol), axis


@pytest.mark.parametrize("device", [d for d in ("cpu", "cuda") if any(dev == d for _, dev in KINDS)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_movable_macros(device, dtype):
    """DREAMPlace's rule (docs/math.md 4.1): with td < 1 a marked movable cell has ratio td."""
    rng = np.random.default_rng(17)
    d = reference3d.random_design3d(rng, bins=(7, 5, 3))
    mask = np.arange(len(d["movable"][0])) % 4 == 0
    ref = reference3d.electrostatics3d(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                       d["x"], d["y"], d["z"], macro_mask=mask)
    es = make_system(d, dtype, device, movable_macro_mask=mask)
    x, y, z = (make("torch" if device == "cuda" else "numpy", device, d[a].astype(dtype)) for a in "xyz")
    r = es.evaluate(x, y, z)
    tol = TOL[dtype]
    assert rel(r.energy, ref["energy"]) <= tol
    assert rel(r.overflow, ref["overflow"]) <= tol
    assert rel(host(r.grad_x), ref["gx"]) <= max(tol, 1e-9)
    assert rel(host(r.grad_z), ref["gz"]) <= max(tol, 1e-9)
    es.update_movable_sizes(d["movable"], movable_macro_mask=np.zeros(len(mask), dtype=bool))
    plain = reference_of(d)
    assert rel(es.evaluate(x, y, z).energy, plain["energy"]) <= tol
    with pytest.raises(ValueError, match="movable_macro_mask"):
        es.update_movable_sizes(d["movable"], movable_macro_mask=mask[:-1].tolist() + [True, True])


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_weight_accumulate_and_reruns(kind, device):
    rng = np.random.default_rng(3)
    d = reference3d.random_design3d(rng, bins=(6, 5, 4))
    es = make_system(d, "float32", device)
    x, y, z = (make(kind, device, d[a].astype("float32")) for a in "xyz")
    a = es.evaluate(x, y, z)
    b = es.evaluate(x, y, z)
    assert a.energy == b.energy
    np.testing.assert_array_equal(host(a.grad_x), host(b.grad_x))
    gx, gy, gz = (make(kind, device, np.ones(len(d["x"]), dtype="float32")) for _ in range(3))
    es.evaluate(x, y, z, gx, gy, gz, weight=0.5, accumulate=True)
    np.testing.assert_allclose(host(gz), 1 + 0.5 * host(a.grad_z), rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="accumulate"):
        es.evaluate(x, y, z, accumulate=True)


def test_updates_and_fillers():
    rng = np.random.default_rng(4)
    d = reference3d.random_design3d(rng, bins=(5, 6, 3))
    es = make_system(d, "float64", "cpu")
    mw, mh, md = d["movable"]
    es.update_movable_sizes((mw, mh, 0.8 * md))
    es.update_fixed_cells(None)
    assert es.num_fixed == 0
    d2 = {**d, "movable": (mw, mh, 0.8 * md), "fixed": tuple(np.zeros(0) for _ in range(6))}
    ref = reference_of(d2)
    r = es.evaluate(d["x"], d["y"], d["z"])
    assert rel(r.energy, ref["energy"]) <= 1e-10
    xl, yl, zl, xh, yh, zh = d["region"]
    few = tuple(a[:10] for a in d["movable"])  # room left for fillers
    w, h, dep, count, total = efield.make_fillers_3d(few, d["fixed"], xl, yl, zl, xh, yh, zh, 0.8, depth=2.0)
    fw, fh, fd = reference3d.make_fillers3d(d["region"], 0.8, few, d["fixed"], height=None, depth=2.0)
    assert count == len(fw) > 0
    assert (w, h, dep) == (pytest.approx(fw[0]), pytest.approx(fh[0]), 2.0)
    assert total == pytest.approx(count * w * h * dep, rel=0.5 / count + 1e-12)


def test_bad_input():
    rng = np.random.default_rng(5)
    d = reference3d.random_design3d(rng, bins=(4, 4, 2))
    mw, mh, md = d["movable"]
    bad = md.copy()
    bad[2] = 0.0
    with pytest.raises(efield.Error, match="movable cell 2"):
        make_system({**d, "movable": (mw, mh, bad)}, "float32", "cpu")
    deep = md.copy()
    deep[1] = 100.0
    with pytest.raises(efield.Error, match="deeper than the region"):
        make_system({**d, "movable": (mw, mh, deep)}, "float32", "cpu")
    with pytest.raises(efield.Error, match="differ in count"):
        make_system({**d, "movable": (mw, mh, md[:-1])}, "float32", "cpu")
    with pytest.raises(ValueError, match="widths, heights, depths"):
        make_system({**d, "movable": (mw, mh)}, "float32", "cpu")
    with pytest.raises(ValueError, match="num_bins_z"):
        make_system({**d, "bins": (4, 4, 0)}, "float32", "cpu")
    es = make_system(d, "float32", "cpu")
    with pytest.raises(TypeError, match="dtype"):
        es.evaluate(d["x"], d["y"], d["z"])  # float64 arrays for a float32 system
    with pytest.raises(ValueError, match="entries"):
        es.evaluate(*(d[a][:10].astype("float32") for a in "xyz"))


RERUN = """
import hashlib, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import reference3d
from test_system3d import make_system
d = reference3d.random_design3d(np.random.default_rng(5), num_movable=400, num_fillers=100, bins=(32, 48, 8))
r = make_system(d, "float64", "cpu", cpu_threads=1).evaluate(d["x"], d["y"], d["z"])
h = hashlib.sha256()
for a in (r.grad_x, r.grad_y, r.grad_z, np.float64(r.energy)):
    h.update(np.ascontiguousarray(a).tobytes())
print(h.hexdigest())
"""


def test_bitwise_across_processes():
    """The CPU system's FFTW plans do not depend on timings (PlanOptions::reproducible): two
    processes give the same bits."""
    import os
    import pathlib
    import subprocess
    import sys

    here = str(pathlib.Path(__file__).resolve().parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    runs = [subprocess.run([sys.executable, "-c", RERUN, here], capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
