"""efield.place3d: a 3D global placer for stacked dies in PyTorch with efield's 3D density op
(ePlace-3D's flow, simplified; imports torch).

    import efield, efield.place3d
    r = efield.place3d.global_place3d("ibm01/ibm01.aux", tiers=2)
    r.hpwl_xy, r.vertical_interconnects, r.tier_area, r.iterations, r.seconds
    r.tier                                       # per movable cell: its tier, 0 .. tiers - 1

The method (Lu et al., "ePlace-3D: Electrostatics based Placement for 3D-ICs", ISPD 2016,
simplified): the 2D design's cells are placed in a box of T tiers, each of depth D, over a
footprint of 1/T of the 2D region's area (each axis scaled by 1/sqrt(T) from its lower-left
corner, so the utilization stays the 2D one).
- Cells: cuboids of their width and height and depth D (a cell lies in one tier). Fixed
  terminals keep their size, their centres scaled like the footprint, and reach through all
  tiers (a pad or keep-out through the stack); terminal_NIs take no part in the density. Fillers
  (efield.make_fillers_3d) are rows high and D deep.
- Bins: the 2D placer's grid for the footprint (efield.default_bin_grid) by `bins_per_tier`
  bins per tier along z; D = bins_per_tier times the mean bin side, so the bins are near cubes.
- Wirelength: ePlace's weighted average in x and y over pins (the 2D placer's), plus
  (vi_cost b / D) times the weighted average along z over the movable cells' centres, b the
  mean x-y bin side: a net that spans k tiers costs about vi_cost b (k - 1) in the objective.
  Terminals take no part in z (they reach every tier).
- Density: efield.torch.ElectricPotential3D (DREAMPlace's gradient scale).
- Optimizer, density weight, gamma, stop: the 2D placer's (efield.place), with the volume in
  place of the area in the preconditioner and gamma along z scaled by bz / mean(bx, by).
- The end: each cell goes to the tier its z centre falls in.
Reported: HPWL over all nets in x and y only, the vertical interconnects (per net, tiers
spanned - 1 over its movable cells, summed), the movable area per tier over its even share,
and the overflow of each tier's cells in 2D (efield.ElectrostaticSystem on the footprint).
"""

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
import torch

from .bookshelf import FIXED, MOVABLE
from .place import GlobalPlacer, PlaceParams, _Stopwatch, load_design
from ._placement_model import attach_pins, net_extremes, weighted_average
from .system import ElectrostaticSystem, default_bin_grid
from .torch3d import ElectricPotential3D


@dataclass(frozen=True)
class Place3DParams(PlaceParams):
    """PlaceParams with the stack: tiers, bins along z per tier, and the cost of a vertical
    interconnect in units of the mean x-y bin side (the objective's z weight)."""

    tiers: int = 2
    bins_per_tier: int = 2
    vi_cost: float = 1.0

    def __post_init__(self):
        super().__post_init__()
        if self.tiers < 1:
            raise ValueError(f"tiers must be >= 1, got {self.tiers}")
        if self.bins_per_tier < 1:
            raise ValueError(f"bins_per_tier must be >= 1, got {self.bins_per_tier}")
        if not self.vi_cost >= 0:
            raise ValueError(f"vi_cost must be >= 0, got {self.vi_cost}")
        if self.loop != "eager":
            raise ValueError("the 3D placer runs the eager loop only (loop='eager')")


def _filler_spec(spec):
    """(width, height, depth, count) from make_fillers_3d's result (a tuple or an object)."""
    if isinstance(spec, (tuple, list)):
        return spec[0], spec[1], spec[2], int(spec[3])
    return spec.width, spec.height, spec.depth, int(spec.count)


