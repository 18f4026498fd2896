#!/usr/bin/env python3
"""A whole global-placement iteration of the example placer on the GPU, eager against captured:
the weighted-average wirelength, efield's density op and a Nesterov step with the Lipschitz step
prediction (examples/python/global_place.py, one try per iteration: no host read inside an
iteration, efield.place's model), run as
- eager: the Python loop;
- graph: one iteration captured whole in a CUDA graph (forward, backward, step), replayed;
- compile+graph: the same with the loss torch.compile'd (fullgraph=True), then captured;
and, for reference, the example placer's own loop (its line search reads the host each try), and
whole placements to overflow 0.07 with efield.place's loop options (place-eager, place-graph,
place-compile+graph: PlaceParams.loop; their seconds include the compile and the capture).
Time per iteration from CUDA events around a loop of iterations; the positions after the loop
are compared with the eager ones.

    PYTHONPATH=build/python python3 bench_ispd/bench_compiled_iteration.py ibm01.aux --iters 200
"""

import argparse
import datetime
import math
import os
import pathlib
import platform
import sys

import torch

import efield
import efield.place


class DeviceIteration:
    """The placer's state as device tensors and one iteration that never reads the host."""

    def __init__(self, placer, start, lam, gamma, loss_fn=None):
        self.placer, self.p = placer, placer.p
        dev, dt = start.device, start.dtype
        self.lam = torch.tensor(lam, device=dev, dtype=dt)
        self.gamma = torch.tensor(gamma, device=dev, dtype=dt)
        self.loss_fn = loss_fn or self.loss
        self.area2 = torch.cat([self.p.area, self.p.area])
        self.u, self.v = start.clone(), start.clone()
        self.g = self.gradient(self.v)
        trial = placer.clamp(self.v - 0.01 * placer.units * self.g / self.g.abs().max().clamp_min(1e-30))
        self.alpha = ((trial - self.v).norm() / (self.gradient(trial) - self.g).norm().clamp_min(1e-30)).reshape(())
        self.a = torch.ones((), device=dev, dtype=dt)

    def loss(self, pos):
        return self.p.wirelength(pos, self.gamma) + self.lam * self.placer.op(pos)

    def gradient(self, v):
        pos = v.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(self.loss_fn(pos), pos)
        g = g / torch.clamp(self.p.pins_per_node + self.lam * self.area2, min=1.0)
        return torch.where(self.p.moving, g, torch.zeros_like(g))

    def step(self):
        clamp = self.placer.clamp
        a_next = (1 + torch.sqrt(4 * self.a * self.a + 1)) / 2
        coef = (self.a - 1) / a_next
        u_new = clamp(self.v - self.alpha * self.g)
        v_new = clamp(u_new + coef * (u_new - self.u))
        g_new = self.gradient(v_new)
        alpha = (v_new - self.v).norm() / (g_new - self.g).norm().clamp_min(1e-30)
        self.u.copy_(u_new)
        self.v.copy_(v_new)
        self.g.copy_(g_new)
        self.alpha.copy_(alpha)
        self.a.copy_(a_next)


def timed_loop(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def captured(it, warmup=3):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            it.step()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):  # the warm-up's stream: the density system follows it
        it.step()
    return graph


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aux", help="Bookshelf .aux file (ibm01)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--modes", default="eager,graph,compile+graph,example,place-eager,place-graph,place-compile+graph")
    ap.add_argument("--markdown", default="")
    args = ap.parse_args(argv)
    device = torch.device("cuda")
    design = efield.load_bookshelf(args.aux)
    params = efield.place.PlaceParams(device="cuda", dtype=args.dtype, target_overflow=0.0, max_iters=args.iters)
    placement, placer = efield.place.prepare(design, params)
    gamma = placer.gamma_for(1.0)
    lam = placer.initial_density_weight(placement.start, gamma)
    print(f"{design.name}: {placement.num_movable} movable, {placement.num_fillers} fillers, bins {placement.bins}, "
          f"op compiled {placer.op.compiled}", flush=True)
    rows, final = [], {}
    modes = args.modes.split(",")
    for mode in modes:
        if mode.startswith("place-"):
            try:
                r = efield.place.global_place(design, params, target_overflow=0.07, max_iters=1000, loop=mode[6:])
            except Exception as e:  # noqa: BLE001 - reported, the other modes go on
                rows.append((mode, math.nan, f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"))
                continue
            rows.append((mode, r.seconds / r.iterations * 1e3,
                         f"to overflow {r.overflow:.4f}: {r.iterations} iterations, HPWL {r.hpwl:.4e}, "
                         f"{r.seconds:.2f} s"))
            print(rows[-1], flush=True)
            continue
        if mode == "example":
            r = efield.place.global_place(design, params)
            torch.cuda.synchronize()
            ms = r.seconds / r.iterations * 1e3
            rows.append((mode, ms, f"{r.evaluations} evaluations in {r.iterations} iterations (efield.place.global_place)"))
            continue
        it = DeviceIteration(placer, placement.start, lam, gamma)
        if mode == "compile+graph":
            torch._dynamo.reset()
            it.loss_fn = torch.compile(it.loss, fullgraph=True)
        try:
            if mode == "eager":
                for _ in range(3):  # as many steps before the loop as the captured modes take
                    it.step()
                ms = timed_loop(it.step, args.iters)
            else:
                graph = captured(it)
                ms = timed_loop(graph.replay, args.iters)
        except Exception as e:  # noqa: BLE001 - reported, the other modes go on
            rows.append((mode, math.nan, f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            print(rows[-1], flush=True)
            continue
        final[mode] = it.u.detach().clone()
        note = f"HPWL after {3 + args.iters} steps {placement.hpwl(it.u):.4e}"
        if mode != "eager" and "eager" in final:
            e = final["eager"]
            note += f", positions {float((it.u - e).norm() / e.norm()):.1e} from the eager loop's (relative)"
        rows.append((mode, ms, note))
        print(rows[-1], flush=True)
    commit = os.environ.get("EFIELD_COMMIT", "unknown")
    out = [f"`bench_ispd/bench_compiled_iteration.py {' '.join(sys.argv[1:])}` at {commit}, {datetime.date.today()}, "
           f"{torch.cuda.get_device_name(device)}, PyTorch {torch.__version__}, Python {platform.python_version()}, "
           f"{design.name} ({placement.num_movable} movable, {placement.num_fillers} fillers, bins "
           f"{placement.bins[0]}x{placement.bins[1]}), {args.dtype}, op compiled {placer.op.compiled}; "
           f"ms per iteration over {args.iters} iterations (CUDA events; warm-up and capture not counted).", "",
           "| mode | ms per iteration | note |", "| --- | --- | --- |"]
    out += [f"| {m} | {ms:.3f} | {note} |" for m, ms, note in rows]
    text = "\n".join(out)
    print(text)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
