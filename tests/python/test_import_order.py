"""efield and PyTorch import in either order (a shared pybind11 state once crashed PyTorch 2's import
when efield came first)."""

import subprocess
import sys

import pytest

from conftest import torch

pytestmark = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@pytest.mark.parametrize("first, second", [("efield", "torch"), ("torch", "efield")])
def test_import_order(first, second):
    code = f"import {first}, {second}; import efield.torch; print('ok')"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stderr[-2000:])