class Placement3D:
    """A Bookshelf design stacked in T tiers as tensors: pos = [x..., y..., z...] (lower corners)
    over movable nodes, fixed terminals, terminal_NIs, then fillers (the 2D op's layout)."""

    def __init__(self, design, device, dtype, params):
        import efield

        d, T = design, params.tiers
        self.tiers = T
        self.order = order = d.dreamplace_order()
        kind = d.kind[order]
        w, h = d.footprint_width[order], d.footprint_height[order]
        self.num_movable = nm = int(np.count_nonzero(kind == MOVABLE))
        self.num_terminals = nt = int(np.count_nonzero(kind == FIXED))
        xl, yl, xh, yh = d.region
        shrink = 1.0 / math.sqrt(T)
        fx, fy = xl + (xh - xl) * shrink, yl + (yh - yl) * shrink
        if np.any(w[:nm] > fx - xl) or np.any(h[:nm] > fy - yl):
            raise ValueError(f"{d.name}: a movable cell is larger than the {T}-tier footprint "
                             f"{fx - xl:g} x {fy - yl:g}")
        self.footprint = (xl, yl, fx, fy)
        self.row_height = d.row_height or float(np.mean(h[:nm]))
        self.bins_xy = default_bin_grid((w[:nm], h[:nm]), xl, yl, fx, fy, params.target_density)
        bx, by = (fx - xl) / self.bins_xy[0], (fy - yl) / self.bins_xy[1]
        self.depth = D = params.bins_per_tier * (bx + by) / 2
        self.region = (xl, yl, 0.0, fx, fy, T * D)
        self.bins = (self.bins_xy[0], self.bins_xy[1], params.bins_per_tier * T)
        self.bin_size = (bx, by, D / params.bins_per_tier)
        self.vi_weight = params.vi_cost * (bx + by) / 2 / D  # per unit of z span

        # Terminals: centres scaled like the footprint, through all tiers.
        x = d.x[order].astype(np.float64)
        y = d.y[order].astype(np.float64)
        fixed = slice(nm, len(order))
        x[fixed] = xl + (x[fixed] + w[fixed] / 2 - xl) * shrink - w[fixed] / 2
        y[fixed] = yl + (y[fixed] + h[fixed] / 2 - yl) * shrink - h[fixed] / 2
        depth = np.full(len(order), D)
        depth[fixed] = T * D
        t = slice(nm, nm + nt)
        spec = efield.make_fillers_3d((w[:nm], h[:nm], depth[:nm]), (w[t], h[t], depth[t], x[t], y[t], np.zeros(nt)),
                                      *self.region, params.target_density, self.row_height, D)
        f_w, f_h, f_d, count = _filler_spec(spec)
        self.num_fillers = count
        self.size_x = np.concatenate([w, np.full(count, f_w)])
        self.size_y = np.concatenate([h, np.full(count, f_h)])
        self.size_z = np.concatenate([depth, np.full(count, f_d)])
        self.num_nodes = n = len(self.size_x)

        # Start: movable cells around the box's centre, fillers anywhere, terminals where they are.
        rng = np.random.default_rng(params.seed)
        cx, cy, cz = (xl + fx) / 2, (yl + fy) / 2, T * D / 2
        sx = np.concatenate([x, rng.uniform(xl, fx - f_w, count)])
        sy = np.concatenate([y, rng.uniform(yl, fy - f_h, count)])
        sz = np.concatenate([np.zeros(len(order)), rng.uniform(0, T * D - f_d, count)])
        sx[:nm] = cx + rng.normal(0, 0.001 * (fx - xl), nm) - w[:nm] / 2
        sy[:nm] = cy + rng.normal(0, 0.001 * (fy - yl), nm) - h[:nm] / 2
        sz[:nm] = cz + rng.normal(0, 0.001 * T * D, nm) - D / 2
        self.start = torch.tensor(np.concatenate([sx, sy, sz]), dtype=dtype, device=device)

        moving = np.zeros(n, dtype=bool)
        moving[:nm] = True
        moving[n - count:] = True
        self.moving = torch.tensor(np.tile(moving, 3), device=device)
        lo = np.concatenate([np.full(n, xl), np.full(n, yl), np.zeros(n)])
        hi = np.concatenate([fx - self.size_x, fy - self.size_y, T * D - self.size_z])
        self.lower = torch.tensor(lo, dtype=dtype, device=device)
        self.upper = torch.tensor(np.maximum(hi, lo), dtype=dtype, device=device)
        # The preconditioner's charge per entry of pos: the node's volume.
        self.pos_charge = torch.tensor(np.tile(self.size_x * self.size_y * self.size_z, 3), dtype=dtype, device=device)

        # Pins (the 2D placer's); along z only the movable cells' pins, at the cells' centres.
        pin_node = attach_pins(self, d, order, device, dtype)
        tt = lambda a, dt=dtype: torch.tensor(a, dtype=dt, device=device)  # noqa: E731
        in_z = tt(pin_node < nm, torch.bool)
        self.z_pin_node, self.z_pin_net = self.pin_node[in_z], self.pin_net[in_z]
        z_wa = tt(self.wa_pin[pin_node < nm], torch.bool)
        self.z_wa_pin_node, self.z_wa_pin_net = self.z_pin_node[z_wa], self.z_pin_net[z_wa]
        pins_per_node = np.bincount(pin_node, minlength=n).astype(np.float64)
        self.pins_per_node = tt(np.tile(pins_per_node, 3))

    def _span(self, p, net):
        return net_extremes(p, net, self.num_nets, "amax") - net_extremes(p, net, self.num_nets, "amin")

    def hpwl_xy(self, pos):
        """Half-perimeter wirelength over all nets in x and y (weighted)."""
        n = self.num_nodes
        with torch.no_grad():
            return sum(float((self.net_weight * self._span(c[self.pin_node] + o, self.pin_net)).sum())
                       for c, o in ((pos[:n], self.pin_dx), (pos[n:2 * n], self.pin_dy)))

    def hpwl_z(self, pos):
        """The z span of each net's movable cells (their lower corners), weighted, summed."""
        n = self.num_nodes
        with torch.no_grad():
            return float((self.net_weight * self._span(pos[2 * n:][self.z_pin_node], self.z_pin_net)).sum())

    def hpwl(self, pos):
        """The objective's half-perimeter counterpart: x-y HPWL plus the weighted z span (the
        density weight's schedule follows its changes)."""
        return self.hpwl_xy(pos) + self.vi_weight * self.hpwl_z(pos)

    def wirelength(self, pos, gamma):
        """Weighted-average wirelength in x and y plus vi_weight times the one along z."""
        n = self.num_nodes
        total = 0
        for coords, offset in ((pos[:n], self.wa_pin_dx), (pos[n:2 * n], self.wa_pin_dy)):
            wl = weighted_average(coords[self.wa_pin_node] + offset, self.wa_pin_net, self.num_nets, gamma)
            total = total + (self.wa_weight * wl).sum()
        if self.vi_weight > 0:
            gamma_z = gamma * self.bin_size[2] / ((self.bin_size[0] + self.bin_size[1]) / 2)
            wl = weighted_average(pos[2 * n:][self.z_wa_pin_node], self.z_wa_pin_net, self.num_nets, gamma_z)
            total = total + self.vi_weight * (self.wa_weight * wl).sum()
        return total

    def tiers_of(self, pos):
        """Each movable cell's tier: the one its z centre falls in."""
        z = pos[2 * self.num_nodes:2 * self.num_nodes + self.num_movable].detach().cpu().double().numpy()
        return np.clip(np.floor((z + self.depth / 2) / self.depth), 0, self.tiers - 1).astype(np.int64)

    def vertical_interconnects(self, tier):
        """Per net, the tiers its movable cells span minus 1, summed (terminals excluded)."""
        node = self.z_pin_node.cpu().numpy()
        net = self.z_pin_net.cpu().numpy()
        hi = np.full(self.num_nets, -1)
        lo = np.full(self.num_nets, self.tiers)
        np.maximum.at(hi, net, tier[node])
        np.minimum.at(lo, net, tier[node])
        used = hi >= 0
        return int((hi[used] - lo[used]).sum())

    def tier_area(self, tier):
        """Movable area per tier over the even share (1.0 everywhere: balanced)."""
        area = self.size_x[:self.num_movable] * self.size_y[:self.num_movable]
        per = np.bincount(tier, weights=area, minlength=self.tiers)
        return (per / (area.sum() / self.tiers)).tolist()

    def tier_overflow(self, pos, tier, target_density):
        """Each tier's movable cells in 2D on the footprint (the 2D grid, no fillers): overflow."""
        n, nm = self.num_nodes, self.num_movable
        xy = pos.detach().cpu().double().numpy()
        xl, yl, xh, yh = self.footprint
        out = []
        for k in range(self.tiers):
            cells = np.flatnonzero(tier == k)
            if len(cells) == 0:
                out.append(0.0)
                continue
            es = ElectrostaticSystem((self.size_x[cells], self.size_y[cells]), xl=xl, yl=yl, xh=xh, yh=yh,
                                     num_bins_x=self.bins_xy[0], num_bins_y=self.bins_xy[1],
                                     target_density=target_density, dtype="float64")
            out.append(float(es.evaluate(np.ascontiguousarray(xy[:nm][cells]),
                                         np.ascontiguousarray(xy[n:n + nm][cells])).overflow))
        return out


