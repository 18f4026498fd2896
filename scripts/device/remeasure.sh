#!/usr/bin/env bash
# Same-run A/B of the benchmark tables in bench_ispd/results/ against a baseline commit, on the
# GPU machine: builds the benchmarks of this tree (after) and of the baseline (before), runs each
# benchmark in rounds (before, after; AB_ROUNDS of them, default 2) on the same GPU, and writes
# one table of after/before time ratios per benchmark (scripts/device/ab_tables.py).
#
# Here, before the call (the baseline travels as an ignored folder; the GPU machine has no git):
#   bash scripts/device/remeasure.sh prepare COMMIT   # git archive COMMIT into .baseline/
#   bash scripts/device_prepare.sh                   # .stb (commit), .devdeps (CLI11, json)
# then carry [".baseline", ".stb", ".devdeps"] (a worktree copied under .wt/NAME carries its
# .baseline inside) and run on the GPU machine:
#   bash scripts/device/remeasure.sh [BENCH ...]
# BENCH: transforms1d blocked_dct8 transforms2d ispd electrostatics (default: all, in that order).
# Each run is shortened (--quick, fewer sizes or repetitions where a benchmark has them, still
# medians of many timed runs after warm-up); both builds get the same command line (these options
# mean the same at 497b117 and later; check an older baseline's --help before using it). No run goes past AB_DEADLINE_S seconds of the call (default 545: one
# device call is at most 10 minutes); AB_SKIP_BUILD=1 reuses build-ab/ of an earlier call;
# AB_SIZES2D="RxC ..." times only those bench_transforms2d sizes.
# Writes to $OUT: ab.md (the ratio tables), ab.log (progress, build summaries), raw.tar.gz (every
# run's own output).
set -uo pipefail
OUT=${OUT:-/tmp/efield-out}; mkdir -p "$OUT"
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 1

if [[ ${1:-} == prepare ]]; then
  commit=${2:?usage: remeasure.sh prepare COMMIT}
  rm -rf .baseline && mkdir .baseline
  git archive "$commit" | tar -x -C .baseline
  git rev-parse --short "$commit" > .baseline/.commit
  echo "baseline $(cat .baseline/.commit) in .baseline/"; exit 0
fi

benches=("$@"); [[ ${#benches[@]} -eq 0 ]] && benches=(transforms1d blocked_dct8 transforms2d ispd electrostatics)
deadline=${AB_DEADLINE_S:-545}  # no run goes past this many seconds of the call
LOG="$OUT/ab.log"; MD="$OUT/ab.md"; RAW=/tmp/ab-raw; rm -rf "$RAW"; mkdir -p "$RAW"
[[ -f .baseline/.commit ]] || { echo "no .baseline/ (run: remeasure.sh prepare COMMIT here first)" | tee "$LOG"; exit 1; }
before_commit=$(cat .baseline/.commit)
after_commit=$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
stb=(); [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
gpu=$(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -1)
echo "GPU: $gpu; before $before_commit, after $after_commit; $(date -u +%F\ %T) UTC" | tee "$LOG"

# Both trees, only the benchmark programs, side by side (16 cores between them).
targets="bench_transforms1d bench_transforms2d bench_blocked_dct8 bench_ispd bench_electrostatics"
build() {  # source dir, build dir
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DEFIELD_CUDA=ON \
    -DEFIELD_BUILD_TESTS=OFF -DEFIELD_BUILD_EXAMPLES=OFF -DEFIELD_PYTHON=OFF "${stb[@]}" &&
    cmake --build "$2" -j16 --target $targets
}
if [[ -z ${AB_SKIP_BUILD:-} ]]; then
  build .baseline build-ab/before > "$RAW/build_before.log" 2>&1 & pid_before=$!
  build . build-ab/after > "$RAW/build_after.log" 2>&1 & pid_after=$!
  ok=1
  wait $pid_before || { echo "baseline build FAILED"; grep -E "error|FAILED|CMake Error" "$RAW/build_before.log" | head -30; ok=0; } >> "$LOG"
  wait $pid_after || { echo "build FAILED"; grep -E "error|FAILED|CMake Error" "$RAW/build_after.log" | head -30; ok=0; } >> "$LOG"
  echo "builds done after ${SECONDS}s (ok=$ok)" | tee -a "$LOG"
  if [[ $ok == 0 ]]; then tar -czf "$OUT/raw.tar.gz" -C "$RAW" .; cat "$LOG"; exit 1; fi
fi

rounds=${AB_ROUNDS:-2}
sizes2d=${AB_SIZES2D:-"512x512 1024x1024 2048x2048 4096x4096 8192x8192 100x10000 10000x100 256x1000 512x1000
         1024x3000 2048x1500 2000x100 3000x300 5000x200 8000x150"}
# One benchmark's command line, the same for both builds. $1 bench, $2 output file.
command_for() {
  case $1 in
    transforms1d) echo "bench_transforms1d --quick --markdown $2" ;;
    transforms2d) echo "bench_transforms2d --quick --no-cpu --markdown $2 $(printf -- '--size %s ' $sizes2d)" ;;
    blocked_dct8) echo "bench_blocked_dct8 --reps 100 --markdown $2" ;;
    ispd) echo "bench_ispd --suite --iters 50 --quiet --json $2" ;;
    electrostatics) echo "bench_electrostatics --no-cpu --reps 100 --markdown $2" ;;
  esac
}
output_of() { [[ $1 == ispd ]] && echo json || echo md; }

{
  echo "# Same-run A/B: $before_commit (before) -> $after_commit (after)"
  echo
  echo "GPU: $gpu; $(date -u +%F). Each benchmark ran in $rounds rounds of before, then after, on this GPU."
  echo "Cells: after/before time ratio of the rounds' means (each round's own ratio); < 1 is faster."
  echo
} > "$MD"
for b in "${benches[@]}"; do
  ext=$(output_of "$b")
  before_files=(); after_files=()
  for round in $(seq "$rounds"); do
    for side in before after; do
      limit=$(( deadline - SECONDS )); (( limit > 150 )) && limit=150
      if (( limit < 10 )); then echo "$b: round $round $side skipped at ${SECONDS}s" | tee -a "$LOG"; continue; fi
      f="$RAW/${b}_${side}${round}.$ext"
      cmd=$(command_for "$b" "$f")
      commit=$after_commit; [[ $side == before ]] && commit=$before_commit
      t0=$SECONDS
      (cd "build-ab/$side/bench_ispd" && EFIELD_COMMIT=$commit timeout $limit ./$cmd) > "$RAW/${b}_${side}${round}.out" 2>&1
      echo "$b $side $round: exit $? in $((SECONDS - t0))s (at ${SECONDS}s): $cmd" | tee -a "$LOG"
      if [[ -s $f && $side == before ]]; then before_files+=("$f"); elif [[ -s $f ]]; then after_files+=("$f"); fi
    done
  done
  {
    echo "## $b"
    echo
    echo "\`$(command_for "$b" FILE)\` (both builds)"
    echo
    if [[ ${#before_files[@]} -eq $rounds && ${#after_files[@]} -eq $rounds ]]; then
      python3 scripts/device/ab_tables.py "$b" --before "${before_files[@]}" --after "${after_files[@]}" 2>&1
    else
      echo "incomplete: $((${#before_files[@]} + ${#after_files[@]})) of $((2 * rounds)) runs (see ab.log)"
    fi
    echo
  } >> "$MD"
done
tar -czf "$OUT/raw.tar.gz" -C "$RAW" .
echo "done after ${SECONDS}s" | tee -a "$LOG"
cat "$MD"
