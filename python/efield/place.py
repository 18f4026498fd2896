"""efield.place: a reference global placer in PyTorch with efield's density op (imports torch).

    import efield, efield.place
    r = efield.place.global_place("ibm01/ibm01.aux", device="cuda", target_density=0.9)
    r.hpwl, r.overflow, r.iterations, r.seconds, r.stage_seconds, r.density_weight
    x, y = r.node_x, r.node_y                  # lower-left corners, indexed like the design's nodes
    r.record()                                 # the scalars and traces as a JSON-ready dict

The design is a Bookshelf .aux path or an efield.BookshelfDesign (efield.load_bookshelf,
efield.generate_synthetic_design). The method (DREAMPlace's, written with torch ops;
examples/cpp/global_place does the same in C++):
- Cells in DREAMPlace's layout pos = [x..., y...]: movable nodes, fixed terminals, I/O terminals
  (terminal_NI), then fillers (efield.make_fillers); the bin grid of efield.default_bin_grid.
- Start: movable cells at the region's centre with a normal spread of 0.1% of its size, fillers
  uniformly at random.
- Wirelength: ePlace's weighted-average model over pins (nets of 2 to 100 pins), smoothing
  gamma = 4 (bx + by) 10^((overflow - 0.1) 20/9 - 1); its gradient through torch.autograd.
- Density: efield.torch.ElectricPotential (the energy; its gradient is DREAMPlace's field estimate).
- Gradient: (grad WL + lambda grad D) / max(1, pins + lambda area) per node (DREAMPlace's
  preconditioner), zero for fixed nodes.
- Density weight: lambda_0 = 8e-5 |grad WL|_1 / |grad D|_1, then lambda *= mu each iteration with
  the HPWL change dH: mu = 1.05 max(0.9999^k, 0.98) when dH < 0, else
  1.05 clamp(1.05^(-dH / ref), 0.95, 1.05), ref = 3.5e5 scaled by row height / 12.
- Optimizer: ePlace's Nesterov method with Lipschitz step prediction (up to 10 tries a step);
  positions are kept inside the region.
- Stop at overflow <= target_overflow or after max_iters.

Stage times (PlaceResult.stage_seconds) are host wall-clock seconds per step of the loop; on CUDA
the device work is counted in the step that waits for it (the density op and HPWL read results).
"""

import dataclasses
import math
import pathlib
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch

from .bookshelf import BookshelfDesign, load_bookshelf
from .torch import ElectricPotential
from ._placement_model import Placement


@dataclass(frozen=True)
class PlaceParams:
    """The placer's parameters (all keyword; efield.sweep's parameter names)."""

    device: str = "cpu"              # "cpu", "cuda", "cuda:N"
    dtype: str = "float32"           # "float32" or "float64"
    target_density: float = 1.0      # in (0, 1]
    target_overflow: float = 0.07    # stop when the overflow reaches it
    max_iters: int = 1000
    seed: int = 1                    # of the start positions
    threads: int = 0                 # CPU threads of torch and of the density op (0: their defaults)
    deterministic: bool = True       # the density op's deterministic accumulation
    macro_mask: bool = False         # DREAMPlace's movable macros take td as their density ratio
    loop: str = "eager"              # "eager" (the host loop), "device", "graph", "compile+graph" (efield/_device_loop.py)

    def __post_init__(self):
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be float32 or float64, got {self.dtype!r}")
        if not 0 < self.target_density <= 1:
            raise ValueError(f"target_density must lie in (0, 1], got {self.target_density}")
        if self.max_iters < 1:
            raise ValueError(f"max_iters must be >= 1, got {self.max_iters}")
        if self.loop not in ("eager", "device", "graph", "compile+graph"):
            raise ValueError(f"loop must be eager, device, graph or compile+graph, got {self.loop!r}")
        if self.threads < 0:
            raise ValueError(f"threads must be >= 0, got {self.threads}")
        torch.device(self.device)  # raises for a malformed device name

    @classmethod
    def names(cls):
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def of(cls, params=None, **overrides):
        """params (a PlaceParams, a dict or None) with overrides; an unknown name raises TypeError
        naming it."""
        base = params if isinstance(params, PlaceParams) else cls(**(params or {}))
        unknown = sorted(set(overrides) - set(cls.names()))
        if unknown:
            raise TypeError(f"unknown placer parameter(s) {', '.join(unknown)}; known: {', '.join(cls.names())}")
        return dataclasses.replace(base, **overrides)


