#pragma once
// Global placement of a fence-region design (DREAMPlace 3.0's multi-electrostatics) on a
// FenceEngine: ePlace's Nesterov loop with one density weight per field.
#include <functional>
#include <vector>

#include "fence_engine.hpp"
#include "global_placer.hpp"

namespace global_place {

struct FencePlacerOptions {
  int max_iterations = 2000;
  // A field freezes once its overflow is below this; placement ends when all fields are frozen.
  double stop_overflow = 0.07;
  double gamma_factor = 4.0;  // as PlacerOptions
  // The weights start equal, at the scale where sum_k lambda_k |grad E_k|_1 is this times
  // |grad WL|_1 (DREAMPlace's density_weight).
  double initial_density_weight = 8e-5;
  double quadratic = 1000;     // field k's term lambda_k E_k (1 + quadratic E_k / E0_k)
  double max_weight = 10;      // cap of each lambda_k
  double initial_step = 0.01;  // as PlacerOptions (ISPD2005 units, scaled by row height / 12)
  double reference_row_height = 12;
  int max_backtracks = 10;
  int report_every = 0;
};

struct FenceIterationReport {
  int iteration = 0;
  double hpwl = 0, gamma = 0, alpha = 0;
  int backtracks = 0;
  std::vector<double> overflow, lambda;  // per field
  std::vector<char> frozen;
};

struct FencePlacerResult {
  int iterations = 0, evaluations = 0;
  bool converged = false;  // every field frozen (its overflow below stop_overflow)
  double hpwl = 0;
  std::vector<efield::EvaluateResult> fields;  // per field, at the end
  std::vector<double> lambda;
  std::vector<int> frozen_at;  // iteration at which each field froze (0: never)
  double wirelength_ms = 0, density_ms = 0, other_ms = 0, total_ms = 0;
};

FencePlacerResult run_fence_place(FenceEngine& engine, const FenceProblem& problem, const FencePlacerOptions& options,
                                  const std::vector<double>& start,
                                  const std::function<void(const FenceIterationReport&)>& report = {});

}  // namespace global_place
