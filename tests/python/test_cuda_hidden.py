"""A CUDA build on a machine without the CUDA libraries: child interpreters run with LD_AUDIT set to
tests/support/hide_cuda_audit.cpp (compiled here), which hides libcuda, libcudart and libcufft from
the dynamic loader. There `import efield` works, the CPU features work (this suite's CPU transform
and system tests pass), the libraries are really absent (/proc/self/maps, a dlopen of them fails)
and CUDA calls raise efield.Error saying why."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import efield

HERE = pathlib.Path(__file__).resolve().parent
pytestmark = pytest.mark.skipif(not efield.built_with_cuda(), reason="a CPU-only build: no CUDA libraries to hide")

CHILD_CHECKS = r"""
import ctypes, io
import numpy as np
import efield

def mapped_cuda_libraries():
    with open("/proc/self/maps") as maps:
        return [line for line in maps if any(n in line for n in ("libcuda.", "libcudart.", "libcufft."))]

assert efield.built_with_cuda()
assert efield.cuda_device_count() == 0  # the static CUDA runtime tried to load the driver here
for name in ("libcuda.so.1", "libcudart.so", efield.build_info()["cufft_library"]):
    try:
        ctypes.CDLL(name)
    except OSError:
        pass
    else:
        raise AssertionError(name + " loads: the audit library does not hide it")

x = np.ones((4, 4), dtype=np.float32)
assert abs(efield.dct2(x)[0, 0] - 16.0) < 1e-5  # DREAMPlace's unnormalized DCT-II of ones
for make in (lambda: efield.Plan2D("dct2", 8, 8, device="cuda"),
             lambda: efield.ElectrostaticSystem((np.ones(3), np.ones(3)), xl=0, yl=0, xh=4, yh=4, num_bins_x=4,
                                                num_bins_y=4, target_density=1.0, device="cuda")):
    try:
        make()
    except efield.Error as error:
        assert "cudaGetDeviceCount failed" in str(error) and "libcuda.so.1" in str(error), str(error)
    else:
        raise AssertionError("a CUDA object was made without CUDA")
text = io.StringIO()
efield.show_config(file=text)
assert "CUDA devices:       0 (cudaGetDeviceCount failed" in text.getvalue(), text.getvalue()
assert mapped_cuda_libraries() == [], mapped_cuda_libraries()
print("hidden: ok")
"""


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    """(environment, preamble) for child interpreters without the CUDA libraries. A PyTorch built
    for CUDA cannot load there either (Debian's CPU PyTorch can): the preamble then hides it too,
    as on a machine without it."""
    compiler = shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        pytest.skip("no C++ compiler to build the LD_AUDIT library")
    library = tmp_path_factory.mktemp("audit") / "libefield_hide_cuda.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(library),
                    str(HERE.parent / "support" / "hide_cuda_audit.cpp")], check=True)
    env = dict(os.environ, LD_AUDIT=str(library))
    env.pop("EFIELD_REQUIRE_CUDA", None)  # the child runs the CPU tests, on purpose without CUDA
    torch_loads = run_child(["-c", "import torch"], env).returncode == 0
    return env, "" if torch_loads else "import sys; sys.modules['torch'] = None\n"


def run_child(args, env):
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600)


def test_imports_and_raises_clear_errors_without_cuda_libraries(hidden):
    env, preamble = hidden
    child = run_child(["-c", preamble + CHILD_CHECKS], env)
    assert child.returncode == 0 and "hidden: ok" in child.stdout, child.stdout + child.stderr


def test_cpu_tests_pass_without_cuda_libraries(hidden):
    env, preamble = hidden
    files = [str(HERE / "test_transforms.py"), str(HERE / "test_system.py")]
    run_pytest = preamble + f"import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', *{files!r}]))"
    child = run_child(["-c", run_pytest], env)
    assert child.returncode == 0, child.stdout[-4000:] + child.stderr[-4000:]
