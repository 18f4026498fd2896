"""Making test arrays of each kind the package takes, and reading them back."""

import numpy as np
import pytest

from conftest import CUDA_REASON, torch

try:
    import cupy
except ImportError:
    cupy = None


def kinds():
    """(array kind, device) pairs this machine can run."""
    out = [("numpy", "cpu")]
    if torch is not None:
        out.append(("torch", "cpu"))
    if CUDA_REASON is None:
        out.append(("torch", "cuda"))
        if cupy is not None:
            out.append(("cupy", "cuda"))
    return out


KINDS = kinds()
KIND_IDS = [f"{k}-{d}" for k, d in KINDS]


def make(kind, device, a):
    a = np.ascontiguousarray(a)
    if kind == "numpy":
        return a.copy()
    if kind == "torch":
        return torch.from_numpy(a.copy()).to(device)
    if kind == "cupy":
        return cupy.asarray(a)
    raise ValueError(kind)


def host(a):
    """float64 NumPy copy of any test array."""
    if torch is not None and isinstance(a, torch.Tensor):
        return a.detach().cpu().double().numpy()
    if cupy is not None and isinstance(a, cupy.ndarray):
        return cupy.asnumpy(a).astype(np.float64)
    return np.asarray(a, dtype=np.float64)


def same_kind_and_device(result, kind, device):
    if kind == "numpy":
        assert isinstance(result, np.ndarray)
    elif kind == "torch":
        assert isinstance(result, torch.Tensor)
        assert result.device.type == device
    elif kind == "cupy":
        assert isinstance(result, cupy.ndarray)


def skip_unless_cuda():
    if CUDA_REASON is not None:
        pytest.skip(CUDA_REASON)
