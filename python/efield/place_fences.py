"""efield.place_fences: global placement of a fence-region design with efield.MultiFieldSystem
(DREAMPlace 3.0's multi-electrostatics; imports torch). examples/cpp/global_place --fences does
the same in C++.

    import efield, efield.place_fences
    d = efield.generate_synthetic_design(3000, num_fixed_macros=8, num_io_pads=40, num_fences=2)
    r = efield.place_fences.fence_global_place(d, report=50)
    r.overflow          # per field: the K fences, then the default field
    r.outside           # per fence: its cells not inside it (0 when the placement keeps the fences)

The method is efield.place's (weighted-average wirelength, ePlace's Nesterov method, DREAMPlace's
preconditioner and start) with one density field per fence and one for the other cells, all in one
MultiFieldSystem.evaluate:
- Fields: efield.make_fence_fields (field k sees everything outside fence k as blockage; the
  default field sees the fences). Fillers per field from efield.make_region_fillers, a fence's
  sized from the part of it fixed cells leave free (DREAMPlace's rule counts the covered part
  too, and the fence's cells and fillers then need more room than it has).
- Density term: field k adds lambda_k E_k (1 + q E_k / E0_k) (q = 1000, E0_k its first energy).
- Weights: DREAMPlace 3.0's rule with fences: all start equal, sum_k lambda_k |grad E_k|_1 =
  8e-5 |grad WL|_1; each iteration u_k grows by a step along (phi_k + q phi_k^2), normalised,
  with phi_k = E_k / E0_k, lambda_k = min(u_k (1 + 2 q phi_k), 10), the step growing 3-4 % an
  iteration. A field freezes for good once its overflow is below target_overflow (its cells
  stay, its weight stays); placement ends when all are frozen.
- Fenced cells start inside their fence and move within its bounding box; at the end, those not
  inside it (across an edge, in the notch of an L) move to the nearest place inside, and the
  fields are evaluated again there (result.outside_before_snap counts them).
"""

import math
import time
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import torch

from .bookshelf import FIXED, MOVABLE
from .multi_field import MultiFieldSystem, make_fence_fields
from .place import GlobalPlacer, PlaceParams, _Stopwatch, load_design
from .system import make_region_fillers
from ._placement_model import Placement

QUADRATIC = 1000.0
MAX_WEIGHT = 10.0


def _covered_area(rects):
    """Area of the union of rectangles (rows xl, yl, xh, yh), on the grid of their edges."""
    if len(rects) == 0:
        return 0.0
    r = np.asarray(rects, dtype=np.float64)
    xs, ys = np.unique(r[:, [0, 2]]), np.unique(r[:, [1, 3]])
    cx, cy = (xs[:-1] + xs[1:]) / 2, (ys[:-1] + ys[1:]) / 2
    inside = np.zeros((len(cx), len(cy)), dtype=bool)
    for xl, yl, xh, yh in r:
        inside |= ((cx > xl) & (cx < xh))[:, None] & ((cy > yl) & (cy < yh))[None, :]
    return float((np.diff(xs)[:, None] * np.diff(ys)[None, :])[inside].sum())


def _fit_to_free_area(spec, fence, fixed):
    """Field fillers of one fence sized from the fence area fixed cells leave free."""
    w, h, x, y = fixed
    clipped = []
    for fxl, fyl, fxh, fyh in fence:
        xl, yl = np.maximum(x, fxl), np.maximum(y, fyl)
        xh, yh = np.minimum(x + w, fxh), np.minimum(y + h, fyh)
        keep = (xh > xl) & (yh > yl)
        clipped.extend(np.stack([xl, yl, xh, yh], 1)[keep])
    free = spec["placeable_area"] - _covered_area(clipped)
    total = max(free * spec["target_density"] - spec["movable_area"], 0.0)
    return dict(spec, total_area=total, count=int(round(total / (spec["width"] * spec["height"]))))


