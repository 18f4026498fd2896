"""ElectrostaticSystem.evaluate's fast path for PyTorch tensors (efield/_torch_fast.py): the same
results as the checked path on NumPy arrays, and tensors that do not fit (dtype, contiguity,
length) fall to the checked path, which names the problem."""

import numpy as np
import pytest

import reference
from conftest import torch
from test_system import make_system, rel

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_fast_path_matches_the_checked_path(device, rng):
    from efield import _torch_fast

    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    x = torch.tensor(d["x"], device=device, requires_grad=True)  # requires_grad: read through its pointer
    y = torch.tensor(d["y"], device=device)
    gx, gy = torch.zeros_like(y), torch.zeros_like(y)
    assert _torch_fast.pointers(es, x, y, gx, gy) is not None
    r = es.evaluate(x, y, gx, gy, weight=2.0)
    gx_n, gy_n = np.zeros_like(d["x"]), np.zeros_like(d["y"])
    if device == "cpu":
        rn = es.evaluate(d["x"], d["y"], gx_n, gy_n, weight=2.0)
        assert r.energy == rn.energy and r.overflow == rn.overflow
        assert np.array_equal(gx.numpy(), gx_n) and np.array_equal(gy.numpy(), gy_n)
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    assert rel(r.energy, ref["energy"]) <= 1e-10
    assert rel(gx.cpu().numpy(), 2.0 * ref["gx"]) <= 1e-10
    assert r.grad_x is gx


def test_tensors_that_do_not_fit_take_the_checked_path(rng):
    from efield import _torch_fast

    d = reference.random_design(rng)
    es = make_system(d, "float64", "cpu")
    x, y = torch.tensor(d["x"]), torch.tensor(d["y"])
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    assert _torch_fast.pointers(es, x, y, gx.float(), gy) is None
    with pytest.raises(TypeError, match="grad_x has dtype float32"):
        es.evaluate(x, y, gx.float(), gy)
    wide = torch.zeros(2 * len(d["x"]), dtype=torch.float64)
    assert _torch_fast.pointers(es, x, y, wide[::2], gy) is None
    with pytest.raises(ValueError, match="not contiguous"):
        es.evaluate(x, y, wide[::2], gy)
    assert _torch_fast.pointers(es, x[:-1], y, gx, gy) is None
    with pytest.raises(ValueError, match="the system needs"):
        es.evaluate(x[:-1].contiguous(), y, gx, gy)


def test_evaluate_repeated_is_the_evaluate(device, rng):
    """The benchmarks' loop of evaluates in one binding call (bench_ispd/profile_python_overhead.py):
    the blocking evaluate's energy and gradient; asynchronous ones leave their scalars for
    wait_result (CUDA), and a CPU system refuses them."""
    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    x, y = torch.tensor(d["x"], device=device), torch.tensor(d["y"], device=device)
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    r = es.evaluate(x, y, gx, gy)
    hx, hy = torch.zeros_like(x), torch.zeros_like(y)
    stream = torch.cuda.current_stream().cuda_stream if device == "cuda" else 0
    ptrs = (x.data_ptr(), y.data_ptr(), hx.data_ptr(), hy.data_ptr(), stream)
    assert es._system.evaluate_repeated(*ptrs, 3) == r.energy
    assert torch.equal(hx, gx) and torch.equal(hy, gy)
    with pytest.raises(ValueError, match="count must be >= 1"):
        es._system.evaluate_repeated(*ptrs, 0)
    if device == "cpu":
        with pytest.raises(ValueError, match="async needs a CUDA system"):
            es._system.evaluate_repeated(*ptrs, 1, True)
    else:
        hx.zero_()
        assert np.isnan(es._system.evaluate_repeated(*ptrs, 2, True))
        assert es.wait_result().energy == pytest.approx(r.energy, rel=1e-12)
        assert torch.equal(hx, gx)
