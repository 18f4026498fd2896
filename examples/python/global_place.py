#!/usr/bin/env python3
"""A short Nesterov global placer in PyTorch with efield's density op.

    python3 examples/python/global_place.py data/synthetic2000/synthetic2000.aux --png placed.png
    python3 examples/python/global_place.py ibm01.aux --device cuda

The method (DREAMPlace's, written with torch ops; examples/cpp/global_place does the same in C++):
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
- Stop at overflow <= --target-overflow (0.07) or after --max-iters.
Prints HPWL and overflow every --report iterations and saves a PNG of the placement (--png).
"""

import argparse
import math
import sys
import time
import warnings

import numpy as np
import torch

import efield
from efield.torch import ElectricPotential

warnings.filterwarnings("ignore", message="scatter_reduce", category=UserWarning)  # "beta" in PyTorch 1.13


class Placement:
    """A Bookshelf design as tensors in DREAMPlace's node order, with fillers appended."""

    def __init__(self, design, device, dtype, target_density, seed):
        d = design
        order = d.dreamplace_order()
        kind = d.kind[order]
        w, h = d.footprint_width[order], d.footprint_height[order]
        x, y = d.x[order], d.y[order]
        self.num_movable = int(np.count_nonzero(kind == efield.MOVABLE))
        self.num_terminals = int(np.count_nonzero(kind == efield.FIXED))
        nm, nt = self.num_movable, self.num_terminals
        self.region = xl, yl, xh, yh = d.region
        self.row_height = d.row_height or float(np.mean(h[:nm]))
        fixed = (w[nm:nm + nt], h[nm:nm + nt], x[nm:nm + nt], y[nm:nm + nt])
        fw, fh, count, _ = efield.make_fillers((w[:nm], h[:nm]), fixed, xl, yl, xh, yh, target_density,
                                               self.row_height)
        self.num_fillers = int(count)
        self.bins = efield.default_bin_grid((w[:nm], h[:nm]), xl, yl, xh, yh, target_density)
        self.bin_size = ((xh - xl) / self.bins[0], (yh - yl) / self.bins[1])
        self.size_x = np.concatenate([w, np.full(count, fw)])
        self.size_y = np.concatenate([h, np.full(count, fh)])
        self.num_nodes = n = len(self.size_x)
        # DREAMPlace's movable macros: area above 10 times the mean movable area, height above 2 rows.
        area = w[:nm] * h[:nm]
        self.macro_mask = (area > 10 * area.mean()) & (h[:nm] > 2 * self.row_height)

        # Start: movable cells around the centre, fillers anywhere, fixed nodes where they are.
        rng = np.random.default_rng(seed)
        cx, cy = (xl + xh) / 2, (yl + yh) / 2
        sx = np.concatenate([x, rng.uniform(xl, xh - fw, count)])
        sy = np.concatenate([y, rng.uniform(yl, yh - fh, count)])
        sx[:nm] = cx + rng.normal(0, 0.001 * (xh - xl), nm) - w[:nm] / 2
        sy[:nm] = cy + rng.normal(0, 0.001 * (yh - yl), nm) - h[:nm] / 2
        self.start = torch.tensor(np.concatenate([sx, sy]), dtype=dtype, device=device)

        # Nodes that move (movable cells and fillers), their bounds and areas.
        moving = np.zeros(n, dtype=bool)
        moving[:nm] = True
        moving[n - count:] = True
        self.moving = torch.tensor(np.concatenate([moving, moving]), device=device)
        lo = np.concatenate([np.full(n, xl), np.full(n, yl)])
        hi = np.concatenate([xh - self.size_x, yh - self.size_y])
        self.lower = torch.tensor(lo, dtype=dtype, device=device)
        self.upper = torch.tensor(np.maximum(hi, lo), dtype=dtype, device=device)
        self.area = torch.tensor(self.size_x * self.size_y, dtype=dtype, device=device)

        # Pins in the new node order; nets of 2..100 pins take part in the wirelength model.
        position_of = np.empty(len(order), dtype=np.int64)
        position_of[order] = np.arange(len(order))
        degree = np.diff(d.net_pin_start)
        pin_net = np.repeat(np.arange(d.num_nets), degree)
        pin_node = position_of[d.pin_node]
        t = lambda a, dt=dtype: torch.tensor(a, dtype=dt, device=device)  # noqa: E731
        self.num_nets = d.num_nets
        self.pin_node, self.pin_net = t(pin_node, torch.int64), t(pin_net, torch.int64)
        # Pin = lower-left corner + half the size + offset from the centre.
        self.pin_dx = t(self.size_x[pin_node] / 2 + d.pin_offset_x)
        self.pin_dy = t(self.size_y[pin_node] / 2 + d.pin_offset_y)
        self.net_weight = t(d.net_weight)
        wa = (degree >= 2) & (degree <= 100)
        keep = wa[pin_net]
        self.wa_pin_node, self.wa_pin_net = self.pin_node[t(keep, torch.bool)], self.pin_net[t(keep, torch.bool)]
        self.wa_pin_dx, self.wa_pin_dy = self.pin_dx[t(keep, torch.bool)], self.pin_dy[t(keep, torch.bool)]
        self.wa_weight = t(np.where(wa, d.net_weight, 0.0))
        pins_per_node = np.bincount(pin_node, minlength=n).astype(np.float64)
        self.pins_per_node = t(np.concatenate([pins_per_node, pins_per_node]))

    def _net_extremes(self, p, net, fn):
        out = torch.zeros(self.num_nets, dtype=p.dtype, device=p.device)
        return out.scatter_reduce(0, net, p, reduce=fn, include_self=False)

    def hpwl(self, pos):
        """Half-perimeter wirelength over all nets (weighted)."""
        n = self.num_nodes
        with torch.no_grad():
            total = 0.0
            for coords, offset in ((pos[:n], self.pin_dx), (pos[n:], self.pin_dy)):
                p = coords[self.pin_node] + offset
                span = self._net_extremes(p, self.pin_net, "amax") - self._net_extremes(p, self.pin_net, "amin")
                total += float((self.net_weight * span).sum())
        return total

    def wirelength(self, pos, gamma):
        """ePlace's weighted-average wirelength (differentiable through autograd)."""
        n = self.num_nodes
        total = 0
        for coords, offset in ((pos[:n], self.wa_pin_dx), (pos[n:], self.wa_pin_dy)):
            p = coords[self.wa_pin_node] + offset
            net = self.wa_pin_net
            with torch.no_grad():  # shifts that keep exp() finite; they cancel in each ratio
                high = self._net_extremes(p, net, "amax")[net]
                low = self._net_extremes(p, net, "amin")[net]
            ep, em = torch.exp((p - high) / gamma), torch.exp((low - p) / gamma)
            zeros = torch.zeros(self.num_nets, dtype=p.dtype, device=p.device)
            sum_ep, sum_em = zeros.index_add(0, net, ep), zeros.index_add(0, net, em)
            wl = zeros.index_add(0, net, p * ep) / sum_ep.clamp_min(1e-300) - \
                zeros.index_add(0, net, p * em) / sum_em.clamp_min(1e-300)
            total = total + (self.wa_weight * wl).sum()
        return total


