#!/usr/bin/env python3
"""Where the Python path's and the compiled op's time goes on a GPU host (issue 44, item 1): one
short run (well under a minute) that times the pieces of an evaluate as a client times them and
profiles the op's calls, eagerly and replayed from a CUDA graph.

    PYTHONPATH=build-dev/python python3 bench_ispd/profile_python_overhead.py --out $OUT/overhead
    python3 bench_ispd/profile_python_overhead.py --build build-dev --out $OUT/overhead
    PYTHONPATH=build/python python3 bench_ispd/profile_python_overhead.py --device cpu \\
        --design synthetic:2000:32 --out /tmp/overhead         # the CPU parts only

Writes into --out (a folder):
- timings.md / timings.json: microseconds per call, median over rounds; each round times a loop of
  --iters calls of every measurement in turn between two CUDA events (CPU tensors: the process's
  CPU time). A measurement without GPU work (a tensor attribute, the stream query) times the host
  loop, since the second event is recorded when the loop ends. The C++ evaluate is timed twice:
  profile_stages' host-clocked median of single calls (the earlier tables' baseline) and a loop of
  evaluates inside one binding call (evaluate_repeated: no Python between them), timed like the
  others.
- profile_tables.txt: torch.profiler's key_averages of each profiled case (--profile-iters calls),
  sorted by GPU time and by host time: kernels, memcpys, memsets; PyTorch's ops; CUDA runtime calls.
- gpu_timelines.txt: per case, the GPU operations of the profiled calls in time order (start,
  duration, the idle gap before each), the GPU's busy time against the wall span per call, and the
  CUDA runtime and driver calls per call (counts and host time).
- traces.tar.gz: the Chrome traces (chrome://tracing, Perfetto).
"""

import argparse
import datetime
import gzip
import io
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tarfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="", help="the build folder whose python/ holds the efield package")
    ap.add_argument("--out", required=True, help="folder for the results (made if missing)")
    ap.add_argument("--device", default="auto", help="auto (cuda when available), cuda or cpu")
    ap.add_argument("--design", default="adaptec1", help="adaptec1, bigblue4 or synthetic:<cells>:<bins>")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--iters", type=int, default=50, help="calls per timed loop")
    ap.add_argument("--rounds", type=int, default=9, help="timed loops of each measurement, interleaved")
    ap.add_argument("--profile-iters", type=int, default=5, help="calls of each profiled case")
    return ap.parse_args()


args = parse_args()
if args.build:
    sys.path.insert(0, str(pathlib.Path(args.build).resolve() / "python"))
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import efield  # noqa: E402
from efield import _compiled_op, _torch_fast  # noqa: E402
from efield.system import EvaluateResult  # noqa: E402
from efield.torch import ElectricPotential  # noqa: E402

from bench_python import flat_design  # noqa: E402
from op_overhead import fwd_bwd_call, fwd_call, graph_replay  # noqa: E402


def make_op(f, compiled, asynchronous=False):
    """ElectricPotential on design f through the compiled op or the Python path."""
    xl, yl, xh, yh = f["region"]
    ElectricPotential.use_compiled_op = compiled
    try:
        return ElectricPotential(f["size_x"], f["size_y"], xl, yl, xh, yh, f["bins"], f["bins"], f["nm"], f["nt"],
                                 f["nf"], f["td"], pos=f["pos"], asynchronous=asynchronous)
    finally:
        ElectricPotential.use_compiled_op = _compiled_op.AVAILABLE


class LoopTimer:
    """Microseconds per call of loops `loop(n)` (n calls each), as a client times them."""

    def __init__(self, cuda):
        self.cuda = cuda
        if cuda:
            self.start = torch.cuda.Event(enable_timing=True)
            self.end = torch.cuda.Event(enable_timing=True)

    def __call__(self, loop, n):
        if self.cuda:
            self.start.record()
            loop(n)
            self.end.record()
            self.end.synchronize()
            return self.start.elapsed_time(self.end) * 1e3 / n
        t0 = time.process_time()
        loop(n)
        return (time.process_time() - t0) * 1e6 / n


def repeat(fn):
    def loop(n):
        for _ in range(n):
            fn()
    return loop


