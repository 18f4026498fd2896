"""The wheel: `pip wheel --no-build-isolation` of a copy of the package's files, packaging the CMake
build this suite imports efield from (EFIELD_CMAKE_BUILD_DIR: nothing is compiled again), installed
into a temporary folder with pip and imported from there; and the build backend's message for an
interpreter that lacks a build requirement."""

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

import efield

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(efield.__file__).resolve().parents[2]  # <build>/python/efield/__init__.py


def run(args, **kwargs):
    child = subprocess.run(args, capture_output=True, text=True, timeout=900, **kwargs)
    assert child.returncode == 0, f"{args}\n{child.stdout[-4000:]}\n{child.stderr[-4000:]}"
    return child.stdout


@pytest.mark.skipif(not (BUILD / "CMakeCache.txt").exists(), reason="efield is not imported from a CMake build folder")
@pytest.mark.skipif(importlib.util.find_spec("pip") is None or importlib.util.find_spec("wheel") is None,
                    reason="this interpreter lacks pip or wheel (Debian: python3-pip, python3-wheel)")
def test_wheel_builds_installs_and_reports_its_build(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "python", source / "python", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["EFIELD_CMAKE_BUILD_DIR"] = str(BUILD)
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
         "-w", str(tmp_path / "wheels"), str(source)], env=env)
    wheels = list((tmp_path / "wheels").glob("efield-*.whl"))
    assert len(wheels) == 1, wheels
    names = zipfile.ZipFile(wheels[0]).namelist()
    for expected in ("efield/__init__.py", "efield/build_info.py", "efield/libefield.so.0"):
        assert expected in names, names
    assert any(n.startswith("efield/_efield.") and n.endswith(".so") for n in names), names

    site = tmp_path / "site"
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(site), str(wheels[0])],
        env=env)
    env["PYTHONPATH"] = str(site)
    report = run([sys.executable, "-c", "import io, json, efield, numpy as np; text = io.StringIO(); "
                  "efield.show_config(file=text); print(json.dumps({'file': efield.__file__, "
                  "'version': efield.__version__, 'info': efield.build_info(), 'show': text.getvalue(), "
                  "'dct': float(efield.dct2(np.ones((4, 4), np.float32))[0, 0])}))"],
                 env=env, cwd=tmp_path)
    got = json.loads(report.splitlines()[-1])
    assert pathlib.Path(got["file"]).resolve().is_relative_to(site.resolve())
    assert got["version"] == efield.__version__ == got["info"]["version"]
    assert got["info"]["cuda"] == efield.built_with_cuda()
    assert got["dct"] == pytest.approx(16.0)
    assert f"efield {efield.__version__}" in got["show"] and "compiled torch op:" in got["show"]


def test_build_backend_names_missing_requirements_and_the_interpreter():
    # A child interpreter in which `wheel` and cmake cannot be found (setuptools is imported there,
    # away from this process's distutils).
    hide = ("import importlib.util, shutil, sys; sys.path.insert(0, sys.argv[1]); "
            "real = importlib.util.find_spec; "
            "importlib.util.find_spec = lambda name, *a: None if name == 'wheel' else real(name, *a); "
            "shutil.which = lambda *a, **k: None; "
            "import efield_build_backend; efield_build_backend.build_wheel('unused')")
    child = subprocess.run([sys.executable, "-c", hide, str(ROOT / "python" / "build_backend")],
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 1, child.stdout + child.stderr
    message = child.stderr
    assert f"cannot build with {sys.executable}" in message
    assert "wheel (Debian: python3-wheel)" in message and "cmake>=3.25 on PATH (Debian: cmake)" in message
    assert "setuptools" not in message.split("lacks", 1)[1]


def test_version_and_build_config_agree():
    info = efield.build_info()
    assert efield.__version__ == efield._efield.__version__ == info["version"]
    assert info["cuda"] == efield.built_with_cuda()
    assert (info["cuda_architectures"] != "") == info["cuda"]
    assert isinstance(info["torch_op"], bool)
