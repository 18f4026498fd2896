"""efield.place with PlaceParams.loop (efield/_device_loop.py): the device-only iteration places
data/synthetic2000 like the host loop (CPU: loop="device"; CUDA: the iteration captured in a CUDA
graph, and with its objective torch.compile'd on PyTorch 2), and the graph loops refuse the CPU."""

import pytest

from conftest import CUDA_REASON, ROOT, torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

AUX = ROOT / "data" / "synthetic2000" / "synthetic2000.aux"


def place(**params):
    import efield.place

    return efield.place.global_place(AUX, max_iters=600, **params)


@pytest.fixture(scope="module")
def host_loop_cpu():
    return place(device="cpu")


def check_like_host_loop(r, host):
    assert r.converged and r.overflow <= 0.07, (r.iterations, r.overflow)
    assert r.hpwl <= 1.05 * host.hpwl, (r.hpwl, host.hpwl)
    assert len(r.overflow_trace) == r.iterations and len(r.density_weight) == r.iterations + 1
    assert r.iterations <= 1.5 * host.iterations + 10, (r.iterations, host.iterations)


def test_device_loop_on_the_cpu(host_loop_cpu):
    check_like_host_loop(place(device="cpu", loop="device"), host_loop_cpu)


def test_graph_loops_need_cuda():
    with pytest.raises(ValueError, match="needs a CUDA device"):
        place(device="cpu", loop="graph")
    with pytest.raises(ValueError, match="loop must be"):
        place(device="cpu", loop="jit")


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
@pytest.mark.parametrize("loop", ["graph", "compile+graph"])
def test_captured_loops_on_cuda(loop, host_loop_cpu):
    if loop == "compile+graph" and int(torch.__version__.split(".")[0]) < 2:
        pytest.skip("torch.compile needs PyTorch >= 2")
    check_like_host_loop(place(device="cuda", loop=loop), host_loop_cpu)