def build_cases(f, cuda):
    """(loops: name -> (loop(n), what it is), timed: name -> callable giving its own us per call,
    profiled: name -> one call, notes, held: the tensors whose raw pointers the calls use, to be
    kept alive while they run)."""
    pos = f["pos"]
    n = len(f["size_x"])
    dev = pos.get_device()
    # A system of its own for the evaluates (the ops' own systems evaluate into other gradient
    # buffers), every evaluate on the same four pointers: pos's halves and a flat gradient's.
    es = make_op(f, False).system
    system = es._system
    python_op = make_op(f, False)
    x, y = pos[:n], pos[n:]
    grad, grad2 = torch.zeros_like(pos), torch.zeros_like(pos)
    gx, gy = grad[:n], grad[n:]
    gx2, gy2 = grad2[:n], grad2[n:]
    p, py_, g, gyp = x.data_ptr(), y.data_ptr(), gx.data_ptr(), gy.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream if cuda else 0
    leaf = pos.clone().requires_grad_(True)
    like = torch.empty((), dtype=pos.dtype, device=pos.device)
    ones = torch.ones_like(pos)
    notes = []
    loops, profiled = {}, {}

    def add(name, fn, what, profile=False):
        loops[name] = (repeat(fn), what)
        if profile:
            profiled[name] = fn

    def fwd_bwd(op):
        return fwd_bwd_call(op, leaf)

    def fwd(op):
        return fwd_call(op, leaf)

    def dot_fwd_bwd():
        leaf.grad = None
        torch.dot(leaf, ones).backward()

    # -- The evaluate: C++, the bare binding calls, the Python method. All on the same pointers
    # (the C++ pipeline captures its graph again whenever they change), except the *_alternating
    # ones, which measure exactly that cost.
    repeated = getattr(system, "evaluate_repeated", None)
    if repeated is not None:
        loops["cpp_evaluate_loop"] = (lambda k: repeated(p, py_, g, gyp, stream, k, False),
                                      "C++ evaluate, k calls inside one binding call (no Python between them)")
        if cuda:
            loops["cpp_evaluate_async_loop"] = (
                lambda k: repeated(p, py_, g, gyp, stream, k, True),
                "C++ evaluate_async (the captured op's evaluate: 64-bit bins when deterministic), k in one call")
            profiled["cpp_evaluate"] = lambda: repeated(p, py_, g, gyp, stream, 1, False)
            profiled["cpp_evaluate_async"] = lambda: repeated(p, py_, g, gyp, stream, 1, True)
    else:
        notes.append("this build's binding has no evaluate_repeated: the C++ loop is not timed")
    bound = system.evaluate_pointers
    add("binding_evaluate_pointers", lambda: bound(p, py_, g, gyp, stream, 1.0, False),
        "the fast path's binding call alone (pointers ready; pybind11, GIL release, lock, device guard, tuple)")
    flat = system.evaluate_flat
    step = n * pos.element_size()
    add("binding_evaluate_flat", lambda: flat(p, g, step, stream, 0, 0, False),
        "the Python op's binding call, no energy (adds cudaStreamIsCapturing)")
    add("binding_evaluate_flat_energy", lambda: flat(p, g, step, stream, like.data_ptr(), 0, False),
        "the same writing the energy into a 0-d device tensor (pinned slot, cudaMemcpyAsync)")
    es.evaluate(x, y, gx, gy)  # the first fitting call picks the C++ path for tensors where built
    call = es._tensor_call
    add("python_evaluate", lambda: es.evaluate(x, y, gx, gy),
        "ElectrostaticSystem.evaluate(x, y, gx, gy): the client's call"
        + (" (tensors read in C++: efield._torch_ops)" if call else " (tensors checked in Python)"), profile=True)
    if call:
        add("tensor_call", lambda: call(x, y, gx, gy, 1.0, False),
            "its C++ path for tensors alone (efield._torch_ops.evaluate_tensors: checks, stream, evaluate)")

    def python_checks():
        return EvaluateResult(*bound(*_torch_fast.pointers(es, x, y, gx, gy), 1.0, False), gx, gy)
    add("python_evaluate_python_checks", python_checks,
        "the same through the tensors' checks in Python (efield/_torch_fast.py) and evaluate_pointers")
    flip = [0]
    pairs = ((g, gyp), (gx2.data_ptr(), gy2.data_ptr()))

    def alternating():
        flip[0] ^= 1
        a, b = pairs[flip[0]]
        bound(p, py_, a, b, stream, 1.0, False)
    add("binding_evaluate_alternating", alternating,
        "evaluate_pointers with two gradient buffers in turn (a graph capture per call where the pipeline "
        "keeps one graph per choice)")
    # One more buffer than the graphs kept: a capture per call; on a system of its own, whose
    # captures evict no graph of the others.
    rotation = [torch.zeros_like(pos) for _ in range(5)]
    turn = [0]
    rotating_bound = make_op(f, False).system._system.evaluate_pointers

    def rotating():
        turn[0] = (turn[0] + 1) % len(rotation)
        r = rotation[turn[0]]
        rotating_bound(p, py_, r.data_ptr(), r.data_ptr() + step, stream, 1.0, False)
    add("binding_evaluate_capturing", rotating,
        "evaluate_pointers with five gradient buffers in turn: a graph capture and instantiation per call")

    # -- The pieces of the Python evaluate, host only.
    add("torch_fast_pointers", lambda: _torch_fast.pointers(es, x, y, gx, gy),
        "efield/_torch_fast.pointers: the tensor checks and pointers of the fast path")
    r = bound(p, py_, g, gyp, stream, 1.0, False)
    add("evaluate_result", lambda: EvaluateResult(*r, gx, gy), "making the EvaluateResult from the tuple")
    add("tensor_get_device", x.get_device, "one tensor attribute: get_device()")
    add("tensor_stride", x.stride, "stride()")
    add("tensor_data_ptr", x.data_ptr, "data_ptr()")
    if cuda:
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            add("torch_raw_stream", lambda: raw(dev), "torch._C._cuda_getCurrentRawStream (what the fast path asks)")
        add("torch_current_stream", lambda: torch.cuda.current_stream(dev).cuda_stream,
            "torch.cuda.current_stream().cuda_stream (public API)")
        add("cuda_synchronize", torch.cuda.synchronize, "torch.cuda.synchronize() of an idle device")
        add("binding_wait_result", system.wait_result,
            "ElectrostaticSystem.wait_result binding (lock, device guard, cudaEventSynchronize of a done event)")
    add("torch_empty_0d", lambda: torch.empty_like(like), "torch.empty_like of a 0-d tensor (caching allocator)")

    # -- The ops: forward, forward + backward, eager and from a CUDA graph; PyTorch's floor.
    add("torch_dot_fwd_bwd", dot_fwd_bwd, "PyTorch's floor: torch.dot(leaf, ones) forward + backward",
        profile=True)
    add("op_python_fwd", fwd(python_op), "ElectricPotential (Python path) forward, no_grad")
    add("op_python_fwd_bwd", fwd_bwd(python_op), "ElectricPotential (Python path) forward + backward",
        profile=True)
    graphs = {}
    if _compiled_op.AVAILABLE:
        compiled = make_op(f, True)
        handle = compiled._evaluator.handle
        forward = _compiled_op.electric_potential_forward
        add("compiled_op_call", lambda: forward(pos, handle),
            "torch.ops.efield.electric_potential_forward(pos, handle), no autograd")
        kept = [forward(pos, handle)]

        def call_kept():  # the previous output alive: its gradient buffer cannot be reused
            kept[0] = forward(pos, handle)
        add("compiled_op_call_keep", call_kept,
            "the same, the previous output kept alive (gradients from two blocks in turn: see "
            "binding_evaluate_alternating)")
        add("op_compiled_fwd", fwd(compiled), "ElectricPotential (compiled op) forward, no_grad")
        add("op_compiled_fwd_bwd", fwd_bwd(compiled), "ElectricPotential (compiled op) forward + backward",
            profile=True)
        if cuda:
            compiled_async = make_op(f, True, asynchronous=True)
            add("op_compiled_async_fwd", fwd(compiled_async), "compiled op, asynchronous=True, forward, no_grad")
            add("op_compiled_async_fwd_bwd", fwd_bwd(compiled_async),
                "compiled op, asynchronous=True (no host wait), forward + backward", profile=True)
            graphs["graph_op_compiled_fwd_bwd"] = (compiled,
                                                   "compiled op forward + backward replayed from a CUDA graph")
            graphs["graph_op_compiled_fwd"] = (compiled, "compiled op forward alone replayed from a CUDA graph")
    else:
        notes.append(f"compiled op not measured: {_compiled_op.REASON}")
    if cuda:
        graphs["graph_op_python_fwd_bwd"] = (python_op, "Python path forward + backward replayed from a CUDA graph")
        for name, (op, what) in graphs.items():
            try:
                replay = graph_forward(op, pos) if name.endswith("_fwd") else graph_replay(op, pos)
            except RuntimeError as e:
                notes.append(f"{name}: capture failed: {e}")
                continue
            add(name, replay, what, profile=True)
    timed = {}
    if hasattr(system, "profile"):
        timed["cpp_evaluate_host_median"] = (
            lambda: system.profile(p, py_, g, gyp, stream, args.iters)["total_ms"] * 1e3,
            "C++ evaluate: profile_stages' host-clocked median of single calls (the earlier tables' baseline)")
    return loops, timed, profiled, notes, (pos, grad, grad2, like, ones, leaf)


