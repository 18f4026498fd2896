"""The compiled op (efield._torch_ops: torch.ops.efield.electric_potential, autograd in C++):
active when built, the same energy and gradient as the Python path, handles checked against the
registry, and on PyTorch 2: torch.library.opcheck, torch.compile(fullgraph=True) of a placer's
loss, and a whole iteration (forward, backward, optimizer step) captured in a CUDA graph."""

import numpy as np
import pytest

from conftest import CUDA_REASON, torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

if torch is not None:
    from efield import _compiled_op
    from efield.torch import ElectricPotential
    from test_torch_op import FlatDesign, rel, wirelength

    TORCH_2 = int(torch.__version__.split(".")[0]) >= 2
    NOT_BUILT = None if _compiled_op.AVAILABLE else _compiled_op.REASON
else:
    TORCH_2, NOT_BUILT = False, "PyTorch is not installed"

needs_op = pytest.mark.skipif(NOT_BUILT is not None, reason=str(NOT_BUILT))
needs_torch_2 = pytest.mark.skipif(not TORCH_2, reason="torch.compile and torch.library.opcheck need PyTorch >= 2")


def python_path(f, pos, **kwargs):
    """The same op through the Python path."""
    ElectricPotential.use_compiled_op = False
    try:
        return f.op(pos, **kwargs)
    finally:
        ElectricPotential.use_compiled_op = _compiled_op.AVAILABLE


@needs_op
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_op_matches_the_python_path(device, dtype, rng):
    dt = getattr(torch, dtype)
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, dtype=dt, device=device, requires_grad=True)
    op, reference_op = f.op(pos), python_path(f, pos)
    assert op.compiled and not reference_op.compiled
    lam = 0.37
    (lam * op(pos)).backward()
    g = pos.grad.clone()
    pos.grad = None
    energy = reference_op(pos)
    (lam * energy).backward()
    assert op(pos).item() == energy.item()
    assert torch.equal(g, pos.grad)
    assert op.overflow == reference_op.overflow and op.max_density == reference_op.max_density


@needs_op
def test_no_fillers_gradient_is_zero_at_terminals(device, rng):
    """Without fillers the gap of terminals and terminal_NIs runs to the end of each half of pos;
    the compiled forward's fresh gradient must hold zeros there, not what its memory held."""
    f = FlatDesign(rng)
    n, nm, nf = f.n, f.nm, f.nf
    keep = np.r_[0:n - nf]
    size_x, size_y = f.size_x[keep], f.size_y[keep]
    start = np.concatenate([f.pos[:n][keep], f.pos[n:][keep]])
    xl, yl, xh, yh = f.d["region"]
    op = ElectricPotential(size_x, size_y, xl, yl, xh, yh, f.d["bins"][0], f.d["bins"][1], nm, f.nt, 0, f.d["td"],
                           pos=torch.tensor(start, device=device))
    assert op.compiled
    m = n - nf
    for shift in (0.0, 0.37):
        torch.full((4 * m,), float("nan"), device=device)  # leaves NaNs in the allocator's free memory
        pos = torch.tensor(start + shift, device=device, requires_grad=True)
        op(pos).backward()
        g = pos.grad.cpu()
        assert torch.all(g[nm:m] == 0) and torch.all(g[m + nm:] == 0)
        assert torch.all(torch.isfinite(g))


@needs_op
def test_backward_of_an_older_forward_is_its_own(rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, requires_grad=True)
    op = f.op(pos)
    first = op(pos)
    with torch.no_grad():
        op(pos + 1.0)
    first.backward()
    _, g_ref, _ = f.reference(f.pos)
    assert rel(pos.grad.numpy(), g_ref) <= 1e-10


