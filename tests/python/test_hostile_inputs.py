"""Inputs a careless or hostile caller passes (issue 40): each gets a Python exception naming the
input and the problem, or the right result; none crashes the interpreter or silently gives a wrong
answer."""

import threading

import numpy as np
import pytest

import efield
import reference
from conftest import requires_torch, torch


def small_system(**options):
    d = reference.random_design(np.random.default_rng(1))
    xl, yl, xh, yh = d["region"]
    kw = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=16, num_bins_y=12, target_density=0.8, dtype="float64")
    kw.update(options)
    return efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], **kw), d


# 1. An empty batch is empty in, empty out (as scipy.fft); a held plan takes it too.
@pytest.mark.parametrize("kind, core", [("dct", (4,)), ("idxst", (4,)), ("dct2", (4, 4)), ("idct_idxst", (4, 4)),
                                        ("dct3", (2, 3, 4)), ("idct3", (2, 3, 4))])
def test_empty_batch_gives_an_empty_result(kind, core):
    for lead in [(0,), (3, 0)]:
        x = np.zeros(lead + core, np.float32)
        y = getattr(efield, kind)(x)
        assert y.shape == x.shape and y.dtype == x.dtype


def test_empty_batch_on_a_held_plan():
    plan = efield.Plan2D("dct2", 4, 4)
    assert plan(np.zeros((0, 4, 4), np.float32)).shape == (0, 4, 4)
    with pytest.raises(ValueError, match="length >= 1"):
        efield.dct2(np.zeros((3, 0), np.float32))


@requires_torch
def test_empty_batch_of_torch_tensors():
    assert efield.dct2(torch.zeros((0, 4, 4))).shape == (0, 4, 4)
    assert efield.idct(torch.zeros((0, 8), dtype=torch.float64)).shape == (0, 8)


# 2. cpu_threads has an upper bound.
def test_cpu_threads_upper_bound():
    with pytest.raises(efield.Error, match="cpu_threads 100000 is outside"):
        efield.Plan2D("dct2", 64, 64, cpu_threads=100000)
    with pytest.raises(efield.Error, match="cpu_threads 5000 is outside"):
        small_system(cpu_threads=5000)
    with pytest.raises(efield.Error, match="cpu_threads -1 is outside"):
        efield.Plan1D("dct", 8, cpu_threads=-1)
    with pytest.raises(ValueError, match="rows must be an integer"):
        efield.Plan2D("dct2", 16.9, 16)
    with pytest.raises(TypeError, match="cols must be an integer"):
        efield.Plan2D("dct2", 16, True)


# 4, 7. weight past float's range; the same array as grad_x and grad_y; GradientScale names.
def test_weight_beyond_float_and_aliased_gradients():
    es, d = small_system(dtype="float32")
    n = es.required_length
    x = np.full(n, 5.0, np.float32)
    y = np.full(n, 5.0, np.float32)
    with pytest.raises(efield.Error, match="weight 1e\\+39 is beyond the range of float"):
        es.evaluate(x, y, weight=1e39)
    g = np.zeros(n, np.float32)
    with pytest.raises(efield.Error, match="grad_x and grad_y share memory"):
        es.evaluate(x, y, grad_x=g, grad_y=g)
    with pytest.raises(TypeError, match="weight must be a real number"):
        es.evaluate(x, y, weight=1 + 2j)
    with pytest.raises(ValueError, match="gradient_scale"):
        small_system(gradient_scale="seven")


# 8. silent conversions.
def test_sizes_that_are_not_real_vectors_raise():
    d = reference.random_design(np.random.default_rng(1))
    xl, yl, xh, yh = d["region"]
    w, h = d["movable"]
    kw = dict(xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=16, num_bins_y=12)
    with pytest.raises(TypeError, match="movable widths must hold real numbers .*complex"):
        efield.ElectrostaticSystem((np.asarray(w) + 0j, h), **kw)
    with pytest.raises(TypeError, match="must hold real numbers .*bool"):
        efield.ElectrostaticSystem((np.ones(len(w), bool), h), **kw)
    with pytest.raises(ValueError, match="one-dimensional .*shape"):
        efield.ElectrostaticSystem((np.asarray(w).reshape(1, -1), h), **kw)
    for bad, error in [(16.9, ValueError), (True, TypeError), (float("nan"), ValueError), (3 + 0j, TypeError)]:
        with pytest.raises(error, match="num_bins_x must be an integer"):
            efield.ElectrostaticSystem((w, h), **{**kw, "num_bins_x": bad})
    assert efield.ElectrostaticSystem((w, h), **{**kw, "num_bins_x": 16.0}).num_bins_x == 16


def test_devices_that_do_not_exist_raise():
    with pytest.raises(ValueError, match="device must be -1"):
        small_system(device=-5)
    with pytest.raises(ValueError, match="device must be"):
        small_system(device=True)
    with pytest.raises(ValueError, match="cuda:x"):
        small_system(device="cuda:x")
    if efield.cuda_device_count() == 0:
        with pytest.raises(ValueError, match="device cuda:0 is not available") as e:
            small_system(device="cuda:0")
        assert "/work/" not in str(e.value) and ".cu:" not in str(e.value)