def graph_forward(op, pos):
    """A CUDA graph of the op's forward alone (no_grad), and the call that replays it."""
    static = pos.detach().clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(3):
            op(static)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph, stream=s):
        op(static)
    return graph.replay


def time_all(loops, timed, cuda):
    timer = LoopTimer(cuda)
    for loop, _ in loops.values():
        loop(3)
    if cuda:
        torch.cuda.synchronize()
    samples = {name: [] for name in (*timed, *loops)}
    for _ in range(args.rounds):
        for name, (fn, _) in timed.items():
            samples[name].append(fn())
        for name, (loop, _) in loops.items():
            samples[name].append(timer(loop, args.iters))
    return {name: {"median_us": statistics.median(s), "min_us": min(s), "max_us": max(s)}
            for name, s in samples.items()}


# ---- torch.profiler ---------------------------------------------------------------------------

GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation")
HOST_API_CATEGORIES = ("cuda_runtime", "cuda_driver")


def sort_keys(cuda):
    """key_averages sort keys of this PyTorch: (by GPU time or None, by host time)."""
    return ("self_cuda_time_total" if cuda else None), "self_cpu_time_total"


def table(averages, key, rows=45):
    for k in (key, key.replace("cuda", "device")):
        try:
            return averages.table(sort_by=k, row_limit=rows, max_name_column_width=70)
        except (AttributeError, KeyError, ValueError, RuntimeError):
            continue
    return averages.table(row_limit=rows, max_name_column_width=70)


