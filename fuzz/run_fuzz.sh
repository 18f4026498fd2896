#!/usr/bin/env bash
# Builds the fuzz targets with clang in a build folder of its own and runs each for a bounded
# time: bookshelf_fuzzer (the loader and the netlist view) from seeds made of the designs in
# tests/data/bookshelf, then options_fuzzer (the ElectrostaticSystem's input validation). Exits
# non-zero on any finding (crash, leak, sanitizer report, exception other than efield::Error,
# broken invariant, timeout).
#   bash fuzz/run_fuzz.sh [seconds per target (60)] [build folder (build-fuzz)] [targets (bookshelf options)]
# EFIELD_FUZZ_CXX names the clang++ to use (default: the first clang++ on PATH); EFIELD_JOBS the
# build's parallelism. The corpus grows in <build folder>/corpus; findings go to
# <build folder>/findings/ (rerun one with: <build folder>/<target>_fuzzer <file>).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
targets=${3:-bookshelf options}
jobs=${EFIELD_JOBS:-$(nproc)}

cxx=${EFIELD_FUZZ_CXX:-}
if [[ -z "$cxx" ]]; then
  for c in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
    if command -v "$c" >/dev/null; then cxx=$(command -v "$c"); break; fi
  done
fi
if [[ -z "$cxx" ]]; then
  echo "run_fuzz.sh: no clang++ found (Debian: clang-14 and libclang-rt-14-dev; scripts/install_deps.sh)" >&2
  exit 1
fi

cmake -S "$root/fuzz" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
for target in $targets; do cmake --build "$build" -j "$jobs" --target "${target}_fuzzer"; done

# One seed per design folder: its .aux, .nodes, .nets, .wts, .pl and .scl (the files the .aux
# names; empty where absent) joined by "#@@" lines, the layout bookshelf_fuzzer.cpp splits.
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds" "$build/corpus" "$build/findings"
for aux in "$root"/tests/data/bookshelf/*.aux "$root"/tests/data/bookshelf/*/*.aux; do
  [[ -f "$aux" ]] || continue
  dir=$(dirname "$aux")
  seed=$seeds/$(basename "$dir")_$(basename "$aux" .aux)
  cat "$aux" > "$seed"
  for ext in nodes nets wts pl scl; do
    printf '\n#@@\n' >> "$seed"
    name=$(tr -s ' \t\r' '\n' < "$aux" | grep -iE "\.${ext}\$" | head -n 1 || true)
    if [[ -n "$name" && -f "$dir/$name" ]]; then cat "$dir/$name" >> "$seed"; fi
  done
done

fuzz() {  # target, then its own libFuzzer options and corpus folders
  local target=$1
  shift
  mkdir -p "$build/corpus/$target"
  "$build/${target}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/findings/${target}-" "$@"
}

for target in $targets; do
  case $target in
    bookshelf)
      echo "bookshelf_fuzzer: $(ls "$seeds" | wc -l) seeds, ${seconds} s"
      fuzz bookshelf -max_len=16384 -dict="$root/fuzz/bookshelf.dict" "$build/corpus/bookshelf" "$seeds" ;;
    options)
      echo "options_fuzzer: ${seconds} s"
      fuzz options -max_len=512 "$build/corpus/options" ;;
    *) echo "run_fuzz.sh: unknown target '$target' (bookshelf or options)" >&2; exit 1 ;;
  esac
done
