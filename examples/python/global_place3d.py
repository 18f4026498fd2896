#!/usr/bin/env python3
"""A 3D global placer for stacked dies in PyTorch with efield's 3D density op: a command line
over efield.place3d.global_place3d (the method is described there: ePlace-3D's flow, simplified).

    python3 examples/python/global_place3d.py ibm01.aux --tiers 2 --png ibm01_2tiers.png
    python3 examples/python/global_place3d.py ibm05.aux --tiers 4 --device cuda --json ibm05_4.json

Prints progress every --report iterations, then HPWL (x-y, all nets), the vertical
interconnects (per net: tiers spanned - 1, summed), the movable area per tier over its even
share, each tier's 2D overflow, iterations and time; saves a picture of each tier (--png) and
the record as JSON (--json). Exit status 0 when the target overflow was reached.
"""

import argparse
import json
import sys
import time

import efield
import efield.place3d


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aux", help="Bookshelf .aux file")
    ap.add_argument("--tiers", type=int, default=2)
    ap.add_argument("--bins-per-tier", type=int, default=2, help="bins along z per tier")
    ap.add_argument("--vi-cost", type=float, default=1.0,
                    help="objective cost of one vertical interconnect, in mean x-y bin sides")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--target-density", type=float, default=1.0)
    ap.add_argument("--target-overflow", type=float, default=0.07)
    ap.add_argument("--max-iters", type=int, default=1000)
    ap.add_argument("--report", type=int, default=50, help="print every N iterations (0: never)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="torch and density CPU threads (0: their defaults)")
    ap.add_argument("--png", default="", help="save the tiers side by side as a PNG here")
    ap.add_argument("--json", default="", help="save the run's record as JSON here")
    args = ap.parse_args(argv)

    params = efield.place3d.Place3DParams(
        device=args.device, dtype=args.dtype, target_density=args.target_density,
        target_overflow=args.target_overflow, max_iters=args.max_iters, seed=args.seed, threads=args.threads,
        tiers=args.tiers, bins_per_tier=args.bins_per_tier, vi_cost=args.vi_cost)
    t0 = time.perf_counter()
    design = efield.load_bookshelf(args.aux)
    r = efield.place3d.global_place3d(design, params, report=args.report)
    p = r.placement
    print(f"{design.name}: {p.num_movable} movable, {p.num_terminals} fixed, {p.num_fillers} fillers, "
          f"{design.num_nets} nets, {args.tiers} tiers, bins {p.bins[0]}x{p.bins[1]}x{p.bins[2]}, "
          f"{args.device} {args.dtype}")
    print(f"final: iterations {r.iterations} evaluations {r.evaluations} hpwl_xy {r.hpwl_xy:.6e} "
          f"vertical_interconnects {r.vertical_interconnects} overflow {r.overflow:.4f} "
          f"converged {'yes' if r.converged else 'no'} placement {r.seconds:.2f} s total "
          f"{time.perf_counter() - t0:.2f} s")
    print("tier area / even share: " + " ".join(f"{a:.3f}" for a in r.tier_area)
          + "   tier 2D overflow: " + " ".join(f"{o:.3f}" for o in r.tier_overflow))
    if args.png:
        efield.place3d.save_tiers_png(r, args.png, f"{design.name}, {args.tiers} tiers: HPWL(x-y) {r.hpwl_xy:.4e}, "
                                      f"{r.vertical_interconnects} vertical interconnects")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r.record(), f, indent=1)
    return 0 if r.converged else 1


if __name__ == "__main__":
    sys.exit(main())
