#!/usr/bin/env bash
# Issue 43 (items 2-4) on the GPU machine, from the repository root; under $OUT the log, the
# benchmark's markdown and a picture of the tiers of each CUDA placement:
#   bash scripts/device/placement3d.sh          the Python extension with CUDA (build-py), the 3D
#                                               op's and the 3D placer's tests with CUDA tensors,
#                                               the 3D placer on ibm01 and ibm05 with 2 and 4 tiers
#                                               (CUDA, then CPU with THREADS threads)
#   bash scripts/device/placement3d.sh --bench  bench_electrostatics3d (build-dev)
# Run scripts/device_prepare.sh here first and carry [".stb", ".devdeps", "shared-data"]. DATA
# (default shared-data/bookshelf) holds the designs; PYTHON names the interpreter; BACKENDS
# (default "cuda cpu") the placer's devices; THREADS (default 16) the CPU runs' threads.
set -uo pipefail
OUT=${OUT:-/tmp/efield-placement3d-out}
mkdir -p "$OUT"
mode=${1:-place}
python=$(command -v "${PYTHON:-python3}")
data=${DATA:-shared-data/bookshelf}
backends=${BACKENDS:-cuda cpu}
threads=${THREADS:-16}
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
log="$OUT/placement3d.log"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$log"
echo "commit $EFIELD_COMMIT, $(date -u +%F)" | tee -a "$log"
status=0

if [[ "$mode" == "--bench" ]]; then
  if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
  stb=(); [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
  if ! cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DEFIELD_BUILD_BENCH=ON "${stb[@]}" > /tmp/bench3d_configure.log 2>&1 \
      || ! cmake --build build-dev -j16 --target bench_electrostatics3d > /tmp/bench3d_build.log 2>&1; then
    grep -E "error|FAILED" /tmp/bench3d_configure.log /tmp/bench3d_build.log | head -20; exit 1
  fi
  build-dev/bench_ispd/bench_electrostatics3d --markdown "$OUT/electrostatics3d.md" 2>&1 | tail -30 | tee -a "$log"
  exit "${PIPESTATUS[0]}"
fi

source scripts/device/python_build.sh
build_python_extension || exit 1
EFIELD_REQUIRE_CUDA=1 "$python" -m pytest -q -rs tests/python/test_torch_op3d.py tests/python/test_place3d.py 2>&1 \
  | tail -8 | tee -a "$log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1

for device in $backends; do
  for design in ibm01 ibm05; do
    aux="$data/$design/$design.aux"
    if [[ ! -f "$aux" ]]; then echo "$design not found at $aux: skipped" | tee -a "$log"; continue; fi
    for tiers in 2 4; do
      echo "== global_place3d $design --tiers $tiers --device $device" | tee -a "$log"
      # Few files come back from $OUT: pictures of the CUDA runs only.
      extra=(--png "$OUT/${design}_${tiers}tiers.png"); [[ $device == cpu ]] && extra=(--threads "$threads")
      PYTHONUNBUFFERED=1 "$python" examples/python/global_place3d.py "$aux" --tiers "$tiers" --device "$device" \
        --report 0 "${extra[@]}" 2>&1 | grep -v "^\[" | tail -4 | tee -a "$log"
    done
  done
done
exit $status
