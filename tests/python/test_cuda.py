"""CUDA tensors used in place: data pointers kept, nothing allocated but the outputs, work on the
caller's stream (side streams and CUDA graph capture), the asynchronous evaluate, CuPy arrays.
Skipped, with the reason, without a CUDA device."""

import numpy as np
import pytest

import efield
import reference
from conftest import CUDA_REASON, torch

pytestmark = pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))

try:
    import cupy
except ImportError:
    cupy = None


def allocations():
    return torch.cuda.memory_stats()["allocation.all.allocated"]


def test_transform_in_place_keeps_the_pointer(rng):
    x = rng.standard_normal((64, 48))
    t = torch.tensor(x, device="cuda")
    ptr = t.data_ptr()
    efield.dct2(t)  # plan made and cached
    before = allocations()
    assert efield.dct2(t, out=t) is t and t.data_ptr() == ptr
    assert allocations() == before, "a CUDA transform into `out` allocates nothing"
    assert np.allclose(t.cpu().numpy(), efield.dct2(x), rtol=0, atol=1e-9 * np.abs(x).sum())
    before = allocations()
    y = efield.idct2(t)
    assert allocations() == before + 1, "only the output is allocated"
    assert y.device == t.device


def test_transform_on_a_side_stream(rng):
    """Work queued on the caller's current stream runs before the transform, with no sync."""
    s = torch.cuda.Stream()
    a = torch.tensor(rng.standard_normal((512, 512)), device="cuda")
    with torch.cuda.stream(s):
        x = a @ a  # still running on s when dct2 is queued behind it
        y = efield.dct2(x)
    s.synchronize()
    assert np.allclose(y.cpu().numpy(), efield.dct2(x.cpu().numpy()), rtol=1e-9, atol=1e-6)


def test_system_writes_the_callers_arrays_in_place(rng):
    d = reference.random_design(rng)
    xl, yl, xh, yh = d["region"]
    es = efield.ElectrostaticSystem(d["movable"], d["fillers"], d["fixed"], xl=xl, yl=yl, xh=xh, yh=yh,
                                    num_bins_x=16, num_bins_y=12, target_density=d["td"], dtype="float64",
                                    device="cuda")
    x, y = torch.tensor(d["x"], device="cuda"), torch.tensor(d["y"], device="cuda")
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    es.evaluate(x, y, gx, gy)
    before, ptr = allocations(), gx.data_ptr()
    r = es.evaluate(x, y, gx, gy)
    assert allocations() == before and gx.data_ptr() == ptr and r.grad_x is gx
    ref = reference.electrostatics(d["region"], d["bins"], d["td"], d["movable"], d["fillers"], d["fixed"],
                                   d["x"], d["y"])
    assert np.allclose(gx.cpu().numpy(), ref["gx"], rtol=1e-9, atol=1e-9 * np.abs(ref["gx"]).max())
    # The asynchronous evaluate writes the same, and its scalars into the caller's array.
    result = torch.zeros(5, dtype=torch.float64, device="cuda")
    gx2, gy2 = torch.zeros_like(x), torch.zeros_like(y)
    es.evaluate_async(x, y, gx2, gy2, result=result)
    w = es.wait_result()
    assert w.energy == pytest.approx(r.energy, rel=1e-12)
    assert result.cpu().numpy()[:3] == pytest.approx([r.energy, r.overflow, r.max_density], rel=1e-12)
    assert torch.allclose(gx2, gx, rtol=1e-12, atol=0)


def flat_design(rng, dtype, asynchronous):
    from efield.torch import ElectricPotential

    d = reference.random_design(rng)
    xl, yl, xh, yh = d["region"]
    w = np.concatenate([d["movable"][0], d["fixed"][0], d["fillers"][0]])
    h = np.concatenate([d["movable"][1], d["fixed"][1], d["fillers"][1]])
    x = np.concatenate([d["x"][:60], d["fixed"][2], d["x"][60:]])
    y = np.concatenate([d["y"][:60], d["fixed"][3], d["y"][60:]])
    pos = torch.tensor(np.concatenate([x, y]), dtype=dtype, device="cuda", requires_grad=True)
    op = ElectricPotential(w, h, xl, yl, xh, yh, 16, 12, 60, 4, 20, d["td"], pos=pos, asynchronous=asynchronous)
    return op, pos


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_op_asynchronous_and_blocking_agree(rng, dtype):
    dt = getattr(torch, dtype)
    a, pos = flat_design(np.random.default_rng(3), dt, True)
    b, _ = flat_design(np.random.default_rng(3), dt, False)
    ea = a(pos)
    ea.backward()
    ga = pos.grad.clone()
    pos.grad = None
    eb = b(pos)
    eb.backward()
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert ea.item() == pytest.approx(eb.item(), rel=tol)
    assert torch.allclose(ga, pos.grad, rtol=tol, atol=tol * pos.grad.abs().max().item())
    assert a.overflow == pytest.approx(b.overflow, rel=tol)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_op_on_a_side_stream_and_in_a_cuda_graph(rng, asynchronous):
    op, pos = flat_design(rng, torch.float32, asynchronous)
    expected_energy = op(pos).item()
    op(pos).backward()
    expected_grad = pos.grad.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm-up on the stream the graph is captured on
            pos.grad = None
            energy = op(pos)
            energy.backward()
    torch.cuda.current_stream().wait_stream(s)
    assert energy.item() == expected_energy
    assert torch.equal(pos.grad, expected_grad)
    # Forward and backward captured into a CUDA graph and replayed (a blocking op captures its
    # asynchronous evaluate, which sums in 64-bit bins: the same values up to float rounding).
    static = pos.detach().clone().requires_grad_(True)
    static.grad = torch.zeros_like(static)
    with torch.cuda.stream(s):
        op(static).backward()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        static.grad.zero_()
        captured = op(static)
        captured.backward()
    with torch.no_grad():
        static.copy_(pos.detach())
    g.replay()
    torch.cuda.synchronize()
    assert captured.item() == pytest.approx(expected_energy, rel=1e-5)
    assert torch.allclose(static.grad, expected_grad, rtol=1e-4, atol=1e-5 * expected_grad.abs().max().item())


@pytest.mark.skipif(cupy is None, reason="CuPy is not installed")
def test_cupy_arrays(rng):
    x = rng.standard_normal((9, 16))
    c = cupy.asarray(x)
    y = efield.dct2(c)
    assert isinstance(y, cupy.ndarray) and y.device.id == c.device.id
    assert np.allclose(cupy.asnumpy(y), efield.dct2(x), rtol=1e-9, atol=1e-9)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        z = efield.idct(c)
    s.synchronize()
    assert np.allclose(cupy.asnumpy(z), efield.idct(x), rtol=1e-9, atol=1e-9)


class DLPackOnly:
    """An array that speaks DLPack alone (as JAX arrays do): a CUDA tensor behind it."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_dlpack_cuda_arrays(rng):
    x = rng.standard_normal((6, 10))
    t = torch.tensor(x, device="cuda")
    assert efield._efield.array_info(DLPackOnly(t)) == ((6, 10), "float64", 0)
    out = torch.empty_like(t)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t.mul_(2)  # queued on s: DLPack asks the producer to order it before efield's stream
        efield.dct2(DLPackOnly(t), out=DLPackOnly(out))
    torch.cuda.synchronize()  # arrays of no known framework run on the legacy default stream
    assert np.allclose(out.cpu().numpy(), efield.dct2(2 * x), rtol=1e-9, atol=1e-9)