@dataclass
class PlaceResult:
    """What global_place returns: the final positions and the run's record."""

    design: str
    iterations: int
    evaluations: int
    hpwl: float
    overflow: float
    converged: bool
    seconds: float                      # the loop, setup excluded
    setup_seconds: float                # design tensors, fillers, the density op
    stage_seconds: Dict[str, float]     # the loop's steps: wirelength_model, density, backward, hpwl, optimizer
    density_weight: List[float]         # lambda after each iteration (index 0: the initial weight)
    overflow_trace: List[float]         # overflow after each iteration
    counts: Dict[str, int]              # movable, terminals, fillers, nets, bins_x, bins_y
    params: PlaceParams
    placement: Optional[Placement] = field(default=None, repr=False)
    position: Optional[torch.Tensor] = field(default=None, repr=False)  # pos in the placement's layout

    @property
    def node_x(self):
        return self.placement.node_positions(self.position)[0]

    @property
    def node_y(self):
        return self.placement.node_positions(self.position)[1]

    def record(self):
        """The run as plain JSON-ready values (no positions)."""
        out = {k: getattr(self, k) for k in ("design", "iterations", "evaluations", "hpwl", "overflow", "converged",
                                               "seconds", "setup_seconds", "stage_seconds", "density_weight",
                                               "overflow_trace", "counts")}
        out["params"] = dataclasses.asdict(self.params)
        return out


class _Stopwatch:
    """Seconds per named step, summed over the run."""

    def __init__(self):
        self.seconds = {}
        self._last = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._last
        self._last = now


class GlobalPlacer:
    """The placer's state on one Placement: the density op and the steps of the loop."""

    def __init__(self, placement, params, stopwatch=None):
        p = placement
        self.p = p
        self.params = params
        self.watch = stopwatch or _Stopwatch()
        xl, yl, xh, yh = p.region
        self.op = ElectricPotential(p.size_x, p.size_y, xl, yl, xh, yh, p.bins[0], p.bins[1], p.num_movable,
                                    p.num_terminals, p.num_fillers, params.target_density,
                                    deterministic=params.deterministic, cpu_threads=params.threads, pos=p.start,
                                    movable_macro_mask=p.macro_mask if params.macro_mask else None)
        self.base_gamma = 4.0 * (p.bin_size[0] + p.bin_size[1])
        self.units = p.row_height / 12.0  # DREAMPlace's length constants are in ISPD2005 units (rows 12 high)
        self.evaluations = 0

    def gamma_for(self, overflow):
        return self.base_gamma * 10 ** ((overflow - 0.1) * 20.0 / 9.0 - 1.0)

    def gradient(self, v, lam, gamma):
        """Preconditioned gradient of wl + lam * density at v (the density op's overflow is read
        from self.op after it)."""
        self.evaluations += 1
        w = self.watch
        w.lap("optimizer")
        pos = v.detach().requires_grad_(True)
        wl = self.p.wirelength(pos, gamma)
        w.lap("wirelength_model")
        density = self.op(pos)
        w.lap("density")
        (wl + lam * density).backward()
        g = pos.grad
        g = g / torch.clamp(self.p.pins_per_node + lam * self.p.pos_charge, min=1.0)
        g = torch.where(self.p.moving, g, torch.zeros_like(g))
        w.lap("backward")
        return g

    def initial_density_weight(self, v, gamma):
        pos = v.detach().requires_grad_(True)
        self.p.wirelength(pos, gamma).backward()
        wl = pos.grad.abs().sum()
        pos.grad = None
        self.op(pos).backward()
        density = pos.grad.abs().sum()
        return float(8e-5 * wl / density) if density > 0 else 8e-5

    def clamp(self, v):
        return torch.where(self.p.moving, torch.minimum(torch.maximum(v, self.p.lower), self.p.upper), v)

    def first_step_length(self, v, g, lam, gamma):
        """The first step length from a small plain gradient step: alpha = |dv| / |dg|."""
        step0 = 0.01 * self.units
        trial = self.clamp(v - step0 * g / g.abs().max().clamp_min(1e-30))
        g_trial = self.gradient(trial, lam, gamma)
        return float((trial - v).norm() / (g_trial - g).norm().clamp_min(1e-30))

    def nesterov_step(self, u, v, g, a, alpha, lam, gamma):
        """One Nesterov step with Lipschitz step prediction (up to 10 tries): returns
        (u, v, g, a, alpha) after it."""
        a_next = (1 + math.sqrt(4 * a * a + 1)) / 2
        coef = (a - 1) / a_next
        for tries in range(1, 11):
            u_new = self.clamp(v - alpha * g)
            v_new = self.clamp(u_new + coef * (u_new - u))
            g_new = self.gradient(v_new, lam, gamma)
            change = float((g_new - g).norm())
            predicted = float((v_new - v).norm()) / change if change > 0 else alpha
            accept = predicted > 0.95 * alpha or tries == 10
            alpha = predicted
            if accept:
                break
        return u_new, v_new, g_new, a_next, alpha

    def next_density_weight(self, lam, hpwl_change, k):
        """lambda after iteration k from the HPWL change of that iteration."""
        if hpwl_change < 0:
            return lam * (1.05 * max(0.9999 ** k, 0.98))
        ref_hpwl = 3.5e5 * self.units
        return lam * (1.05 * min(max(1.05 ** (-hpwl_change / ref_hpwl), 0.95), 1.05))

    def hpwl(self, u):
        self.watch.lap("optimizer")
        h = self.p.hpwl(u)
        self.watch.lap("hpwl")
        return h

    def run(self, report=0, log=print):
        """Places from the start; returns (u, record dict)."""
        if self.params.loop != "eager":
            from ._device_loop import run_device_loop

            return run_device_loop(self, report, log)
        prm, p = self.params, self.p
        t0 = time.perf_counter()
        self.watch.lap("setup")
        gamma = self.gamma_for(1.0)
        lam = self.initial_density_weight(p.start, gamma)
        u = v = p.start.clone()
        g = self.gradient(v, lam, gamma)
        overflow = self.op.overflow
        alpha = self.first_step_length(v, g, lam, gamma)
        a = 1.0
        hpwl = previous_hpwl = self.hpwl(u)
        gamma = self.gamma_for(overflow)
        weights, overflows = [lam], []
        k = 0
        for k in range(1, prm.max_iters + 1):
            u, v, g, a, alpha = self.nesterov_step(u, v, g, a, alpha, lam, gamma)
            overflow = self.op.overflow
            hpwl = self.hpwl(u)
            if not math.isfinite(hpwl):
                raise RuntimeError(f"global placement diverged at iteration {k}")
            gamma = self.gamma_for(overflow)
            lam = self.next_density_weight(lam, hpwl - previous_hpwl, k)
            previous_hpwl = hpwl
            weights.append(lam)
            overflows.append(overflow)
            if report and (k == 1 or k % report == 0):
                log(f"iteration {k:5d}  hpwl {hpwl:.6e}  overflow {overflow:.4f}  density weight {lam:.3e}  "
                    f"gamma {gamma:.3e}")
            if overflow <= prm.target_overflow:
                break
        self.watch.lap("optimizer")
        return u, {"iterations": k, "hpwl": hpwl, "overflow": overflow, "converged": overflow <= prm.target_overflow,
                   "evaluations": self.evaluations, "seconds": time.perf_counter() - t0, "density_weight": weights,
                   "overflow_trace": overflows}