class GlobalPlacer3D(GlobalPlacer):
    """The 2D placer's loop and steps (efield.place.GlobalPlacer) on a Placement3D with the 3D
    op (the preconditioner's charge is the volume: Placement3D.pos_charge)."""

    def __init__(self, placement, params, stopwatch=None):
        p = placement
        self.p = p
        self.params = params
        self.watch = stopwatch or _Stopwatch()
        self.op = ElectricPotential3D(p.size_x, p.size_y, p.size_z, *p.region, *p.bins, p.num_movable,
                                      p.num_terminals, p.num_fillers, params.target_density,
                                      deterministic=params.deterministic, cpu_threads=params.threads, pos=p.start)
        self.base_gamma = 4.0 * (p.bin_size[0] + p.bin_size[1])
        self.units = p.row_height / 12.0
        self.evaluations = 0


@dataclass
class Place3DResult:
    """What global_place3d returns: the record of the run and the final positions."""

    design: str
    tiers: int
    iterations: int
    evaluations: int
    hpwl_xy: float                      # all nets, x and y only
    vertical_interconnects: int         # per net: tiers spanned - 1, summed
    tier_area: List[float]              # movable area per tier over the even share
    tier_overflow: List[float]          # each tier's cells in 2D (overflow)
    overflow: float                     # the 3D density's, at the end
    converged: bool
    seconds: float
    setup_seconds: float
    stage_seconds: Dict[str, float]
    counts: Dict[str, int]
    params: Place3DParams
    placement: Optional[Placement3D] = field(default=None, repr=False)
    position: Optional[torch.Tensor] = field(default=None, repr=False)
    tier: Optional[np.ndarray] = field(default=None, repr=False)

    def record(self):
        out = {k: getattr(self, k) for k in ("design", "tiers", "iterations", "evaluations", "hpwl_xy",
                                               "vertical_interconnects", "tier_area", "tier_overflow", "overflow",
                                               "converged", "seconds", "setup_seconds", "stage_seconds", "counts")}
        out["params"] = dataclasses.asdict(self.params)
        return out


