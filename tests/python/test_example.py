"""examples/python/global_place.py places data/synthetic2000 on the CPU: overflow <= 0.15
within a bounded number of iterations, and a PNG of the placement."""

import importlib.util

import numpy as np
import pytest

from conftest import ROOT, torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def load_example():
    spec = importlib.util.spec_from_file_location("global_place", ROOT / "examples" / "python" / "global_place.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_places_synthetic2000(tmp_path, capsys):
    gp = load_example()
    png = tmp_path / "placed.png"
    status = gp.main([str(ROOT / "data" / "synthetic2000" / "synthetic2000.aux"), "--max-iters", "600",
                      "--png", str(png)])
    out = capsys.readouterr().out
    final = [line for line in out.splitlines() if line.startswith("final:")]
    assert final, out
    fields = final[0].split()
    overflow = float(fields[fields.index("overflow") + 1])
    iterations = int(fields[fields.index("iterations") + 1])
    assert overflow <= 0.15 and iterations <= 600, final[0]
    assert status == 0  # reached the default target, 0.07
    assert "iteration    50" in out  # reports every 50 iterations
    assert png.stat().st_size > 10000


def test_library_placer_gives_the_example_result(capsys):
    """efield.place.global_place is the example's loop: the same run gives the same numbers, and
    they are those of the placer before it moved into the package (381 iterations, HPWL
    1.101801e5, overflow 0.0693 on Debian's PyTorch 1.13; other PyTorch builds may round
    differently, hence the tolerances)."""
    import efield.place

    gp = load_example()
    aux = ROOT / "data" / "synthetic2000" / "synthetic2000.aux"
    gp.main([str(aux), "--max-iters", "600", "--report", "0"])
    fields = [line for line in capsys.readouterr().out.splitlines() if line.startswith("final:")][0].split()
    r = efield.place.global_place(aux, max_iters=600)
    assert int(fields[fields.index("iterations") + 1]) == r.iterations
    assert int(fields[fields.index("evaluations") + 1]) == r.evaluations
    assert fields[fields.index("hpwl") + 1] == f"{r.hpwl:.6e}"
    assert fields[fields.index("overflow") + 1] == f"{r.overflow:.4f}"
    assert abs(r.iterations - 381) <= 10 and abs(r.hpwl / 1.101801e5 - 1) < 0.01 and r.converged
    # The record: per-iteration traces, stage times, counts; positions per design node.
    rec = r.record()
    assert len(rec["density_weight"]) == r.iterations + 1 and len(rec["overflow_trace"]) == r.iterations
    assert set(rec["stage_seconds"]) == {"wirelength_model", "density", "backward", "hpwl", "optimizer"}
    assert rec["counts"]["movable"] == 2000 and rec["params"]["max_iters"] == 600
    d = efield.load_bookshelf(aux)
    fixed = d.kind != efield.MOVABLE
    assert np.allclose(r.node_x[fixed], d.x[fixed], rtol=1e-6) and np.allclose(r.node_y[fixed], d.y[fixed], rtol=1e-6)
    xl, yl, xh, yh = d.region
    assert (r.node_x >= xl).all() and (r.node_x + d.footprint_width <= xh + 1e-3).all()


def test_place_params_reject_unknown_and_bad_values():
    import efield.place

    with pytest.raises(TypeError, match="unknown placer parameter.*gamma"):
        efield.place.PlaceParams.of(gamma=1.0)
    with pytest.raises(ValueError, match="target_density"):
        efield.place.PlaceParams(target_density=0)