class GlobalPlacer:
    def __init__(self, placement, target_density, deterministic=True, macro_mask=False):
        p = placement
        self.p = p
        xl, yl, xh, yh = p.region
        self.op = ElectricPotential(p.size_x, p.size_y, xl, yl, xh, yh, p.bins[0], p.bins[1], p.num_movable,
                                    p.num_terminals, p.num_fillers, target_density, deterministic=deterministic,
                                    pos=p.start, movable_macro_mask=p.macro_mask if macro_mask else None)
        self.base_gamma = 4.0 * (p.bin_size[0] + p.bin_size[1])
        self.units = p.row_height / 12.0  # DREAMPlace's length constants are in ISPD2005 units (rows 12 high)
        self.evaluations = 0

    def gamma_for(self, overflow):
        return self.base_gamma * 10 ** ((overflow - 0.1) * 20.0 / 9.0 - 1.0)

    def gradient(self, v, lam, gamma):
        """Preconditioned gradient of wl + lam * density at v, and the density op's overflow."""
        self.evaluations += 1
        pos = v.detach().requires_grad_(True)
        (self.p.wirelength(pos, gamma) + lam * self.op(pos)).backward()
        g = pos.grad
        g = g / torch.clamp(self.p.pins_per_node + lam * torch.cat([self.p.area, self.p.area]), min=1.0)
        return torch.where(self.p.moving, g, torch.zeros_like(g))

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

    def run(self, target_overflow=0.07, max_iters=1000, report=50, log=print):
        """Places from the start; returns a dict with iterations, hpwl, overflow, seconds."""
        t0 = time.perf_counter()
        p = self.p
        gamma = self.gamma_for(1.0)
        lam = self.initial_density_weight(p.start, gamma)
        u = v = p.start.clone()
        g = self.gradient(v, lam, gamma)
        overflow = self.op.overflow
        # The first step length from a small plain gradient step: alpha = |dv| / |dg|.
        step0 = 0.01 * self.units
        trial = self.clamp(v - step0 * g / g.abs().max().clamp_min(1e-30))
        g_trial = self.gradient(trial, lam, gamma)
        alpha = float((trial - v).norm() / (g_trial - g).norm().clamp_min(1e-30))
        a = 1.0
        hpwl = previous_hpwl = p.hpwl(u)
        gamma = self.gamma_for(overflow)
        ref_hpwl = 3.5e5 * self.units
        k = 0
        for k in range(1, max_iters + 1):
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
            overflow = self.op.overflow
            u, v, g, a = u_new, v_new, g_new, a_next
            hpwl = p.hpwl(u)
            if not math.isfinite(hpwl):
                raise RuntimeError(f"global placement diverged at iteration {k}")
            gamma = self.gamma_for(overflow)
            dh = hpwl - previous_hpwl
            if dh < 0:
                lam *= 1.05 * max(0.9999 ** k, 0.98)
            else:
                lam *= 1.05 * min(max(1.05 ** (-dh / ref_hpwl), 0.95), 1.05)
            previous_hpwl = hpwl
            if report and (k == 1 or k % report == 0):
                log(f"iteration {k:5d}  hpwl {hpwl:.6e}  overflow {overflow:.4f}  density weight {lam:.3e}  "
                    f"gamma {gamma:.3e}")
            if overflow <= target_overflow:
                break
        self.position = u
        return {"iterations": k, "hpwl": hpwl, "overflow": overflow, "converged": overflow <= target_overflow,
                "evaluations": self.evaluations, "seconds": time.perf_counter() - t0}


