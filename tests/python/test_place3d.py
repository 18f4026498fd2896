"""efield.place3d on a tiny synthetic design for a few iterations: the flow runs, every cell
gets a tier, the reported metrics agree with direct counts, and the z term pulls connected
cells into fewer tiers."""

import numpy as np
import pytest

from conftest import torch

import efield

pytestmark = [pytest.mark.skipif(torch is None, reason="PyTorch is not installed"),
              pytest.mark.skipif(not hasattr(efield, "ElectrostaticSystem3D"),
                                 reason="efield was built without ElectrostaticSystem3D")]


@pytest.fixture(scope="module")
def design():
    return efield.generate_synthetic_design(300, num_fixed_macros=0, num_io_pads=20, macro_area_fraction=0.0, seed=3)


def place(design, **params):
    import efield.place3d

    return efield.place3d.global_place3d(design, max_iters=params.pop("max_iters", 30), report=0,
                                         dtype="float64", **params)


@pytest.mark.parametrize("tiers", [2, 3])
def test_a_few_iterations_give_tiers_and_consistent_metrics(design, tiers):
    r = place(design, tiers=tiers)
    p = r.placement
    assert r.iterations >= 1 and r.evaluations >= r.iterations
    assert p.bins[2] == 2 * tiers and p.region[5] == pytest.approx(tiers * p.depth)
    assert r.tier.shape == (p.num_movable,) and r.tier.min() >= 0 and r.tier.max() < tiers
    assert sum(r.tier_area) == pytest.approx(tiers)
    assert len(r.tier_overflow) == tiers and all(o >= 0 for o in r.tier_overflow)
    # Vertical interconnects by a direct count over the design's nets.
    node_tier = np.full(design.num_nodes, -1)
    node_tier[p.order[:p.num_movable]] = r.tier
    count = 0
    for k in range(design.num_nets):
        t = node_tier[design.pin_node[design.net_pin_start[k]:design.net_pin_start[k + 1]]]
        t = t[t >= 0]
        count += int(t.max() - t.min()) if len(t) else 0
    assert r.vertical_interconnects == count
    # x-y HPWL by a direct count (pins at the cells' centres plus their offsets).
    x = r.position.detach().numpy()
    n = p.num_nodes
    node_x, node_y = np.empty(design.num_nodes), np.empty(design.num_nodes)
    node_x[p.order], node_y[p.order] = x[:len(p.order)], x[n:n + len(p.order)]
    px = node_x[design.pin_node] + design.footprint_width[design.pin_node] / 2 + design.pin_offset_x
    py = node_y[design.pin_node] + design.footprint_height[design.pin_node] / 2 + design.pin_offset_y
    hpwl = sum(design.net_weight[k] * (np.ptp(px[s]) + np.ptp(py[s]))
               for k, s in enumerate(slice(a, b) for a, b in zip(design.net_pin_start[:-1], design.net_pin_start[1:])))
    assert r.hpwl_xy == pytest.approx(hpwl, rel=1e-9)
    # Cells stay in the box.
    xl, yl, zl, xh, yh, zh = p.region
    z = x[2 * n:2 * n + p.num_movable]
    assert z.min() >= zl - 1e-9 and (z + p.depth).max() <= zh + 1e-9


def test_the_vertical_interconnect_cost_lowers_the_count(design):
    free = place(design, tiers=2, vi_cost=0.0, max_iters=60)
    costly = place(design, tiers=2, vi_cost=20.0, max_iters=60)
    assert costly.vertical_interconnects < free.vertical_interconnects


def test_bad_parameters():
    import efield.place3d

    with pytest.raises(ValueError, match="tiers"):
        efield.place3d.Place3DParams(tiers=0)
    with pytest.raises(ValueError, match="vi_cost"):
        efield.place3d.Place3DParams(vi_cost=-1.0)
    with pytest.raises(TypeError, match="unknown placer parameter"):
        efield.place3d.Place3DParams.of(None, layers=2)


def test_the_example_writes_its_record_and_picture(tmp_path, capsys):
    """examples/python/global_place3d.py on data/synthetic2000 for a few iterations."""
    import importlib.util
    import json

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("global_place3d", ROOT / "examples" / "python" / "global_place3d.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    png, record = tmp_path / "tiers.png", tmp_path / "run.json"
    status = example.main([str(ROOT / "data" / "synthetic2000" / "synthetic2000.aux"), "--tiers", "2", "--max-iters",
                           "20", "--report", "10", "--png", str(png), "--json", str(record)])
    out = capsys.readouterr().out
    assert status == 1  # 20 iterations do not reach the target overflow
    assert "iteration    10" in out and "final: iterations 20" in out and "vertical_interconnects" in out
    assert png.stat().st_size > 10000
    r = json.loads(record.read_text())
    assert r["tiers"] == 2 and r["iterations"] == 20 and len(r["tier_area"]) == 2 and r["params"]["vi_cost"] == 1.0
