#pragma once
// The global placement loop (ePlace's Nesterov method with DREAMPlace's schedules) on an Engine.
#include <functional>
#include <vector>

#include "engine.hpp"

namespace global_place {

struct PlacerOptions {
  int max_iterations = 1000;
  double target_overflow = 0.07;  // stop once efield's overflow is at most this
  // Smoothing of the weighted-average wirelength (DREAMPlace's rule):
  //   gamma = gamma_factor * (bx + by) * 10^((overflow - 0.1) * 20/9 - 1)
  // that is 10x the base at overflow 1, 0.1x at overflow 0.1 (bx, by: bin sides).
  double gamma_factor = 4.0;
  // Initial density weight lambda_0 = initial_density_weight * |grad WL|_1 / |grad D|_1 at the start.
  double initial_density_weight = 8e-5;
  // After iteration k, lambda *= mu with dH = HPWL_k - HPWL_{k-1}:
  //   dH < 0: mu = 1.05 * max(0.9999^k, 0.98);  else mu = 1.05 * clamp(1.05^(-dH / ref_hpwl), 0.95, 1.05)
  // (RePlAce's rule as DREAMPlace has it, with its 3.5e5).
  double ref_hpwl = 3.5e5;
  // DREAMPlace's first trial step v_k - initial_step * g_k, which only serves to estimate the
  // first step length.
  double initial_step = 0.01;
  // DREAMPlace's constants above are lengths in the ISPD2005 designs' units, whose rows are 12
  // high: they are used times row_height / 12 of the design at hand (ibm01's rows are 504 high).
  double reference_row_height = 12;
  int max_backtracks = 10;
  int report_every = 0;  // 0: no per-iteration report
};

struct IterationReport {
  int iteration = 0;
  double hpwl = 0, overflow = 0, max_density = 0, gamma = 0, lambda = 0, alpha = 0;
  int backtracks = 0;
};

struct PlacerResult {
  int iterations = 0;
  int evaluations = 0;     // gradient evaluations (iterations plus backtracks plus the start)
  bool converged = false;  // overflow reached the target
  double hpwl = 0, overflow = 0, max_density = 0;
  double wirelength_ms = 0, density_ms = 0, other_ms = 0;  // summed over all evaluations
  double total_ms = 0;                                     // the whole loop, wall clock
};

// Runs from `start` (2n values) and leaves the result in the engine (Engine::positions).
PlacerResult run_global_place(Engine& engine, const PlacementProblem& problem, const PlacerOptions& options,
                              const std::vector<double>& start,
                              const std::function<void(const IterationReport&)>& report = {});

}  // namespace global_place
