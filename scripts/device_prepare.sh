#!/usr/bin/env bash
# Run here before a device call: copies the stb headers and the current commit into .stb/
# (ignored by git, carried to the device machine with carry [".stb"]).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .stb
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_write.h .stb/
git rev-parse --short HEAD > .stb/commit
