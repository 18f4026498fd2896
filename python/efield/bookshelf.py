"""Bookshelf designs (ISPD2005/2006, ICCAD04) as NumPy arrays, for Python placers.

    d = efield.load_bookshelf("ibm01/ibm01.aux")
    d.width, d.height, d.x, d.y, d.kind                 # per node (lower-left corners, as in .pl)
    d.net_pin_start, d.pin_node, d.pin_offset_x, ...    # the netlist, compressed (CSR)

Node kinds: MOVABLE (0), FIXED (1: .nodes `terminal`, .pl /FIXED), FIXED_NI (2: `terminal_NI`,
/FIXED_NI: fixed, other cells may overlap it). The netlist is efield::placement_netlist's view:
pin offsets from the node's centre with its orientation applied (they hold for the footprint as
placed: footprint_width, footprint_height); files that measure them from the lower-left corner
are detected by the loader and moved to the centre. Every problem with the files raises
efield.Error naming the file, the line and what was expected.
"""

from dataclasses import dataclass, field
from typing import List, Tuple

import numpy as np

from . import _efield

MOVABLE, FIXED, FIXED_NI = 0, 1, 2


@dataclass
class BookshelfDesign:
    name: str
    node_names: List[str]
    width: np.ndarray               # as in .nodes
    height: np.ndarray
    footprint_width: np.ndarray     # as placed: width and height swapped for E, W, FE, FW
    footprint_height: np.ndarray
    x: np.ndarray                   # lower-left corners from the .pl file
    y: np.ndarray
    kind: np.ndarray                # uint8: MOVABLE, FIXED, FIXED_NI
    orientation: np.ndarray         # uint8: N, S, E, W, FN, FS, FE, FW = 0..7
    node_weight: np.ndarray
    has_nets: bool
    net_names: List[str]
    net_weight: np.ndarray
    net_pin_start: np.ndarray       # int64, num_nets + 1: net k's pins are [start[k], start[k+1])
    pin_node: np.ndarray            # int64, the node of each pin
    pin_offset_x: np.ndarray        # from the node's centre, orientation applied
    pin_offset_y: np.ndarray
    node_pin_start: np.ndarray      # int64, num_nodes + 1: node i's pins are node_pins[start[i]:start[i+1]]
    node_pins: np.ndarray           # int64, pin indices grouped by node
    pin_direction: np.ndarray       # uint8: input, output, bidirectional = 0, 1, 2
    rows: dict                      # arrays y, height, x_min, x_max, site_width, site_spacing, num_sites
    region: Tuple[float, float, float, float]  # (xl, yl, xh, yh): the rows' bounding box
    # Fence regions (synthetic fence designs; Bookshelf files give none): fences[k] is a
    # (rects, 4) float64 array of disjoint (xl, yl, xh, yh); region_id (int32, per node) is k for a
    # movable node fenced in fences[k], len(fences) for every other node (empty without fences).
    fences: List[np.ndarray] = field(default_factory=list)
    region_id: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    @property
    def num_nodes(self):
        return len(self.node_names)

    @property
    def num_nets(self):
        return len(self.net_pin_start) - 1

    @property
    def num_pins(self):
        return len(self.pin_node)

    @property
    def row_height(self):
        """Height of the first row (0 without rows)."""
        return float(self.rows["height"][0]) if len(self.rows["height"]) else 0.0

    def count(self, kind):
        return int(np.count_nonzero(self.kind == kind))

    def dreamplace_order(self):
        """Node indices in DREAMPlace's order: movable nodes, then FIXED, then FIXED_NI (each in
        file order). A placer that wants pos = [x..., y...] in that layout indexes its arrays
        with it."""
        return np.concatenate([np.flatnonzero(self.kind == k) for k in (MOVABLE, FIXED, FIXED_NI)])


def _design(arrays):
    return BookshelfDesign(**arrays)


def load_bookshelf(aux, allow_missing_nets=False):
    """Loads the design named by `aux` (paths inside are relative to its folder)."""
    return _design(_efield.load_bookshelf(str(aux), allow_missing_nets))


def generate_synthetic_design(num_movable, num_fixed_macros=40, num_io_pads=200, utilization=0.7,
                              macro_area_fraction=0.2, with_nets=True, seed=1, num_movable_macros=0,
                              num_fences=0, fence_area_fraction=0.3, fenced_cell_fraction=0.3,
                              l_shaped_fences=True):
    """A seeded synthetic design from the library's generator (the same spec and seed give the
    same design on every platform). num_movable_macros of the movable cells are blocks of 2 to 8
    rows. num_fences > 0 adds fence regions (fence_area_fraction of the region in all; every
    second one L-shaped when l_shaped_fences) holding fenced_cell_fraction of the standard cells:
    see the design's `fences` and `region_id`."""
    return _design(_efield.generate_synthetic_design(num_movable, num_fixed_macros, num_io_pads, utilization,
                                                     macro_area_fraction, with_nets, seed, num_movable_macros,
                                                     num_fences, fence_area_fraction, fenced_cell_fraction,
                                                     l_shaped_fences))


def ispd2005_standin(name, seed=1, scale=1.0):
    """A synthetic stand-in with an ISPD2005 design's cell count, terminal count and utilization
    (no nets): 'adaptec1', ..., 'bigblue4'; scale in (0, 1) scales the cell and terminal counts."""
    return _design(_efield.ispd2005_standin(name, seed, scale))


def ispd2005_designs():
    """The ISPD2005 designs' published statistics as dicts: name, num_movable, num_terminals,
    utilization, bins (DREAMPlace's bins per axis)."""
    keys = ("name", "num_movable", "num_terminals", "utilization", "bins")
    return [dict(zip(keys, row)) for row in _efield.ispd2005_designs()]
