#!/usr/bin/env python3
"""A whole global-placement iteration of the example placer on the GPU, eager against captured:
the weighted-average wirelength, efield's density op and a Nesterov step with the Lipschitz step
prediction (examples/python/global_place.py, one try per iteration: no host read inside an
iteration, efield.place's model), run as
- eager: the Python loop (efield/_device_loop.py's iteration, PlaceParams.loop="device");
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
from efield._device_loop import WARM_UP, DeviceLoop, captured_step


def timed_loop(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


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
    params = efield.place.PlaceParams(device="cuda", dtype=args.dtype, target_overflow=0.0,
                                      max_iters=args.iters + WARM_UP)
    placement, placer = efield.place.prepare(design, params)
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
        try:
            if mode == "compile+graph":
                torch._dynamo.reset()
            it = DeviceLoop(placer, compile_objective=mode == "compile+graph")
            if mode == "eager":
                for _ in range(WARM_UP):  # as many steps before the loop as the captured modes take
                    it.step(False)
                ms = timed_loop(lambda: it.step(False), args.iters)
            else:
                ms = timed_loop(captured_step(it), args.iters)
        except Exception as e:  # noqa: BLE001 - reported, the other modes go on
            rows.append((mode, math.nan, f"failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"))
            print(rows[-1], flush=True)
            continue
        final[mode] = it.u.detach().clone()
        note = f"HPWL after {WARM_UP + args.iters} steps {placement.hpwl(it.u):.4e}"
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