@dataclass
class FencePlacement:
    """A fence-region design as tensors (a Placement, fillers field by field) and its fields."""

    placement: Placement
    fences: List[np.ndarray]
    region_id: np.ndarray  # per movable cell: k < K, or K (the default region)
    fillers: List[dict]    # per field (make_region_fillers, fences' fitted to their free area)
    fields: list           # per field (make_fence_fields)
    field_of: np.ndarray   # per node: its field, K + 1 for fixed nodes


def _start(fp, seed):
    """Movable cells around the centre of their fence's largest rectangle (default region: of the
    region) with a normal spread of 0.1 % of the region's size; fillers uniformly at random over
    their fence's rectangles (by area) or the region."""
    p = fp.placement
    rng = np.random.default_rng(seed)
    n, nm, K = p.num_nodes, p.num_movable, len(fp.fences)
    xl, yl, xh, yh = p.region
    whole = np.array([[xl, yl, xh, yh]])
    start = p.start.detach().cpu().double().numpy().copy()
    x, y = start[:n], start[n:]

    def place(idx, rect, cx, cy):
        x[idx] = np.clip(cx - p.size_x[idx] / 2, rect[0], np.maximum(rect[0], rect[2] - p.size_x[idx]))
        y[idx] = np.clip(cy - p.size_y[idx] / 2, rect[1], np.maximum(rect[1], rect[3] - p.size_y[idx]))

    for k in range(K + 1):
        rects = fp.fences[k] if k < K else whole
        cells = np.flatnonzero(fp.region_id == k)
        big = rects[np.argmax((rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1]))]
        place(cells, big, (big[0] + big[2]) / 2 + rng.normal(0, 1e-3 * (xh - xl), len(cells)),
              (big[1] + big[3]) / 2 + rng.normal(0, 1e-3 * (yh - yl), len(cells)))
        fill = np.flatnonzero(fp.field_of[nm:] == k) + nm
        area = (rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1])
        pick = rng.choice(len(rects), size=len(fill), p=area / area.sum())
        for j, rect in enumerate(rects):
            sel = fill[pick == j]
            place(sel, rect, rng.uniform(rect[0], rect[2], len(sel)), rng.uniform(rect[1], rect[3], len(sel)))
    p.start = torch.tensor(start, dtype=p.start.dtype, device=p.start.device)


def prepare_fences(design, params):
    """A FencePlacement of a design with fences (a BookshelfDesign or .aux path) for PlaceParams."""
    d = load_design(design)
    if not d.fences:
        raise ValueError(f"design {d.name!r} has no fence regions")
    order = d.dreamplace_order()
    K = len(d.fences)
    kind = d.kind[order]
    nm = int(np.count_nonzero(kind == MOVABLE))
    nt = int(np.count_nonzero(kind == FIXED))
    w, h = d.footprint_width[order], d.footprint_height[order]
    fixed = (w[nm:nm + nt], h[nm:nm + nt], d.x[order][nm:nm + nt], d.y[order][nm:nm + nt])
    region_id = np.minimum(d.region_id[order][:nm], K).astype(np.int32)
    xl, yl, xh, yh = d.region
    row = d.row_height or float(np.mean(h[:nm]))
    specs = make_region_fillers((w[:nm], h[:nm]), region_id, d.fences, fixed, xl, yl, xh, yh, params.target_density,
                                row)
    specs = [_fit_to_free_area(s, d.fences[k], fixed) if k < K else s for k, s in enumerate(specs)]
    fw = np.concatenate([np.full(s["count"], s["width"]) for s in specs])
    fh = np.concatenate([np.full(s["count"], s["height"]) for s in specs])
    p = Placement(d, torch.device(params.device), getattr(torch, params.dtype), params.target_density, params.seed,
                  fillers=(fw, fh))
    fields, _ = make_fence_fields((w[:nm], h[:nm]), region_id, d.fences, fixed, xl, yl, xh, yh, specs,
                                  filler_offset=p.num_nodes - p.num_fillers, num_entries=p.num_nodes)
    field_of = np.full(p.num_nodes, K + 1, dtype=np.int64)
    for k, f in enumerate(fields):
        field_of[f.movable_index] = k
        field_of[f.filler_index] = k
    fp = FencePlacement(p, [np.asarray(f, dtype=np.float64) for f in d.fences], region_id, specs, fields, field_of)
    _start(fp, params.seed)
    return fp


