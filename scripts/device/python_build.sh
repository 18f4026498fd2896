# Sourced by scripts/device/python.sh and sweeps.sh: builds the Python extension with CUDA on the
# GPU machine into build-py/ for "$python" (pybind11 from torch/include, DLPack's header from
# .devdeps or torch/include; stb from .stb when carried), logs under $OUT, and puts the package on
# PYTHONPATH. Appends its summary to "$log". Returns non-zero when the build fails.
build_python_extension() {
  # What scripts/device_prepare.sh carried: header-only libraries into /usr.
  if [[ -d .devdeps/usr ]]; then cp -rn .devdeps/usr/. /usr/; fi
  local stb=()
  [[ -f .stb/stb_image_write.h ]] && stb=(-DSTB_INCLUDE_DIR="$PWD/.stb")
  if ! cmake -S . -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DEFIELD_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DEFIELD_PYTHON=ON -DPython3_EXECUTABLE="$python" -DEFIELD_BUILD_TESTS=OFF -DEFIELD_BUILD_BENCH=OFF \
      "${stb[@]}" > "$OUT/configure.log" 2>&1; then
    tail -40 "$OUT/configure.log"; return 1
  fi
  grep -E "efield:" "$OUT/configure.log" | tee -a "$log"
  if ! cmake --build build-py -j16 --target _efield > "$OUT/build.log" 2>&1; then
    grep -E "error|FAILED" "$OUT/build.log" | head -40; return 1
  fi
  echo "build OK" | tee -a "$log"
  export PYTHONPATH="$PWD/build-py/python${PYTHONPATH:+:$PYTHONPATH}"
}
