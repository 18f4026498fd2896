#!/usr/bin/env bash
# On the GPU machine (16 cores), from the repository root: builds bench_cpu_density (CPU backend
# only) and times efield's CPU evaluate stages against plain serial loops and FFTW's row-column
# transforms, at 1, 2 and 16 threads, on the embedded default design, adaptec1 and ibm05
# (shared-data/bookshelf/<name>/<name>.aux, skipped when absent), each thread count pinned to CPUs
# of distinct physical cores (--pin, as taskset -c would). Writes to $OUT:
#   electrostatics_cpu.md   the table (bench_ispd/results/electrostatics_cpu.md)
#   cpu_density.log         the build's errors on failure, the benchmark's progress
# Run scripts/device_prepare.sh here first and carry [".stb", ".devdeps", "shared-data"]: the
# benchmark reads its arguments with CLI11, which the device image lacks.
# Environment: THREADS (default 1,2,16), REPS (30), PRECISION (f32), DATA (shared-data/bookshelf).
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
LOG="$OUT/cpu_density.log"
# The commit the table names: .stb/commit (scripts/device_prepare.sh; the .git that travels can be stale).
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
data=${DATA:-shared-data/bookshelf}
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
extra=()
[[ -f .stb/stb_image_write.h ]] && extra+=(-DSTB_INCLUDE_DIR="$PWD/.stb")
{ echo "$(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(date -u +%Y-%m-%d)"
  lscpu | grep -E "^(Thread|Core|Socket|L1d|L2|L3|NUMA node\(s\))"; } | tee "$LOG"
if ! cmake -S . -B build-cpu-density -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=OFF -DEFIELD_BUILD_TESTS=OFF \
     "${extra[@]}" > "$OUT/build.log" 2>&1 ||
   ! cmake --build build-cpu-density -j "$(nproc)" --target bench_cpu_density >> "$OUT/build.log" 2>&1; then
  grep -E "error|Error|FAILED" "$OUT/build.log" | head -40 | tee -a "$LOG"; exit 1
fi
rm -f "$OUT/build.log"
aux=()
for d in adaptec1 ibm05; do
  f=$data/$d/$d.aux
  if [[ -f $f ]]; then aux+=(--aux "$f"); else echo "$d: $f absent, skipped" | tee -a "$LOG"; fi
done
build-cpu-density/bench_ispd/bench_cpu_density "${aux[@]}" --pin --threads "${THREADS:-1,2,16}" --reps "${REPS:-30}" \
  --precision "${PRECISION:-f32}" --markdown "$OUT/electrostatics_cpu.md" 2>&1 | tee -a "$LOG"
