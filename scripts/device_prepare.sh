#!/usr/bin/env bash
# Run here before a device call: copies the stb headers and the current commit into .stb/, the
# header-only libraries the device image lacks (CLI11, nlohmann-json, dlpack) into .devdeps/, and
# the shared Bookshelf designs into shared-data/ (all ignored by git; carried to the device
# machine with carry [".stb", ".devdeps", "shared-data"]; device_check.sh puts them in place).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .stb
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_write.h .stb/
git rev-parse --short HEAD > .stb/commit
mkdir -p .devdeps/usr/include .devdeps/usr/share/cmake .devdeps/usr/lib/x86_64-linux-gnu/cmake
for d in CLI nlohmann dlpack; do [[ -d /usr/include/$d ]] && cp -r /usr/include/$d .devdeps/usr/include/; done
for d in CLI11 nlohmann_json; do [[ -d /usr/share/cmake/$d ]] && cp -r /usr/share/cmake/$d .devdeps/usr/share/cmake/; done
[[ -d /usr/lib/x86_64-linux-gnu/cmake/dlpack ]] && cp -r /usr/lib/x86_64-linux-gnu/cmake/dlpack .devdeps/usr/lib/x86_64-linux-gnu/cmake/
if [[ -d ../shared/data/bookshelf ]]; then
  mkdir -p shared-data/bookshelf
  for d in ../shared/data/bookshelf/*/; do cp -r "$d" shared-data/bookshelf/; done
fi