# 9. unclear errors made clear.
def test_update_fixed_cells_none_removes_them():
    es, d = small_system()
    assert es.num_fixed > 0
    es.update_fixed_cells(None)
    assert es.num_fixed == 0
    assert not es.fixed_map().any()


# 12. the size check comes before the output is allocated.
def test_size_check_before_allocation():
    big = np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), shape=(46341, 46341), strides=(0, 0))
    with pytest.raises(efield.Error, match="2\\^31-1"):
        efield.dct2(big)


# 6. views whose memory does not hold their values.
@requires_torch
def test_negative_views_are_materialised_and_refused_as_outputs():
    x = torch.randn(6, 8, dtype=torch.float64)
    neg = torch._neg_view(x)
    assert neg.is_neg()
    np.testing.assert_allclose(efield.dct2(neg).numpy(), efield.dct2(-x).numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="negative or conjugate bit"):
        efield.dct2(x, out=torch._neg_view(torch.zeros(6, 8, dtype=torch.float64)))


@requires_torch
def test_sparse_and_meta_tensors_are_refused():
    with pytest.raises(ValueError, match="dense"):
        efield.dct2(torch.zeros(4, 4).to_sparse())
    with pytest.raises(ValueError, match="meta"):
        efield.dct2(torch.zeros(4, 4, device="meta"))


def _op_inputs(n=40, terminals=4):
    rng = np.random.default_rng(3)
    size_x = rng.uniform(1, 3, n)
    size_y = rng.uniform(1, 3, n)
    pos = torch.tensor(np.concatenate([rng.uniform(0, 60, n), rng.uniform(0, 50, n)]), dtype=torch.float64)
    kw = dict(xl=0, yl=0, xh=64, yh=64, num_bins_x=16, num_bins_y=16, num_movable_nodes=n - terminals,
              num_terminals=terminals, cpu_threads=1)
    return size_x, size_y, pos, kw


@requires_torch
def test_op_rejects_silent_conversions():
    from efield.torch import ElectricPotential

    sx, sy, pos, kw = _op_inputs()
    with pytest.raises(ValueError, match="num_movable_nodes must be an integer"):
        ElectricPotential(sx, sy, **{**kw, "num_movable_nodes": 35.9})
    with pytest.raises(ValueError, match="bin_size_x must be > 0"):
        ElectricPotential(sx, sy, **{**kw, "num_bins_x": None, "bin_size_x": 0})
    with pytest.raises(ValueError, match="bin_size_y must be finite"):
        ElectricPotential(sx, sy, **{**kw, "num_bins_y": None, "bin_size_y": float("nan")})
    bad = sx.copy()
    bad[37] = float("nan")
    with pytest.raises(ValueError, match="terminal 1 \\(node 37\\) has size nan"):
        ElectricPotential(bad, sy, **kw, pos=pos)
    bad[37] = -2
    with pytest.raises(ValueError, match="terminal 1 \\(node 37\\) has size -2"):
        ElectricPotential(bad, sy, **kw, pos=pos)
    op = ElectricPotential(sx, sy, **kw, pos=pos)
    with pytest.raises(ValueError, match="one-dimensional"):
        op(pos.reshape(2, -1).clone().requires_grad_())
    with pytest.raises(ValueError, match="meta"):
        op(torch.empty_like(pos, device="meta"))
    with pytest.raises(ValueError, match="dense"):
        op(pos.to_sparse())


@requires_torch
def test_op_takes_a_negative_view():
    from efield.torch import ElectricPotential

    sx, sy, pos, kw = _op_inputs()
    op = ElectricPotential(sx, sy, **kw, pos=pos)
    a = (-pos).clone().requires_grad_()
    ref = op(-a.detach())  # the values a negative view of `a` holds
    view = torch._neg_view(a)
    assert op(view).item() == ref.item()


@requires_torch
@pytest.mark.parametrize("compiled", [False, True], ids=["python_path", "compiled_op"])
def test_op_used_from_two_threads_never_returns_another_threads_gradient(compiled, monkeypatch):
    from efield.torch import ElectricPotential, _compiled_op

    if compiled and not _compiled_op.AVAILABLE:
        pytest.skip("the compiled op (efield._torch_ops) is not built")
    monkeypatch.setattr(ElectricPotential, "use_compiled_op", compiled)
    sx, sy, pos, kw = _op_inputs()
    op = ElectricPotential(sx, sy, **kw, pos=pos)
    assert op.compiled == compiled
    positions = [pos + 0.37 * k for k in range(2)]
    expected = []
    for p in positions:
        q = p.clone().requires_grad_()
        op(q).backward()
        expected.append(q.grad.clone())
    wrong, raised = [], []

    def work(k):
        for _ in range(100):
            q = positions[k].clone().requires_grad_()
            try:
                op(q).backward()
            except RuntimeError as e:
                assert "older forward" in str(e)
                raised.append(k)
                continue
            if not torch.equal(q.grad, expected[k]):
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
