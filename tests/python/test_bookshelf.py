"""efield.load_bookshelf and the synthetic designs: NumPy arrays with the file's counts, a
consistent CSR netlist, and errors that name the file."""

import numpy as np
import pytest

import efield

from conftest import ROOT, shared_design

SYNTHETIC = ROOT / "data" / "synthetic2000" / "synthetic2000.aux"
IBM01 = shared_design("ibm01")


def check_consistent(d):
    n = d.num_nodes
    for name in ("width", "height", "footprint_width", "footprint_height", "x", "y", "kind", "orientation"):
        assert len(getattr(d, name)) == n, name
    assert d.net_pin_start[0] == 0 and d.net_pin_start[-1] == d.num_pins
    assert np.all(np.diff(d.net_pin_start) >= 0)
    assert d.pin_node.min() >= 0 and d.pin_node.max() < n
    assert len(d.pin_offset_x) == len(d.pin_offset_y) == len(d.pin_direction) == d.num_pins
    assert len(d.net_weight) == d.num_nets
    assert len(d.node_pin_start) == n + 1 and d.node_pin_start[-1] == d.num_pins
    counts = np.diff(d.node_pin_start)
    assert np.array_equal(counts, np.bincount(d.pin_node, minlength=n))
    assert np.array_equal(d.pin_node[d.node_pins], np.repeat(np.arange(n), counts))
    order = d.dreamplace_order()
    assert sorted(order) == list(range(n))
    kinds = d.kind[order]
    assert np.all(np.diff(kinds.astype(int)) >= 0), "movable, then FIXED, then FIXED_NI"


def test_synthetic2000():
    d = efield.load_bookshelf(SYNTHETIC)
    assert d.name == "synthetic2000"
    assert d.num_nodes == 2240 and d.num_nets == 2000 and d.num_pins == 6605
    assert d.count(efield.MOVABLE) == 2000 and d.count(efield.FIXED) == 40 and d.count(efield.FIXED_NI) == 200
    assert d.node_names[0] == "o0" and d.width[0] == 24 and d.height[0] == 12
    assert d.row_height == 12 and d.region[0] == 0 and d.region[2] > 0
    assert len(d.rows["y"]) > 0 and d.width.dtype == np.float64 and d.net_pin_start.dtype == np.int64
    # net n0: o214 O : -1.5 -3.5, o886 I : -4.5 -3.5
    assert list(d.pin_node[:2]) == [214, 886]
    assert list(d.pin_offset_x[:2]) == [-1.5, -4.5] and list(d.pin_offset_y[:2]) == [-3.5, -3.5]
    check_consistent(d)


def test_generated_design_equals_the_shipped_copy():
    shipped = efield.load_bookshelf(SYNTHETIC)
    made = efield.generate_synthetic_design(2000, seed=1)
    assert np.array_equal(made.x, shipped.x) and np.array_equal(made.width, shipped.width)
    assert np.array_equal(made.pin_node, shipped.pin_node)
    standin = efield.ispd2005_standin("adaptec1")
    assert standin.count(efield.MOVABLE) == 210904 and not standin.has_nets


def test_errors_name_the_file(tmp_path):
    with pytest.raises(efield.Error, match="missing.aux"):
        efield.load_bookshelf(tmp_path / "missing.aux")
    aux = tmp_path / "broken.aux"
    aux.write_text("RowBasedPlacement : broken.nodes broken.nets broken.pl broken.scl\n")
    (tmp_path / "broken.nodes").write_text("UCLA nodes 1.0\nNumNodes : 2\nNumTerminals : 0\n a 1 1\n")
    with pytest.raises(efield.Error, match="broken.nodes"):
        efield.load_bookshelf(aux)


@pytest.mark.skipif(IBM01 is None, reason="the ibm01 design is absent (../shared/data/bookshelf or EFIELD_SHARED_DATA)")
def test_ibm01():
    d = efield.load_bookshelf(IBM01)
    assert d.num_nodes == 12028 and d.count(efield.MOVABLE) == 12028 and d.num_nets == 11507
    check_consistent(d)


def test_scaled_ispd2005_standin_and_the_design_table():
    table = efield.ispd2005_designs()
    assert [d["name"] for d in table][:2] == ["adaptec1", "adaptec2"] and len(table) == 8
    adaptec1 = table[0]
    d = efield.ispd2005_standin("adaptec1", scale=0.001)
    assert d.count(efield.MOVABLE) == round(adaptec1["num_movable"] * 0.001)
    assert d.count(efield.FIXED) == round(adaptec1["num_terminals"] * 0.001) and d.num_nets == 0
    with pytest.raises(ValueError, match="scale"):
        efield.ispd2005_standin("adaptec1", scale=0)
