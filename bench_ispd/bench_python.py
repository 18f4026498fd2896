#!/usr/bin/env python3
"""The Python package's costs on the GPU, in one run (bench_ispd/results/python.md):

1. Per-call overhead of efield.torch.ElectricPotential over the C++ evaluate on the same design:
   the C++ evaluate (profile_stages' whole-evaluate median, host clock, no Python), the extension
   call from Python, the op's forward, and forward + backward (blocking and asynchronous).
2. The op against a straightforward pure-PyTorch implementation of the same penalty
   (bench_ispd/torch_density.py: index_add_ density map, torch.fft DCTs, field, gather), forward +
   backward, on adaptec1-sized and bigblue4-sized synthetic designs (efield's ISPD2005 stand-ins
   with fillers, DREAMPlace's bin grids), as ratios.

    PYTHONPATH=build/python python3 bench_ispd/bench_python.py --markdown out.md
    PYTHONPATH=build/python python3 bench_ispd/bench_python.py --device cpu --designs synthetic:20000:128
"""

import argparse
import datetime
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

import efield
from efield.torch import ElectricPotential

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from op_overhead import client_times  # noqa: E402
from torch_density import TorchDensityPenalty  # noqa: E402

BINS = {"adaptec1": 512, "bigblue4": 2048}  # DREAMPlace's bin grids (efield::ispd2005_designs)


def flat_design(spec, target_density, device, dtype):
    """(node sizes, region, bins, counts, pos) in DREAMPlace's layout with fillers."""
    if spec.startswith("synthetic:"):
        _, count, bins = spec.split(":")
        d = efield.generate_synthetic_design(int(count), with_nets=False)
        bins = int(bins)
    else:
        d = efield.ispd2005_standin(spec)
        bins = BINS[spec]
    order = d.dreamplace_order()
    kind = d.kind[order]
    w, h, x, y = d.footprint_width[order], d.footprint_height[order], d.x[order], d.y[order]
    nm, nt = int(np.sum(kind == efield.MOVABLE)), int(np.sum(kind == efield.FIXED))
    xl, yl, xh, yh = d.region
    fw, fh, count, _ = efield.make_fillers((w[:nm], h[:nm]), (w[nm:nm + nt], h[nm:nm + nt], x[nm:nm + nt],
                                           y[nm:nm + nt]), xl, yl, xh, yh, target_density, d.row_height)
    rng = np.random.default_rng(1)
    sx, sy = np.concatenate([w, np.full(count, fw)]), np.concatenate([h, np.full(count, fh)])
    px = np.concatenate([x, rng.uniform(xl, xh - fw, count)])
    py = np.concatenate([y, rng.uniform(yl, yh - fh, count)])
    pos = torch.tensor(np.concatenate([px, py]), dtype=dtype, device=device)
    return {"name": spec, "size_x": sx, "size_y": sy, "region": d.region, "bins": bins, "nm": nm, "nt": nt,
            "nf": int(count), "td": target_density, "pos": pos}


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def per_call_us(fn, device, iters, warmup=5, repeats=5):
    """Median over `repeats` loops of `iters` calls (one sync at the end of each loop), in us."""
    for _ in range(warmup):
        fn()
    sync(device)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        sync(device)
        times.append((time.perf_counter() - t0) / iters * 1e6)
    return statistics.median(times)