ERROR_PATH = """
import gc, sys
import numpy as np, pytest, torch
sys.path.insert(0, sys.argv[1])
from efield import _compiled_op
from test_torch_op import FlatDesign
f = FlatDesign(np.random.default_rng(1))
pos = torch.tensor(f.pos)
op = f.op(pos)
handle = op._evaluator.handle
with pytest.raises(RuntimeError, match="no system is registered under handle"):
    _compiled_op.electric_potential(pos, handle + 1000)
with pytest.raises(RuntimeError, match="no system is registered under handle"):
    _compiled_op.electric_potential_forward(pos, handle + 1000)
with pytest.raises(RuntimeError, match="no system is registered under handle"):
    _compiled_op._torch_ops.latest(handle + 1000)
with pytest.raises(RuntimeError, match="2 \\\\* num_nodes"):
    _compiled_op.electric_potential(pos[:-2].contiguous(), handle)
del op
gc.collect()
with pytest.raises(RuntimeError, match="no system is registered"):
    _compiled_op.electric_potential(pos, handle)
print("error path OK")
"""


@needs_op
def test_unknown_handle_raises():
    """Checked in a child process, so that a crash fails this test alone."""
    import os
    import pathlib
    import subprocess
    import sys

    here = pathlib.Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", ERROR_PATH, str(here)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0 and "error path OK" in r.stdout, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])


@needs_op
def test_inference_mode_and_no_grad(rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos)
    op = f.op(pos)
    expected = op(pos).item()
    with torch.no_grad():
        assert op(pos).item() == expected
    with torch.inference_mode():
        assert op(pos).item() == expected


@needs_op
@needs_torch_2
def test_opcheck(device, rng):
    if not hasattr(torch.library, "opcheck"):
        pytest.skip(f"torch.library.opcheck is not in PyTorch {torch.__version__}")
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, device=device, requires_grad=True)
    op = f.op(pos)
    torch.library.opcheck(torch.ops.efield.electric_potential.default, (pos, op._evaluator.handle))
    torch.library.opcheck(torch.ops.efield.electric_potential_forward.default, (pos.detach(), op._evaluator.handle))


@needs_op
@needs_torch_2
@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(device, backend, rng):
    f = FlatDesign(rng)
    pos = torch.tensor(f.pos, device=device, requires_grad=True)
    op = f.op(pos)
    lam = 0.37

    def loss_fn(p):
        return wirelength(p, f.n) + lam * op(p)

    eager = loss_fn(pos)
    eager.backward()
    g_eager = pos.grad.clone()
    pos.grad = None
    torch._dynamo.reset()
    compiled = torch.compile(loss_fn, fullgraph=True, backend=backend)
    for _ in range(2):
        pos.grad = None
        loss = compiled(pos)
        loss.backward()
        assert loss.item() == pytest.approx(eager.item(), rel=1e-12)
        assert torch.allclose(pos.grad, g_eager, rtol=1e-10, atol=1e-12 * g_eager.abs().max().item())


def nesterov_iteration(op, n, lam, pos, opt):
    opt.zero_grad(set_to_none=False)
    loss = wirelength(pos, n) + lam * op(pos)
    loss.backward()
    opt.step()
    return loss


@needs_op
@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_cuda_graph_of_a_whole_iteration(rng):
    """Forward, backward and a Nesterov step captured once and replayed: the same positions as
    the eager loop (float64: the captured evaluate sums as the blocking one up to rounding)."""
    f = FlatDesign(rng)
    lam, steps = 0.37, 5

    def setup():
        pos = torch.tensor(f.pos, dtype=torch.float64, device="cuda", requires_grad=True)
        return pos, torch.optim.SGD([pos], lr=1e-3, momentum=0.9, nesterov=True)

    pos_e, opt_e = setup()
    op = f.op(pos_e)
    for _ in range(3 + steps):
        nesterov_iteration(op, f.n, lam, pos_e, opt_e)
    pos_g, opt_g = setup()
    pos_g.grad = torch.zeros_like(pos_g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm-up: the optimizer's state, the op's stream
            nesterov_iteration(op, f.n, lam, pos_g, opt_g)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):  # the stream of the warm-up: the system follows it
        loss = nesterov_iteration(op, f.n, lam, pos_g, opt_g)
    for _ in range(steps):
        graph.replay()
    torch.cuda.synchronize()
    assert torch.isfinite(loss).item()
    assert torch.allclose(pos_g, pos_e, rtol=1e-9, atol=1e-9)