def containment(fp, position):
    """(per fence: its cells not inside it, default-region cells overlapping a fence)."""
    p = fp.placement
    n, nm = p.num_nodes, p.num_movable
    xy = position.detach().cpu().double().numpy()
    x, y, w, h = xy[:nm], xy[n:n + nm], p.size_x[:nm], p.size_y[:nm]
    covered = np.zeros((len(fp.fences) + 1, nm))
    for k, fence in enumerate(fp.fences):
        for fxl, fyl, fxh, fyh in fence:
            covered[k] += np.clip(np.minimum(x + w, fxh) - np.maximum(x, fxl), 0, None) * \
                np.clip(np.minimum(y + h, fyh) - np.maximum(y, fyl), 0, None)
    area = w * h
    K = len(fp.fences)
    outside = [int(np.count_nonzero((fp.region_id == k) & (covered[k] < area * (1 - 1e-6)))) for k in range(K)]
    intruding = int(np.count_nonzero((fp.region_id == K) & (covered[:K].sum(0) > area * 1e-6)))
    return outside, intruding


def snap_into_fences(fp, position):
    """Moves every fenced cell not inside its fence to the nearest place inside one of the fence's
    rectangles; returns (new position, how many moved)."""
    p = fp.placement
    n, nm = p.num_nodes, p.num_movable
    xy = position.detach().cpu().double().numpy().copy()
    outside, _ = containment(fp, position)
    moved = 0
    if sum(outside):
        x, y, w, h = xy[:nm], xy[n:n + nm], p.size_x[:nm], p.size_y[:nm]
        for k, fence in enumerate(fp.fences):
            cells = np.flatnonzero(fp.region_id == k)
            cov = np.zeros(len(cells))
            for fxl, fyl, fxh, fyh in fence:
                cov += np.clip(np.minimum(x[cells] + w[cells], fxh) - np.maximum(x[cells], fxl), 0, None) * \
                    np.clip(np.minimum(y[cells] + h[cells], fyh) - np.maximum(y[cells], fyl), 0, None)
            cells = cells[cov < w[cells] * h[cells] * (1 - 1e-6)]
            best = np.full((len(cells), 3), np.inf)
            for fxl, fyl, fxh, fyh in fence:
                fits = (fxh - fxl >= w[cells]) & (fyh - fyl >= h[cells])
                nx = np.clip(x[cells], fxl, np.maximum(fxl, fxh - w[cells]))
                ny = np.clip(y[cells], fyl, np.maximum(fyl, fyh - h[cells]))
                dist = np.where(fits, np.abs(nx - x[cells]) + np.abs(ny - y[cells]), np.inf)
                better = dist < best[:, 0]
                best[better] = np.stack([dist, nx, ny], 1)[better]
            ok = np.isfinite(best[:, 0])
            x[cells[ok]], y[cells[ok]] = best[ok, 1], best[ok, 2]
            moved += int(ok.sum())
    return torch.tensor(xy, dtype=position.dtype, device=position.device), moved


