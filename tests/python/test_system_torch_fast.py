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


def _compiled_available():
    from efield import _compiled_op

    return _compiled_op.AVAILABLE


def test_tensors_read_in_cpp_where_the_compiled_op_is_built(device, rng):
    """From the call after the first that fits, tensors are read in C++ (efield._torch_ops
    .evaluate_tensors, where built): the same results, bit for bit, as the Python checks' path, on
    PyTorch's current stream."""
    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    x, y = torch.tensor(d["x"], device=device), torch.tensor(d["y"], device=device)
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    assert es._tensor_call is None
    first = es.evaluate(x, y, gx, gy, weight=0.5)
    assert bool(es._tensor_call) == _compiled_available()
    want_x, want_y = gx.clone(), gy.clone()
    stream = torch.cuda.Stream() if device == "cuda" else None
    if stream is not None:  # the positions written on another stream, the evaluate ordered after them
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            x2 = x.clone()
            gx.fill_(7.0)
            r = es.evaluate(x2, y, gx, gy, weight=0.5)
        torch.cuda.current_stream().wait_stream(stream)
    else:
        r = es.evaluate(x, y, gx, gy, weight=0.5)
    assert (r.energy, r.overflow, r.max_density) == (first.energy, first.overflow, first.max_density)
    assert torch.equal(gx, want_x) and torch.equal(gy, want_y)
    if es._tensor_call:
        raw = es._tensor_call(x, y, gx, gy, 0.5, False)
        assert raw[:3] == (first.energy, first.overflow, first.max_density)


def test_negative_views_are_read_by_value_and_never_written(device, rng):
    """A negative view (x._neg_view(): its memory holds -x, PyTorch applies the sign lazily) is
    read by its values on every path, and refused as a gradient with a message."""
    from efield import _torch_fast

    d = reference.random_design(rng)
    es = make_system(d, "float64", device)
    x, y = torch.tensor(d["x"], device=device), torch.tensor(d["y"], device=device)
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    want = es.evaluate(x, y, gx, gy)
    negated = (-x)._neg_view()
    assert _torch_fast.pointers(es, negated, y, gx, gy) is None
    for _ in range(2):  # the first call and the ones after it (the C++ path, where it is built)
        gx2 = torch.zeros_like(x)
        assert es.evaluate(negated, y, gx2, gy).energy == want.energy
        assert torch.equal(gx2, gx)
        with pytest.raises(ValueError, match="negative or conjugate bit"):
            es.evaluate(x, y, torch.zeros_like(x)._neg_view(), gy)


@pytest.mark.skipif(not torch or not _compiled_available(), reason="efield._torch_ops is not built")
def test_tensors_the_cpp_path_refuses_take_the_python_paths(rng):
    """What the C++ path does not read in place (another dtype, a strided or short tensor, a
    subclass, a negative view, no tensor) it refuses (None); evaluate then raises what the Python
    paths raise, and an evaluate that fails there fails as it does through them."""
    d = reference.random_design(rng)
    es = make_system(d, "float64", "cpu")
    x, y = torch.tensor(d["x"]), torch.tensor(d["y"])
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    es.evaluate(x, y, gx, gy)
    call = es._tensor_call
    assert call
    wide = torch.zeros(2 * len(d["x"]), dtype=torch.float64)
    for args in ((x, y, gx.float(), gy), (x, y, wide[::2], gy), (x[:-1], y, gx, gy), (torch.nn.Parameter(x), y, gx, gy),
                 (x._neg_view(), y, gx, gy), (x.numpy(), y, gx, gy), (x, y, gx, None)):
        assert call(*args, 1.0, False) is None
    with pytest.raises(TypeError, match="grad_x has dtype float32"):
        es.evaluate(x, y, gx.float(), gy)
    with pytest.raises(ValueError, match="not contiguous"):
        es.evaluate(x, y, wide[::2], gy)
    with pytest.raises(ValueError, match="the system needs"):
        es.evaluate(x[:-1].contiguous(), y, gx, gy)
    plain = make_system(d, "float64", "cpu")
    plain._tensor_call = False  # the Python paths only
    errors = []
    for system in (es, plain):
        with pytest.raises(Exception) as e:
            system.evaluate(x, y, gx, gy, weight=float("inf"))
        errors.append((type(e.value), str(e.value)))
    assert errors[0] == errors[1] and "not finite" in errors[0][1]
    with pytest.raises(Exception) as e:
        es.evaluate(x, y, gx, gx)  # the gradients share memory
    assert "share memory" in str(e.value)


@pytest.mark.skipif(not torch or not _compiled_available(), reason="efield._torch_ops is not built")
def test_the_cpp_paths_registration_ends_with_the_system(rng):
    import gc

    from efield import _torch_ops

    d = reference.random_design(rng)
    es = make_system(d, "float64", "cpu")
    x, y = torch.tensor(d["x"]), torch.tensor(d["y"])
    es.evaluate(x, y, torch.zeros_like(x), torch.zeros_like(y))
    handle = es._tensor_call.args[0]
    assert _torch_ops.latest(handle) == -1  # registered (the op's forward never ran on it)
    del es
    gc.collect()
    with pytest.raises(RuntimeError, match="no system is registered"):
        _torch_ops.latest(handle)
