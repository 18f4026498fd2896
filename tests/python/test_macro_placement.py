"""efield.place's placer (examples/python/global_place.py) at target density 0.9 with DREAMPlace's movable macros
(area above 10 times the mean movable area, height above 2 rows) as the op's movable_macro_mask,
on the CPU: ibm01 and ibm05 (from the shared data folder; skipped when absent; they have no cell
the rule marks) and a synthetic design with movable blocks converge. (examples/cpp/global_place
runs ibm01 and ibm05 with --macro-mask in ctest: global_place_ibm01_macros,
global_place_ibm05_macros.)"""

import numpy as np
import pytest

from conftest import shared_design, torch

import efield
import efield.place

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def place(design, macro_mask=True):
    """efield.place at td 0.9 on one CPU thread, with the movable-macro mask of DREAMPlace's rule;
    returns (the placement, the run's result)."""
    threads = torch.get_num_threads()
    try:
        # threads=1: CI's two cores are shared by tests running side by side
        r = efield.place.global_place(design, target_density=0.9, target_overflow=0.07, max_iters=1000,
                                      threads=1, macro_mask=macro_mask)
        return r.placement, r
    finally:
        torch.set_num_threads(threads)


def expect_converged(result):
    assert result.converged and result.overflow <= 0.07, result
    assert np.isfinite(result.hpwl) and result.iterations < 1000


@pytest.mark.parametrize("name", ["ibm01", "ibm05"])
def test_example_places_ibm_at_td_below_one(name):
    aux = shared_design(name)
    if aux is None:
        pytest.skip(f"{name} is not in the shared data folder")
    placement, result = place(efield.load_bookshelf(str(aux)))
    # The standard-cell versions of ibm01 and ibm05 have no cell that DREAMPlace's rule marks: an
    # all-False mask, as DREAMPlace passes it whenever td < 1.
    assert placement.macro_mask.shape == (placement.num_movable,)
    expect_converged(result)


def test_example_places_movable_macros():
    design = efield.generate_synthetic_design(3000, num_movable_macros=20, seed=3)
    placement, result = place(design)
    assert np.count_nonzero(placement.macro_mask) >= 10
    expect_converged(result)