def interleaved_us(fns, device, iters, rounds, timed=None, warmup=5):
    """Microseconds per call of each of `fns` (name -> callable), median over `rounds` rounds; a
    round times one loop of `iters` calls of every fn in turn (one sync after each loop), so that a
    slow stretch of the host weighs on all of them alike. `timed` (name -> callable returning its
    own microseconds per call) are called once per round."""
    timed = timed or {}
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    sync(device)
    times = {name: [] for name in (*timed, *fns)}
    for _ in range(rounds):
        for name, fn in timed.items():
            times[name].append(fn())
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            sync(device)
            times[name].append((time.perf_counter() - t0) / iters * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


class _EnergyOnly(torch.autograd.Function):
    """What the op's forward costs without efield: a custom autograd Function that makes a 0-d
    output like `like` (on pos's device), as the op does (efield copies the energy into it)."""

    @staticmethod
    def forward(ctx, pos, like):
        return torch.empty_like(like)

    @staticmethod
    def backward(ctx, grad_output):
        return None, None


_energy_only_apply = super(torch.autograd.Function, _EnergyOnly).apply  # the C++ apply, as the op calls it


class _EnergyOnlyModule(torch.nn.Module):
    """The op's whole shape without efield: a Module whose forward calls _EnergyOnly's C++ apply."""

    def __init__(self, like):
        super().__init__()
        self.like = like

    def forward(self, pos):
        return _energy_only_apply(pos, self.like)


def make_op(f, asynchronous):
    xl, yl, xh, yh = f["region"]
    return ElectricPotential(f["size_x"], f["size_y"], xl, yl, xh, yh, f["bins"], f["bins"], f["nm"], f["nt"], f["nf"],
                             f["td"], pos=f["pos"], asynchronous=asynchronous)


def measure(f, iters, rounds, client_only=False):
    pos = f["pos"]
    device = pos.device
    if device.type == "cuda" or client_only:
        client = client_times(f, iters, rounds)
        if client_only:
            return {"design": f["name"], "cells": f["nm"], "fillers": f["nf"], "bins": f["bins"], "client": client}
    n = len(f["size_x"])
    row = {"design": f["name"], "cells": f["nm"], "fillers": f["nf"], "bins": f["bins"]}
    blocking, asynchronous = make_op(f, False), make_op(f, True)

    # 1. The C++ evaluate (no Python in the loop: profile_stages' median of `iters` evaluates), the
    # extension call from Python without and with the energy's copy into a device tensor, and the
    # op: forward only, forward + backward; blocking and asynchronous.
    system = blocking.system._system
    grad = torch.zeros_like(pos)
    step = n * pos.element_size()
    p, g = pos.data_ptr(), grad.data_ptr()
    stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0
    like = torch.empty((), dtype=pos.dtype, device=device)
    e = like.data_ptr()
    leaf = pos.clone().requires_grad_(True)

    def no_grad(fn):
        def call():
            with torch.no_grad():
                fn(leaf)
        return call

    # 2. Where the forward's overhead goes: PyTorch's own costs of a custom Function and a 0-d
    # tensor, through Function.apply (with PyTorch 2's Python wrapper) and as the op calls it (the
    # C++ apply inside a Module's forward), alone and after each evaluate.
    module = _EnergyOnlyModule(like)
    floor = no_grad(module)

    def floor_after_evaluate():
        system.evaluate_flat(p, g, step, stream, e, 0, False)
        floor()

    timed = {"cpp_evaluate_us": lambda: system.profile(p, p + step, g, g + step, stream, iters)["total_ms"] * 1e3}
    fns = {
        "extension_call_us": lambda: system.evaluate_flat(p, g, step, stream, 0, 0, False),
        "extension_call_energy_us": lambda: system.evaluate_flat(p, g, step, stream, e, 0, False),
        "op_forward_blocking_us": no_grad(blocking),
        "op_forward_backward_blocking_us": lambda: blocking(leaf).backward(),
        "op_forward_async_us": no_grad(asynchronous),
        "op_forward_backward_async_us": lambda: asynchronous(leaf).backward(),
        "torch_empty_us": lambda: torch.empty_like(like),
        "autograd_function_us": no_grad(lambda x: _EnergyOnly.apply(x, like)),
        "autograd_function_c_us": no_grad(lambda x: _energy_only_apply(x, like)),
        "torch_floor_us": floor,
        "floor_after_evaluate_us": floor_after_evaluate,
    }

    row.update(interleaved_us(fns, device, iters, rounds, timed))
    row["torch_floor_in_situ_us"] = row["floor_after_evaluate_us"] - row["extension_call_energy_us"]

    # 3. The pure-PyTorch baseline, and how far its results are from the op's.
    xl, yl, xh, yh = f["region"]
    baseline = TorchDensityPenalty(f["size_x"], f["size_y"], xl, yl, xh, yh, f["bins"], f["bins"], f["nm"], f["nt"],
                                   f["nf"], f["td"], pos)
    row["torch_forward_backward_us"] = per_call_us(lambda: baseline(leaf).backward(), device, max(iters // 5, 3))
    a = leaf.detach().clone().requires_grad_(True)
    ea = blocking(a)
    ea.backward()
    b = leaf.detach().clone().requires_grad_(True)
    eb = baseline(b)
    eb.backward()
    row["energy_relative_difference"] = abs(ea.item() - eb.item()) / abs(eb.item())
    ga, gb = a.grad.double(), b.grad.double()
    row["gradient_cosine"] = float((ga @ gb) / (ga.norm() * gb.norm()))
    row["overhead_forward_us"] = row["op_forward_blocking_us"] - row["cpp_evaluate_us"]
    row["overhead_beyond_floor_us"] = row["op_forward_blocking_us"] - row["floor_after_evaluate_us"]
    row["overhead_forward_backward_us"] = row["op_forward_backward_blocking_us"] - row["cpp_evaluate_us"]
    row["speedup_vs_torch"] = row["torch_forward_backward_us"] / row["op_forward_backward_async_us"]
    if device.type == "cuda":
        row["client"] = client
    return row


CLIENT_COLUMNS = [("C++ evaluate", "cpp_evaluate_us"), ("ElectrostaticSystem.evaluate", "system_evaluate_us"),
                  ("ElectrostaticSystem.evaluate (NumPy)", "system_evaluate_numpy_us"),
                  ("its checked path", "system_evaluate_checked_us"), ("the checks of that path", "system_evaluate_checks_us"),
                  ("compiled op call", "compiled_op_call_us"), ("op fwd (compiled)", "op_compiled_fwd_us"),
                  ("op fwd+bwd (compiled)", "op_compiled_fwd_bwd_us"),
                  ("op fwd+bwd (compiled, CUDA graph)", "op_compiled_fwd_bwd_graph_us"),
                  ("op fwd (Python)", "op_python_fwd_us"), ("op fwd+bwd (Python)", "op_python_fwd_bwd_us"),
                  ("op fwd+bwd (Python, CUDA graph)", "op_python_fwd_bwd_graph_us"),
                  ("PyTorch floor: torch.dot fwd+bwd", "torch_dot_fwd_bwd_us")]


def client_markdown(rows):
    """The client's view (loops timed as a client times them): times and their excess over the C++
    evaluate; columns that no row measured are left out."""
    columns = [(name, key) for name, key in CLIENT_COLUMNS if any(key in r.get("client", {}) for r in rows)]
    out = ["| design | " + " | ".join(name for name, _ in columns) + " |",
           "| --- | " + " | ".join("---" for _ in columns) + " |"]
    for r in rows:
        c = r.get("client")
        if not c:
            continue
        base = c["cpp_evaluate_us"]
        cells = []
        for _, key in columns:
            if key not in c:
                cells.append("n/a")
            elif key in ("cpp_evaluate_us", "system_evaluate_checks_us", "torch_dot_fwd_bwd_us"):  # no evaluate
                cells.append(f"{c[key]:.1f}")
            else:
                cells.append(f"{c[key]:.1f} ({c[key] - base:+.1f})")
        out.append(f"| {r['design']} | " + " | ".join(cells) + " |")
    return out


def markdown(rows, args, device):
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or "CPU"
    commit = os.environ.get("EFIELD_COMMIT") or subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                                               capture_output=True, text=True).stdout.strip()
    out = [f"`bench_ispd/bench_python.py {' '.join(sys.argv[1:])}` at {commit or 'unknown'}, "
           f"{datetime.date.today()}, {name}, PyTorch {torch.__version__}, Python {platform.python_version()}, "
           f"{args.dtype}, target density {args.target_density}. Times per call in microseconds: median of "
           f"{args.rounds} rounds, each timing a loop of {args.iters} calls of every measurement in turn (one sync "
           f"after each loop); the pure-PyTorch baseline: median of 5 loops.", ""]
    if any("client" in r for r in rows):
        clock = "CUDA events" if device.type == "cuda" else "the process's CPU time"
        out += [f"As a client times them ({clock} around each loop; in brackets the excess over the C++ "
                "evaluate):", ""] + client_markdown(rows) + [""]
    rows = [r for r in rows if "cpp_evaluate_us" in r]
    if not rows:
        return "\n".join(out)
    out += ["| design | cells + fillers | bins | C++ evaluate | extension call | ext. call + energy | "
            "op forward (blocking) | overhead | op fwd+bwd (blocking) | overhead | op fwd+bwd (async) | "
            "pure PyTorch fwd+bwd | PyTorch / op |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['design']} | {r['cells']:,} + {r['fillers']:,} | {r['bins']}² | {r['cpp_evaluate_us']:.1f} | "
                   f"{r['extension_call_us']:.1f} | {r['extension_call_energy_us']:.1f} | "
                   f"{r['op_forward_blocking_us']:.1f} | "
                   f"{r['overhead_forward_us']:+.1f} | {r['op_forward_backward_blocking_us']:.1f} | "
                   f"{r['overhead_forward_backward_us']:+.1f} | {r['op_forward_backward_async_us']:.1f} | "
                   f"{r['torch_forward_backward_us']:.1f} | {r['speedup_vs_torch']:.1f}x |")
    out += ["", "PyTorch's share of the forward's overhead, measured alone (us): "
            + "; ".join(f"{r['design']}: a Module calling the C++ apply of a custom autograd.Function that returns a "
                        f"new 0-d tensor {r['torch_floor_us']:.1f} (the Function alone {r['autograd_function_c_us']:.1f}, "
                        f"through Function.apply {r['autograd_function_us']:.1f}; torch.empty_like alone "
                        f"{r['torch_empty_us']:.1f}); after each evaluate it costs {r['torch_floor_in_situ_us']:.1f}; "
                        f"the op's overhead beyond the evaluate with the energy's copy and the floor after it "
                        f"{r['overhead_beyond_floor_us']:+.1f}"
                        for r in rows) + "."]
    out += ["", "Agreement of the op with the pure-PyTorch baseline (same inputs): "
            + "; ".join(f"{r['design']}: energy {r['energy_relative_difference']:.1e} relative, gradient cosine "
                        f"{r['gradient_cosine']:.6f}" for r in rows), ""]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--designs", default="adaptec1,bigblue4",
                    help="comma-separated: adaptec1, bigblue4 (stand-ins) or synthetic:CELLS:BINS")
    ap.add_argument("--target-density", type=float, default=1.0)
    ap.add_argument("--iters", type=int, default=50, help="calls per timed loop")
    ap.add_argument("--rounds", type=int, default=15, help="timed loops of each measurement, interleaved")
    ap.add_argument("--markdown", default="", help="write the table here too")
    ap.add_argument("--client-only", action="store_true",
                    help="only the client's view (CUDA events; on the CPU the process's CPU time): C++ evaluate, "
                         "ElectrostaticSystem.evaluate, the op")
    args = ap.parse_args(argv)
    device = torch.device(args.device)
    rows = []
    for spec in args.designs.split(","):
        f = flat_design(spec, args.target_density, device, getattr(torch, args.dtype))
        rows.append(measure(f, args.iters, args.rounds, args.client_only))
        print(rows[-1], flush=True)
        del f
        if device.type == "cuda":
            torch.cuda.empty_cache()
    text = markdown(rows, args, device)
    print(text)
    if args.markdown:
        pathlib.Path(args.markdown).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
