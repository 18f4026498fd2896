"""What this efield is and what it can use here: efield.build_info() and efield.show_config()."""

import importlib
import importlib.util
import os
import sys

from . import _efield


def _torch_op_status():
    """Whether the compiled PyTorch op efield._torch_ops is built and imports (it needs torch)."""
    if importlib.util.find_spec("efield._torch_ops") is None:
        return False, "not built"
    try:
        import torch  # noqa: F401  (the op's libraries come with torch)
        importlib.import_module("efield._torch_ops")
    except Exception as error:  # any failure to load is what this reports
        return False, f"built, but does not import: {type(error).__name__}: {error}"
    return True, "built, imports"


def build_info():
    """The build's options and what this machine lets it use, as a dict:
    version, package (folder), cuda (built with the CUDA backend), cuda_architectures,
    cuda_toolkit, cufft_library (the versioned cuFFT a CUDA build loads at first use),
    cuda_devices, cuda_unavailable (why there are none, '' with devices), cufft_error
    ('' when cuFFT loads; a CUDA build only tries where a device is present), torch_op (bool) and
    torch_op_status."""
    info = dict(_efield.build_config())
    info["package"] = os.path.dirname(os.path.abspath(__file__))
    info["cuda_devices"] = _efield.cuda_device_count()
    info["cuda_unavailable"] = _efield.cuda_unavailable_reason()
    info["cufft_error"] = _efield.cufft_load_error() if info["cuda_devices"] > 0 else ""
    info["torch_op"], info["torch_op_status"] = _torch_op_status()
    return info


def show_config(file=None):
    """Prints build_info() for a person (and a bug report)."""
    info = build_info()
    if info["cuda"]:
        cuda = (f"built for architectures {info['cuda_architectures']} with CUDA {info['cuda_toolkit']}; "
                f"the driver and {info['cufft_library']} are loaded at the first CUDA call")
    else:
        cuda = "not built (CPU backend only)"
    devices = str(info["cuda_devices"])
    if info["cuda_unavailable"]:
        devices += f" ({info['cuda_unavailable']})"
    if info["cufft_error"]:
        devices += f"; cuFFT: {info['cufft_error']}"
    lines = [
        f"efield {info['version']}",
        f"  package:            {info['package']}",
        f"  python:             {sys.executable} {sys.version.split()[0]}",
        f"  CUDA backend:       {cuda}",
        f"  CUDA devices:       {devices}",
        f"  compiled torch op:  efield._torch_ops {info['torch_op_status']}",
    ]
    print("\n".join(lines), file=file if file is not None else sys.stdout)
