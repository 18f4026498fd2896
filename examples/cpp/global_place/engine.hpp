#pragma once
// The placer's numerical work behind one interface, on the CPU (host arrays, OpenMP) or on CUDA
// (device arrays; only scalars come back). Each engine holds the Nesterov state as buffers of 2n
// values (x of the n cells, then y):
//   v_k, g_k   the current reference solution and its preconditioned gradient
//   u_k        the current major solution
//   v, g, u    a trial point, its gradient and its major solution
// and one efield::ElectrostaticSystem for the density term.
#include <memory>
#include <string>
#include <vector>

#include "placement_problem.hpp"

namespace global_place {

// What one gradient evaluation reports.
struct Evaluation {
  double hpwl = 0;      // at the evaluated point, over all nets
  double overflow = 0;  // efield's (movable cells only)
  double max_density = 0;
  double step_norm2 = 0;        // |v - v_k|^2   (trial evaluations only)
  double gradient_change2 = 0;  // |g - g_k|^2
  double wirelength_ms = 0;     // wirelength gradient (written into g) and HPWL
  double density_ms = 0;        // efield's evaluate, adding lambda times its gradient into g
  double other_ms = 0;          // preconditioning and the norms
};

// L1 norms of the two unweighted, unpreconditioned gradients at v_k (DREAMPlace's initial
// density weight is their ratio).
struct GradientNorms {
  double wirelength = 0, density = 0;
};

struct EngineOptions {
  efield::Backend backend = efield::Backend::Cpu;
  efield::Precision precision = efield::Precision::Float;
  int cpu_threads = 0;       // CPU: OpenMP and efield threads (0 = all)
  int max_net_degree = 100;  // larger nets count in HPWL but get no wirelength gradient
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string description() const = 0;
  // v_k = u_k = pos (2n values).
  virtual void set_positions(const std::vector<double>& pos) = 0;
  // v_k, 2n values.
  virtual std::vector<double> positions() = 0;
  virtual GradientNorms gradient_norms(double gamma) = 0;
  // g_k at v_k with smoothing gamma and density weight lambda.
  virtual Evaluation evaluate_current(double gamma, double lambda) = 0;
  // v = v_k - step g_k (no clamping): DREAMPlace's first step, for the initial step length.
  virtual void trial_gradient_step(double step) = 0;
  // u = v_k - alpha g_k; v = clamp(u + coef (u - u_k)) to the region.
  virtual void trial_nesterov_step(double alpha, double coef) = 0;
  // g at v, with |v - v_k|^2 and |g - g_k|^2.
  virtual Evaluation evaluate_trial(double gamma, double lambda) = 0;
  // u_k, v_k, g_k = u, v, g.
  virtual void accept_trial() = 0;
};

std::unique_ptr<Engine> make_cpu_engine(const PlacementProblem& problem, const EngineOptions& options);
// Throws efield::Error when the example was built without CUDA.
std::unique_ptr<Engine> make_cuda_engine(const PlacementProblem& problem, const EngineOptions& options);

}  // namespace global_place
