#!/usr/bin/env python3
"""A short Nesterov global placer in PyTorch with efield's density op: a command line over
efield.place.global_place (the method is described there).

    python3 examples/python/global_place.py data/synthetic2000/synthetic2000.aux --png placed.png
    python3 examples/python/global_place.py ibm01.aux --device cuda
    python3 examples/python/global_place.py --fences 2 --cells 3000    (efield.place_fences)

Prints HPWL and overflow every --report iterations and saves a PNG of the placement (--png).
Stops at overflow <= --target-overflow (0.07) or after --max-iters; exit status 0 when the
target was reached.
"""

import argparse
import sys
import time

import efield
import efield.place


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("aux", nargs="?", help="Bookshelf .aux file (not with --fences)")
    ap.add_argument("--fences", type=int, default=0,
                    help="place a synthetic design with this many fence regions instead (efield.place_fences): one "
                         "density field per fence and one for the other cells")
    ap.add_argument("--cells", type=int, default=3000, help="with --fences: movable cells of the synthetic design")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--target-density", type=float, default=1.0)
    ap.add_argument("--target-overflow", type=float, default=0.07)
    ap.add_argument("--max-iters", type=int, default=1000)
    ap.add_argument("--report", type=int, default=50, help="print every N iterations (0: never)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--png", default="", help="save the placement as a PNG here")
    ap.add_argument("--macro-mask", action="store_true",
                    help="DREAMPlace's movable macros (area > 10x the mean, height > 2 rows) take the target "
                    "density as their density ratio")
    ap.add_argument("--loop", default="eager", choices=["eager", "device", "graph", "compile+graph"],
                    help="graph: each iteration one CUDA graph replay; compile+graph: its objective torch.compile'd "
                         "too (efield.place, PlaceParams.loop)")
    args = ap.parse_args(argv)

    if (args.aux is None) == (args.fences == 0):
        ap.error("give an .aux file or --fences K (one of them)")
    if args.fences:
        return place_fences(args)
    params = efield.place.PlaceParams(device=args.device, dtype=args.dtype, target_density=args.target_density,
                                      target_overflow=args.target_overflow, max_iters=args.max_iters,
                                      seed=args.seed, threads=args.threads, macro_mask=args.macro_mask,
                                      loop=args.loop)
    t0 = time.perf_counter()
    design = efield.load_bookshelf(args.aux)
    placement, placer = efield.place.prepare(design, params)
    print(f"{design.name}: {placement.num_movable} movable, {placement.num_terminals} fixed, "
          f"{placement.num_fillers} fillers, {design.num_nets} nets, bins {placement.bins[0]}x{placement.bins[1]}, "
          f"{args.device} {args.dtype}")
    position, result = placer.run(args.report)
    if args.png:
        efield.place.save_png(placement, position, args.png,
                              f"{design.name}: HPWL {result['hpwl']:.4e}, overflow {result['overflow']:.3f}")
    print(f"final: iterations {result['iterations']} evaluations {result['evaluations']} hpwl {result['hpwl']:.6e} "
          f"overflow {result['overflow']:.4f} converged {'yes' if result['converged'] else 'no'} "
          f"placement {result['seconds']:.2f} s total {time.perf_counter() - t0:.2f} s")
    return 0 if result["converged"] else 1


def place_fences(args):
    import efield.place_fences

    design = efield.generate_synthetic_design(args.cells, num_fixed_macros=8, num_io_pads=40, num_fences=args.fences)
    r = efield.place_fences.fence_global_place(design, device=args.device, dtype=args.dtype,
                                               target_density=args.target_density,
                                               target_overflow=args.target_overflow, max_iters=args.max_iters,
                                               seed=args.seed, threads=args.threads, report=args.report)
    fmt = lambda values, f: " ".join(format(v, f) for v in values)  # noqa: E731
    print(f"final: iterations {r.iterations} evaluations {r.evaluations} hpwl {r.hpwl:.6e} "
          f"overflow [{fmt(r.overflow, '.4f')}] converged {'yes' if r.converged else 'no'} | fenced cells outside "
          f"their fence {sum(r.outside)} [{fmt(r.outside, 'd')}] (before the snap {sum(r.outside_before_snap)}) | "
          f"default cells overlapping a fence {r.default_intruding} | placement {r.seconds:.2f} s")
    if args.png:
        efield.place.save_png(r.fence_placement.placement, r.position, args.png,
                              f"{design.name}: {args.fences} fences, HPWL {r.hpwl:.4e}")
    ok = max(r.overflow) <= args.target_overflow and sum(r.outside) == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
