"""A small fence-region design in DREAMPlace 3.0's layout (the data its PlaceDB and PlaceObj hand
to the per-region electric-potential ops), and the float64 reference of each field built the way
DREAMPlace builds one region's op: only that field's cells and fillers, the terminals and the
field's blockage rectangles as fixed cells (reference.electrostatics, docs/math.md section 2)."""

import types

import numpy as np

import reference

import efield

INT_MAX = 2 ** 31 - 1


def blockages(fence, fixed, region):
    """The part of the region covered neither by `fence` (rectangles) nor by any fixed cell, cut
    into rectangles on the grid of all their edges (slow and obvious; any cut gives the same map)."""
    xl, yl, xh, yh = region
    fw, fh, fx, fy = fixed
    cells = [(max(x, xl), max(y, yl), min(x + w, xh), min(y + h, yh)) for w, h, x, y in zip(fw, fh, fx, fy)]
    cells = [c for c in cells if c[2] > c[0] and c[3] > c[1]]
    covers = [tuple(r) for r in fence] + cells
    xs = sorted({xl, xh} | {v for c in covers for v in (c[0], c[2]) if xl < v < xh})
    ys = sorted({yl, yh} | {v for c in covers for v in (c[1], c[3]) if yl < v < yh})
    out = []
    for x0, x1 in zip(xs, xs[1:]):
        for y0, y1 in zip(ys, ys[1:]):
            if not any(c[0] <= x0 and x1 <= c[2] and c[1] <= y0 and y1 <= c[3] for c in covers):
                out.append((x0, y0, x1, y1))
    return np.array(out, dtype=np.float64).reshape(-1, 4)


class FenceDesign:
    """Two fences (one L-shaped) on a 16 x 12 grid, 60 movable nodes (15 in each fence), 4
    terminals (overlapping fence 0, fence 1 and the region's edge), 2 terminal_NIs, each field's
    fillers by DREAMPlace's per-region rule (efield.make_region_fillers). Arrays in DREAMPlace's
    order; `placedb` carries what its per-region ops read."""

    region = (2.0, -1.0, 42.0, 29.0)
    bins = (16, 12)

    def __init__(self, rng, td=0.8, num_movable=60, masked=False):
        xl, yl, xh, yh = self.region
        M, N = self.bins
        self.bin_size = bx, by = (xh - xl) / M, (yh - yl) / N
        self.fences = [np.array([[4.0, 2.0, 14.0, 12.0]]),
                       np.array([[22.0, 14.0, 38.0, 20.0], [22.0, 20.0, 28.0, 27.0]])]
        K = self.K = len(self.fences)
        nm = self.nm = num_movable
        mw, mh = rng.uniform(0.3, 1.2, nm) * bx, rng.uniform(0.3, 1.2, nm) * by
        ids = np.full(nm, INT_MAX, dtype=np.int64)
        order = rng.permutation(nm)
        ids[order[:nm // 4]] = 0
        ids[order[nm // 4:nm // 2]] = 1
        self.ids = ids
        term = (np.array([4.0, 5.0, 3.0, 2.0]), np.array([3.0, 6.0, 5.0, 2.0]),
                np.array([10.0, 40.0, 30.0, 16.0]), np.array([9.0, 25.0, 17.0, 2.0]))
        self.nt, self.ni = 4, 2
        self.row_height = 0.9 * by
        self.filler_info = efield.make_region_fillers((mw, mh), ids, self.fences, term, xl, yl, xh, yh, td,
                                                      self.row_height)
        counts = [f["count"] for f in self.filler_info]
        self.nf = nf = sum(counts)
        fw = np.concatenate([np.full(f["count"], f["width"]) for f in self.filler_info])
        fh = np.concatenate([np.full(f["count"], f["height"]) for f in self.filler_info])
        self.size_x = np.concatenate([mw, term[0], [0.5, 0.5], fw])
        self.size_y = np.concatenate([mh, term[1], [0.5, 0.5], fh])
        self.n = n = len(self.size_x)
        # Fenced cells mostly inside their fence (its first rectangle), the rest anywhere, some
        # sticking out of the region.
        x = rng.uniform(xl - 0.5 * bx, xh - 0.5 * bx, n)
        y = rng.uniform(yl - 0.5 * by, yh - 0.5 * by, n)
        for k, fence in enumerate(self.fences):
            sel = np.flatnonzero(ids == k)
            r = fence[0]
            x[sel] = rng.uniform(r[0], r[2] - mw[sel])
            y[sel] = rng.uniform(r[1], r[3] - mh[sel])
        x[nm:nm + 4], y[nm:nm + 4] = term[2], term[3]
        x[nm + 4:nm + 6], y[nm + 4:nm + 6] = [1.0, 2.0], [1.0, 2.0]
        self.x, self.y = x, y
        self.terminals = term
        self.filler_start_map = np.cumsum([0] + counts)
        self.td = [f["target_density"] for f in self.filler_info]
        self.virtual_macros = [blockages(f, term, self.region) for f in self.fences]
        self.virtual_macros.append(np.concatenate(self.fences).astype(np.float32).astype(np.float64))
        mask = np.zeros(nm, dtype=bool)
        if masked:
            mask[order[::7]] = True
        self.movable_macro_mask = mask
        self.placedb = types.SimpleNamespace(
            regions=self.fences, filler_start_map=self.filler_start_map, target_density_fence_region=self.td,
            virtual_macro_fence_region=[v.astype(np.float32) for v in self.virtual_macros], num_nodes=n,
            num_movable_nodes=nm, num_terminals=self.nt, num_filler_nodes=nf,
            total_movable_node_area_fence_region=np.array([f["movable_area"] for f in self.filler_info]),
            xl=xl, yl=yl, xh=xh, yh=yh)
        assert nf > 0 and all(c > 0 for c in counts)

    @property
    def pos(self):
        return np.concatenate([self.x, self.y])

    def field_nodes(self, k):
        """(movable nodes, filler nodes) of field k."""
        movable = np.flatnonzero(self.ids == k if k < self.K else self.ids >= self.K)
        fo = self.n - self.nf
        return movable, np.arange(fo + self.filler_start_map[k], fo + self.filler_start_map[k + 1])

    def reference(self, k, pos, size_x=None, size_y=None, masked=False):
        """Field k's float64 reference at pos (DREAMPlace's flat layout): the reference's dict and
        the gradient in pos's layout (0 outside the field)."""
        sx = self.size_x if size_x is None else size_x
        sy = self.size_y if size_y is None else size_y
        n, nm = self.n, self.nm
        p = np.asarray(pos, dtype=np.float64)
        movable, fillers = self.field_nodes(k)
        cells = np.concatenate([movable, fillers])
        rects = self.virtual_macros[k]
        tw, th = sx[nm:nm + self.nt], sy[nm:nm + self.nt]
        fixed = (np.concatenate([tw, rects[:, 2] - rects[:, 0]]), np.concatenate([th, rects[:, 3] - rects[:, 1]]),
                 np.concatenate([p[nm:nm + self.nt], rects[:, 0]]),
                 np.concatenate([p[n + nm:n + nm + self.nt], rects[:, 1]]))
        ref = reference.electrostatics(self.region, self.bins, self.td[k], (sx[movable], sy[movable]),
                                       (sx[fillers], sy[fillers]), fixed, p[cells], p[n + cells],
                                       macro_mask=self.movable_macro_mask[movable] if masked else None)
        g = np.zeros(2 * n)
        g[cells], g[n + cells] = ref["gx"], ref["gy"]
        return ref, g
