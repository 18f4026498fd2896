#!/usr/bin/env bash
# Installs the Debian 12 packages efield builds with, skipping those already present.
#   bash scripts/install_deps.sh          everything: the library, tests, fuzzing, the Python package
#   bash scripts/install_deps.sh bench    only what bench_ispd needs (quickstart.sh bench)
# CUDA is optional: when NVIDIA's toolkit is installed (nvcc in /usr/local/cuda or on PATH) the
# CUDA backend is built too; this script does not install a GPU toolkit or driver.
set -euo pipefail

group=${1:-all}
# The library and bench_ispd: compiler, build tools, the C++ libraries (stb: PNG heat maps).
bench=(build-essential cmake ninja-build pkg-config libspdlog-dev libfmt-dev libfftw3-dev libstb-dev
       libcli11-dev nlohmann-json3-dev)
rest=(# the tests: GoogleTest, and Eigen for their dense float64 references
      libgtest-dev libeigen3-dev
      # clang + libFuzzer: the Bookshelf fuzz test (fuzz/)
      clang-14 libclang-rt-14-dev
      # the Python package (python/) and its tests
      python3-dev pybind11-dev libdlpack-dev python3-numpy python3-scipy python3-pytest
      python3-torch python3-matplotlib python3-pip python3-setuptools python3-wheel python3-venv
      # the compiled PyTorch op (efield._torch_ops): PyTorch's C++ side, matching python3-torch
      libtorch-dev
      # efield.sweep: placement sweeps on Dask (an embedded local cluster or an existing one)
      python3-dask python3-distributed)
case "$group" in
  bench) packages=("${bench[@]}") ;;
  all) packages=("${bench[@]}" "${rest[@]}") ;;
  *) echo "usage: $0 [bench|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "efield: installing missing packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "efield: run as root (or install the packages above with sudo)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
