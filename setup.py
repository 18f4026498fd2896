"""Builds efield._efield with CMake (the library and the pybind11 extension) for pip.

    pip install --no-build-isolation .

CMake gets -DEFIELD_PYTHON=ON and this interpreter; the CUDA backend is built when nvcc is found
(EFIELD_CUDA=AUTO). EFIELD_CMAKE_ARGS adds arguments (e.g. "-DEFIELD_CUDA=OFF" for a CPU-only
build, "-DCMAKE_CUDA_ARCHITECTURES=90"), EFIELD_JOBS sets the parallel build jobs. The wheel holds
the extension and the libefield it links, next to each other (RPATH $ORIGIN).
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        package_dir = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DEFIELD_PYTHON=ON", "-DEFIELD_BUILD_TESTS=OFF", "-DEFIELD_BUILD_BENCH=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}", f"-DEFIELD_PYTHON_PACKAGE_DIR={package_dir}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if not os.environ.get("CUDACXX") and os.path.exists("/usr/local/cuda/bin/nvcc"):
            os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ.get("PATH", "")
        configure += shlex.split(os.environ.get("EFIELD_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        jobs = os.environ.get("EFIELD_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_efield", "-j", jobs])


setup(ext_modules=[CMakeExtension("efield._efield")], cmdclass={"build_ext": CMakeBuild})
