#!/usr/bin/env bash
# efield.sweep on the GPU machine (issue 45), from the repository root; results under $OUT:
#   bash scripts/device/sweeps.sh
# Builds the Python extension (scripts/device/python_build.sh), puts the Dask packages that the
# machine's Python lacks on PYTHONPATH (from .pydeps/, made here by
# scripts/device/collect_pydeps.sh and carried), then runs the same placement sweep (ibm01 and
# ibm05 from shared-data/bookshelf x 2 target densities x 4 seeds = 16 jobs) with one GPU worker,
# with two, and with CPU workers, then the ISPD2005 suite config (examples/sweeps) on the GPUs,
# writes $OUT/sweeps.md (the tables for bench_ispd/results/sweeps.md) and runs
# tests/python/test_sweep.py on this Python. Carry
# [".stb", ".devdeps", "shared-data", ".pydeps"]. PYTHON names the interpreter.
set -uo pipefail
OUT=${OUT:-/tmp/efield-sweeps-out}
mkdir -p "$OUT"
python=$(command -v "${PYTHON:-python3}")
log="$OUT/sweeps.log"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export EFIELD_COMMIT=${EFIELD_COMMIT:-$(cat .stb/commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; nproc; } 2>&1 | tee "$log"

source scripts/device/python_build.sh
build_python_extension || exit 1

# The carried Dask packages, only those this Python cannot import already (its own psutil,
# msgpack, cloudpickle, PyYAML, toolz stay in use).
use=.pydeps-use
rm -rf "$use" && mkdir -p "$use"
for entry in .pydeps/*; do  # packages (folders) and single-file modules (heapdict.py)
  name=$(basename "$entry" .py)
  [[ -f "$entry/__init__.py" || "$entry" == *.py ]] || continue
  if ! env -u PYTHONPATH "$python" -c "import $name" 2>/dev/null; then
    ln -s "$PWD/$entry" "$use/$(basename "$entry")"
    for meta in .pydeps/*.egg-info .pydeps/*.dist-info; do  # metadata: importlib.metadata.version()
      m=$(basename "$meta"); [[ "${m,,}" == "$name"-* ]] && ln -sfn "$PWD/$meta" "$use/$m"
    done
  fi
done
echo "carried packages used: $(ls "$use" | grep -v -e egg-info -e dist-info | tr '\n' ' ')" | tee -a "$log"
export PYTHONPATH="$PYTHONPATH:$PWD/$use"
"$python" -c "import dask, distributed, torch, efield; print('python', __import__('sys').version.split()[0], 'dask', dask.__version__, 'distributed', distributed.__version__, 'torch', torch.__version__, 'efield cuda', efield.built_with_cuda(), efield.cuda_device_count())" 2>&1 | tee -a "$log" || exit 1

config="$OUT/ibm_sweep.toml"
cat > "$config" <<TOML
kind = "place"
[[designs]]
aux = "$PWD/shared-data/bookshelf/ibm05/ibm05.aux"
[[designs]]
aux = "$PWD/shared-data/bookshelf/ibm01/ibm01.aux"
[grid]
target_density = [0.9, 1.0]
seed = [1, 2, 3, 4]
TOML
status=0
# SWEEPS picks which of gpu1 gpu2 cpu suite run (default: all), so that a 2-GPU lease runs only the
# GPU sweeps and the CPU one can run on another machine of the same CPU.
sweeps=" ${SWEEPS:-gpu1 gpu2 cpu suite} "
sweep() {  # name, time limit (s), then efield.sweep arguments
  local name=$1 limit=$2; shift 2
  [[ "$sweeps" == *" $name "* ]] || return 0
  echo "== sweep $name: $*" | tee -a "$log"
  timeout "$limit" "$python" -m efield.sweep "$@" --results "$OUT/$name.jsonl" -q > "$OUT/$name.out" 2>&1
  local rc=$?
  echo "exit $rc" | tee -a "$log"
  grep -E "^- " "$OUT/$name.out" | tee -a "$log"
  [[ $rc -eq 0 ]] || { tail -20 "$OUT/$name.out" | tee -a "$log"; status=1; }
}
# The larger design's jobs first (submission order), so that no long job is left alone at the end.
sweep gpu1 150 "$config" --gpus 0
sweep gpu2 100 "$config" --gpus 0,1
cores=$(nproc)
sweep cpu 150 "$config" --gpus none --workers 4 --threads $((cores / 4))
sweep suite 100 examples/sweeps/ispd2005_suite.toml --gpus 0,1

"$python" - "$OUT" <<'PY' 2>&1 | tee -a "$log"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
rows, rate = [], {}
for name in ("gpu1", "gpu2", "cpu"):
    md = out / f"{name}.md"
    if not md.exists():
        continue
    text = md.read_text()
    what = [l for l in text.splitlines() if l.startswith("- workers")][0].split(":", 1)[1].strip()
    wall = [l for l in text.splitlines() if l.startswith("- wall time")][0]
    seconds = float(wall.split(":")[1].split()[0]); jobs_h = float(wall.split(",")[1].split()[0])
    recs = [json.loads(l) for l in (out / f"{name}.jsonl").read_text().splitlines()]
    ok = sum(r["status"] == "ok" for r in recs)
    rate[name] = jobs_h
    dev = sorted({r.get("device_name") or r.get("device") for r in recs})
    rows.append(f"| {what} | {len(recs)} ({ok} ok) | {seconds:.1f} | {jobs_h:.0f} | {', '.join(dev)} |")
lines = ["| workers | jobs | wall (s) | jobs per hour | devices |", "| --- | ---: | ---: | ---: | --- |"] + rows
if "gpu1" in rate and "gpu2" in rate:
    lines += ["", f"2 GPUs / 1 GPU: {rate['gpu2'] / rate['gpu1']:.2f}x"]
if "gpu1" in rate and "cpu" in rate:
    lines += [f"1 GPU / CPU workers: {rate['gpu1'] / rate['cpu']:.2f}x"]
for name in ("gpu2", "cpu", "suite"):
    md = out / f"{name}.md"
    if md.exists():
        lines += ["", f"### {name}", "", md.read_text()]
(out / "sweeps.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines[:8]))
PY
# The CPU tests of efield.sweep on this Python (3.12) and the carried Dask, last (time permitting:
# SWEEP_TESTS=0 skips them, and so does a run already 7 minutes long).
echo "elapsed before the tests: ${SECONDS} s" | tee -a "$log"
if [[ ${SWEEP_TESTS:-1} != 0 && $SECONDS -lt 420 ]]; then
  timeout 120 "$python" -m pytest -q -x tests/python/test_sweep.py -p no:cacheprovider 2>&1 | tail -5 | tee -a "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi
exit $status
