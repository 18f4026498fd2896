"""efield.place's loop with nothing read on the host inside an iteration (PlaceParams.loop):
- "device": the iteration below, run eagerly (any device);
- "graph": the same iteration captured whole in a CUDA graph (wirelength, density op, backward,
  Nesterov step, step-length prediction, density weight and gamma updates) and replayed;
- "compile+graph": its objective torch.compile'd (fullgraph=True) first, then captured.
How it differs from the host loop (GlobalPlacer.run): one step-length prediction per iteration
(no retries), the density weight and gamma updated on the device from the iteration's own HPWL and
overflow, and the stop test read every CHECK_EVERY iterations (so it may stop up to CHECK_EVERY - 1
iterations after the overflow reached the target).
"""

import math
import time

import torch

CHECK_EVERY = 10
WARM_UP = 3  # eager iterations before the capture (the compile, the op's stream)


class DeviceLoop:
    """The placer's state as tensors on its device, and one iteration that never waits for it."""

    def __init__(self, placer, compile_objective=False):
        p = placer.p
        self.placer, self.p = placer, p
        dev, dt = p.start.device, p.start.dtype
        self.tensor = lambda value: torch.tensor(value, dtype=dt, device=dev)  # noqa: E731
        gamma = placer.gamma_for(1.0)
        lam = placer.initial_density_weight(p.start, gamma)
        self.lam, self.gamma = self.tensor(lam), self.tensor(gamma)
        self.objective = torch.compile(self._objective, fullgraph=True) if compile_objective else self._objective
        self.area2 = torch.cat([p.area, p.area])
        self.u, self.v = p.start.clone(), p.start.clone()
        self.g = self.gradient(self.v)
        self.overflow = self.tensor(placer.op.overflow)
        self.alpha = self.tensor(placer.first_step_length(self.v, self.g, lam, gamma))
        self.gamma.copy_(self._gamma(self.overflow))
        self.a, self.k = self.tensor(1.0), self.tensor(0.0)
        self.hpwl = self._hpwl(self.u)
        self.ref_hpwl = 3.5e5 * placer.units
        self.history = torch.zeros((placer.params.max_iters + 1, 2), dtype=dt, device=dev)  # lam, overflow
        self.history[0, 0] = self.lam
        self.evaluations = 2

    def _objective(self, pos):
        return self.p.wirelength(pos, self.gamma) + self.lam * self.placer.op(pos)

    def gradient(self, v):
        pos = v.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(self.objective(pos), pos)
        g = g / torch.clamp(self.p.pins_per_node + self.lam * self.area2, min=1.0)
        return torch.where(self.p.moving, g, torch.zeros_like(g))

    def _gamma(self, overflow):
        return self.placer.base_gamma * torch.pow(10.0, (overflow - 0.1) * 20.0 / 9.0 - 1.0)

    def _hpwl(self, u):
        p, n = self.p, self.p.num_nodes
        total = torch.zeros((), dtype=u.dtype, device=u.device)
        for coords, offset in ((u[:n], p.pin_dx), (u[n:], p.pin_dy)):
            q = coords[p.pin_node] + offset
            span = p._net_extremes(q, p.pin_net, "amax") - p._net_extremes(q, p.pin_net, "amin")
            total = total + (p.net_weight * span).sum()
        return total

    def step(self, overflow_on_device):
        """One iteration. overflow_on_device: read the overflow from the op's device results (a
        captured or asynchronous evaluate writes them) instead of the host."""
        clamp = self.placer.clamp
        with torch.no_grad():
            a_next = (1 + torch.sqrt(4 * self.a * self.a + 1)) / 2
            coef = (self.a - 1) / a_next
            u_new = clamp(self.v - self.alpha * self.g)
            v_new = clamp(u_new + coef * (u_new - self.u))
        g_new = self.gradient(v_new)
        with torch.no_grad():
            alpha = (v_new - self.v).norm() / (g_new - self.g).norm().clamp_min(1e-30)
            op = self.placer.op
            overflow = (op._evaluator.results[1].to(self.overflow.dtype) if overflow_on_device
                        else self.tensor(op.overflow))
            hpwl = self._hpwl(u_new)
            k = self.k + 1
            dh = hpwl - self.hpwl
            better = 1.05 * torch.clamp(torch.pow(0.9999, k), min=0.98)
            worse = 1.05 * torch.clamp(torch.pow(1.05, -dh / self.ref_hpwl), 0.95, 1.05)
            lam = self.lam * torch.where(dh < 0, better, worse)
            for state, new in ((self.u, u_new), (self.v, v_new), (self.g, g_new), (self.a, a_next),
                               (self.alpha, alpha), (self.overflow, overflow), (self.hpwl, hpwl), (self.k, k),
                               (self.gamma, self._gamma(overflow)), (self.lam, lam)):
                state.copy_(new)
            self.history.index_copy_(0, k.long().reshape(1), torch.stack([lam, overflow]).reshape(1, 2))


def captured_step(dl, warm_up=WARM_UP):
    """Runs `warm_up` iterations eagerly on a side stream, then captures one iteration in a CUDA
    graph on that stream (the density system follows the caller's stream; a captured evaluate is
    the asynchronous one, its overflow read from the op's device results). Returns the graph's
    replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warm_up):
            dl.step(False)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):
        dl.step(True)
    return graph.replay


def run_device_loop(placer, report=0, log=print):
    """GlobalPlacer.run for PlaceParams.loop "device", "graph" or "compile+graph": (u, record)."""
    prm = placer.params
    graph = prm.loop in ("graph", "compile+graph")
    if graph and not placer.p.start.is_cuda:
        raise ValueError(f"loop={prm.loop!r} captures a CUDA graph: it needs a CUDA device (got {prm.device!r})")
    t0 = time.perf_counter()
    placer.watch.lap("setup")
    dl = DeviceLoop(placer, compile_objective=prm.loop == "compile+graph")
    step = lambda: dl.step(False)  # noqa: E731
    k = 0
    if graph:
        k = min(WARM_UP, prm.max_iters)
        step = captured_step(dl, k)
    overflow = float(dl.overflow)
    while k < prm.max_iters and overflow > prm.target_overflow:
        step()
        k += 1
        if k % CHECK_EVERY == 0 or k == prm.max_iters:
            overflow = float(dl.overflow)
            if report and k % report < CHECK_EVERY:
                log(f"iteration {k:5d}  hpwl {float(dl.hpwl):.6e}  overflow {overflow:.4f}  "
                    f"density weight {float(dl.lam):.3e}  gamma {float(dl.gamma):.3e}")
    overflow, hpwl = float(dl.overflow), float(dl.hpwl)
    if not math.isfinite(hpwl):
        raise RuntimeError(f"global placement diverged (loop={prm.loop!r}, {k} iterations)")
    history = dl.history[:k + 1].cpu()
    placer.evaluations = dl.evaluations + k
    placer.watch.lap("optimizer")
    return dl.u, {"iterations": k, "hpwl": hpwl, "overflow": overflow, "converged": overflow <= prm.target_overflow,
                  "evaluations": placer.evaluations, "seconds": time.perf_counter() - t0,
                  "density_weight": history[:, 0].tolist(), "overflow_trace": history[1:, 1].tolist()}
