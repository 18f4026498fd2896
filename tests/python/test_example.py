"""examples/python/global_place.py places data/synthetic2000 on the CPU: overflow <= 0.15
within a bounded number of iterations, and a PNG of the placement."""

import importlib.util

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
