"""efield.fft against scipy.fft: every supported type (2, 3) x norm x axis/axes x dtype, on odd,
even, prime and 1xN shapes, for every array kind and device this machine has (CUDA ones on the
GPU machine: EFIELD_REQUIRE_CUDA=1 makes their absence an error); and scipy.fft's arguments that
efield does not support, which must raise clearly.

Tolerance (python/efield/fft.py, python/README.md): max |efield - scipy| <= tol * max |scipy|,
tol = 1e-12 in float64 and 2e-6 in float32 (SciPy in float64 on the same float32 input). DST-II
and DST-III with norm="ortho" are the orthogonal transforms SciPy documents; older SciPy releases
(1.10, Debian 12's, among them) rescale index 0 instead of N-1, which is not orthogonal, so where
the installed SciPy does, the reference is its orthogonalize=False result with index N-1 rescaled."""

import math
import warnings

import numpy as np
import pytest
import scipy.fft as sf

import efield
from arrays import KIND_IDS, KINDS, host, make, same_kind_and_device
from conftest import torch

TOL = {"float32": 2e-6, "float64": 1e-12}
NORMS = [None, "backward", "ortho", "forward"]
TYPES = [2, 3]
ONE_D = ["dct", "idct", "dst", "idst"]
N_D = ["dctn", "idctn", "dstn", "idstn"]

# (shape, axis) of the 1D functions: odd, even, prime, 1, 1xN, and axes that are not the last.
SHAPES_1D = [((1,), -1), ((2,), -1), ((7,), 0), ((8,), -1), ((13,), -1), ((1, 9), -1), ((9, 1), -1), ((9, 1), 0),
             ((3, 8, 5), -1), ((3, 8, 5), 1), ((3, 8, 5), 0), ((4, 6), -2)]
# (shape, axes) of the n-dimensional ones; None is every axis (four at once for the 4D shape).
SHAPES_ND = [((1, 9), None), ((7, 5), None), ((8, 6), (0,)), ((13, 11), (-1,)), ((1, 1), None), ((17, 3), (1, 0)),
             ((3, 5, 4), None), ((3, 5, 4), (0, 2)), ((3, 5, 4), (1, 2)), ((2, 7, 5), (-2, -1)),
             ((2, 3, 4, 5), None), ((2, 3, 4, 5), (0, 1, 3)), ((2, 1, 7, 3), (1, 2, 3))]


def _dst_ortho_is_orthogonal():
    m = sf.dst(np.eye(4), type=2, norm="ortho", axis=0)
    return np.allclose(m @ m.T, np.eye(4))

SCIPY_DST_ORTHO_OK = _dst_ortho_is_orthogonal()

def _orthogonal_dst_1d(x, type, axis):
    """The orthogonal DST-II/III along one axis, from scipy's unmodified ortho scaling."""
    n = x.shape[axis]
    last = [slice(None)] * x.ndim
    last[axis] = n - 1
    last = tuple(last)
    if type == 2:
        y = sf.dst(x, type=2, norm="ortho", orthogonalize=False, axis=axis)
        y[last] /= math.sqrt(2)
        return y
    z = np.array(x, dtype=np.float64)
    z[last] *= math.sqrt(2)
    return sf.dst(z, type=3, norm="ortho", orthogonalize=False, axis=axis)

def scipy_reference(name, x, type, norm, axes):
    """scipy.fft's result; for DST-II/III with norm='ortho' the orthogonal transform where the
    installed SciPy rescales the wrong index."""
    one_d = name in ("dct", "idct", "dst", "idst")
    kw = dict(type=type, norm=norm)
    kw.update({"axis": axes} if one_d else {"axes": axes})
    if "dst" not in name or norm != "ortho" or SCIPY_DST_ORTHO_OK:
        return getattr(sf, name)(x, **kw)
    t = type if not name.startswith("i") else 5 - type
    axes_list = [axes] if one_d else (range(x.ndim) if axes is None else axes)
    y = np.asarray(x, dtype=np.float64)
    for a in axes_list:
        y = _orthogonal_dst_1d(y, t, a)
    return y


def _error(result, expected):
    return np.max(np.abs(host(result) - expected)) / max(np.max(np.abs(expected)), 1e-300)


