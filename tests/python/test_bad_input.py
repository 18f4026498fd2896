"""Bad input raises a Python exception that names the problem (dtype, device, length, layout,
kind of object), never a crash."""

import numpy as np
import pytest

import efield
import reference
from conftest import requires_cuda, requires_torch, torch


def small_system(device="cpu", dtype="float64"):
    d = reference.random_design(np.random.default_rng(1))
    xl, yl, xh, yh = d["region"]
    es = efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=16,
                                    num_bins_y=12, target_density=0.8, dtype=dtype, device=device)
    return es, d


def test_transforms():
    with pytest.raises(TypeError, match="int64"):
        efield.dct2(np.zeros((4, 4), dtype=np.int64))
    with pytest.raises(TypeError, match="float16"):
        efield.dct(np.zeros(8, dtype=np.float16))
    with pytest.raises(ValueError, match="not contiguous"):
        efield.dct2(np.zeros((6, 8))[:, ::2])
    with pytest.raises(TypeError, match="must be an array"):
        efield.dct2(object())
    with pytest.raises(ValueError, match="at least 2 dimension"):
        efield.idct2(np.zeros(5))
    with pytest.raises(ValueError, match="read-only"):
        x = np.zeros((3, 3))
        out = np.zeros((3, 3))
        out.setflags(write=False)
        efield.dct2(x, out=out)
    with pytest.raises(ValueError, match="out has shape"):
        efield.dct2(np.zeros((3, 4)), out=np.zeros((4, 3)))
    with pytest.raises(TypeError, match="out has dtype float32"):
        efield.dct2(np.zeros((3, 4)), out=np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="kind must be one of"):
        efield.Plan2D("dct", 4, 4)
    with pytest.raises(ValueError, match="rows must be in"):
        efield.Plan2D("dct2", 0, 4)
    with pytest.raises(ValueError, match="device must be"):
        efield.Plan2D("dct2", 4, 4, device="tpu")


@requires_torch
def test_transforms_torch():
    with pytest.raises(ValueError, match="not contiguous"):
        efield.dct2(torch.zeros(8, 6).t())
    with pytest.raises(TypeError, match="int32"):
        efield.dct(torch.zeros(8, dtype=torch.int32))
    t = torch.zeros(4, 4, dtype=torch.float64, requires_grad=True)
    assert efield.dct2(t).shape == (4, 4)  # tensors that require grad are read without their history


def test_system():
    es, d = small_system()
    x, y = d["x"], d["y"]
    with pytest.raises(TypeError, match="float32"):
        es.evaluate(x.astype(np.float32), y)
    with pytest.raises(TypeError, match="y has dtype float32"):
        es.evaluate(x, y.astype(np.float32))
    with pytest.raises(ValueError, match="has 79 entries; the system needs 80"):
        es.evaluate(x[:79], y[:79])
    with pytest.raises(ValueError, match="not contiguous"):
        es.evaluate(np.repeat(x, 2)[::2], y)
    with pytest.raises(ValueError, match="one-dimensional"):
        es.evaluate(x.reshape(8, 10), y)
    bad = x.copy()
    bad[3] = np.nan
    with pytest.raises(efield.Error, match="non-finite|NaN|finite"):
        es.evaluate(bad, y)
    with pytest.raises(efield.Error, match="target_density"):
        efield.ElectrostaticSystem(d["movable"], xl=0, yl=0, xh=1, yh=1, num_bins_x=4, num_bins_y=4,
                                   target_density=1.5)
    with pytest.raises(efield.Error, match="region"):
        efield.ElectrostaticSystem(d["movable"], xl=0, yl=0, xh=0, yh=1, num_bins_x=4, num_bins_y=4)
    with pytest.raises(efield.Error, match="movable cell 0"):
        efield.ElectrostaticSystem(([0.0], [1.0]), xl=0, yl=0, xh=1, yh=1, num_bins_x=4, num_bins_y=4)
    with pytest.raises(ValueError, match="fixed must be"):
        es.update_fixed_cells(([1.0], [1.0]))
    assert issubclass(efield.Error, ValueError)


@requires_torch
def test_op():
    from efield.torch import ElectricPotential

    w = np.full(10, 2.0)
    op = ElectricPotential(w, w, 0, 0, 20, 20, 8, 8, num_movable_nodes=8, num_terminals=2, target_density=0.9)
    with pytest.raises(ValueError, match="2 \\* num_nodes = 20"):
        op(torch.zeros(19, dtype=torch.float64))
    with pytest.raises(TypeError, match="int64"):
        op(torch.zeros(20, dtype=torch.int64))
    with pytest.raises(TypeError, match="torch.Tensor"):
        op(np.zeros(20))
    with pytest.raises(ValueError, match="not contiguous"):
        op(torch.zeros(40, dtype=torch.float64)[::2])
    pos = torch.rand(20, dtype=torch.float64) * 10
    op(pos)
    with pytest.raises(TypeError, match="made for torch.float64"):
        op(pos.float())  # after the build: the compiled op refuses it, the op names why
    with pytest.raises(ValueError, match="on meta"):
        op(torch.zeros(20, dtype=torch.float64, device="meta"))
    with pytest.raises(ValueError, match="exceed the 10 nodes"):
        ElectricPotential(w, w, 0, 0, 20, 20, 8, 8, num_movable_nodes=8, num_terminals=2, num_filler_nodes=1)
    with pytest.raises(ValueError, match="node_size_y"):
        ElectricPotential(w, w[:9], 0, 0, 20, 20, 8, 8, num_movable_nodes=8)
    with pytest.raises(TypeError, match="num_bins_x"):
        ElectricPotential(w, w, 0, 0, 20, 20, num_movable_nodes=8)


@requires_cuda
def test_wrong_device():
    es, d = small_system("cpu")
    with pytest.raises(ValueError, match="cuda:0 but the system is on cpu"):
        es.evaluate(torch.tensor(d["x"], device="cuda"), torch.tensor(d["y"], device="cuda"))
    es_cuda, _ = small_system("cuda")
    with pytest.raises(ValueError, match="cpu but the system is on cuda"):
        es_cuda.evaluate(d["x"], d["y"])
    with pytest.raises(ValueError, match="x is on cpu but must be on cuda"):
        efield.Plan2D("dct2", 4, 4, dtype="float64", device="cuda")(np.zeros((4, 4)))
    from efield.torch import ElectricPotential

    w = np.full(10, 2.0)
    op = ElectricPotential(w, w, 0, 0, 20, 20, 8, 8, num_movable_nodes=10, target_density=0.9)
    op(torch.rand(20, dtype=torch.float64, device="cuda"))
    with pytest.raises(ValueError, match="made for cuda"):
        op(torch.rand(20, dtype=torch.float64))


@pytest.mark.skipif(efield.cuda_device_count() > 0, reason="a CUDA device is present")
def test_cuda_device_where_there_is_none():
    """A build without CUDA, or with CUDA on a machine without a device (CI): an error, no crash."""
    with pytest.raises(efield.Error, match="CUDA"):
        efield.Plan2D("dct2", 4, 4, device="cuda:0")
    with pytest.raises(efield.Error, match="CUDA"):
        efield.ElectrostaticSystem(([1.0], [1.0]), xl=0, yl=0, xh=4, yh=4, num_bins_x=2, num_bins_y=2,
                                   device="cuda:0")
