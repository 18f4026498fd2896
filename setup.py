"""Builds the package's compiled part with CMake (the library, the pybind11 extension and any other
module of python/CMakeLists.txt's target efield_python) for pip:

    pip wheel --no-build-isolation .        # or: pip install --no-build-isolation .

(pyproject.toml's backend, python/build_backend/, first checks that the interpreter has setuptools,
wheel and cmake.) CMake gets -DEFIELD_PYTHON=ON and this interpreter; the CUDA backend is built
when nvcc is found (EFIELD_CUDA=AUTO). Environment:
  EFIELD_CMAKE_ARGS       more CMake arguments ("-DEFIELD_CUDA=OFF" for a CPU-only build,
                          "-DCMAKE_CUDA_ARCHITECTURES=90")
  EFIELD_JOBS             parallel build jobs
  EFIELD_CMAKE_BUILD_DIR  an existing CMake build folder (configured for this interpreter) to build
                          efield_python in and package, instead of a fresh one (the wheel test)
The wheel holds the compiled files next to the .py files (run path $ORIGIN).
"""

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def cache_value(build_dir, name):
    text = (build_dir / "CMakeCache.txt").read_text()
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", text, re.MULTILINE)
    return match.group(1) if match else None


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        package_dir = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        given = os.environ.get("EFIELD_CMAKE_BUILD_DIR")
        build_dir = pathlib.Path(given).resolve() if given else pathlib.Path(self.build_temp).resolve() / "cmake"
        if not given:
            self.configure(build_dir)
        built_for = cache_value(build_dir, "EFIELD_PYTHON_EXECUTABLE")
        if built_for is None or os.path.realpath(built_for) != os.path.realpath(sys.executable):
            raise SystemExit(f"efield: {build_dir} builds the extension for {built_for or 'no Python'}, "
                             f"not for {sys.executable}")
        jobs = os.environ.get("EFIELD_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "efield_python", "-j", jobs])
        # The compiled files (the extension, libefield.so.N, ...) from the package folder CMake fills.
        built = pathlib.Path(cache_value(build_dir, "EFIELD_PYTHON_PACKAGE_DIR"))
        package_dir.mkdir(parents=True, exist_ok=True)
        for path in sorted(built.iterdir()):
            if ".so" in path.name:
                shutil.copy2(path, package_dir / path.name)

    def configure(self, build_dir):
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DEFIELD_PYTHON=ON", "-DEFIELD_BUILD_TESTS=OFF", "-DEFIELD_BUILD_BENCH=OFF",
            "-DEFIELD_BUILD_EXAMPLES=OFF", f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if not os.environ.get("CUDACXX") and os.path.exists("/usr/local/cuda/bin/nvcc"):
            os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ.get("PATH", "")
        configure += shlex.split(os.environ.get("EFIELD_CMAKE_ARGS", ""))
        subprocess.check_call(configure)


setup(ext_modules=[CMakeExtension("efield._efield")], cmdclass={"build_ext": CMakeBuild})