class FencePlacer(GlobalPlacer):
    """GlobalPlacer's loop with one density weight per field and the fields in one
    MultiFieldSystem."""

    def __init__(self, fp, params, stopwatch=None):
        p = fp.placement
        self.fp, self.p, self.params = fp, p, params
        self.watch = stopwatch or _Stopwatch()
        xl, yl, xh, yh = p.region
        self.system = MultiFieldSystem(fp.fields, xl=xl, yl=yl, xh=xh, yh=yh, num_bins_x=p.bins[0],
                                       num_bins_y=p.bins[1], num_entries=p.num_nodes, dtype=params.dtype,
                                       device=params.device, deterministic=params.deterministic,
                                       cpu_threads=params.threads, zero_other_entries=True)
        self.base_gamma = 4.0 * (p.bin_size[0] + p.bin_size[1])
        self.units = p.row_height / 12.0
        self.evaluations = 0
        self.num_fields = len(fp.fields)
        dev = p.start.device
        self.field_of = torch.tensor(fp.field_of, device=dev)
        self.movable_area = torch.tensor([s["movable_area"] for s in fp.fillers], dtype=torch.float64)
        # Fenced cells move within their fence's bounding box.
        lower, upper = p.lower.clone(), p.upper.clone()
        n = p.num_nodes
        for k, fence in enumerate(fp.fences):
            cells = torch.tensor(np.flatnonzero(fp.region_id == k), device=dev)
            bx, by = float(fence[:, 0].min()), float(fence[:, 1].min())
            lower[cells], lower[n + cells] = bx, by
            idx = cells.cpu().numpy()
            upper[cells] = torch.tensor(np.maximum(fence[:, 2].max() - p.size_x[idx], bx)).to(upper)
            upper[n + cells] = torch.tensor(np.maximum(fence[:, 3].max() - p.size_y[idx], by)).to(upper)
        p.lower, p.upper = lower, upper
        self.frozen = torch.zeros(self.num_fields + 2, dtype=torch.bool, device=dev)  # K + 1 fields, fixed nodes
        self.frozen_pos = p.start.clone()
        self.initial_energy = None
        self.results = None

    def _frozen_entries(self):
        f = self.frozen[self.field_of]
        return torch.cat([f, f])

    def clamp(self, v):
        return torch.where(self._frozen_entries(), self.frozen_pos, super().clamp(v))

    def density(self, v):
        """The fields' unweighted gradients (2n) and results at v."""
        n = self.p.num_nodes
        x, y = v[:n].detach().contiguous(), v[n:].detach().contiguous()
        rs = self.system.evaluate(x, y)
        return torch.cat([rs[0].grad_x, rs[0].grad_y]), rs

    def gradient(self, v, lam, gamma):
        self.evaluations += 1
        w = self.watch
        w.lap("optimizer")
        pos = v.detach().requires_grad_(True)
        self.p.wirelength(pos, gamma).backward()
        w.lap("wirelength_model")
        gd, self.results = self.density(v)
        w.lap("density")
        energy = torch.tensor([r.energy for r in self.results], dtype=torch.float64)
        factor = lam * (1 + 2 * QUADRATIC * energy / self.initial_energy.clamp_min(1e-300))
        zero = torch.zeros(1, dtype=torch.float64)
        cell_factor = torch.cat([factor, zero]).to(v)[self.field_of]
        cell_lambda = torch.cat([lam, zero]).to(v)[self.field_of]
        g = pos.grad + torch.cat([cell_factor, cell_factor]) * gd
        g = g / torch.clamp(self.p.pins_per_node + torch.cat([cell_lambda, cell_lambda]) *
                            torch.cat([self.p.area, self.p.area]), min=1.0)
        g = torch.where(self.p.moving & ~self._frozen_entries(), g, torch.zeros_like(g))
        w.lap("backward")
        return g

    def initial_weights(self, v, gamma):
        """DREAMPlace 3.0's start: returns (lambda per field, u, step)."""
        pos = v.detach().requires_grad_(True)
        self.p.wirelength(pos, gamma).backward()
        wl = float(pos.grad.abs().sum())
        gd, rs = self.density(v)
        self.initial_energy = torch.tensor([r.energy for r in rs], dtype=torch.float64)
        n = self.p.num_nodes
        per_field = torch.zeros(self.num_fields + 2, dtype=torch.float64)
        per_field.index_add_(0, self.field_of.cpu(), (gd[:n].abs() + gd[n:].abs()).double().cpu())
        q = QUADRATIC
        norm = float((1 + q) * (1 + 2 * q) * per_field[:self.num_fields].sum())
        u = torch.full((self.num_fields,), (1 + q) * 8e-5 * wl / max(norm, 1e-300), dtype=torch.float64)
        return u * (1 + 2 * q), u, 0.03 * float(u.norm())

    def mean_overflow(self):
        ov = torch.tensor([r.overflow for r in self.results], dtype=torch.float64)
        return float((ov * self.movable_area).sum() / self.movable_area.sum())

    def run(self, report=0, log=print):
        """Places from the start; returns (u, record dict)."""
        prm, q = self.params, QUADRATIC
        t0 = time.perf_counter()
        self.watch.lap("setup")
        gamma = self.gamma_for(1.0)
        v = self.p.start.clone()
        lam, u_weight, step = self.initial_weights(v, gamma)
        u = v
        g = self.gradient(v, lam, gamma)
        alpha = self.first_step_length(v, g, lam, gamma)
        a = 1.0
        gamma = self.gamma_for(self.mean_overflow())
        frozen_at = [0] * self.num_fields
        k = 0
        for k in range(1, prm.max_iters + 1):
            u, v, g, a, alpha = self.nesterov_step(u, v, g, a, alpha, lam, gamma)
            overflow = [r.overflow for r in self.results]
            hpwl = self.hpwl(u)
            if not math.isfinite(hpwl):
                raise RuntimeError(f"fence placement diverged at iteration {k}")
            gamma = self.gamma_for(self.mean_overflow())
            phi = torch.tensor([r.energy for r in self.results], dtype=torch.float64) / self.initial_energy
            d = phi + q * phi ** 2
            u_weight = u_weight + step * d / d.norm().clamp_min(1e-300)
            live = ~self.frozen[:self.num_fields].cpu()
            lam = torch.where(live, torch.clamp(u_weight * (1 + 2 * q * phi), max=MAX_WEIGHT), lam)
            r = max(0.0, math.log(2 * q * float(phi.norm())))
            step *= 1.03 + 0.01 * r / (1 + r)
            for f in range(self.num_fields):
                if frozen_at[f] == 0 and overflow[f] < prm.target_overflow:
                    frozen_at[f] = k
                    self.frozen_pos = torch.where(self._frozen_entries(), self.frozen_pos, v)
                    self.frozen[f] = True
            if report and (k == 1 or k % report == 0):
                log(f"iteration {k:5d}  hpwl {hpwl:.6e}  overflow [{' '.join(f'{o:.4f}' for o in overflow)}]  "
                    f"lambda [{' '.join(f'{x:.3g}' for x in lam.tolist())}]  gamma {gamma:.3e}")
            if all(frozen_at):
                break
        self.watch.lap("optimizer")
        return v, {"iterations": k, "evaluations": self.evaluations, "seconds": time.perf_counter() - t0,
                   "converged": all(frozen_at), "frozen_at": frozen_at, "density_weight": lam.tolist()}


