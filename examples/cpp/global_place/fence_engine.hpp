#pragma once
// The fence placer's numerical work: host arrays and OpenMP loops as the CPU engine (engine.hpp),
// with the density term of K + 1 fields from one efield::MultiFieldSystem (its backend the CPU or
// CUDA, which takes the host arrays as they are). Same Nesterov state: v_k, g_k, u_k and the trial
// v, g, u, 2n values each.
#include <memory>
#include <string>
#include <vector>

#include "engine.hpp"
#include "fence_problem.hpp"

namespace global_place {

// The density term: field k adds lambda_k E_k (1 + quadratic E_k / E0_k) to the objective
// (DREAMPlace 3.0's quadratic penalty with fences; E0_k is field k's energy at the start), so its
// cells' gradient is lambda_k (1 + 2 quadratic E_k / E0_k) dE_k. Empty initial_energy: linear.
struct FenceDensityTerm {
  std::vector<double> lambda;          // per field
  std::vector<double> initial_energy;  // per field, or empty
  double quadratic = 1000;
};

struct FenceEvaluation {
  double hpwl = 0;
  std::vector<efield::EvaluateResult> fields;   // per field, at the evaluated point
  double step_norm2 = 0, gradient_change2 = 0;  // as Evaluation's
  double wirelength_ms = 0, density_ms = 0, other_ms = 0;
};

// L1 norms of the unweighted gradients at v_k, and the fields' energies there.
struct FenceGradientNorms {
  double wirelength = 0;
  std::vector<double> density, energy;  // per field
};

class FenceEngine {
 public:
  virtual ~FenceEngine() = default;
  virtual std::string description() const = 0;
  virtual void set_positions(const std::vector<double>& pos) = 0;
  virtual std::vector<double> positions() = 0;
  virtual FenceGradientNorms gradient_norms(double gamma) = 0;
  virtual FenceEvaluation evaluate_current(double gamma, const FenceDensityTerm& density) = 0;
  virtual void trial_gradient_step(double step) = 0;
  virtual void trial_nesterov_step(double alpha, double coef) = 0;
  virtual FenceEvaluation evaluate_trial(double gamma, const FenceDensityTerm& density) = 0;
  virtual void accept_trial() = 0;
  // DREAMPlace 3.0's freezing: from now on field k's cells and fillers stay where v_k has them
  // (trial points keep them there) and get no gradient.
  virtual void freeze_field(int k) = 0;
};

// options.backend is the MultiFieldSystem's (CPU or CUDA); the rest of the work is on the host.
// fence_bounds: a fenced cell's positions are kept within its fence's bounding box (as every
// cell's are within the region); without it only the density term keeps it in.
std::unique_ptr<FenceEngine> make_fence_engine(const FenceProblem& problem, const EngineOptions& options,
                                               bool fence_bounds);

}  // namespace global_place
