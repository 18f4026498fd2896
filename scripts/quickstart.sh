#!/usr/bin/env bash
# The README's two commands:
#   bash scripts/quickstart.sh bench   set up, build, run bench_ispd on the embedded default design
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
build=${EFIELD_BUILD_DIR:-$root/build}
jobs=${EFIELD_JOBS:-$(nproc)}

bash "$root/scripts/install_deps.sh"
if [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${EFIELD_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"

if [[ "$mode" == bench ]]; then
  "$build/bench_ispd/bench_ispd" "${@:2}"
else
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
fi