def save_png(placement, pos, path, title):
    """The placement as rectangles: movable cells blue, fixed nodes grey, fillers left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    p = placement
    n, nm, nt = p.num_nodes, p.num_movable, p.num_terminals
    xy = pos.detach().cpu().double().numpy()
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aux", help="Bookshelf .aux file")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--target-density", type=float, default=1.0)
    ap.add_argument("--target-overflow", type=float, default=0.07)
    ap.add_argument("--max-iters", type=int, default=1000)
    ap.add_argument("--report", type=int, default=50, help="print every N iterations (0: never)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--png", default="", help="save the placement as a PNG here")
    ap.add_argument("--macro-mask", action="store_true",
                    help="DREAMPlace's movable macros (area > 10x the mean, height > 2 rows) take the target "
                    "density as their density ratio")
    args = ap.parse_args(argv)

    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    design = efield.load_bookshelf(args.aux)
    placement = Placement(design, torch.device(args.device), getattr(torch, args.dtype), args.target_density,
                          args.seed)
    placer = GlobalPlacer(placement, args.target_density, macro_mask=args.macro_mask)
    print(f"{design.name}: {placement.num_movable} movable, {placement.num_terminals} fixed, "
          f"{placement.num_fillers} fillers, {design.num_nets} nets, bins {placement.bins[0]}x{placement.bins[1]}, "
          f"{args.device} {args.dtype}")
    result = placer.run(args.target_overflow, args.max_iters, args.report)
    if args.png:
        save_png(placement, placer.position, args.png,
                 f"{design.name}: HPWL {result['hpwl']:.4e}, overflow {result['overflow']:.3f}")
    print(f"final: iterations {result['iterations']} evaluations {result['evaluations']} hpwl {result['hpwl']:.6e} "
          f"overflow {result['overflow']:.4f} converged {'yes' if result['converged'] else 'no'} "
          f"placement {result['seconds']:.2f} s total {time.perf_counter() - t0:.2f} s")
    return 0 if result["converged"] else 1


if __name__ == "__main__":
    sys.exit(main())
