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
