#!/usr/bin/env bash
# The merged code's GPU check in one lease (device machine, repository root; logs under $OUT):
#   bash scripts/device/verify.sh
# One build of everything (C++ tests, benchmarks, the Python extension and the compiled PyTorch
# op, for the machine's python3 with PyTorch 2.x), then the ctest tests that touch CUDA, the Python
# tests with CUDA tensors, and compute-sanitizer (memcheck on the GPU test binaries named in
# SANITIZE, racecheck and synccheck on the lifetime probes). CPU-only tests are CI's. Run
# scripts/device_prepare.sh here first and carry [".stb", ".devdeps", "shared-data"].
# CTEST_REGEX, PYTESTS and SANITIZE override the selections; RACECHECK names the binaries for
# racecheck and synccheck (default the lifetime probes); BENCHES, one command line per line, run
# last (their output goes to $OUT/bench.log).
set -uo pipefail
OUT=${OUT:-/tmp/efield-verify-out}
mkdir -p "$OUT"
log="$OUT/verify.log"
python=$(command -v "${PYTHON:-python3}")
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/ 2>/dev/null; fi
if [[ -d shared-data && ! -e ../shared/data ]]; then mkdir -p ../shared && ln -s "$PWD/shared-data" ../shared/data; fi
stb=(); [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
regex=${CTEST_REGEX:-"Cuda|cuda|Gpu|Wisdom|Plan2D|Plan3D|Dct1d|Dct2d|Methods|Registry|PlacerLoop|Piled|MovableMacros|ElectrostaticSystem|HostileInputs|global_place"}
pytests=${PYTESTS:-"tests/python"}
sanitize=${SANITIZE:-"tests/test_gpu_lifetimes tests/test_movable_macros tests/test_wisdom tests/test_placer_loop"}
status=0
{ echo "commit $EFIELD_COMMIT"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee "$log"

if ! cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEFIELD_CUDA=ON \
    -DEFIELD_PYTHON=ON -DPython3_EXECUTABLE="$python" "${stb[@]}" > "$OUT/configure.log" 2>&1; then
  tail -40 "$OUT/configure.log"; exit 1
fi
grep -E "efield:" "$OUT/configure.log" | tee -a "$log"
SECONDS=0
if ! cmake --build build-dev -j16 > "$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40; exit 1
fi
echo "build OK in ${SECONDS} s" | tee -a "$log"
echo "libefield needs: $(readelf -d build-dev/src/libefield.so | grep NEEDED | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')" | tee -a "$log"

ctest --test-dir build-dev -R "$regex" --output-on-failure -j8 > "$OUT/ctest.log" 2>&1 || status=1
grep -E "tests passed|Failed|\*\*\*|Not Run" "$OUT/ctest.log" | head -40 | tee -a "$log"
echo "ctest done at ${SECONDS} s" | tee -a "$log"

# shellcheck disable=SC2086
PYTHONPATH="$PWD/build-dev/python" EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs -p no:cacheprovider $pytests \
  > "$OUT/pytest.log" 2>&1 || status=1
grep -E "passed|failed|FAILED|ERROR" "$OUT/pytest.log" | tail -25 | tee -a "$log"
PYTHONPATH="$PWD/build-dev/python" "$python" -c "import efield; efield.show_config()" 2>&1 | tee -a "$log"
echo "pytest done at ${SECONDS} s" | tee -a "$log"

slog="$OUT/sanitize.log"; : > "$slog"
sanitize_one() {  # tool, binary
  if compute-sanitizer --tool "$1" --report-api-errors no --error-exitcode 1 "build-dev/$2" > /tmp/sanitize_one.log 2>&1; then
    echo "compute-sanitizer $1 $2: clean ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/sanitize_one.log | tail -1))" | tee -a "$log"
  else
    echo "compute-sanitizer $1 $2: FAILED" | tee -a "$log"; status=1
  fi
  { echo "=== $1 $2"; tail -40 /tmp/sanitize_one.log; } >> "$slog"
}
for t in $sanitize; do sanitize_one memcheck "$t"; done
for t in ${RACECHECK-tests/test_gpu_lifetimes}; do
  sanitize_one racecheck "$t"
  sanitize_one synccheck "$t"
done
echo "sanitizers done at ${SECONDS} s" | tee -a "$log"
while IFS= read -r bench; do
  [[ -z "$bench" ]] && continue
  { echo "\$ $bench"; bash -c "$bench" 2>&1; } >> "$OUT/bench.log" || status=1
done <<< "${BENCHES:-}"
echo "all done at ${SECONDS} s, status $status" | tee -a "$log"
exit $status
