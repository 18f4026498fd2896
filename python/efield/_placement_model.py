"""The design model of efield.place: a Bookshelf design as PyTorch tensors in DREAMPlace's node
order with fillers appended, its start, and the wirelength models (HPWL, ePlace's weighted
average). Imports torch."""

import warnings

import numpy as np
import torch

from .bookshelf import FIXED, MOVABLE
from .system import default_bin_grid, make_fillers

warnings.filterwarnings("ignore", message="scatter_reduce", category=UserWarning)  # "beta" in PyTorch 1.13


def net_extremes(p, net, num_nets, fn):
    """Per net the "amax" or "amin" of the pin coordinates p (net: each pin's net)."""
    out = torch.zeros(num_nets, dtype=p.dtype, device=p.device)
    return out.scatter_reduce(0, net, p, reduce=fn, include_self=False)


def weighted_average(p, net, num_nets, gamma):
    """ePlace's weighted-average wirelength of each net along one axis (pin coordinates p, each
    pin's net; differentiable through autograd)."""
    with torch.no_grad():  # shifts that keep exp() finite; they cancel in each ratio
        high = net_extremes(p, net, num_nets, "amax")[net]
        low = net_extremes(p, net, num_nets, "amin")[net]
    ep, em = torch.exp((p - high) / gamma), torch.exp((low - p) / gamma)
    zeros = torch.zeros(num_nets, dtype=p.dtype, device=p.device)
    sum_ep, sum_em = zeros.index_add(0, net, ep), zeros.index_add(0, net, em)
    return zeros.index_add(0, net, p * ep) / sum_ep.clamp_min(1e-300) - \
        zeros.index_add(0, net, p * em) / sum_em.clamp_min(1e-300)


def attach_pins(target, d, order, device, dtype):
    """Sets the design d's pins on a placement model `target` (with size_x, size_y in the node
    order `order`) as tensors: num_nets, pin_node, pin_net, pin_dx, pin_dy (pin = lower-left
    corner + half the size + offset from the centre), net_weight, and the weighted-average
    model's share (nets of 2..100 pins): wa_pin_node, wa_pin_net, wa_pin_dx, wa_pin_dy,
    wa_weight, wa_pin (a bool per pin). Returns each pin's node position (NumPy)."""
    position_of = np.empty(len(order), dtype=np.int64)
    position_of[order] = np.arange(len(order))
    degree = np.diff(d.net_pin_start)
    pin_net = np.repeat(np.arange(d.num_nets), degree)
    pin_node = position_of[d.pin_node]
    t = lambda a, dt=dtype: torch.tensor(a, dtype=dt, device=device)  # noqa: E731
    target.num_nets = d.num_nets
    target.pin_node, target.pin_net = t(pin_node, torch.int64), t(pin_net, torch.int64)
    target.pin_dx = t(target.size_x[pin_node] / 2 + d.pin_offset_x)
    target.pin_dy = t(target.size_y[pin_node] / 2 + d.pin_offset_y)
    target.net_weight = t(d.net_weight)
    wa = (degree >= 2) & (degree <= 100)
    target.wa_pin = wa[pin_net]
    keep = t(target.wa_pin, torch.bool)
    target.wa_pin_node, target.wa_pin_net = target.pin_node[keep], target.pin_net[keep]
    target.wa_pin_dx, target.wa_pin_dy = target.pin_dx[keep], target.pin_dy[keep]
    target.wa_weight = t(np.where(wa, d.net_weight, 0.0))
    return pin_node


class Placement:
    """A Bookshelf design as tensors in DREAMPlace's node order, with fillers appended.

    pos = [x..., y...] (lower-left corners) over movable nodes, fixed terminals, I/O terminals
    (terminal_NI), then fillers. `order` maps these positions to the design's node indices."""

    def __init__(self, design, device, dtype, target_density, seed, fillers=None):
        """fillers: None (efield.make_fillers') or the (widths, heights) arrays of the fillers to
        append (a fence-region design's, field by field)."""
        d = design
        self.order = order = d.dreamplace_order()
        kind = d.kind[order]
        w, h = d.footprint_width[order], d.footprint_height[order]
        x, y = d.x[order], d.y[order]
        self.num_movable = int(np.count_nonzero(kind == MOVABLE))
        self.num_terminals = int(np.count_nonzero(kind == FIXED))
        nm, nt = self.num_movable, self.num_terminals
        self.region = xl, yl, xh, yh = d.region
        self.row_height = d.row_height or float(np.mean(h[:nm]))
        fixed = (w[nm:nm + nt], h[nm:nm + nt], x[nm:nm + nt], y[nm:nm + nt])
        if fillers is None:
            fw, fh, count, _ = make_fillers((w[:nm], h[:nm]), fixed, xl, yl, xh, yh, target_density, self.row_height)
            fw, fh = np.full(count, fw), np.full(count, fh)
        else:
            fw, fh = (np.asarray(a, dtype=np.float64) for a in fillers)
            count = len(fw)
        self.num_fillers = int(count)
        self.bins = default_bin_grid((w[:nm], h[:nm]), xl, yl, xh, yh, target_density)
        self.bin_size = ((xh - xl) / self.bins[0], (yh - yl) / self.bins[1])
        self.size_x = np.concatenate([w, fw])
        self.size_y = np.concatenate([h, fh])
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
        self.pos_charge = torch.cat([self.area, self.area])  # per entry of pos: its node's charge (area)

        pin_node = attach_pins(self, d, order, device, dtype)
        pins_per_node = np.bincount(pin_node, minlength=n).astype(np.float64)
        self.pins_per_node = torch.tensor(np.concatenate([pins_per_node, pins_per_node]), dtype=dtype, device=device)

    def _net_extremes(self, p, net, fn):
        return net_extremes(p, net, self.num_nets, fn)

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
            wl = weighted_average(coords[self.wa_pin_node] + offset, self.wa_pin_net, self.num_nets, gamma)
            total = total + (self.wa_weight * wl).sum()
        return total

    def node_positions(self, pos):
        """pos (this layout, fillers included) as NumPy (x, y) lower-left corners indexed like the
        design's nodes."""
        xy = pos.detach().cpu().double().numpy()
        n, count = self.num_nodes, len(self.order)
        x, y = np.empty(count), np.empty(count)
        x[self.order], y[self.order] = xy[:count], xy[n:n + count]
        return x, y
