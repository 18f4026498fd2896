"""Tensors on any GPU, not only the current one: pos on cuda:1 while cuda:0 is current.
Skipped, with the reason, where fewer than two CUDA devices are present."""

import numpy as np
import pytest

import efield
import reference
from conftest import CUDA_REASON, torch

two_gpus = CUDA_REASON is None and torch.cuda.device_count() >= 2 and efield.cuda_device_count() >= 2
pytestmark = pytest.mark.skipif(not two_gpus, reason=str(CUDA_REASON or "fewer than two CUDA devices"))


def test_transforms_on_the_second_device(rng):
    x = rng.standard_normal((3, 24, 20))
    with torch.cuda.device(0):
        t = torch.tensor(x, device="cuda:1")
        y = efield.dct2(t)
        assert torch.cuda.current_device() == 0, "the caller's device is restored"
        assert y.device == torch.device("cuda:1")
        plan = efield.Plan1D("idct", 20, batch=72, dtype="float64", device="cuda:1")
        z = plan(t)
        assert torch.cuda.current_device() == 0
    assert np.allclose(y.cpu().numpy(), efield.dct2(x), rtol=1e-9, atol=1e-9)
    assert np.allclose(z.cpu().numpy(), efield.idct(x), rtol=1e-9, atol=1e-9)


def test_system_and_op_on_the_second_device(rng):
    from efield.torch import ElectricPotential

    d = reference.random_design(rng)
    xl, yl, xh, yh = d["region"]
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    with torch.cuda.device(0):
        es = efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], xl=xl, yl=yl, xh=xh, yh=yh,
                                        num_bins_x=16, num_bins_y=12, target_density=d["td"], dtype="float64",
                                        device="cuda:1")
        r = es.evaluate(torch.tensor(d["x"], device="cuda:1"), torch.tensor(d["y"], device="cuda:1"))
        assert torch.cuda.current_device() == 0
        assert r.energy == pytest.approx(ref["energy"], rel=1e-10)
        assert r.grad_x.device == torch.device("cuda:1")
        w = np.concatenate([d["movable"][0], d["fixed"][0], d["fillers"][0]])
        h = np.concatenate([d["movable"][1], d["fixed"][1], d["fillers"][1]])
        x = np.concatenate([d["x"][:60], d["fixed"][2], d["x"][60:]])
        y = np.concatenate([d["y"][:60], d["fixed"][3], d["y"][60:]])
        pos = torch.tensor(np.concatenate([x, y]), device="cuda:1", requires_grad=True)
        op = ElectricPotential(w, h, xl, yl, xh, yh, 16, 12, 60, 4, 20, d["td"])
        energy = op(pos)
        energy.backward()
        assert torch.cuda.current_device() == 0
        assert energy.device == torch.device("cuda:1")
        assert energy.item() == pytest.approx(ref["energy"], rel=1e-10)
        g = pos.grad.cpu().numpy()
        assert np.allclose(g[:60], ref["gx"][:60], rtol=1e-9, atol=1e-9 * np.abs(ref["gx"]).max())
        # The same op refuses a tensor of the other device, by name.
        with pytest.raises(ValueError, match="made for cuda:1"):
            op(pos.detach().to("cuda:0"))