def load_design(design):
    """A BookshelfDesign as is; a path (str or pathlib.Path) to a .aux file loaded."""
    if isinstance(design, BookshelfDesign):
        return design
    if isinstance(design, (str, pathlib.Path)):
        return load_bookshelf(design)
    raise TypeError(f"design must be a BookshelfDesign or a .aux path, got {type(design).__name__}")


def prepare(design, params):
    """(Placement, GlobalPlacer) for a design and PlaceParams, before any iteration."""
    if params.threads:
        torch.set_num_threads(params.threads)
    watch = _Stopwatch()
    placement = Placement(load_design(design), torch.device(params.device), getattr(torch, params.dtype),
                          params.target_density, params.seed)
    return placement, GlobalPlacer(placement, params, watch)


def global_place(design, params=None, *, report=0, log=print, **overrides):
    """Places `design` (a .aux path or a BookshelfDesign) with PlaceParams `params` and keyword
    overrides (device=, target_density=, ...); prints progress through `log` every `report`
    iterations (0: never). Returns a PlaceResult."""
    params = PlaceParams.of(params, **overrides)
    t0 = time.perf_counter()
    design = load_design(design)
    placement, placer = prepare(design, params)
    setup = time.perf_counter() - t0
    position, r = placer.run(report, log)
    stages = {k: v for k, v in placer.watch.seconds.items() if k != "setup"}
    p = placement
    counts = {"movable": p.num_movable, "terminals": p.num_terminals, "fillers": p.num_fillers, "nets": p.num_nets,
              "bins_x": int(p.bins[0]), "bins_y": int(p.bins[1])}
    return PlaceResult(design=design.name, iterations=r["iterations"], evaluations=r["evaluations"], hpwl=r["hpwl"],
                       overflow=r["overflow"], converged=r["converged"], seconds=r["seconds"], setup_seconds=setup,
                       stage_seconds=stages, density_weight=r["density_weight"], overflow_trace=r["overflow_trace"],
                       counts=counts, params=params, placement=placement, position=position)


def save_png(placement, position, path, title):
    """A placement (PlaceResult.placement, .position) as rectangles: movable cells blue, fixed
    nodes grey, fillers left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.collections import PolyCollection

    p = placement
    n, nm, nt = p.num_nodes, p.num_movable, p.num_terminals
    xy = position.detach().cpu().double().numpy()
    x, y = xy[:n], xy[n:]
    xl, yl, xh, yh = p.region
    fig, ax = plt.subplots(figsize=(8, 8 * (yh - yl) / (xh - xl)), dpi=100)

    def boxes(idx):
        x0, y0, x1, y1 = x[idx], y[idx], x[idx] + p.size_x[idx], y[idx] + p.size_y[idx]
        return np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                         np.stack([x0, y1], 1)], 1)

    ax.add_collection(PolyCollection(boxes(np.arange(nm, nm + nt)), facecolors="0.6", edgecolors="0.3",
                                     linewidths=0.2))
    ax.add_collection(PolyCollection(boxes(np.arange(nm)), facecolors="tab:blue", edgecolors="none", alpha=0.6))
    ax.set_xlim(xl, xh)
    ax.set_ylim(yl, yh)
    ax.set_aspect("equal")
    ax.set_title(title)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
