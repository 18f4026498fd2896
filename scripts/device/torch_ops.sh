#!/usr/bin/env bash
# The compiled PyTorch op (efield._torch_ops, issue 44) on the GPU machine, from the repository
# root; logs under $OUT:
#   bash scripts/device/torch_ops.sh [ibm01.aux]
# Builds _efield and _torch_ops against the machine's python3 (PyTorch 2.x for CUDA), then runs
# the op's tests with CUDA tensors (torch.compile fullgraph, opcheck, CUDA-graph capture of an
# iteration included), the Python tests, the client-timed overhead benchmark and the compiled
# iteration on ibm01. Run scripts/device_prepare.sh here first and carry
# [".stb", ".devdeps", "shared-data"]. PYTHON names the interpreter.
set -uo pipefail
OUT=${OUT:-/tmp/efield-torch-ops-out}
mkdir -p "$OUT"
python=$(command -v "${PYTHON:-python3}")
ibm01=${1:-shared-data/bookshelf/ibm01/ibm01.aux}
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
log="$OUT/torch_ops.log"
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$python" -c "import torch, platform; print('python', platform.python_version(), 'torch', torch.__version__, torch.version.cuda)"
  echo "commit $EFIELD_COMMIT"; } 2>&1 | tee "$log"

configure() {  # $1: build folder, then extra options
  local dir=$1; shift
  stb=()
  [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DEFIELD_PYTHON=ON -DEFIELD_TORCH_OPS=ON -DPython3_EXECUTABLE="$python" -DEFIELD_BUILD_TESTS=OFF \
    -DEFIELD_BUILD_BENCH=OFF "${stb[@]}" "$@" > "$OUT/configure.log" 2>&1
}
build=build-py
if ! configure $build; then
  echo "configure through find_package(Torch) failed; the interpreter's paths instead:" | tee -a "$log"
  grep -E "Error|error" -A5 "$OUT/configure.log" | head -30 | tee -a "$log"
  build=build-py-paths
  configure $build -DEFIELD_TORCH_FIND=PYTHON || { tail -40 "$OUT/configure.log" | tee -a "$log"; exit 1; }
fi
grep -E "efield:" "$OUT/configure.log" | tee -a "$log"
if ! cmake --build $build -j16 --target _efield _torch_ops > "$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40 | tee -a "$log"; exit 1
fi
echo "build OK" | tee -a "$log"
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
status=0
run() {  # a step: its command line, then its output's tail
  echo "== $*" | tee -a "$log"
  "$@" > "$OUT/step.log" 2>&1
  local rc=$?
  tail -${TAIL:-25} "$OUT/step.log" | tee -a "$log"
  cat "$OUT/step.log" >> "$OUT/steps_full.log"
  [[ $rc -eq 0 ]] || { echo "-- exit $rc" | tee -a "$log"; status=1; }
}
# The flags _torch_ops was compiled with (the C++ ABI must be PyTorch's).
ninja -C $build -t commands _torch_ops 2>/dev/null | grep -m1 electric_potential_op | grep -o -- "-D[A-Z_0-9]*=*[^ ]*" \
  | tr '\n' ' ' | tee -a "$log"; echo | tee -a "$log"
TAIL=40 run env EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs tests/python/test_torch_compiled_op.py \
  tests/python/test_torch_op.py tests/python/test_cuda.py tests/python/test_place_loop.py \
  tests/python/test_import_order.py tests/python/test_bad_input.py
TAIL=30 run "$python" bench_ispd/bench_python.py --markdown "$OUT/bench_python.md"
if [[ -f "$ibm01" ]]; then
  TAIL=18 run "$python" bench_ispd/bench_compiled_iteration.py "$ibm01" --iters 200 --markdown "$OUT/iteration.md"
else
  echo "ibm01 not found at $ibm01: the compiled iteration skipped" | tee -a "$log"
fi
TAIL=15 run env EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs -rx tests/python
exit $status
