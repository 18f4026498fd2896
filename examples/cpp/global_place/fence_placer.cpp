// The density weights follow DREAMPlace 3.0's rule with fences (its "overflow" update, which
// despite the name reads each field's energy relative to its first energy, phi_k = E_k / E0_k):
//   start:  u_k = 1 + q, s_k = 1 + 2q, all u_k scaled so that sum_k u_k s_k |grad E_k|_1 =
//           initial_density_weight |grad WL|_1; lambda_k = u_k s_k; step = 0.03 |u|_2
//   each iteration:  d_k = phi_k + q phi_k^2 normalised to |d|_2 = 1;  u_k += step d_k;
//           lambda_k = min(u_k (1 + 2 q phi_k), max_weight) unless field k is frozen;
//           step *= 1.03 + 0.01 r / (1 + r), r = max(0, ln(2 q |phi|_2))
// (q = quadratic: the objective's term lambda_k E_k (1 + q E_k / E0_k)). A field freezes for good
// once its overflow is below stop_overflow.
#include "fence_placer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

#include "nesterov_step.hpp"
#include "placer_math.hpp"

namespace global_place {
namespace {

void add_times(FencePlacerResult& r, const FenceEvaluation& e) {
  ++r.evaluations;
  r.wirelength_ms += e.wirelength_ms, r.density_ms += e.density_ms, r.other_ms += e.other_ms;
}

void check_finite(const FenceEvaluation& e, int iteration) {
  if (!std::isfinite(e.hpwl) || !std::isfinite(e.step_norm2) || !std::isfinite(e.gradient_change2))
    throw efield::Error("fence placement diverged at iteration " + std::to_string(iteration) +
                        " (HPWL or gradient not finite)");
}

// The smoothing follows the fields' overflows weighted by their movable areas (the overflowing
// area of all fields over the whole movable area).
double mean_overflow(const FenceEvaluation& e, const std::vector<double>& movable_area) {
  double over = 0, total = 0;
  for (std::size_t k = 0; k < e.fields.size(); ++k)
    over += e.fields[k].overflow * movable_area[k], total += movable_area[k];
  return total > 0 ? over / total : 0.0;
}

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

}  // namespace

FencePlacerResult run_fence_place(FenceEngine& engine, const FenceProblem& problem, const FencePlacerOptions& o,
                                  const std::vector<double>& start,
                                  const std::function<void(const FenceIterationReport&)>& report) {
  const auto t_start = std::chrono::steady_clock::now();
  const PlacementProblem& p = problem.cells;
  const int num_fields = problem.num_fields();
  const double q = o.quadratic;
  FencePlacerResult result;
  std::vector<double> movable_area(num_fields);
  for (int k = 0; k < num_fields; ++k) movable_area[k] = problem.field_fillers[k].movable_area;
  const double units = p.row_height / o.reference_row_height;
  const double base_gamma = o.gamma_factor * (p.bin_width + p.bin_height);
  engine.set_positions(start);

  double gamma = wirelength_gamma(base_gamma, 1.0);
  const FenceGradientNorms norms = engine.gradient_norms(gamma);
  double density_norm = 0;
  for (int k = 0; k < num_fields; ++k) density_norm += (1 + q) * (1 + 2 * q) * norms.density[k];
  std::vector<double> u(num_fields,
                        (1 + q) * o.initial_density_weight * norms.wirelength / std::max(density_norm, 1e-300));
  double weight_step = 0.03 * norm2(u);
  FenceDensityTerm density{std::vector<double>(num_fields, u[0] * (1 + 2 * q)), norms.energy, q};
  std::vector<char> frozen(num_fields, 0);
  result.frozen_at.assign(num_fields, 0);

  FenceEvaluation current = engine.evaluate_current(gamma, density);
  add_times(result, current);
  check_finite(current, 0);
  FenceEvaluation trial;
  const auto evaluate_trial = [&](int k) {
    trial = engine.evaluate_trial(gamma, density);
    add_times(result, trial);
    check_finite(trial, k);
    return std::pair(trial.step_norm2, trial.gradient_change2);
  };
  double alpha = first_step_length(engine, o.initial_step * units, [&] { return evaluate_trial(0); });

  double a_k = 1;
  gamma = wirelength_gamma(base_gamma, mean_overflow(current, movable_area));
  for (int k = 1; k <= o.max_iterations; ++k) {
    const int trials = nesterov_iteration(engine, a_k, alpha, o.max_backtracks, [&] { return evaluate_trial(k); });
    current = trial;
    result.iterations = k;
    gamma = wirelength_gamma(base_gamma, mean_overflow(current, movable_area));

    // Density weights (see the top of this file), then freezing.
    std::vector<double> phi(num_fields), d(num_fields);
    for (int f = 0; f < num_fields; ++f) {
      phi[f] = norms.energy[f] > 0 ? current.fields[f].energy / norms.energy[f] : 0.0;
      d[f] = phi[f] + q * phi[f] * phi[f];
    }
    const double d_norm = std::max(norm2(d), 1e-300);
    for (int f = 0; f < num_fields; ++f) {
      u[f] += weight_step * d[f] / d_norm;
      if (!frozen[f]) density.lambda[f] = std::min(u[f] * (1 + 2 * q * phi[f]), o.max_weight);
    }
    const double r = std::max(0.0, std::log(2 * q * norm2(phi)));
    weight_step *= 1.03 + 0.01 * r / (1 + r);
    for (int f = 0; f < num_fields; ++f)
      if (!frozen[f] && current.fields[f].overflow < o.stop_overflow) {
        frozen[f] = 1, result.frozen_at[f] = k;
        engine.freeze_field(f);
      }

    if (report && o.report_every > 0 && (k % o.report_every == 0 || k == 1)) {
      FenceIterationReport ir{k, current.hpwl, gamma, alpha, trials - 1, {}, density.lambda, frozen};
      for (const efield::EvaluateResult& e : current.fields) ir.overflow.push_back(e.overflow);
      report(ir);
    }
    if (std::all_of(frozen.begin(), frozen.end(), [](char c) { return c != 0; })) {
      result.converged = true;
      break;
    }
  }
  result.hpwl = current.hpwl;
  result.fields = current.fields;
  result.lambda = density.lambda;
  result.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count();
  return result;
}

}  // namespace global_place
