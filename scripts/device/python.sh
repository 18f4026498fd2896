#!/usr/bin/env bash
# The Python package on the GPU machine (issue 31), from the repository root; logs under $OUT:
#   bash scripts/device/python.sh              build with CUDA, pytest with CUDA tensors, the
#                                              benchmark, the example placer on ibm01 (CUDA and CPU)
#   bash scripts/device/python.sh --multi-gpu  the same build, then the two-GPU tests (pos on
#                                              cuda:1 while cuda:0 is current) and the CUDA tests
# The machine's python3 (3.12, PyTorch 2.x for CUDA 13, no network) builds the extension: pybind11
# comes from torch/include, DLPack's header from .devdeps or torch/include. Run
# scripts/device_prepare.sh here first and carry [".stb", ".devdeps", "shared-data"]. IBM01
# (default shared-data/bookshelf/ibm01/ibm01.aux) names the design; PYTHON the interpreter.
set -uo pipefail
OUT=${OUT:-/tmp/efield-python-out}
mkdir -p "$OUT"
mode=${1:-all}
python=$(command -v "${PYTHON:-python3}")
ibm01=${IBM01:-shared-data/bookshelf/ibm01/ibm01.aux}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
log="$OUT/python.log"

{
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  "$python" - <<'PY'
import importlib, platform
print("python", platform.python_version())
for name in ("torch", "numpy", "scipy", "pytest", "matplotlib", "cupy"):
    try:
        m = importlib.import_module(name)
        print(name, getattr(m, "__version__", "?"))
    except Exception as e:  # noqa: BLE001 - a survey
        print(name, "MISSING", type(e).__name__)
import torch
print("cuda devices", torch.cuda.device_count(), torch.version.cuda)
PY
} 2>&1 | tee "$log"

source scripts/device/python_build.sh
build_python_extension || exit 1
status=0

if [[ "$mode" == "--multi-gpu" ]]; then
  EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs tests/python/test_multi_gpu.py tests/python/test_cuda.py 2>&1 \
    | tee -a "$log" || status=1
  exit $status
fi

# CUDA tensors in every parametrized test (EFIELD_REQUIRE_CUDA turns a skipped CUDA case into an error).
EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs tests/python 2>&1 | tee "$OUT/pytest.log" | tail -30
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1

place() {  # the example on ibm01 on one device
  if [[ ! -f "$ibm01" ]]; then
    echo "ibm01 not found at $ibm01: example skipped" | tee -a "$log"
    return
  fi
  echo "== global_place ibm01 --device $1" | tee -a "$log"
  PYTHONUNBUFFERED=1 "$python" examples/python/global_place.py "$ibm01" --device "$1" \
    --png "$OUT/ibm01_$1.png" 2>&1 | grep -v "^\[" | tail -14 | tee -a "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
}

place cuda
PYTHONUNBUFFERED=1 "$python" bench_ispd/bench_python.py --markdown "$OUT/bench_python.md" 2>&1 | tail -12 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
place cpu
exit $status
