// global_place: a compact global placer on efield's public API.
//
//   global_place design.aux [--backend cpu|cuda|auto] [--precision float|double] [--pl out.pl] [--png out.png]
//   global_place --standin adaptec1 ...     (an ISPD2005 stand-in generated with nets)
//   global_place --fences 2 [--cells 3000]  (a synthetic fence-region design, one density field per
//                                            fence and the default field: fence_placer.hpp)
//
// Weighted-average wirelength on pins, efield's electrostatic density, ePlace's Nesterov method
// with Lipschitz step prediction, DREAMPlace's gamma and density weight schedules and its start
// (see global_placer.hpp). Prints iteration, HPWL and overflow every --report iterations and a
// final line; --check makes the exit status say whether the result is sane.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <efield/efield.hpp>

#include "engine.hpp"
#include "fence_mode.hpp"
#include "global_placer.hpp"
#include "placement_output.hpp"
#include "placement_problem.hpp"

namespace {

efield::Design obtain_design(const std::string& aux, const std::string& standin) {
  if (!standin.empty()) {
    efield::SyntheticDesignSpec spec = efield::ispd2005_standin_spec(standin);
    spec.name = standin + "-standin";
    spec.with_nets = true;
    return efield::generate_synthetic_design(spec);
  }
  return efield::load_bookshelf(aux);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Global placement of a Bookshelf design on efield's public API"};
  std::string aux, standin, backend_name = "auto", precision_name = "float", pl_path, png_path;
  global_place::PlacerOptions po;
  global_place::EngineOptions eo;
  double target_density = 1.0, check_overflow = 0.10;
  std::uint64_t seed = 1000;
  bool check = false, macro_mask = false;
  global_place::FenceModeOptions fence;
  app.add_option("aux", aux, "Bookshelf .aux file");
  app.add_option("--standin", standin, "instead of an .aux: an ISPD2005 stand-in (adaptec1 ... bigblue4) with nets");
  app.add_option("--backend", backend_name, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--precision", precision_name, "float or double")->check(CLI::IsMember({"float", "double"}));
  app.add_option("--threads", eo.cpu_threads, "CPU backend threads (0: all)");
  app.add_option("--target-density", target_density, "target density td in (0, 1]");
  app.add_option("--target-overflow", po.target_overflow, "stop when the overflow is at most this");
  app.add_option("--max-iters", po.max_iterations, "iteration limit");
  app.add_option("--report", po.report_every, "print a line every N iterations (0: none)");
  app.add_option("--ref-hpwl", po.ref_hpwl,
                 "density weight schedule's reference HPWL change, for rows 12 high (scaled to the design's rows)");
  app.add_option("--seed", seed, "seed of the initial spread")->check(CLI::NonNegativeNumber);
  app.add_flag("--macro-mask", macro_mask,
               "DREAMPlace's movable macros (area > 10x the mean, height > 2 rows) take the target density as their "
               "density ratio");
  app.add_option("--pl", pl_path, "write the placed .pl here");
  app.add_option("--png", png_path, "write a picture of the placement here");
  app.add_flag("--check", check,
               "exit 1 unless overflow <= --check-overflow and HPWL is finite and below a uniform spread's");
  app.add_option("--check-overflow", check_overflow, "overflow --check requires");
  app.add_option("--fences", fence.fences,
                 "instead of an .aux: a synthetic design with this many fence regions, placed with one density "
                 "field per fence and one for the other cells (--check: every field's overflow <= "
                 "--target-overflow, no fenced cell outside its fence)")
      ->check(CLI::Range(1, 64));
  app.add_option("--cells", fence.cells, "with --fences: movable cells of the synthetic design")
      ->check(CLI::Range(100, 10000000));
  app.add_option("--design-seed", fence.design_seed, "with --fences: seed of the synthetic design");
  app.add_flag("!--dreamplace-fillers", fence.free_area_fillers,
               "with --fences: size each fence's fillers from its whole area (DREAMPlace 3.0's rule), fixed cells "
               "inside it included, not from the area they leave free");
  app.add_flag("!--no-fence-bounds", fence.fence_bounds,
               "with --fences: let fenced cells move anywhere in the region (only the density term keeps them in), "
               "not only within their fence's bounding box");
  app.add_option("--density-weight", fence.placer.initial_density_weight,
                 "with --fences: the initial weights' scale (DREAMPlace's density_weight)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (app.count("--fences") > 0) {
    if (!aux.empty() || !standin.empty()) {
      std::fprintf(stderr, "global_place: --fences makes its own design: give no .aux and no --standin\n");
      return 2;
    }
  } else if (aux.empty() == standin.empty()) {
    std::fprintf(stderr, "global_place: give an .aux file, --standin NAME or --fences K (one of them)\n");
    return 2;
  }

  try {
    const std::map<std::string, efield::Backend> backends = {
        {"cpu", efield::Backend::Cpu}, {"cuda", efield::Backend::Cuda}, {"auto", efield::Backend::Auto}};
    eo.backend = efield::resolve_backend(backends.at(backend_name));
    eo.precision = precision_name == "float" ? efield::Precision::Float : efield::Precision::Double;
    if (app.count("--fences") > 0) {
      fence.seed = seed;
      fence.target_density = target_density;
      fence.engine = eo;
      fence.placer.stop_overflow = po.target_overflow;
      if (app.count("--max-iters") > 0) fence.placer.max_iterations = po.max_iterations;
      fence.placer.report_every = po.report_every;
      fence.check = check;
      fence.pl_path = pl_path, fence.png_path = png_path;
      return global_place::run_fence_mode(fence);
    }

    const efield::Design design = obtain_design(aux, standin);
    global_place::PlacementProblem problem = global_place::make_problem(design, target_density);
    if (macro_mask) std::printf("movable macros: %d\n", global_place::mark_movable_macros(problem));
    auto engine = eo.backend == efield::Backend::Cuda ? global_place::make_cuda_engine(problem, eo)
                                                      : global_place::make_cpu_engine(problem, eo);
    std::printf("%s: %d movable cells, %d fillers, %zu fixed, %d nets, %d pins; %d x %d bins; td %.2f; %s\n",
                design.name.c_str(), problem.num_movable, problem.num_fillers, problem.fixed.widths.size(),
                problem.num_nets(), problem.num_pins(), problem.bins.num_bins_x, problem.bins.num_bins_y,
                target_density, engine->description().c_str());
    if (design.pin_offsets_were_lower_left)
      std::printf("note: the .nets pin offsets were from the lower-left corner; the loader moved them to the centre\n");

    const std::vector<double> start = global_place::initial_positions(problem, seed);
    const auto print = [](const global_place::IterationReport& r) {
      std::printf("iter %5d  hpwl %.6e  overflow %.4f  max_density %.3f  gamma %.4g  lambda %.4g  step %.4g%s\n",
                  r.iteration, r.hpwl, r.overflow, r.max_density, r.gamma, r.lambda, r.alpha,
                  r.backtracks > 0 ? ("  backtracks " + std::to_string(r.backtracks)).c_str() : "");
      std::fflush(stdout);
    };
    const global_place::PlacerResult r = global_place::run_global_place(*engine, problem, po, start, print);
    const std::vector<double> placed = engine->positions();

    const double per = 1.0 / std::max(1, r.iterations);
    std::printf(
        "final: iterations %d evaluations %d hpwl %.6e overflow %.4f max_density %.3f converged %s | "
        "ms/iteration total %.3f density %.3f wirelength %.3f other %.3f\n",
        r.iterations, r.evaluations, r.hpwl, r.overflow, r.max_density, r.converged ? "yes" : "no", r.total_ms * per,
        r.density_ms * per, r.wirelength_ms * per, r.other_ms * per);
    if (!pl_path.empty()) global_place::write_pl(pl_path, design, problem, placed);
    if (!png_path.empty()) global_place::write_placement_png(png_path, problem, placed);

    if (check) {
      const double spread = global_place::hpwl(problem, global_place::uniform_spread(problem, seed));
      const double final_hpwl = global_place::hpwl(problem, placed);
      const bool ok = r.overflow <= check_overflow && std::isfinite(final_hpwl) && final_hpwl < spread;
      std::printf("check: overflow %.4f (<= %.2f), hpwl %.6e (uniform spread %.6e): %s\n", r.overflow, check_overflow,
                  final_hpwl, spread, ok ? "pass" : "FAIL");
      return ok ? 0 : 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "global_place: %s\n", e.what());
    return 1;
  }
  return 0;
}
