"""efield.density_timing: what `bench_ispd` measures, from Python: the median time of one
evaluate of the electrostatic density system and of each of its stages on a design (movable
cells in a Gaussian cluster at the centre, sigma 5% of the region, as bench_ispd's `center`
placement; fillers uniformly at random), with its overflow, maximum density and energy.

    r = efield.density_timing.time_density(efield.ispd2005_standin("adaptec1"),
                                           TimingParams(device="cuda", iters=50))
    r["evaluate_ms"], r["profile_ms"], r["stages_ms"]["rasterize_ms"], r["overflow"]

evaluate_ms: the median host time of one blocking evaluate called from Python (the call's
overhead included); profile_ms and stages_ms: the library's profile_stages (one whole evaluate and
each stage timed one by one in C++, median of `iters`).

The bin grid: `bins` when set, DREAMPlace's for a full-size ISPD2005 stand-in (as
efield.ispd2005_standin names it), else the RePlAce/DREAMPlace rule (efield.default_bin_grid).
"""

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from . import _arrays
from .bookshelf import FIXED, MOVABLE, ispd2005_designs
from .system import ElectrostaticSystem, default_bin_grid, make_fillers


@dataclass(frozen=True)
class TimingParams:
    """The timing run's parameters (efield.sweep's parameter names for kind = "evaluate")."""

    device: str = "cpu"          # "cpu", "cuda", "cuda:N"
    dtype: str = "float32"
    target_density: float = 1.0
    iters: int = 50              # timed evaluates (the median is kept)
    warmup: int = 5
    seed: int = 1                # of the start positions
    bins: int = 0                # bins per axis (0: see the module's notes)
    threads: int = 0             # CPU backend threads (0: all)

    def __post_init__(self):
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype!r}")
        if not 0 < self.target_density <= 1:
            raise ValueError(f"target_density must lie in (0, 1], got {self.target_density}")
        for name in ("iters", "warmup", "bins", "threads"):
            if getattr(self, name) < (1 if name == "iters" else 0):
                raise ValueError(f"{name} must be >= {1 if name == 'iters' else 0}, got {getattr(self, name)}")
        _arrays.parse_device(self.device)

    @classmethod
    def names(cls):
        return [f.name for f in dataclasses.fields(cls)]


def _bins(design, movable, params):
    if params.bins:
        return params.bins, params.bins
    for d in ispd2005_designs():  # a full-size stand-in (a scaled one has fewer cells)
        if design.name == d["name"] + "-synthetic" and len(movable[0]) == d["num_movable"]:
            return d["bins"], d["bins"]
    xl, yl, xh, yh = design.region
    return default_bin_grid(movable, xl, yl, xh, yh, params.target_density)


def time_density(design, params):
    """Times the density evaluate on `design` (a BookshelfDesign) with TimingParams; returns a
    JSON-ready dict."""
    t0 = time.perf_counter()
    kind = design.kind
    mov, fix = kind == MOVABLE, kind == FIXED
    mw, mh = design.footprint_width[mov], design.footprint_height[mov]
    fixed = (design.footprint_width[fix], design.footprint_height[fix], design.x[fix], design.y[fix])
    xl, yl, xh, yh = design.region
    fw, fh, count, _ = make_fillers((mw, mh), fixed, xl, yl, xh, yh, params.target_density, design.row_height)
    bx, by = _bins(design, (mw, mh), params)
    es = ElectrostaticSystem((mw, mh), (np.full(count, fw), np.full(count, fh)), fixed, xl=xl, yl=yl, xh=xh, yh=yh,
                             num_bins_x=bx, num_bins_y=by, target_density=params.target_density, dtype=params.dtype,
                             device=params.device, cpu_threads=params.threads)
    rng = np.random.default_rng(params.seed)
    n = len(mw)
    x = np.concatenate([np.clip((xl + xh) / 2 + 0.05 * (xh - xl) * rng.normal(size=n) - mw / 2, xl, xh - mw),
                        xl + rng.uniform(size=count) * max(0.0, xh - xl - fw)])
    y = np.concatenate([np.clip((yl + yh) / 2 + 0.05 * (yh - yl) * rng.normal(size=n) - mh / 2, yl, yh - mh),
                        yl + rng.uniform(size=count) * max(0.0, yh - yl - fh)])
    x, y, gx, gy = _on_device([x, y, np.zeros_like(x), np.zeros_like(y)], params)
    for _ in range(params.warmup):
        es.evaluate(x, y, gx, gy)
    setup = time.perf_counter() - t0
    totals = []
    for _ in range(params.iters):
        t = time.perf_counter()
        r = es.evaluate(x, y, gx, gy)  # blocks until its scalars are on the host
        totals.append((time.perf_counter() - t) * 1e3)
    stages = _stages(es, x, y, gx, gy, params)
    return {"design": design.name, "evaluate_ms": float(np.median(totals)), "profile_ms": stages["total_ms"],
            "stages_ms": stages,
            "overflow": r.overflow, "max_density": r.max_density, "energy": r.energy,
            "counts": {"movable": int(n), "fixed": int(np.count_nonzero(fix)), "fillers": int(count),
                       "bins_x": int(bx), "bins_y": int(by)},
            "backend": es.backend, "setup_seconds": setup, "seconds": time.perf_counter() - t0}


def _on_device(arrays, params):
    """The arrays in params.dtype on params.device (PyTorch tensors for CUDA)."""
    arrays = [np.ascontiguousarray(a, dtype=params.dtype) for a in arrays]
    if params.device == "cpu":
        return arrays
    import torch

    return [torch.from_numpy(a).to(params.device) for a in arrays]


def _stages(es, x, y, gx, gy, params):
    """Median ms of each stage (the library's profile_stages), timed one by one."""
    if params.device == "cpu":
        pointers, stream = [a.ctypes.data for a in (x, y, gx, gy)], 0
    else:
        import torch

        pointers, stream = [a.data_ptr() for a in (x, y, gx, gy)], torch.cuda.current_stream(x.device).cuda_stream
    return es._system.profile(*pointers, stream, params.iters)
