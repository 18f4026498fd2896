"""What a sweep worker runs: one Job -> one results record (a JSON-ready dict). A job that
raises is returned as a record with status "failed" and the error; it never raises itself."""

import os
import platform
import socket
import time
import traceback


def load_design(design):
    """The BookshelfDesign a Job's design dict names (read or generated on the worker)."""
    from . import bookshelf

    if "aux" in design:
        d = bookshelf.load_bookshelf(design["aux"])
        d.name = design["label"]
        return d
    if "synthetic" in design:
        s = design["synthetic"]
        d = bookshelf.generate_synthetic_design(s["cells"], s.get("macros", 40), s.get("pads", 200),
                                                s.get("utilization", 0.7), s.get("macro_area", 0.2),
                                                s.get("nets", True), s.get("seed", 1))
        d.name = design["label"]
    else:  # keeps the generator's name ("adaptec1-synthetic"): density_timing finds its bin grid by it
        d = bookshelf.ispd2005_standin(design["standin"], design["seed"], design["scale"])
    return d


def resolve_device(device):
    """"auto": the worker's CUDA device when it has one (a worker pinned to a GPU sees it as
    cuda:0), else the CPU."""
    if device != "auto":
        return device
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "cpu"


def where(device):
    """Host, device and versions of the worker running a job."""
    info = {"host": socket.gethostname(), "pid": os.getpid(), "device": device,
            "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES")}
    versions = {"python": platform.python_version()}
    try:
        import efield
        import numpy

        versions.update(efield=efield.__version__, efield_commit=os.environ.get("EFIELD_COMMIT", ""),
                        numpy=numpy.__version__)
    except ImportError:
        pass
    try:
        import torch

        versions["torch"] = torch.__version__
        if device.startswith("cuda"):
            info["device_name"] = torch.cuda.get_device_name(torch.device(device))
    except Exception:  # noqa: BLE001 - the record says what it could find
        pass
    try:
        import dask
        import distributed

        versions.update(dask=dask.__version__, distributed=distributed.__version__)
    except ImportError:
        pass
    info["versions"] = versions
    return info


def run_job(job):
    """Runs one Job; returns its record."""
    started = time.time()
    record = {"job": job.id, "kind": job.kind, "design": job.design["label"], "swept": job.swept,
              "params": dict(job.params), "started": started}
    device = "cpu"
    try:
        device = resolve_device(job.params["device"])
        params = {**job.params, "device": device}
        if not params.get("threads") and os.environ.get("EFIELD_SWEEP_THREADS"):  # the worker's share of the cores
            params["threads"] = int(os.environ["EFIELD_SWEEP_THREADS"])
        record["params"] = params
        design = load_design(job.design)
        if job.kind == "place":
            from .place import global_place

            record["metrics"] = global_place(design, **params).record()
            record["metrics"].pop("params", None)
        else:
            from .density_timing import TimingParams, time_density

            record["metrics"] = time_density(design, TimingParams(**params))
        record["status"] = "ok"
    except Exception as e:  # noqa: BLE001 - every failure becomes the job's record
        record["status"] = "failed"
        record["error"] = f"{type(e).__name__}: {e}"
        record["traceback"] = traceback.format_exc(limit=8)
    record["wall_seconds"] = time.time() - started
    record.update(where(device))
    return record
