#include "fence_mode.hpp"

#include <cstdio>
#include <string>

#include "placement_output.hpp"

namespace global_place {
namespace {

std::string per_field(const std::vector<double>& v, const char* format) {
  std::string s;
  char buf[64];
  for (std::size_t k = 0; k < v.size(); ++k) {
    std::snprintf(buf, sizeof buf, format, v[k]);
    s += (k ? " " : "") + std::string(buf);
  }
  return s;
}

}  // namespace

int run_fence_mode(const FenceModeOptions& o) {
  efield::SyntheticDesignSpec spec;
  spec.name = "fences" + std::to_string(o.fences);
  spec.num_movable = o.cells;
  spec.num_fixed_macros = 8;
  spec.num_io_pads = 40;
  spec.num_fences = o.fences;
  spec.seed = o.design_seed;
  const efield::Design design = efield::generate_synthetic_design(spec);
  const FenceProblem problem = make_fence_problem(design, o.target_density, o.free_area_fillers);
  auto engine = make_fence_engine(problem, o.engine, o.fence_bounds);
  const PlacementProblem& p = problem.cells;
  std::printf("%s: %d movable cells, %d fillers, %zu fixed, %d nets; %d x %d bins; %d fences + default field; %s\n",
              design.name.c_str(), p.num_movable, p.num_fillers, p.fixed.widths.size(), p.num_nets(), p.bins.num_bins_x,
              p.bins.num_bins_y, o.fences, engine->description().c_str());
  for (int k = 0; k < problem.num_fields(); ++k) {
    const efield::RegionFillerSpec& f = problem.field_fillers[k];
    std::printf("  field %d (%s): %lld cells, %lld fillers, td %.3f, utilization %.3f\n", k,
                k < o.fences ? "fence" : "default", static_cast<long long>(f.num_movable),
                static_cast<long long>(f.fillers.count), f.target_density, f.utilization);
  }
  const std::vector<double> start = fence_initial_positions(problem, o.seed);
  const auto print = [](const FenceIterationReport& r) {
    std::string frozen;
    for (char c : r.frozen) frozen += c ? 'F' : '.';
    std::printf("iter %5d  hpwl %.6e  overflow [%s]  lambda [%s]  frozen %s  gamma %.4g  step %.4g%s\n", r.iteration,
                r.hpwl, per_field(r.overflow, "%.4f").c_str(), per_field(r.lambda, "%.3g").c_str(), frozen.c_str(),
                r.gamma, r.alpha, r.backtracks > 0 ? ("  backtracks " + std::to_string(r.backtracks)).c_str() : "");
    std::fflush(stdout);
  };
  const FencePlacerResult r = run_fence_place(*engine, problem, o.placer, start, print);
  std::vector<double> placed = engine->positions();
  const FenceContainment before = fence_containment(problem, placed);
  // The density term (and the fence's bounding box) leave some fenced cells across their fence's
  // edge, or in the notch of an L: they move to the nearest place inside, and the fields are
  // evaluated again there.
  const int snapped = snap_into_fences(problem, placed);
  engine->set_positions(placed);
  const FenceDensityTerm unweighted{std::vector<double>(problem.num_fields(), 1.0), {}, 0};
  const std::vector<efield::EvaluateResult> fields = engine->evaluate_current(1.0, unweighted).fields;
  const FenceContainment c = fence_containment(problem, placed);
  std::printf("before the snap: fenced cells outside their fence %d; overflow [", before.total_outside);
  for (std::size_t k = 0; k < r.fields.size(); ++k) std::printf("%s%.4f", k ? " " : "", r.fields[k].overflow);
  std::printf("]; %d cells moved into their fence\n", snapped);

  std::vector<double> overflow, max_density;
  double worst = 0;
  for (const efield::EvaluateResult& f : fields) {
    overflow.push_back(f.overflow), max_density.push_back(f.max_density);
    worst = std::max(worst, f.overflow);
  }
  std::vector<double> outside(c.outside.begin(), c.outside.end());
  const double per = 1.0 / std::max(1, r.iterations);
  std::printf(
      "final: iterations %d evaluations %d hpwl %.6e overflow [%s] max_density [%s] converged %s | fenced cells "
      "outside their fence %d [%s] | default cells overlapping a fence %d | ms/iteration total %.3f density %.3f "
      "wirelength %.3f other %.3f\n",
      r.iterations, r.evaluations, hpwl(p, placed), per_field(overflow, "%.4f").c_str(),
      per_field(max_density, "%.3f").c_str(), r.converged ? "yes" : "no", c.total_outside,
      per_field(outside, "%.0f").c_str(), c.default_intruding, r.total_ms * per, r.density_ms * per,
      r.wirelength_ms * per, r.other_ms * per);
  if (!o.pl_path.empty()) write_pl(o.pl_path, design, p, placed);
  if (!o.png_path.empty()) write_placement_png(o.png_path, p, placed);
  if (o.check) {
    const bool ok = worst <= o.placer.stop_overflow && c.total_outside == 0;
    std::printf("check: worst field overflow %.4f (<= %.2f), fenced cells outside %d (0): %s\n", worst,
                o.placer.stop_overflow, c.total_outside, ok ? "pass" : "FAIL");
    return ok ? 0 : 1;
  }
  return 0;
}

}  // namespace global_place
