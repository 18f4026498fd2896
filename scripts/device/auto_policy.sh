#!/usr/bin/env bash
# On the GPU machine: build bench_transforms2d, time every Cuda2DMethod next to Auto (the CUDA
# table only) and check Auto's choices with scripts/check_auto_policy.py (Auto within 5 % of the
# fastest method in every row). Writes to $OUT: transforms2d.json and transforms2d.md (the run),
# auto_policy.txt (the checker's report), build.log. Exits with the checker's status.
# Before the call, here: bash scripts/device_prepare.sh, then carry [".stb", ".devdeps"].
#   bash scripts/device/auto_policy.sh [bench_transforms2d arguments, e.g. --quick]
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
# The header-only libraries device_prepare.sh carried (CLI11, nlohmann-json), into /usr.
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
deps=(); [[ -f .stb/stb_image_write.h ]] && deps=(-DSTB_INCLUDE_DIR="$PWD/.stb")
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
if ! { cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEFIELD_CUDA=ON \
         "${deps[@]}" && cmake --build build-dev -j16 --target bench_transforms2d; } > "$OUT/build.log" 2>&1; then
  grep -E "error|FAILED|Could not find" "$OUT/build.log" | head -40; exit 1
fi
build-dev/bench_ispd/bench_transforms2d --no-cpu --json "$OUT/transforms2d.json" \
  --markdown "$OUT/transforms2d.md" "$@" > "$OUT/bench.log" 2>&1 || { tail -20 "$OUT/bench.log"; exit 1; }
python3 scripts/check_auto_policy.py --json "$OUT/transforms2d.json" | tee "$OUT/auto_policy.txt"
exit "${PIPESTATUS[0]}"
