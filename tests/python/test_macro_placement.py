"""ibm01 and ibm05 with their large movable blocks as DREAMPlace's movable macros (area above 10
times the mean movable area, height above 2 rows), placed at target density 0.9 by
examples/python/global_place.py --macro-mask on the CPU: the placement converges. The designs come
from the shared data folder; the tests skip when it is absent. (examples/cpp/global_place runs
the same designs in ctest: global_place_ibm01_macros, global_place_ibm05_macros.)"""

import importlib.util

import numpy as np
import pytest

from conftest import ROOT, shared_design, torch

import efield

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def load_example():
    spec = importlib.util.spec_from_file_location("global_place", ROOT / "examples" / "python" / "global_place.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def final_fields(out):
    final = [line for line in out.splitlines() if line.startswith("final:")]
    assert final, out
    fields = final[0].split()
    return {key: fields[fields.index(key) + 1] for key in ("iterations", "hpwl", "overflow", "converged")}


@pytest.mark.parametrize("name", ["ibm01", "ibm05"])
def test_example_places_with_movable_macros(name, capsys):
    aux = shared_design(name)
    if aux is None:
        pytest.skip(f"{name} is not in the shared data folder")
    gp = load_example()
    design = efield.load_bookshelf(str(aux))
    placement = gp.Placement(design, torch.device("cpu"), torch.float32, 0.9, 1)
    macros = int(np.count_nonzero(placement.macro_mask))
    assert macros > 0, f"{name} has no movable macro by DREAMPlace's rule"
    status = gp.main([str(aux), "--target-density", "0.9", "--macro-mask", "--max-iters", "1000", "--report", "100",
                      "--threads", "2"])
    result = final_fields(capsys.readouterr().out)
    assert status == 0 and result["converged"] == "yes", result
    assert float(result["overflow"]) <= 0.07 and np.isfinite(float(result["hpwl"]))
