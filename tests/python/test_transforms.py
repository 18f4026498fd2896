"""efield's transforms against scipy.fft on random inputs of odd, even, prime and 1xN sizes, in
float32 and float64, for every array kind and device this machine has.

Tolerances (python/README.md): max |efield - scipy| <= tol * max |scipy| with tol = 1e-12 for
float64 and 2e-6 for float32 (the reference computed in float64 from the same float32 input)."""

import numpy as np
import pytest
import scipy.fft as sf

import efield
import reference
from arrays import KIND_IDS, KINDS, host, make, same_kind_and_device

TOL = {"float32": 2e-6, "float64": 1e-12}


def _shifted(X, axis):
    """[X[1], ..., X[N-1], 0] along `axis`: the input of scipy's DST-III that gives idxst."""
    Z = np.roll(X, -1, axis=axis)
    index = [slice(None)] * X.ndim
    index[axis] = -1
    Z[tuple(index)] = 0
    return Z


def _idxst(X, axis):
    return sf.dst(_shifted(X, axis), type=3, axis=axis)


SCIPY = {
    "dct": lambda x: sf.dct(x, type=2) / 2,
    "idct": lambda X: sf.dct(X, type=3),
    "idxst": lambda X: _idxst(X, -1),
    "dct2": lambda x: sf.dctn(x, type=2, axes=(-2, -1)) / 4,
    "idct2": lambda X: sf.dctn(X, type=3, axes=(-2, -1)),
    "idct_idxst": lambda X: sf.dct(_idxst(X, -1), type=3, axis=-2),
    "idxst_idct": lambda X: _idxst(sf.dct(X, type=3, axis=-1), -2),
    "dct2_3d": lambda x: sf.dctn(x, type=2, axes=(-3, -2, -1)) / 8,
    "idct2_3d": lambda X: sf.dctn(X, type=3, axes=(-3, -2, -1)),
}

SHAPES = {
    1: [(1,), (2,), (7,), (8,), (13,), (64,), (3, 9), (2, 4, 5)],
    2: [(1, 1), (1, 9), (9, 1), (7, 5), (8, 6), (13, 11), (17, 3), (16, 16), (2, 7, 5), (3, 2, 8, 6)],
    3: [(1, 1, 1), (1, 7, 2), (3, 5, 4), (5, 7, 11), (2, 3, 4, 5)],
}
RANK = {"dct": 1, "idct": 1, "idxst": 1, "dct2": 2, "idct2": 2, "idct_idxst": 2, "idxst_idct": 2, "dct2_3d": 3,
        "idct2_3d": 3}

CASES = [(name, shape) for name, rank in RANK.items() for shape in SHAPES[rank]]


def _error(result, expected):
    return np.max(np.abs(host(result) - expected)) / max(np.max(np.abs(expected)), 1e-300)


def test_reference_matches_scipy(rng):
    """The dense references of tests/python/reference.py (used by the system's tests) agree with
    scipy.fft as python/README.md states."""
    for name, rank in RANK.items():
        x = rng.standard_normal((3, 5, 7, 4)[-rank - 1:])
        assert np.allclose(reference.TRANSFORMS[name](x), SCIPY[name](x), rtol=0, atol=1e-12 * np.abs(x).sum()), name


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape", CASES, ids=[f"{n}-{'x'.join(map(str, s))}" for n, s in CASES])
def test_against_scipy(kind, device, dtype, name, shape, rng):
    x = rng.standard_normal(shape).astype(dtype)
    expected = SCIPY[name](x.astype(np.float64))
    arr = make(kind, device, x)
    result = getattr(efield, name)(arr)
    same_kind_and_device(result, kind, device)
    assert tuple(result.shape) == shape
    assert _error(result, expected) <= TOL[dtype]
    assert np.array_equal(host(arr), x.astype(np.float64)), "the input was modified"


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_out_and_in_place(kind, device, rng):
    x = rng.standard_normal((6, 10))
    expected = SCIPY["dct2"](x)
    out = make(kind, device, np.zeros_like(x))
    assert efield.dct2(make(kind, device, x), out=out) is out
    assert _error(out, expected) <= TOL["float64"]
    a = make(kind, device, x)
    efield.dct2(a, out=a)  # in and out may be the same array
    assert _error(a, expected) <= TOL["float64"]


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_round_trips(kind, device, rng):
    x = rng.standard_normal((5, 12))
    a = make(kind, device, x)
    assert np.allclose(host(efield.idct2(efield.dct2(a))), 5 * 12 * x, atol=1e-10)
    assert np.allclose(host(efield.idct(efield.dct(a))), 12 * x, atol=1e-10)


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_explicit_plans(kind, device, rng):
    x = rng.standard_normal((3, 7, 5)).astype(np.float32)
    plan = efield.Plan2D("idct_idxst", 7, 5, dtype="float32", device=device)
    assert plan.shape == (7, 5) and plan.kind == "idct_idxst"
    result = plan(make(kind, device, x))
    same_kind_and_device(result, kind, device)
    assert _error(result, SCIPY["idct_idxst"](x.astype(np.float64))) <= TOL["float32"]

    plan1 = efield.Plan1D("idxst", 5, batch=21, dtype=np.float32, device=device)
    assert _error(plan1(make(kind, device, x)), SCIPY["idxst"](x.astype(np.float64))) <= TOL["float32"]
    with pytest.raises(ValueError, match="batch 21"):
        plan1(make(kind, device, x[:2]))

    plan3 = efield.Plan3D("dct2_3d", 3, 7, 5, dtype="float64", device=device)
    assert _error(plan3(make(kind, device, x.astype(np.float64))), SCIPY["dct2_3d"](x.astype(np.float64))) <= 1e-12
    with pytest.raises(ValueError, match="cannot take x of shape"):
        plan(make(kind, device, np.zeros((7, 6), np.float32)))


def test_plan_cache(rng):
    efield.plan_cache_clear()
    assert efield.plan_cache_size() == 0
    x = rng.standard_normal((4, 6))
    efield.dct2(x)
    efield.dct2(x)
    assert efield.plan_cache_size() == 1  # same kind, shape, dtype, device: one plan
    efield.dct2(x.astype(np.float32))
    efield.idct2(x)
    efield.dct(x)
    assert efield.plan_cache_size() == 4
    old = efield.plan_cache_max_size()
    try:
        efield.plan_cache_max_size(2)
        assert efield.plan_cache_size() == 2
        for n in range(3, 8):
            efield.dct(rng.standard_normal(n))
        assert efield.plan_cache_size() == 2
    finally:
        efield.plan_cache_max_size(old)
    efield.plan_cache_clear()
    assert efield.plan_cache_size() == 0
