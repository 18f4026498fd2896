"""efield.place_fences on a small synthetic fence design (CPU): every field's overflow <= 0.07
and every fenced cell inside its fence at the end of global placement; the example's --fences."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import efield  # noqa: E402
import efield.place_fences as pf  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def fence_design(k=2, cells=2000):
    return efield.generate_synthetic_design(cells, num_fixed_macros=8, num_io_pads=40, num_fences=k)


def test_two_fences_reach_the_targets():
    r = pf.fence_global_place(fence_design(), threads=1)
    assert r.converged
    assert len(r.overflow) == 3 and max(r.overflow) <= 0.07
    assert r.outside == [0, 0]
    assert np.isfinite(r.hpwl)


def test_fields_and_fillers_follow_the_design():
    d = fence_design()
    fp = pf.prepare_fences(d, efield.place.PlaceParams())
    p = fp.placement
    assert len(fp.fields) == 3
    # Every movable cell and filler belongs to exactly one field; fixed nodes to none.
    owned = np.concatenate([np.concatenate([f.movable_index, f.filler_index]) for f in fp.fields])
    assert len(owned) == len(np.unique(owned)) == p.num_movable + p.num_fillers
    # Fenced cells start inside their fence.
    outside, _ = pf.containment(fp, p.start)
    assert outside == [0, 0]


def test_snap_moves_a_cell_back_into_its_fence():
    fp = pf.prepare_fences(fence_design(), efield.place.PlaceParams())
    p = fp.placement
    pos = p.start.clone()
    cell = int(np.flatnonzero(fp.region_id == 0)[0])
    pos[cell] = p.region[0]  # to the region's left edge, outside fence 0
    pos[p.num_nodes + cell] = p.region[1]
    assert pf.containment(fp, pos)[0][0] >= 1
    snapped, moved = pf.snap_into_fences(fp, pos)
    assert moved >= 1 and pf.containment(fp, snapped)[0] == [0, 0]


def test_a_design_without_fences_is_refused():
    with pytest.raises(ValueError, match="no fence regions"):
        pf.prepare_fences(efield.generate_synthetic_design(500), efield.place.PlaceParams())


def test_example_places_two_fences():
    out = subprocess.run([sys.executable, str(ROOT / "examples/python/global_place.py"), "--fences", "2", "--cells",
                          "2000", "--threads", "1", "--report", "0"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "fenced cells outside their fence 0" in out.stdout


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_two_fences_on_cuda():
    r = pf.fence_global_place(fence_design(), device="cuda")
    assert r.converged and max(r.overflow) <= 0.07 and r.outside == [0, 0]
