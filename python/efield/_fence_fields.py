"""Fence-region fields as DREAMPlace 3.0 builds them, from its per-region arguments (docs/math.md
2.11): which entries of DREAMPlace's flat pos = [x..., y...] belong to the field of
region k, and the field's fixed cells (the terminals plus the virtual-macro rectangles the placer
passes as `fence_regions`). Used by efield.torch.ElectricPotential's per-region op and by
efield.torch.MultiFieldElectricPotential.from_dreamplace.

DREAMPlace's node layout: movable nodes, terminals, terminal_NIs, fillers last. With K fence
regions (len(placedb.regions)) there are K + 1 fields: field k < K holds the movable nodes with
node2fence_region_map == k, the default field K those with a value >= K (DREAMPlace writes
INT_MAX). Field k's fillers are the slice [filler_start_map[k], filler_start_map[k + 1]) of the
fillers (placedb.filler_start_map: K + 2 cumulative counts)."""

import numbers

import numpy as np

from . import _arrays

INT_MAX = 2 ** 31 - 1


def placedb_value(placedb, name):
    """placedb.name (DREAMPlace's PlaceDB, any object with the attribute, or a mapping)."""
    if isinstance(placedb, dict):
        if name not in placedb:
            raise TypeError(f"placedb has no {name!r}; the per-region op reads placedb.regions and "
                            "placedb.filler_start_map")
        return placedb[name]
    if not hasattr(placedb, name):
        raise TypeError(f"placedb has no attribute {name!r}; the per-region op reads placedb.regions and "
                        "placedb.filler_start_map")
    return getattr(placedb, name)


def num_regions(placedb):
    """K: the number of fence regions of placedb (len(placedb.regions))."""
    return len(placedb_value(placedb, "regions"))


def _region_id(region_id, K):
    if isinstance(region_id, bool) or not isinstance(region_id, (numbers.Integral, np.integer)):
        if hasattr(region_id, "item") and getattr(region_id, "ndim", 1) == 0:
            region_id = region_id.item()
        if isinstance(region_id, bool) or not isinstance(region_id, numbers.Integral):
            raise TypeError(f"region_id must be an integer (got {type(region_id).__name__})")
    region_id = int(region_id)
    if not 0 <= region_id <= K:
        raise ValueError(f"region_id {region_id} is out of range: placedb has {K} fence regions, so region_id is "
                         f"0..{K - 1} for a fence or {K} for the default region")
    return region_id


def _region_map(node2fence_region_map, num_movable):
    if node2fence_region_map is None:
        raise TypeError("a per-region op (region_id given) needs node2fence_region_map")
    ids = node2fence_region_map
    if hasattr(ids, "detach"):
        ids = ids.detach().cpu().numpy()
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"node2fence_region_map must be a one-dimensional integer array (got {ids.dtype} of shape "
                        f"{ids.shape})")
    if len(ids) < num_movable:
        raise ValueError(f"node2fence_region_map has {len(ids)} entries for {num_movable} movable nodes")
    ids = ids[:num_movable].astype(np.int64)
    if ids.size and ids.min() < 0:
        i = int(np.argmin(ids))
        raise ValueError(f"node2fence_region_map[{i}] = {ids[i]}: region ids are >= 0 (a fence's index, or >= the "
                         "number of fences for the default region)")
    return ids


def _filler_slice(placedb, K, k, num_fillers):
    starts = placedb_value(placedb, "filler_start_map")
    if hasattr(starts, "detach"):
        starts = starts.detach().cpu().numpy()
    starts = np.asarray(starts)
    if starts.ndim != 1 or len(starts) != K + 2:
        raise ValueError(f"placedb.filler_start_map has shape {starts.shape}; with {K} fence regions it has K + 2 = "
                         f"{K + 2} entries (cumulative filler counts of the fields)")
    if not np.issubdtype(starts.dtype, np.integer):
        raise TypeError(f"placedb.filler_start_map must hold integers (got {starts.dtype})")
    if starts[0] != 0 or np.any(np.diff(starts) < 0) or starts[-1] != num_fillers:
        raise ValueError(f"placedb.filler_start_map {starts.tolist()} must rise from 0 to num_filler_nodes = "
                         f"{num_fillers}")
    return int(starts[k]), int(starts[k + 1])