@dataclass
class FencePlaceResult:
    design: str
    iterations: int
    evaluations: int
    hpwl: float
    overflow: List[float]            # per field at the end (after the snap)
    outside: List[int]               # per fence: its cells not inside it at the end
    outside_before_snap: List[int]
    default_intruding: int           # default-region cells overlapping a fence
    converged: bool                  # every field froze (overflow below target_overflow)
    seconds: float
    density_weight: List[float]
    frozen_at: List[int]
    params: PlaceParams
    fence_placement: Optional[FencePlacement] = field(default=None, repr=False)
    position: Optional[torch.Tensor] = field(default=None, repr=False)


def fence_global_place(design, params=None, *, report=0, log=print, **overrides):
    """Places a fence-region design (a BookshelfDesign with fences, or a .aux path) with
    PlaceParams and keyword overrides; returns a FencePlaceResult."""
    params = PlaceParams.of(params, **overrides)
    if params.loop != "eager":
        raise ValueError("fence placement runs the eager loop only")
    if params.threads:
        torch.set_num_threads(params.threads)
    design = load_design(design)
    fp = prepare_fences(design, params)
    placer = FencePlacer(fp, params)
    v, r = placer.run(report, log)
    before, _ = containment(fp, v)
    v, _ = snap_into_fences(fp, v)
    _, results = placer.density(v)
    outside, intruding = containment(fp, v)
    return FencePlaceResult(design=design.name,
                            iterations=r["iterations"], evaluations=r["evaluations"], hpwl=fp.placement.hpwl(v),
                            overflow=[x.overflow for x in results], outside=outside, outside_before_snap=before,
                            default_intruding=intruding, converged=r["converged"], seconds=r["seconds"],
                            density_weight=r["density_weight"], frozen_at=r["frozen_at"], params=params,
                            fence_placement=fp, position=v)