def prepare3d(design, params):
    """(Placement3D, GlobalPlacer3D) for a design and Place3DParams, before any iteration."""
    if params.threads:
        torch.set_num_threads(params.threads)
    placement = Placement3D(load_design(design), torch.device(params.device), getattr(torch, params.dtype), params)
    return placement, GlobalPlacer3D(placement, params, _Stopwatch())


def global_place3d(design, params=None, *, report=0, log=print, **overrides):
    """Places `design` (a .aux path or a BookshelfDesign) in Place3DParams' tiers (keyword
    overrides: tiers=, vi_cost=, device=, ...); logs every `report` iterations. Returns a
    Place3DResult."""
    params = Place3DParams.of(params, **overrides)
    t0 = time.perf_counter()
    design = load_design(design)
    p, placer = prepare3d(design, params)
    setup = time.perf_counter() - t0
    position, r = placer.run(report, log)
    tier = p.tiers_of(position)
    counts = {"movable": p.num_movable, "terminals": p.num_terminals, "fillers": p.num_fillers, "nets": p.num_nets,
              "bins_x": int(p.bins[0]), "bins_y": int(p.bins[1]), "bins_z": int(p.bins[2])}
    return Place3DResult(
        design=design.name, tiers=p.tiers, iterations=r["iterations"], evaluations=r["evaluations"],
        hpwl_xy=p.hpwl_xy(position), vertical_interconnects=p.vertical_interconnects(tier),
        tier_area=p.tier_area(tier), tier_overflow=p.tier_overflow(position, tier, params.target_density),
        overflow=r["overflow"], converged=r["converged"], seconds=r["seconds"], setup_seconds=setup,
        stage_seconds={k: v for k, v in placer.watch.seconds.items() if k != "setup"}, counts=counts, params=params,
        placement=p, position=position, tier=tier)


def save_tiers_png(result, path, title):
    """Each tier of a Place3DResult side by side: its movable cells blue, terminals grey."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    p, tier = result.placement, result.tier
    n, nm, nt = p.num_nodes, p.num_movable, p.num_terminals
    xy = result.position.detach().cpu().double().numpy()
    x, y = xy[:n], xy[n:2 * n]
    xl, yl, xh, yh = p.footprint

    def boxes(idx):
        x0, y0, x1, y1 = x[idx], y[idx], x[idx] + p.size_x[idx], y[idx] + p.size_y[idx]
        return np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                         np.stack([x0, y1], 1)], 1)

    side = 5.0
    fig, axes = plt.subplots(1, p.tiers, figsize=(side * p.tiers, side * (yh - yl) / (xh - xl) + 0.6), dpi=100,
                             squeeze=False)
    for k, ax in enumerate(axes[0]):
        ax.add_collection(PolyCollection(boxes(np.arange(nm, nm + nt)), facecolors="0.6", edgecolors="0.3",
                                         linewidths=0.2))
        ax.add_collection(PolyCollection(boxes(np.flatnonzero(tier == k)), facecolors="tab:blue",
                                         edgecolors="none", alpha=0.6))
        ax.set_xlim(xl, xh)
        ax.set_ylim(yl, yh)
        ax.set_aspect("equal")
        ax.set_title(f"tier {k}: {np.count_nonzero(tier == k)} cells, area {result.tier_area[k]:.3f}")
        ax.tick_params(labelsize=6)
    fig.suptitle(title)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
