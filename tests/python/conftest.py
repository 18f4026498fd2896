"""Shared fixtures of the Python tests. The package comes from PYTHONPATH (scripts/quickstart.sh
points it at <build>/python); without it, from build/python or build-cpu/python of this checkout.
GPU tests skip, with the reason, where no CUDA device is present."""

import importlib.util
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if importlib.util.find_spec("efield") is None:
    for candidate in ("build/python", "build-cpu/python"):
        if (ROOT / candidate / "efield").is_dir():
            sys.path.insert(0, str(ROOT / candidate))
            break
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # reference.py

import efield  # noqa: E402

try:
    import torch
except ImportError:  # the tests that need it skip
    torch = None


def cuda_reason():
    """Why CUDA tests cannot run here, or None when they can."""
    if not efield.built_with_cuda():
        return "efield was built without the CUDA backend"
    if torch is None:
        return "PyTorch is not installed"
    if not torch.cuda.is_available() or efield.cuda_device_count() == 0:
        return "no CUDA device"
    return None


def shared_design(name):
    """The .aux of a design of the shared data folder (read-only, never in the repository):
    $EFIELD_SHARED_DATA/bookshelf/<name>, ../shared/data/bookshelf/<name> beside the checkout, or
    shared-data/bookshelf/<name> inside it (the GPU machine); None when absent."""
    roots = [os.environ.get("EFIELD_SHARED_DATA"), ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data",
             ROOT / "shared-data"]
    for root in roots:
        if root and (pathlib.Path(root) / "bookshelf" / name / f"{name}.aux").exists():
            return pathlib.Path(root) / "bookshelf" / name / f"{name}.aux"
    return None


CUDA_REASON = cuda_reason()
requires_cuda = pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _devices():
    devices = ["cpu"]
    if CUDA_REASON is None:
        devices.append("cuda")
    elif os.environ.get("EFIELD_REQUIRE_CUDA"):
        raise RuntimeError(f"EFIELD_REQUIRE_CUDA is set but CUDA tests cannot run: {CUDA_REASON}")
    return devices


DEVICES = _devices()


@pytest.fixture(params=DEVICES)
def device(request):
    """'cpu', and 'cuda' where a device is present."""
    return request.param


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(12345)