def _check(kind, device, dtype, name, x, **kwargs):
    axes = kwargs.get("axis", kwargs.get("axes"))
    expected = scipy_reference(name, x.astype(np.float64), kwargs["type"], kwargs["norm"], axes)
    arr = make(kind, device, x)
    result = getattr(efield.fft, name)(arr, **kwargs)
    same_kind_and_device(result, kind, device)
    assert str(result.dtype).endswith(dtype), (name, kwargs, result.dtype)
    assert tuple(result.shape) == x.shape
    error = _error(result, expected)
    assert error <= TOL[dtype], (name, x.shape, kwargs, error)
    assert np.array_equal(host(arr), x.astype(np.float64)), f"{name} {kwargs} modified its input"


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ONE_D + N_D)
def test_against_scipy(kind, device, dtype, name, rng):
    one_d = name in ONE_D
    for shape, axes in SHAPES_1D if one_d else SHAPES_ND:
        x = rng.standard_normal(shape).astype(dtype)
        for type in TYPES:
            for norm in NORMS:
                _check(kind, device, dtype, name, x, type=type, norm=norm, **{"axis" if one_d else "axes": axes})


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_inverses_round_trip(kind, device, rng):
    x = rng.standard_normal((6, 7))
    for forward, inverse in (("dctn", "idctn"), ("dstn", "idstn")):
        for type in TYPES:
            for norm in NORMS:
                f, i = getattr(efield.fft, forward), getattr(efield.fft, inverse)
                y = i(f(make(kind, device, x), type=type, norm=norm), type=type, norm=norm)
                assert np.allclose(host(y), x, atol=1e-12), (forward, type, norm)


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_trailing_dct_is_efields_transform(kind, device, rng):
    """The zero-copy path: the backward DCT-III of the trailing axes is efield's idct2 itself, and
    the DCT-II is efield's dct2 times 4."""
    x = rng.standard_normal((3, 8, 6))
    a = make(kind, device, x)
    assert np.array_equal(host(efield.fft.dctn(a, type=3, axes=(-2, -1))), host(efield.idct2(a)))
    assert np.allclose(host(efield.fft.dctn(a, axes=(1, 2))), 4 * host(efield.dct2(a)), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind,device", KINDS, ids=KIND_IDS)
def test_overwrite_x_and_strided_input(kind, device, rng):
    x = rng.standard_normal((5, 12))
    for name in ("dct", "idct", "dst", "idst"):
        for type in TYPES:
            for norm in NORMS:
                expected = scipy_reference(name, x, type, norm, -1)
                a = make(kind, device, x)
                result = getattr(efield.fft, name)(a, type=type, norm=norm, overwrite_x=True)
                assert _error(result, expected) <= TOL["float64"], (name, type, norm)
    strided = make(kind, device, x)[:, ::2]
    expected = sf.dctn(x[:, ::2], type=2, norm="ortho")
    assert _error(efield.fft.dctn(strided, norm="ortho"), expected) <= TOL["float64"]


def test_workers_and_conversions(rng):
    x = rng.standard_normal((9, 10))
    expected = sf.dctn(x, type=2)
    for workers in (None, 1, 2, -1):
        assert _error(efield.fft.dctn(x, workers=workers), expected) <= TOL["float64"]
    ints = np.arange(12).reshape(3, 4)
    result = efield.fft.dct(ints)
    assert result.dtype == np.float64 and np.allclose(result, sf.dct(ints))
    half = x.astype(np.float16)
    result = efield.fft.dst(half, type=3)
    assert result.dtype == np.float32 and _error(result, sf.dst(half.astype(np.float64), type=3)) <= 1e-5
    assert np.allclose(efield.fft.idct([1.0, 2.0, 3.0]), sf.idct([1.0, 2.0, 3.0]))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_torch_tensor_that_requires_grad(rng):
    x = torch.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    before = x.detach().clone()
    result = efield.fft.dctn(x, type=3, norm="ortho", overwrite_x=True)
    assert not result.requires_grad
    assert torch.equal(x.detach(), before), "overwrite_x must not write into a tensor that requires grad"
    assert _error(result, sf.dctn(before.numpy(), type=3, norm="ortho")) <= TOL["float64"]


def test_bad_arguments():
    x = np.zeros((4, 8))
    with pytest.raises(ValueError, match="invalid type 5"):
        efield.fft.dct(x, type=5)
    for type in (1, 4):
        with pytest.raises(NotImplementedError, match=f"type {type} is not computed by efield"):
            efield.fft.dstn(x, type=type)
    with pytest.raises(ValueError, match="n=8.*must be None"):
        efield.fft.dct(x, n=8)
    with pytest.raises(ValueError, match=r"s=\(4, 8\).*must be None"):
        efield.fft.idctn(x, s=(4, 8))
    with pytest.raises(ValueError, match="axis 2 is out of range for an array of 2 dimension"):
        efield.fft.dst(x, axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of range"):
        efield.fft.dctn(x, axes=(-3, 1))
    with pytest.raises(ValueError, match="axes must be unique"):
        efield.fft.dctn(x, axes=(1, -1))
    with pytest.raises(ValueError, match="invalid norm 'unitary'"):
        efield.fft.dct(x, norm="unitary")
    with pytest.raises(TypeError, match="complex dtype complex128"):
        efield.fft.idst(x.astype(np.complex128))
    with pytest.raises(TypeError, match="float32 or float64"):
        efield.fft.dct(x.astype(np.longdouble)) if np.dtype(np.longdouble).itemsize > 8 else efield.fft.dct(
            np.array(["a"]))
    with pytest.raises(ValueError, match="workers must not be 0"):
        efield.fft.dct(x, workers=0)
    with pytest.raises(NotImplementedError, match="orthogonalize=False"):
        efield.fft.dct(x, norm="ortho", orthogonalize=False)
    with pytest.raises(ValueError, match="axis 0 of x has length 0"):
        efield.fft.dct(np.zeros((0, 3)), axis=0)
    assert efield.fft.dct(np.zeros((0, 3))).shape == (0, 3)  # an empty batch is fine
    if torch is not None:
        with pytest.raises(TypeError, match="complex dtype"):
            efield.fft.dct(torch.zeros(4, dtype=torch.complex64))


def test_3d_names_and_deprecated_aliases(rng):
    x = rng.standard_normal((3, 4, 5))
    assert np.allclose(efield.dct2_3d(x), sf.dctn(x, type=2) / 8, rtol=0, atol=1e-12)
    assert np.allclose(efield.idct2_3d(x), sf.dctn(x, type=3), rtol=0, atol=1e-12)
    efield.transforms._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = efield.dct3(x)
        efield.dct3(x)
        efield.idct3(x)
        plan = efield.Plan3D("idct3", 3, 4, 5, dtype="float64")
    names = [str(w.message).split("'")[1] for w in caught if issubclass(w.category, DeprecationWarning)]
    assert names == ["dct3", "idct3"], "each deprecated name warns once"
    assert np.array_equal(y, efield.dct2_3d(x))
    assert plan.kind == "idct2_3d"