def profile_case(name, fn, cuda, trace_dir):
    from torch.profiler import ProfilerActivity, profile, record_function

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    for _ in range(3):
        fn()
    if cuda:
        torch.cuda.synchronize()
    with profile(activities=activities) as prof:
        for i in range(args.profile_iters):
            with record_function(f"call {i}"):
                fn()
        if cuda:
            torch.cuda.synchronize()
    path = trace_dir / f"{name}.json"
    prof.export_chrome_trace(str(path))
    averages = prof.key_averages()
    by_gpu, by_host = sort_keys(cuda)
    text = [f"=== {name}: {args.profile_iters} calls"]
    if by_gpu:
        text += ["--- by GPU time", table(averages, by_gpu)]
    text += ["--- by host time", table(averages, by_host)]
    return "\n".join(text), timeline(name, path)


def timeline(name, path):
    """The trace's GPU operations in time order, and its CUDA API calls per profiled call."""
    with open(path) as fh:
        trace = json.load(fh)
    if isinstance(trace, dict):  # PyTorch 2's traces; 1.13's CPU-only trace is the bare list
        trace = trace.get("traceEvents", [])
    events = [e for e in trace if isinstance(e, dict) and e.get("ph") == "X"]
    gpu = sorted((e for e in events if e.get("cat") in GPU_CATEGORIES[:3]), key=lambda e: float(e["ts"]))
    api = [e for e in events if e.get("cat") in HOST_API_CATEGORIES]
    calls = [e for e in events if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("call ")]
    k = max(args.profile_iters, 1)
    out = [f"=== {name}: {args.profile_iters} calls"]
    detail = []
    if calls:
        first = min(float(e["ts"]) for e in calls)
        last = max(float(e["ts"]) + float(e.get("dur", 0)) for e in calls)
        out.append(f"host span of the calls: {(last - first) / k:.1f} us per call")
    if gpu:
        t0 = float(gpu[0]["ts"])
        end = float(gpu[-1]["ts"]) + float(gpu[-1].get("dur", 0))
        busy = sum(float(e.get("dur", 0)) for e in gpu)
        out.append(f"GPU: {len(gpu) / k:.1f} operations, busy {busy / k:.1f} us per call; first to last "
                   f"{(end - t0) / k:.1f} us per call (the rest of the span idle)")
        detail.append(f"GPU operations in time order:\n{'start us':>10} {'dur us':>8} {'gap us':>8}  stream  name")
        prev_end = t0
        for e in gpu:
            ts, dur = float(e["ts"]), float(e.get("dur", 0))
            stream = e.get("args", {}).get("stream", "")
            detail.append(f"{ts - t0:10.1f} {dur:8.1f} {ts - prev_end:8.1f}  {str(stream):>6}  {str(e['name'])[:110]}")
            prev_end = max(prev_end, ts + dur)
    else:
        out.append("no GPU operations in the trace")
    if api:
        counts = {}
        for e in api:
            c = counts.setdefault(e["name"], [0, 0.0])
            c[0] += 1
            c[1] += float(e.get("dur", 0))
        out.append("CUDA runtime/driver calls per profiled call (count, host us):")
        for api_name, (count, dur) in sorted(counts.items(), key=lambda kv: -kv[1][1])[:14]:
            out.append(f"  {count / k:6.1f}  {dur / k:8.1f}  {api_name}")
    return "\n".join(out), "\n".join(out + detail)


