#!/usr/bin/env bash
# Builds the Bookshelf fuzz target with clang in a build folder of its own and runs it for a
# bounded time, starting from seeds made of the designs in tests/data/bookshelf. Exits non-zero
# on any finding (crash, leak, sanitizer report, exception other than efield::Error, timeout).
#   bash fuzz/run_fuzz.sh [seconds (60)] [build folder (build-fuzz)]
# EFIELD_FUZZ_CXX names the clang++ to use (default: the first clang++ on PATH); EFIELD_JOBS the
# build's parallelism. The corpus grows in <build folder>/corpus; findings go to
# <build folder>/findings/ (rerun one with: <build folder>/bookshelf_fuzzer <file>).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
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
cmake --build "$build" -j "$jobs" --target bookshelf_fuzzer

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

echo "bookshelf_fuzzer: $(ls "$seeds" | wc -l) seeds, ${seconds} s"
exec "$build/bookshelf_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -dict="$root/fuzz/bookshelf.dict" -print_final_stats=1 -artifact_prefix="$build/findings/" \
  "$build/corpus" "$seeds"
