#!/usr/bin/env bash
# On the GPU machine, for issue 33's code items (method registry and Auto policy table, retired
# methods and switches, the parameterised 2D suite, CLI11/nlohmann-json benchmarks): builds
# everything (sm_90, -j16), runs ctest, compute-sanitizer memcheck on the 2D transform test
# binary (test_dct2d_methods), and bench_transforms2d --json with the Auto policy checker
# (scripts/check_auto_policy.py). Before the call, here: bash scripts/device_prepare.sh, then
# carry [".stb", ".devdeps", "shared-data"].
#   bash scripts/device/code33.sh [build|test|sanitize|bench|all]   (default all)
# Each phase fits one device call (10 minutes) on a warm machine; `all` runs them in order.
# Writes to $OUT: device.log (summaries), build.log, ctest.log, sanitize.log, transforms2d.json,
# transforms2d.md, auto_policy.txt. Exits non-zero when a phase fails (the checker's rows where
# Auto is more than 5 % slower than the fastest method count as a failure).
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
phase=${1:-all}
LOG="$OUT/device.log"
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
if [[ -d shared-data && ! -e ../shared/data ]]; then mkdir -p ../shared && ln -s "$PWD/shared-data" ../shared/data; fi
deps=(); [[ -f .stb/stb_image_write.h ]] && deps=(-DSTB_INCLUDE_DIR="$PWD/.stb")

build() {
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee -a "$LOG"
  if ! { cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEFIELD_CUDA=ON \
           "${deps[@]}" && cmake --build build-dev -j16; } > "$OUT/build.log" 2>&1; then
    grep -E "error|FAILED|Could not find" "$OUT/build.log" | head -40 | tee -a "$LOG"; return 1
  fi
  echo "build OK ($EFIELD_COMMIT)" | tee -a "$LOG"
}

run_tests() {
  local status=0
  ctest --test-dir build-dev --output-on-failure -j8 > "$OUT/ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\(Failed\)|Not Run" "$OUT/ctest.log" | tee -a "$LOG"
  return $status
}

sanitize() {
  # API errors are not reported: the tests provoke some on purpose.
  if compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
       build-dev/tests/test_dct2d_methods > "$OUT/sanitize.log" 2>&1; then
    echo "compute-sanitizer memcheck test_dct2d_methods: clean ($(grep -c '^\[       OK' "$OUT/sanitize.log") tests OK)" | tee -a "$LOG"
  else
    echo "compute-sanitizer memcheck test_dct2d_methods: FAILED" | tee -a "$LOG"; tail -30 "$OUT/sanitize.log"; return 1
  fi
}

bench() {
  build-dev/bench_ispd/bench_transforms2d --no-cpu --json "$OUT/transforms2d.json" --markdown "$OUT/transforms2d.md" \
    > "$OUT/bench.log" 2>&1 || { tail -20 "$OUT/bench.log" | tee -a "$LOG"; return 1; }
  python3 scripts/check_auto_policy.py --json "$OUT/transforms2d.json" | tee "$OUT/auto_policy.txt" | tee -a "$LOG"
  return "${PIPESTATUS[0]}"
}

status=0
case $phase in
  build) build || status=1 ;;
  test) run_tests || status=1 ;;
  sanitize) sanitize || status=1 ;;
  bench) bench || status=1 ;;
  all) build || exit 1; run_tests || status=1; sanitize || status=1; bench || status=1 ;;
  *) echo "usage: $0 [build|test|sanitize|bench|all]" >&2; exit 2 ;;
esac
exit $status
