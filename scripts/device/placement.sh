#!/usr/bin/env bash
# On the GPU machine, from the repository root: builds examples/cpp/global_place with CUDA and
# places ibm01 and ibm05 (shared-data/bookshelf/<name>/<name>.aux, skipped when absent) and the
# ISPD2005 stand-ins adaptec1 and bigblue4 (generated with nets), on CUDA and on the CPU backend
# (16 threads). Writes to $OUT:
#   placement.log          the build's tail on failure, every run's output
#   placement_summary.md   one table row per run (the numbers of bench_ispd/results/placement.md)
#   <design>_<backend>.png the placements of the CUDA runs
# Usage: bash scripts/device/placement.sh [design ...]   (default: ibm01 ibm05 adaptec1 bigblue4)
# One call of 10 minutes holds the build (about 5 minutes the first time; build-place/ stays on a
# warm machine) and a few runs: call it for "ibm01 ibm05 adaptec1", then for "bigblue4". The CPU
# run of bigblue4 (3.4M cells and fillers) stops after BIGBLUE4_CPU_ITERS iterations (150): its
# row gives the time per iteration, not a converged placement.
# Environment: BACKENDS (default "cuda cpu"), PRECISION (float), RUN_TIMEOUT seconds per run (280);
# Run scripts/device_prepare.sh here first and carry [".stb", ".devdeps", "shared-data"]: stb,
# CLI11 and the shared designs.
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
LOG="$OUT/placement.log"; SUMMARY="$OUT/placement_summary.md"
designs=("$@"); [[ ${#designs[@]} -eq 0 ]] && designs=(ibm01 ibm05 adaptec1 bigblue4)
backends=(${BACKENDS:-cuda cpu})
precision=${PRECISION:-float}
commit=$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{ echo "device: $gpu; $(nproc) cores; commit $commit; $(date -u +%Y-%m-%d)"; } | tee "$LOG"
# What scripts/device_prepare.sh carried: header-only libraries (CLI11) into /usr.
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
extra=()
[[ -f .stb/stb_image_write.h ]] && extra+=(-DSTB_INCLUDE_DIR="$PWD/.stb")
if ! cmake -S . -B build-place -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DEFIELD_BUILD_TESTS=OFF -DEFIELD_BUILD_BENCH=OFF "${extra[@]}" > "$OUT/build.log" 2>&1 ||
   ! cmake --build build-place -j16 --target global_place >> "$OUT/build.log" 2>&1; then
  grep -E "error|Error|FAILED" "$OUT/build.log" | head -40 | tee -a "$LOG"; exit 1
fi
rm -f "$OUT/build.log"
echo "build OK" | tee -a "$LOG"

{
  echo "device: $gpu, $(nproc) cores; commit $commit; $(date -u +%Y-%m-%d); precision $precision"
  echo
  echo "| design | backend | iterations | evaluations | HPWL | overflow | converged | ms/iter | density | wirelength | other |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
} > "$SUMMARY"
status=0
for d in "${designs[@]}"; do
  case $d in
    ibm*) src=(shared-data/bookshelf/$d/$d.aux)
          [[ -f ${src[0]} ]] || { echo "== $d: ${src[0]} absent, skipped" | tee -a "$LOG"; continue; } ;;
    *) src=(--standin "$d") ;;
  esac
  for b in "${backends[@]}"; do
    echo "== $d $b" | tee -a "$LOG"
    args=(--backend "$b" --precision "$precision" --threads 16 --report 100)
    [[ $b == cuda ]] && args+=(--png "$OUT/${d}_$b.png")
    [[ $b == cpu && $d == bigblue4 ]] && args+=(--max-iters "${BIGBLUE4_CPU_ITERS:-150}")
    out=$(timeout "${RUN_TIMEOUT:-280}" build-place/examples/cpp/global_place/global_place "${src[@]}" "${args[@]}" 2>&1)
    rc=$?
    echo "$out" >> "$LOG"
    final=$(grep '^final:' <<< "$out")
    [[ $rc -ne 0 || -z $final ]] && { echo "   failed (exit $rc)" | tee -a "$LOG"; echo "$out" | tail -5; status=1; continue; }
    echo "   $final"
    # final: iterations I evaluations E hpwl H overflow O max_density M converged C | ms/iteration total T density D wirelength W other X
    awk -v d="$d" -v b="$b" '{print "| " d " | " b " | " $3 " | " $5 " | " $7 " | " $9 " | " $13 " | " $17 " | " $19 " | " $21 " | " $23 " |"}' \
      <<< "$final" >> "$SUMMARY"
  done
done
cat "$SUMMARY"
exit $status