def environment(cuda):
    env = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "python": platform.python_version(), "torch": torch.__version__, "design": args.design,
           "dtype": args.dtype, "iters": args.iters, "rounds": args.rounds,
           "compiled_op": _compiled_op.AVAILABLE, "efield": getattr(efield, "__version__", "?")}
    commit = os.environ.get("EFIELD_COMMIT")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                                    text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit = ""
    env["commit"] = commit or "unknown"
    env["device"] = torch.cuda.get_device_name() if cuda else platform.processor() or "cpu"
    return env


def main():
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cuda = (args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available()))
    if cuda and not torch.cuda.is_available():
        sys.exit("--device cuda: PyTorch sees no CUDA device")
    if cuda and efield.cuda_device_count() == 0:
        sys.exit("--device cuda: efield sees no CUDA device (a build without CUDA?)")
    device = torch.device("cuda" if cuda else "cpu")
    t_start = time.perf_counter()
    f = flat_design(args.design, 1.0, device, getattr(torch, args.dtype))
    loops, timed, profiled, notes, held = build_cases(f, cuda)
    env = environment(cuda)
    env["cells"], env["fillers"], env["bins"] = f["nm"], f["nf"], f["bins"]
    times = time_all(loops, timed, cuda)
    base = times.get("cpp_evaluate_loop", times.get("cpp_evaluate_host_median"))["median_us"]
    what = {name: w for name, (_, w) in {**loops, **timed}.items()}
    lines = [f"# Per-call costs: {args.design} ({f['nm']} cells + {f['nf']} fillers, {f['bins']}^2 bins, {args.dtype})",
             "", " ".join(f"{k}={v}" for k, v in env.items()), "",
             f"Microseconds per call, median (min-max) of {args.rounds} rounds of {args.iters} calls; "
             f"excess over cpp_evaluate_loop ({base:.1f} us) where the call evaluates.", "",
             "| measurement | us per call | min-max | excess | what |", "| --- | --- | --- | --- | --- |"]
    evaluating = ("cpp_", "binding_evaluate", "python_evaluate", "compiled_op", "op_", "graph_op")
    for name, t in times.items():
        excess = f"{t['median_us'] - base:+.1f}" if name.startswith(evaluating) else ""
        lines.append(f"| {name} | {t['median_us']:.2f} | {t['min_us']:.2f}-{t['max_us']:.2f} | {excess} | "
                     f"{what.get(name, '')} |")
    lines += [""] + [f"- note: {n}" for n in notes]
    (out / "timings.md").write_text("\n".join(lines) + "\n")
    (out / "timings.json").write_text(json.dumps({"environment": env, "times_us": times, "notes": notes}, indent=1))

    trace_dir = out / "traces"
    trace_dir.mkdir(exist_ok=True)
    tables, summaries, timelines = [], [], []
    for name, fn in profiled.items():
        try:
            t, (summary, tl) = profile_case(name, fn, cuda, trace_dir)
        except Exception as e:  # a profiler that cannot run here: the timings above still stand
            t = summary = tl = f"=== {name}: profiling failed: {type(e).__name__}: {e}"
        tables.append(t)
        summaries.append(summary)
        timelines.append(tl)
    (out / "profile_tables.txt").write_text("\n\n".join(tables) + "\n")
    (out / "gpu_timelines.txt").write_text("\n\n".join(timelines) + "\n")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for p in sorted(trace_dir.glob("*.json")):
            tar.add(p, arcname=p.name)
    (out / "traces.tar.gz").write_bytes(gzip.compress(buffer.getvalue()))
    for p in trace_dir.glob("*.json"):
        p.unlink()
    trace_dir.rmdir()
    print("\n\n".join(summaries), flush=True)
    print("\n" + "\n".join(lines), flush=True)  # last: what a log's tail shows
    print(f"done in {time.perf_counter() - t_start:.1f} s; results in {out}", flush=True)


if __name__ == "__main__":
    main()
