"""The per-call costs a client sees, timed as a client times them (issue 44): CUDA events around a
loop of calls (for CPU tensors the process's CPU time), on one design, in one process. Used by
bench_python.py (--client-times).

Measured, in microseconds per call (median over rounds; each round times a loop of `iters` calls of
every measurement in turn between two CUDA events):
- cpp_evaluate: the C++ evaluate (profile_stages' whole-evaluate median, host clock, no Python);
- system_evaluate: efield.ElectrostaticSystem.evaluate(x, y, grad_x, grad_y) with views of pos
  (system_evaluate_numpy: with NumPy views of them, CPU tensors only);
- system_evaluate_checked: its checked path (array protocols; the only path before the fast path
  for PyTorch tensors), system_evaluate_checks: that path's Python checks alone;
- op_compiled_fwd_bwd / op_python_fwd_bwd: ElectricPotential forward + backward, compiled op and
  Python path; op_*_fwd: forward alone (no_grad);
- compiled_op_call: torch.ops.efield.electric_potential_forward called directly (no autograd);
- op_*_fwd_bwd_graph: forward + backward captured once in a CUDA graph, the graph replayed (the
  captured evaluate is the asynchronous one: float maps summed in 64-bit bins);
- torch_dot_fwd_bwd: PyTorch's own floor for any op's forward + backward from Python (torch.dot
  of pos with a constant: one kernel each way, a 0-d output, the autograd engine's round trip).
"""

import statistics
import time

import torch

from efield import _compiled_op
from efield.system import EvaluateResult
from efield.torch import ElectricPotential


def event_loop_us(fns, iters, rounds, timed=None, warmup=5, cuda=True):
    """Microseconds per call of each of `fns`, median over `rounds`; a round times one loop of
    `iters` calls of every fn in turn, between two CUDA events (cuda=True) or, for CPU tensors
    (nothing to wait for), by the process's CPU time (time.process_time: what the calls cost the
    host, unaffected by other processes sharing its cores; run with OMP_NUM_THREADS=1 so that it
    counts one thread). `timed` (name -> callable returning its own microseconds) are called once
    per round."""
    timed = timed or {}
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    if cuda:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = {name: [] for name in (*timed, *fns)}
    for _ in range(rounds):
        for name, fn in timed.items():
            times[name].append(fn())
        for name, fn in fns.items():
            if cuda:
                start.record()
            t0 = time.process_time()
            for _ in range(iters):
                fn()
            if cuda:
                end.record()
                end.synchronize()
                times[name].append(start.elapsed_time(end) * 1e3 / iters)
            else:
                times[name].append((time.process_time() - t0) * 1e6 / iters)
    return {name: statistics.median(t) for name, t in times.items()}


def graph_replay(op, pos):
    """A CUDA graph of forward + backward into static.grad, and the call that replays it."""
    static = pos.detach().clone().requires_grad_(True)
    static.grad = torch.zeros_like(static)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            op(static).backward()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):
        static.grad.zero_()
        op(static).backward()
    return graph.replay


def fwd_bwd_call(op, leaf):
    """A call of op's forward + backward on leaf, its gradient dropped first (zero_grad to None)."""
    def call():
        leaf.grad = None
        op(leaf).backward()
    return call


def fwd_call(op, leaf):
    """A call of op's forward alone (no_grad)."""
    def call():
        with torch.no_grad():
            op(leaf)
    return call


def make_op(f, compiled):
    xl, yl, xh, yh = f["region"]
    ElectricPotential.use_compiled_op = compiled
    try:
        return ElectricPotential(f["size_x"], f["size_y"], xl, yl, xh, yh, f["bins"], f["bins"], f["nm"], f["nt"],
                                 f["nf"], f["td"], pos=f["pos"])
    finally:
        ElectricPotential.use_compiled_op = _compiled_op.AVAILABLE


def client_times(f, iters, rounds):
    pos = f["pos"]
    n = len(f["size_x"])
    python_op = make_op(f, False)
    es = python_op.system
    x, y = pos[:n], pos[n:]
    gx, gy = torch.zeros_like(x), torch.zeros_like(y)
    leaf = pos.clone().requires_grad_(True)
    step = n * pos.element_size()
    p, g = pos.data_ptr(), gx.data_ptr()
    cuda = pos.is_cuda
    stream = torch.cuda.current_stream().cuda_stream if cuda else 0

    def checked():  # ElectrostaticSystem.evaluate's checked path (every array kind; all of it before the fast path)
        plain, gx_, gy_, st = es._prepared(x, y, gx, gy, False)
        return EvaluateResult._of(es._system.evaluate(*plain, st, 1.0, False, False), gx_, gy_)

    def fwd_bwd(op):
        return fwd_bwd_call(op, leaf)

    def fwd(op):
        return fwd_call(op, leaf)

    ones = torch.ones_like(pos)

    def dot_fwd_bwd():
        leaf.grad = None
        torch.dot(leaf, ones).backward()

    fns = {
        "torch_dot_fwd_bwd_us": dot_fwd_bwd,
        "system_evaluate_us": lambda: es.evaluate(x, y, gx, gy),
        "system_evaluate_checked_us": checked,
        "system_evaluate_checks_us": lambda: es._prepared(x, y, gx, gy, False),
        "op_python_fwd_us": fwd(python_op),
        "op_python_fwd_bwd_us": fwd_bwd(python_op),
    }
    if not cuda:  # NumPy views of the same memory: the NumPy fast path of the CPU backend
        xn, yn, gxn, gyn = x.numpy(), y.numpy(), gx.numpy(), gy.numpy()
        fns["system_evaluate_numpy_us"] = lambda: es.evaluate(xn, yn, gxn, gyn)
    if _compiled_op.AVAILABLE:
        compiled_op = make_op(f, True)
        handle = compiled_op._evaluator.handle
        forward = _compiled_op.electric_potential_forward
        fns.update({
            "compiled_op_call_us": lambda: forward(pos, handle),
            "op_compiled_fwd_us": fwd(compiled_op),
            "op_compiled_fwd_bwd_us": fwd_bwd(compiled_op),
        })
    graphs = (("op_compiled_fwd_bwd_graph_us", compiled_op if _compiled_op.AVAILABLE else None),
              ("op_python_fwd_bwd_graph_us", python_op))
    for name, op in graphs if cuda else ():
        try:
            if op is not None:
                fns[name] = graph_replay(op, pos)
        except RuntimeError as e:  # reported in the output; the other measurements go on
            print(f"{name}: capture failed: {e}", flush=True)
    gyp = gy.data_ptr()
    timed = {"cpp_evaluate_us": lambda: es._system.profile(p, p + step, g, gyp, stream, iters)["total_ms"] * 1e3}
    return event_loop_us(fns, iters, rounds, timed, cuda=cuda)
