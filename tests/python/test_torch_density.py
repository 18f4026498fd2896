"""bench_ispd/torch_density.py, the pure-PyTorch baseline of bench_python.py, computes the same
penalty as efield's op: checked against the float64 NumPy reference, so that the benchmark
compares like with like."""

import sys

import numpy as np
import pytest

import reference
from conftest import ROOT, torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

sys.path.insert(0, str(ROOT / "bench_ispd"))


def test_transforms(rng):
    import torch_density as td

    x = rng.standard_normal((7, 10))
    t = torch.tensor(x)
    for name, along in (("dct", td.dct), ("idct", td.idct), ("idxst", td.idxst)):
        for dim in (0, 1):
            expected = np.moveaxis(reference.TRANSFORMS[name](np.moveaxis(x, dim, -1)), -1, dim)
            assert np.allclose(along(t, dim).numpy(), expected, atol=1e-10), (name, dim)


def test_penalty_matches_reference(rng):
    import torch_density as td
    from test_torch_op import FlatDesign

    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, requires_grad=True)
    xl, yl, xh, yh = f.d["region"]
    penalty = td.TorchDensityPenalty(f.size_x, f.size_y, xl, yl, xh, yh, 16, 12, f.nm, f.nt, f.nf, f.d["td"],
                                     pos.detach())
    energy = penalty(pos)
    energy.backward()
    e_ref, g_ref, _ = f.reference(f.pos)
    assert energy.item() == pytest.approx(e_ref, rel=1e-10)
    assert np.allclose(pos.grad.numpy(), g_ref, rtol=0, atol=1e-10 * np.abs(g_ref).max())
