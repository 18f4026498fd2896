#!/usr/bin/env bash
# ElectrostaticSystem3D (issue 43, item 1) on the GPU machine, from the repository root; logs under
# $OUT. One build (build-dev: the library, the two C++ test programs and the Python extension),
# then in order of importance, each step with its own time limit so that a slow one leaves the
# others' results: the C++ tests (CPU and CUDA), the Python tests with CUDA tensors, and
# compute-sanitizer memcheck on the CUDA test program.
#   bash scripts/device/system3d.sh
# Run scripts/device_prepare.sh here first and carry [".stb", ".devdeps"]. PYTHON names the
# interpreter; SANITIZE_S (default 120) limits the memcheck run.
set -uo pipefail
OUT=${OUT:-/tmp/efield-system3d-out}
mkdir -p "$OUT"
python=$(command -v "${PYTHON:-python3}")
log="$OUT/system3d.log"
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$log"
echo "commit $EFIELD_COMMIT, $(date -u +%FT%TZ)" | tee -a "$log"
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
stb=(); [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
if ! cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEFIELD_CUDA=ON \
    -DEFIELD_PYTHON=ON -DPython3_EXECUTABLE="$python" -DEFIELD_BUILD_BENCH=OFF -DEFIELD_BUILD_EXAMPLES=OFF \
    "${stb[@]}" > "$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"; exit 1
fi
start=$(date +%s)
if ! cmake --build build-dev -j16 --target test_electrostatic_system3d test_electrostatic_system3d_cuda _efield \
    > "$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40; exit 1
fi
echo "build OK in $(( $(date +%s) - start )) s" | tee -a "$log"
status=0
for t in test_electrostatic_system3d test_electrostatic_system3d_cuda; do
  timeout 120 "build-dev/tests/$t" > "$OUT/$t.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests ran" "$OUT/$t.log" | head -30 | tee -a "$log"
done
PYTHONPATH="$PWD/build-dev/python" EFIELD_REQUIRE_CUDA=1 timeout 120 "$python" -m pytest -q -rs \
  tests/python/test_system3d.py tests/python/test_reference3d.py > "$OUT/pytest.log" 2>&1 || status=1
tail -15 "$OUT/pytest.log" | tee -a "$log"
if timeout "${SANITIZE_S:-120}" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
    build-dev/tests/test_electrostatic_system3d_cuda > "$OUT/sanitize.log" 2>&1; then
  echo "compute-sanitizer memcheck test_electrostatic_system3d_cuda: clean" | tee -a "$log"
else
  echo "compute-sanitizer memcheck test_electrostatic_system3d_cuda: FAILED or timed out (rc $?)" | tee -a "$log"
  grep -E "=========|PASSED|FAILED" "$OUT/sanitize.log" | head -30 | tee -a "$log"; status=1
fi
exit $status
