"""One C++ runtime in the process (cmake/EfieldCxxRuntime.cmake, docs/design.md "One C++ runtime"):
efield and PyTorch import in either order, and none of efield's shared objects exports libstdc++'s
own runtime. A libefield that carried an exported copy of libstdc++ (a toolchain that links it
statically) made PyTorch 2.11's import abort when efield was imported first."""

import pathlib
import shutil
import subprocess
import sys

import pytest

import efield
from conftest import torch

# Functions only libstdc++ itself defines (never instantiated in a user's object): an object of
# ours that exports one of them carries a copy of the C++ runtime that can serve other libraries.
LIBSTDCXX_OWN = {
    "_ZNSt6localeD1Ev": "std::locale::~locale()",
    "_ZNSt6locale7classicEv": "std::locale::classic()",
    "_ZNSt8ios_base4InitC1Ev": "std::ios_base::Init::Init()",
    "__cxa_throw": "__cxa_throw",
    "__gxx_personality_v0": "__gxx_personality_v0",
}


def child(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("first", ["efield", "torch"])
def test_import_order(first):
    # `import efield` must not load PyTorch itself, or the order would not be tested.
    check = "assert 'torch' not in sys.modules, 'import efield loaded PyTorch'\n" if first == "efield" else ""
    code = f"import sys\nimport {first}\n{check}import efield, torch, efield.torch\nprint('ok')\n"
    run = child(code)
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stderr[-3000:])


def test_no_copy_of_the_cxx_runtime_is_exported():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    package = pathlib.Path(efield.__file__).resolve().parent
    objects = sorted(p for p in package.iterdir() if ".so" in p.name)
    assert objects, f"no shared objects in {package}"
    for path in objects:
        out = subprocess.run([nm, "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
        defined = {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
        exported = sorted(name for symbol, name in LIBSTDCXX_OWN.items() if symbol in defined)
        assert not exported, f"{path.name} exports libstdc++'s own {exported}: it carries a copy of the C++ runtime"
