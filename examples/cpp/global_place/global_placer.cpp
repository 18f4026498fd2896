#include "global_placer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

#include "nesterov_step.hpp"
#include "placer_math.hpp"

namespace global_place {
namespace {

double density_weight_factor(double delta_hpwl, double ref_hpwl, int iteration) {
  if (delta_hpwl < 0) return 1.05 * std::max(std::pow(0.9999, iteration), 0.98);
  return 1.05 * std::clamp(std::pow(1.05, -delta_hpwl / ref_hpwl), 0.95, 1.05);
}

void add_times(PlacerResult& r, const Evaluation& e) {
  ++r.evaluations;
  r.wirelength_ms += e.wirelength_ms, r.density_ms += e.density_ms, r.other_ms += e.other_ms;
}

void check_finite(const Evaluation& e, int iteration) {
  if (!std::isfinite(e.hpwl) || !std::isfinite(e.step_norm2) || !std::isfinite(e.gradient_change2))
    throw efield::Error("global placement diverged at iteration " + std::to_string(iteration) +
                        " (HPWL or gradient not finite)");
}

}  // namespace

PlacerResult run_global_place(Engine& engine, const PlacementProblem& problem, const PlacerOptions& o,
                              const std::vector<double>& start,
                              const std::function<void(const IterationReport&)>& report) {
  const auto t_start = std::chrono::steady_clock::now();
  PlacerResult result;
  const double units = problem.row_height / o.reference_row_height;
  const double base_gamma = o.gamma_factor * (problem.bin_width + problem.bin_height);
  const double ref_hpwl = o.ref_hpwl * units;
  engine.set_positions(start);

  // Start: overflow taken as 1 (everything piled up), DREAMPlace's initial gamma of 10x the base.
  double gamma = wirelength_gamma(base_gamma, 1.0);
  const GradientNorms norms = engine.gradient_norms(gamma);
  double lambda =
      norms.density > 0 ? o.initial_density_weight * norms.wirelength / norms.density : o.initial_density_weight;
  Evaluation current = engine.evaluate_current(gamma, lambda);
  add_times(result, current);
  check_finite(current, 0);

  // Initial step length from a small plain gradient step: alpha = |dv| / |dg|.
  Evaluation trial;
  const auto evaluate_trial = [&](int k) {
    trial = engine.evaluate_trial(gamma, lambda);
    add_times(result, trial);
    check_finite(trial, k);
    return std::pair(trial.step_norm2, trial.gradient_change2);
  };
  double alpha = first_step_length(engine, o.initial_step * units, [&] { return evaluate_trial(0); });

  double a_k = 1;
  double previous_hpwl = current.hpwl;
  gamma = wirelength_gamma(base_gamma, current.overflow);
  for (int k = 1; k <= o.max_iterations; ++k) {
    const int backtracks = nesterov_iteration(engine, a_k, alpha, o.max_backtracks, [&] { return evaluate_trial(k); });
    current = trial;
    result.iterations = k;

    gamma = wirelength_gamma(base_gamma, current.overflow);
    lambda *= density_weight_factor(current.hpwl - previous_hpwl, ref_hpwl, k);
    previous_hpwl = current.hpwl;
    if (report && o.report_every > 0 && (k % o.report_every == 0 || k == 1))
      report({k, current.hpwl, current.overflow, current.max_density, gamma, lambda, alpha, backtracks - 1});
    if (current.overflow <= o.target_overflow) {
      result.converged = true;
      break;
    }
  }
  result.hpwl = current.hpwl, result.overflow = current.overflow, result.max_density = current.max_density;
  result.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count();
  return result;
}

}  // namespace global_place
