"""ElectrostaticSystem.evaluate's fast path for NumPy arrays on a CPU system (the binding's
evaluate_numpy: the arrays' own fields, no array protocol): the same results as the checked
path, and arrays that do not fit fall to the checked path, which names the problem."""

import numpy as np
import pytest

import reference
from test_system import make_system


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fast_path_matches_the_checked_path(rng, dtype):
    d = reference.random_design(rng)
    es = make_system(d, dtype, "cpu")
    x, y = d["x"].astype(dtype), d["y"].astype(dtype)
    gx, gy = np.zeros_like(x), np.zeros_like(y)
    assert es._system.evaluate_numpy(x, y, gx, gy, 1.0, False) is not None
    r = es.evaluate(x, y, gx, gy, weight=2.0)
    checked = es.evaluate(x, y)  # no gradient arrays: the checked path allocates them
    assert r.energy == checked.energy and r.overflow == checked.overflow
    assert r.max_density == checked.max_density and r.grad_x is gx and r.grad_y is gy
    assert np.array_equal(gx, 2.0 * checked.grad_x) and np.array_equal(gy, 2.0 * checked.grad_y)
    es.evaluate(x, y, gx, gy, accumulate=True)
    assert np.allclose(gx, 3.0 * checked.grad_x, rtol=1e-6, atol=0)


def test_arrays_that_do_not_fit_take_the_checked_path(rng):
    d = reference.random_design(rng)
    es = make_system(d, "float64", "cpu")
    x, y = d["x"], d["y"]
    gx, gy = np.zeros_like(x), np.zeros_like(y)
    fast = es._system.evaluate_numpy
    assert fast(x, y, gx.astype(np.float32), gy, 1.0, False) is None
    with pytest.raises(TypeError, match="grad_x has dtype float32"):
        es.evaluate(x, y, gx.astype(np.float32), gy)
    wide = np.zeros(2 * len(x))
    assert fast(x, y, wide[::2], gy, 1.0, False) is None
    with pytest.raises(ValueError, match="not contiguous"):
        es.evaluate(x, y, wide[::2], gy)
    assert fast(x[:-1], y, gx, gy, 1.0, False) is None
    with pytest.raises(ValueError, match="the system needs"):
        es.evaluate(x[:-1], y, gx, gy)
    frozen = np.zeros_like(x)
    frozen.flags.writeable = False
    assert fast(x, y, gx, frozen, 1.0, False) is None
    with pytest.raises(ValueError, match="grad_y"):
        es.evaluate(x, y, gx, frozen)
    assert fast(x.reshape(1, -1), y, gx, gy, 1.0, False) is None
    assert fast(x.astype(">f8"), y, gx, gy, 1.0, False) is None  # not the native byte order
    assert fast(list(x), y, gx, gy, 1.0, False) is None
    readonly_x = x.copy()
    readonly_x.flags.writeable = False  # positions are only read
    assert fast(readonly_x, y, gx, gy, 1.0, False) is not None