def rectangles(rects, region, name="fence_regions"):
    """Checked float64 (R, 4) array of rectangles (xl, yl, xh, yh) inside region = (xl, yl, xh, yh).
    DREAMPlace stores them in float32: a corner within float32 rounding of the region's edge
    counts as on it."""
    if hasattr(rects, "detach"):
        rects = rects.detach().cpu().numpy()
    a = np.asarray(rects, dtype=np.float64)
    if a.size == 0:
        return np.zeros((0, 4))
    if a.ndim != 2 or a.shape[1] != 4:
        raise ValueError(f"{name} must have shape (rectangles, 4), rows (xl, yl, xh, yh) (got shape {a.shape})")
    bad = ~np.isfinite(a).all(axis=1) | (a[:, 2] < a[:, 0]) | (a[:, 3] < a[:, 1])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] = {a[i].tolist()} is not a rectangle (xl <= xh, yl <= yh, finite)")
    xl, yl, xh, yh = region
    tol = 2.0 ** -22 * max(abs(xl), abs(yl), abs(xh), abs(yh), xh - xl, yh - yl)
    out = (a[:, 0] < xl - tol) | (a[:, 1] < yl - tol) | (a[:, 2] > xh + tol) | (a[:, 3] > yh + tol)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ValueError(f"{name}[{i}] = {a[i].tolist()} lies outside the placement region {list(region)}")
    return a


def as_fixed_cells(rects):
    """(widths, heights, x, y) of rectangles with an area (the others add nothing)."""
    keep = (rects[:, 2] > rects[:, 0]) & (rects[:, 3] > rects[:, 1])
    r = rects[keep]
    return r[:, 2] - r[:, 0], r[:, 3] - r[:, 1], r[:, 0], r[:, 1]


def join_fixed(a, b):
    """Fixed cells a then b, each (widths, heights, x, y)."""
    return tuple(np.concatenate([u, v]) for u, v in zip(a, b))


class RegionSelection:
    """The nodes of one field in DREAMPlace's layout: `nodes` = the field's movable nodes (in
    order), all terminals, the field's fillers; the op of the field works on pos gathered at
    `nodes` (x) and num_nodes + `nodes` (y), DREAMPlace's pos_mask in index form.

    region_id None: every movable node and every filler (DREAMPlace's whole-design op with
    fence_regions as extra blockage)."""

    def __init__(self, num_nodes, num_movable, num_terminals, num_fillers, region_id, node2fence_region_map,
                 placedb):
        self.num_nodes = num_nodes
        fo = num_nodes - num_fillers
        if region_id is None:
            self.region_id, self.num_regions = None, None
            movable = np.arange(num_movable, dtype=np.int64)
            begin, end = 0, num_fillers
        else:
            if placedb is None:
                raise TypeError("a per-region op (region_id given) needs placedb (its regions and filler_start_map)")
            K = num_regions(placedb)
            k = _region_id(region_id, K)
            ids = _region_map(node2fence_region_map, num_movable)
            movable = np.flatnonzero(ids == k if k < K else ids >= K).astype(np.int64)
            begin, end = _filler_slice(placedb, K, k, num_fillers)
            self.region_id, self.num_regions = k, K
        self.movable = movable
        self.filler_begin, self.filler_end = begin, end
        self.num_terminals = num_terminals
        self.nodes = np.concatenate([movable, np.arange(num_movable, num_movable + num_terminals, dtype=np.int64),
                                     np.arange(fo + begin, fo + end, dtype=np.int64)])
        self._index = {}

    @property
    def num_movable(self):
        return len(self.movable)

    @property
    def num_fillers(self):
        return self.filler_end - self.filler_begin

    def gather(self, a):
        """a (one entry per node) at the field's nodes."""
        return a[self.nodes]

    def gather_mask(self, mask):
        """movable_macro_mask (one entry per movable node) at the field's movable nodes."""
        return None if mask is None else mask[self.movable]

    def pos_index(self, device):
        """The field's entries of pos as an int64 tensor on device (made once per device)."""
        key = str(device)
        if key not in self._index:
            torch = _arrays._torch()
            nodes = torch.from_numpy(self.nodes)
            self._index[key] = torch.cat([nodes, nodes + self.num_nodes]).to(device)
        return self._index[key]
