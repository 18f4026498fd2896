#!/usr/bin/env bash
# The README's two commands:
#   bash scripts/quickstart.sh bench   set up and build only what bench_ispd needs (build-bench/), run it on
#                                      the embedded default design
#   bash scripts/quickstart.sh test    set up, build, run the whole test suite: ctest, then the Python
#                                      tests (pytest, tests/python) on the module built in <build>/python
# Each installs missing Debian packages first, so both work on a fresh Debian 12 machine as root.
set -euo pipefail

mode=${1:-}
if [[ "$mode" != bench && "$mode" != test ]]; then
  echo "usage: $0 bench|test" >&2
  exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${EFIELD_JOBS:-$(nproc)}
if [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

if [[ "$mode" == bench ]]; then
  # The first result quickly: only bench_ispd's packages and only bench_ispd, in a build folder of
  # its own (no tests, examples or Python extension). CUDA only when a GPU is there to run it, and
  # then for that GPU's architecture alone; the test build below compiles everything.
  build=${EFIELD_BUILD_DIR:-$root/build-bench}
  bash "$root/scripts/install_deps.sh" bench
  cuda_args=(-DEFIELD_CUDA=OFF)
  if command -v nvcc >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    cuda_args=(-DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native)
  fi
  echo "efield: building bench_ispd only (${cuda_args[*]}) into $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_BUILD_TESTS=OFF \
        -DEFIELD_PYTHON=OFF -DEFIELD_BUILD_EXAMPLES=OFF "${cuda_args[@]}" ${EFIELD_CMAKE_ARGS:-}
  cmake --build "$build" -j "$jobs" --target bench_ispd
  exec "$build/bench_ispd/bench_ispd" "${@:2}"
fi

build=${EFIELD_BUILD_DIR:-$root/build}
bash "$root/scripts/install_deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${EFIELD_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

status=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" || status=$?
if [[ -d "$build/python/efield" ]]; then
  # The interpreter CMake built the extension for (Debian's python3 unless a venv was active).
  python=$(sed -n 's/^EFIELD_PYTHON_EXECUTABLE:INTERNAL=//p' "$build/CMakeCache.txt")
  pytest_status=0
  PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}" "${python:-python3}" -m pytest -q -rs "$root/tests/python" \
    || pytest_status=$?
  # 5: no tests collected (not a failure of ours).
  if [[ $pytest_status -ne 0 && $pytest_status -ne 5 ]]; then status=$pytest_status; fi
else
  echo "efield: the Python extension was not built (EFIELD_PYTHON); Python tests skipped"
fi
exit $status
