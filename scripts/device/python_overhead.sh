#!/usr/bin/env bash
# Issue 44 item 1 on the GPU machine, from the repository root; logs under $OUT:
#   bash scripts/device/python_overhead.sh [design]
# Builds _efield, _torch_ops (against the machine's python3: PyTorch 2.x for CUDA) and
# test_electrostatic_system, runs the GPU tests of what the overhead work touched (the pipeline's
# graphs for several pointer sets, ElectrostaticSystem.evaluate's C++ path for tensors, the op),
# then bench_ispd/profile_python_overhead.py on the design (default adaptec1): $OUT/overhead/
# holds its timings, profiler tables, GPU timelines and traces. Run scripts/device_prepare.sh
# here first and carry [".stb", ".devdeps", "shared-data"]. PYTHON names the interpreter.
set -uo pipefail
OUT=${OUT:-/tmp/efield-python-overhead-out}
mkdir -p "$OUT"
python=$(command -v "${PYTHON:-python3}")
design=${1:-adaptec1}
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
log="$OUT/python_overhead.log"
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$python" -c "import torch, platform; print('python', platform.python_version(), 'torch', torch.__version__, torch.version.cuda)"
  echo "commit $EFIELD_COMMIT"; } 2>&1 | tee "$log"
stb=()
[[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
build=build-dev
if ! cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DEFIELD_PYTHON=ON -DEFIELD_TORCH_OPS=ON -DPython3_EXECUTABLE="$python" -DEFIELD_BUILD_BENCH=OFF "${stb[@]}" \
     > /tmp/python_overhead_configure.log 2>&1; then
  tail -40 /tmp/python_overhead_configure.log | tee -a "$log"; exit 1
fi
grep -E "efield:" /tmp/python_overhead_configure.log | tee -a "$log"
if ! cmake --build $build -j16 --target _efield _torch_ops test_electrostatic_system > /tmp/python_overhead_build.log 2>&1; then
  grep -E "error|FAILED" /tmp/python_overhead_build.log | head -40 | tee -a "$log"; exit 1
fi
echo "build OK" | tee -a "$log"
status=0
run() {  # a step: its command line, then its output's tail (the whole output in the log)
  echo "== $*" | tee -a "$log"
  "$@" > /tmp/python_overhead_step.log 2>&1
  local rc=$?
  tail -"${TAIL:-25}" /tmp/python_overhead_step.log
  cat /tmp/python_overhead_step.log >> "$log"
  [[ $rc -eq 0 ]] || { echo "-- exit $rc" | tee -a "$log"; status=1; }
}
TAIL=6 run ctest --test-dir $build -R "^ElectrostaticCuda\\." --output-on-failure
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
TAIL=12 run env EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs tests/python/test_system_torch_fast.py \
  tests/python/test_system.py tests/python/test_torch_op.py tests/python/test_torch_compiled_op.py \
  tests/python/test_cuda.py tests/python/test_bad_input.py tests/python/test_import_order.py
TAIL=70 run "$python" bench_ispd/profile_python_overhead.py --design "$design" --out "$OUT/overhead"
exit $status
