#!/usr/bin/env bash
# Build and test on the device machine (GPU), logs under $OUT. Used through the `device` tool:
#   bash scripts/device_check.sh [-T "target ..."] [-R ctest_regex] [-S sanitize_test_binary ...] [-B "bench command"]
# -T builds only those targets (default: everything); -R picks tests (default: all);
# -S runs compute-sanitizer memcheck on each given test binary (path under build-dev/); API errors
#    are not reported since tests provoke them on purpose;
# -B runs a benchmark command line after the tests (repeatable).
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
targets=""; regex=""; sanitize=(); benches=()
while getopts "T:R:S:B:" opt; do
  case $opt in
    T) targets=$OPTARG ;; R) regex=$OPTARG ;; S) sanitize+=("$OPTARG") ;; B) benches+=("$OPTARG") ;;
    *) exit 2 ;;
  esac
done
# The commit benchmarks record: .stb/commit, written here by scripts/device_prepare.sh just
# before the call (the .git that travels can be stale), else git.
if [[ -z "${EFIELD_COMMIT:-}" ]]; then
  EFIELD_COMMIT=$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
export EFIELD_COMMIT
# What scripts/device_prepare.sh carried: header-only libraries into /usr, the shared designs
# where the tests look for them (../shared/data).
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
if [[ -d shared-data && ! -e ../shared/data ]]; then mkdir -p ../shared && ln -s "$PWD/shared-data" ../shared/data; fi
stb=(); [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
# Few files: the device tool returns at most 8 from $OUT.
LOG="$OUT/device.log"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$LOG"
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DEFIELD_CUDA=ON "${stb[@]}" >> "$LOG" 2>&1 || { tail -40 "$LOG"; exit 1; }
# shellcheck disable=SC2086
if ! cmake --build build-dev -j16 ${targets:+--target $targets} > "$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40; exit 1
fi
echo "build OK"
status=0
ctest --test-dir build-dev ${regex:+-R "$regex"} --output-on-failure -j8 >> "$LOG" 2>&1 || status=1
grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" "$LOG" | head -60
for t in "${sanitize[@]}"; do
  slog="$OUT/sanitize.log"; echo "=== $t" >> "$slog"
  if compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "build-dev/$t" > /tmp/sanitize_one.log 2>&1; then
    echo "compute-sanitizer memcheck $t: clean"; tail -3 /tmp/sanitize_one.log >> "$slog"
  else
    echo "compute-sanitizer memcheck $t: FAILED"; tail -30 /tmp/sanitize_one.log; cat /tmp/sanitize_one.log >> "$slog"; status=1
  fi
done
for b in "${benches[@]}"; do
  echo "== $b"; (cd build-dev && eval "$b") 2>&1 | tee -a "$OUT/bench.log" | tail -60
done
exit $status
