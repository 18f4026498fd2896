"""The package's build backend (pyproject.toml): setuptools' own, after a check that the
interpreter running the build has what it needs. With --no-build-isolation pip builds with the
interpreter's own packages and does not check them, and a missing `wheel` would surface as
setuptools' "invalid command 'bdist_wheel'"; this names what is missing and the interpreter."""

import importlib.util
import re
import shutil
import subprocess
import sys

MIN_SETUPTOOLS = (61,)
MIN_CMAKE = (3, 25)


def _version(text):
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _missing():
    missing = []
    if importlib.util.find_spec("setuptools") is None:
        missing.append("setuptools>=61 (Debian: python3-setuptools)")
    else:
        import setuptools
        if _version(setuptools.__version__) < MIN_SETUPTOOLS:
            missing.append(f"setuptools>=61 (found {setuptools.__version__})")
    if importlib.util.find_spec("wheel") is None:
        missing.append("wheel (Debian: python3-wheel)")
    cmake = shutil.which("cmake")
    if cmake is None:
        missing.append("cmake>=3.25 on PATH (Debian: cmake)")
    else:
        found = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout
        if _version(found) < MIN_CMAKE:
            missing.append(f"cmake>=3.25 ({cmake} is {found.splitlines()[0] if found else 'unreadable'})")
    return missing


def _require():
    missing = _missing()
    if missing:
        sys.stderr.write(
            f"efield: cannot build with {sys.executable} (Python {sys.version.split()[0]}): it lacks "
            + "; ".join(missing) + ".\nInstall what is missing for this interpreter, or build with one "
            "that has it all (on Debian 12: /usr/bin/python3 after `bash scripts/install_deps.sh`).\n")
        raise SystemExit(1)


def _setuptools_backend():
    _require()
    from setuptools import build_meta
    return build_meta


def get_requires_for_build_wheel(config_settings=None):
    return _setuptools_backend().get_requires_for_build_wheel(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _setuptools_backend().prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _setuptools_backend().build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_sdist(config_settings=None):
    return _setuptools_backend().get_requires_for_build_sdist(config_settings)


def build_sdist(sdist_directory, config_settings=None):
    return _setuptools_backend().build_sdist(sdist_directory, config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _setuptools_backend().get_requires_for_build_editable(config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _setuptools_backend().prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _setuptools_backend().build_editable(wheel_directory, config_settings, metadata_directory)
