"""ElectrostaticSystem(plan_effort=...) and the wisdom functions: the option is accepted and
checked; a measured system gives the bits of the default one; the wisdom saved on a GPU loads
back, and a file from another GPU or a corrupt one is ignored (load_wisdom returns False)."""

import numpy as np
import pytest

import efield
import reference
from conftest import requires_cuda
from test_system import make_system


def run(es, d, dtype, device):
    if device == "cpu":
        x, y = d["x"].astype(dtype), d["y"].astype(dtype)
    else:
        import torch
        x = torch.from_numpy(d["x"].astype(dtype)).cuda()
        y = torch.from_numpy(d["y"].astype(dtype)).cuda()
    r = es.evaluate(x, y)
    gx, gy = (np.asarray(g.cpu()) if hasattr(g, "cpu") else np.asarray(g) for g in (r.grad_x, r.grad_y))
    return (r.energy, r.overflow, r.max_density), gx, gy, es.density_map(), es.field_x_map()


def assert_same_bits(a, b):
    assert a[0] == b[0]
    for u, v in zip(a[1:], b[1:]):
        assert np.array_equal(u, v)


def test_plan_effort_is_checked(rng):
    d = reference.random_design(rng)
    with pytest.raises(ValueError, match="plan_effort must be 'estimate' or 'measure' \\(got 'fast'\\)"):
        make_system(d, "float64", "cpu", plan_effort="fast")


def test_the_cpu_takes_and_ignores_measure(rng):
    d = reference.random_design(rng)
    assert_same_bits(run(make_system(d, "float64", "cpu"), d, "float64", "cpu"),
                     run(make_system(d, "float64", "cpu", plan_effort="measure"), d, "float64", "cpu"))


def test_wisdom_functions_without_a_file(tmp_path):
    assert efield.load_wisdom(str(tmp_path / "missing.txt")) is False
    efield.forget_wisdom()
    if efield.cuda_device_count() == 0:
        with pytest.raises(efield.Error, match="save_wisdom"):
            efield.save_wisdom(str(tmp_path / "w.txt"))


@requires_cuda
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_measure_mode_on_cuda(dtype, rng, tmp_path):
    efield.forget_wisdom()
    d = reference.random_design(rng)
    default = run(make_system(d, dtype, "cuda"), d, dtype, "cuda")
    assert_same_bits(default, run(make_system(d, dtype, "cuda", plan_effort="measure"), d, dtype, "cuda"))
    path = tmp_path / "wisdom.txt"
    efield.save_wisdom(str(path))
    text = path.read_text()
    assert "es2d" in text, text
    efield.forget_wisdom()
    assert efield.load_wisdom(str(path)) is True
    assert_same_bits(default, run(make_system(d, dtype, "cuda"), d, dtype, "cuda"))
    lines = text.splitlines()
    (tmp_path / "foreign.txt").write_text("\n".join([lines[0], "device 10 1 A GPU from elsewhere"] + lines[2:]) + "\n")
    (tmp_path / "corrupt.txt").write_text("\n".join(lines[:2] + ["es2d what"]) + "\n")
    efield.forget_wisdom()
    assert efield.load_wisdom(str(tmp_path / "foreign.txt")) is False
    assert efield.load_wisdom(str(tmp_path / "corrupt.txt")) is False
    efield.forget_wisdom()


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
def test_multi_field_system_takes_plan_effort(device):
    from test_multi_field_system import _fence_case, _system
    case = _fence_case()
    with pytest.raises(ValueError, match="plan_effort"):
        _system(case, plan_effort="exhaustive")
    efield.forget_wisdom()
    x, y = case["x"], case["y"]
    if device == "cuda":
        import torch
        x, y = torch.tensor(x, device="cuda"), torch.tensor(y, device="cuda")
    a = _system(case, device=device).evaluate(x, y)
    b = _system(case, device=device, plan_effort="measure").evaluate(x, y)
    for ra, rb in zip(a, b):
        assert ra.energy == rb.energy
    assert np.array_equal(np.asarray(a[0].grad_x.cpu() if device == "cuda" else a[0].grad_x),
                          np.asarray(b[0].grad_x.cpu() if device == "cuda" else b[0].grad_x))
    efield.forget_wisdom()


def test_plan2d_effort(rng):
    with pytest.raises(ValueError, match="effort must be 'estimate' or 'measure' \\(got 'hard'\\)"):
        efield.Plan2D("dct2", 8, 8, effort="hard")
    x = rng.standard_normal((8, 12))
    assert np.array_equal(efield.Plan2D("dct2", 8, 12, dtype="float64", effort="measure")(x),
                          efield.Plan2D("dct2", 8, 12, dtype="float64")(x))


@requires_cuda
def test_plan2d_measure_on_cuda():
    import torch
    efield.forget_wisdom()
    x = torch.randn(256, 512, device="cuda")
    measured = efield.Plan2D("idct2", 256, 512, device="cuda", effort="measure")
    again = efield.Plan2D("idct2", 256, 512, device="cuda")  # takes the wisdom's choice
    assert measured.cuda_2d_method == again.cuda_2d_method
    assert torch.equal(measured(x), again(x))
    efield.forget_wisdom()


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
def test_torch_op_takes_plan_effort(device, rng):
    torch = pytest.importorskip("torch")
    from efield.torch import ElectricPotential
    nm, nt, bins, side = 40, 2, 16, 160.0
    w, h = rng.uniform(2.0, 20.0, nm + nt), rng.uniform(2.0, 20.0, nm + nt)
    pos = torch.tensor(np.concatenate([rng.uniform(0, side - w), rng.uniform(0, side - h)]), device=device)
    with pytest.raises(ValueError, match="plan_effort must be 'estimate' or 'measure'"):
        ElectricPotential(w, h, 0.0, 0.0, side, side, bins, bins, nm, nt, 0, 0.9, pos=pos, plan_effort="slow")
    efield.forget_wisdom()
    a = ElectricPotential(w, h, 0.0, 0.0, side, side, bins, bins, nm, nt, 0, 0.9, pos=pos)
    b = ElectricPotential(w, h, 0.0, 0.0, side, side, bins, bins, nm, nt, 0, 0.9, pos=pos, plan_effort="measure",
                          asynchronous=device == "cuda")
    assert a(pos).item() == b(pos).item()
    efield.forget_wisdom()
