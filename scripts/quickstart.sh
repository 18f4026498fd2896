#!/usr/bin/env bash
# The README's two commands:
#   bash scripts/quickstart.sh bench   set up, build, run bench_ispd on the embedded default design
#   bash scripts/quickstart.sh test    set up, build, run the whole test suite through ctest
# Each installs missing Debian packages first, so both work on a fresh Debian 12 machine as root.
set -euo pipefail

mode=${1:-}
if [[ "$mode" != bench && "$mode" != test ]]; then
  echo "usage: $0 bench|test" >&2
  exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${EFIELD_BUILD_DIR:-$root/build}
jobs=${EFIELD_JOBS:-$(nproc)}

bash "$root/scripts/install_deps.sh"
if [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${EFIELD_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

if [[ "$mode" == bench ]]; then
  "$build/bench_ispd/bench_ispd" "${@:2}"
else
  ctest --test-dir "$build" --output-on-failure -j "$jobs"
fi
