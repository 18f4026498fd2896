#!/usr/bin/env python3
"""Checks Auto's choices (src/transforms/cuda2d_policy.cpp) against a bench_transforms2d run.

Each GPU row of `bench_transforms2d --json` times Auto and every Cuda2DMethod on the same data.
A row fails when Auto's time is more than the tolerance (default 5 %) above the fastest method's
time in that row; the failing rows are printed and the exit status is 1 (0 when every row passes,
2 when the input cannot be read or has no GPU rows).

  check_auto_policy.py --json FILE              read a run's JSON
  check_auto_policy.py --bench PATH [-- ARGS]   run PATH --no-cpu --json <tmp> [ARGS] first
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def load_rows(args):
    if args.json:
        with open(args.json, encoding="utf-8") as f:
            return json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "transforms2d.json")
        command = [args.bench, "--no-cpu", "--json", path] + args.bench_args
        print("running: " + " ".join(command), flush=True)
        subprocess.run(command, check=True, stdout=sys.stderr)
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def check(run, tolerance):
    """Returns (rows checked, failing rows as dicts)."""
    failing = []
    rows = run.get("gpu", [])
    for row in rows:
        times = {m: t for m, t in row["methods"].items() if t is not None}
        best = min(times, key=times.get)
        limit = times[best] * (1 + tolerance)
        if row["auto_us"] > limit:
            failing.append({**row, "best_method": best, "best_us": times[best]})
    return len(rows), failing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--json", help="a bench_transforms2d --json file")
    source.add_argument("--bench", help="the bench_transforms2d program to run")
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="how far above the fastest method Auto may be (default 0.05)")
    parser.add_argument("bench_args", nargs="*", help="more arguments for --bench (after --)")
    args = parser.parse_args()
    if args.tolerance < 0:
        parser.error("--tolerance must be >= 0")
    try:
        run = load_rows(args)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"check_auto_policy: {e}", file=sys.stderr)
        return 2
    checked, failing = check(run, args.tolerance)
    if checked == 0:
        print("check_auto_policy: no GPU rows (was the run made on a machine with a CUDA device?)",
              file=sys.stderr)
        return 2
    print(f"{run.get('device', '?')}, commit {run.get('commit', '?')}, {run.get('date', '?')}: "
          f"{checked} rows, {len(failing)} with Auto more than {args.tolerance:.0%} above the fastest method")
    if failing:
        print("| size | type | transform | Auto runs | Auto (us) | fastest | fastest (us) | Auto / fastest |")
        print("| --- | --- | --- | --- | ---: | --- | ---: | ---: |")
        for r in failing:
            print(f"| {r['rows']}x{r['cols']} | {r['type']} | {r['transform']} | {r['auto_method']} | "
                  f"{r['auto_us']:.1f} | {r['best_method']} | {r['best_us']:.1f} | "
                  f"{r['auto_us'] / r['best_us']:.3f} |")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
