#!/usr/bin/env bash
# Copies Debian's pure-Python Dask (python3-dask, python3-distributed) and the pure-Python
# packages they import into .pydeps/ of the repository root (ignored by git), for a machine whose
# Python has no Dask and no network (the GPU machine: scripts/device/sweeps.sh puts the packages
# it lacks on PYTHONPATH). Compiled modules (.so) and tests are left out: tornado and markupsafe
# fall back to their pure-Python code without them. psutil, msgpack, cloudpickle, PyYAML and
# toolz are expected on that machine (compiled or newer there); toolz is copied all the same and
# used only where missing.
#   bash scripts/device/collect_pydeps.sh [DEST]      (default: .pydeps)
set -euo pipefail
dest=${1:-.pydeps}
packages=(python3-dask python3-distributed python3-tornado python3-tblib python3-zict
          python3-sortedcontainers python3-jinja2 python3-markupsafe python3-click python3-fsspec
          python3-partd python3-locket python3-packaging python3-toolz python3-heapdict)
site=/usr/lib/python3/dist-packages
rm -rf "$dest"
mkdir -p "$dest"
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "collect_pydeps: $p is not installed (scripts/install_deps.sh)" >&2
    exit 1
  fi
  dpkg -L "$p" | grep "^$site/" | while read -r f; do
    rel=${f#"$site"/}
    case "$rel" in
      *.so | */tests/* | */test/* | */__pycache__/*) continue ;;
    esac
    if [[ -f "$f" ]]; then
      mkdir -p "$dest/$(dirname "$rel")"
      cp "$f" "$dest/$rel"
    fi
  done
done
# Debian keeps dask's and distributed's version files as in their releases; record what was copied.
dpkg-query -W -f='${Package} ${Version}\n' "${packages[@]}" > "$dest/DEBIAN_VERSIONS"
echo "collect_pydeps: $(du -sh "$dest" | cut -f1) in $dest from ${#packages[@]} Debian packages"
