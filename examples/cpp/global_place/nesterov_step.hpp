#pragma once
// ePlace's Nesterov step with Lipschitz step prediction, shared by the placers' loops: the step
// alpha is the inverse of the local Lipschitz estimate |dv| / |dg|; the trial is retried (at most
// max_backtracks times) until the new estimate is no less than 95% of the step taken.
#include <cmath>

namespace global_place {

// try_step(alpha) makes and evaluates one trial point with step alpha and returns its
// {step_norm2, gradient_change2} (|v - v_k|^2, |g - g_k|^2). Leaves alpha at the last estimate;
// returns the number of trials.
template <class TryStep>
int lipschitz_nesterov_step(double& alpha, int max_backtracks, TryStep&& try_step) {
  int trials = 0;
  while (true) {
    const auto [step_norm2, gradient_change2] = try_step(alpha);
    const double predicted = gradient_change2 > 0 ? std::sqrt(step_norm2 / gradient_change2) : alpha;
    ++trials;
    const bool accept = predicted > 0.95 * alpha || trials >= max_backtracks;
    alpha = predicted;
    if (accept) return trials;
  }
}

// Nesterov's momentum sequence: a_{k+1} = (1 + sqrt(4 a_k^2 + 1)) / 2, coefficient (a_k - 1) / a_{k+1}.
inline double nesterov_next_a(double a) { return (1 + std::sqrt(4 * a * a + 1)) / 2; }

// The engines' side of both (engine.hpp, fence_engine.hpp). evaluate_trial() evaluates the trial
// point the engine has just made and returns its {step_norm2, gradient_change2}.

// DREAMPlace's first step length, from a small plain gradient step: |dv| / |dg|.
template <class Engine, class EvaluateTrial>
double first_step_length(Engine& engine, double step, EvaluateTrial&& evaluate_trial) {
  engine.trial_gradient_step(step);
  const auto [step_norm2, gradient_change2] = evaluate_trial();
  return gradient_change2 > 0 ? std::sqrt(step_norm2 / gradient_change2) : step;
}

// One iteration: the Nesterov step with Lipschitz step prediction, its trial accepted; a_k moves
// on. Returns the number of trials.
template <class Engine, class EvaluateTrial>
int nesterov_iteration(Engine& engine, double& a_k, double& alpha, int max_backtracks, EvaluateTrial&& evaluate_trial) {
  const double a_next = nesterov_next_a(a_k);
  const double coef = (a_k - 1) / a_next;
  const int trials = lipschitz_nesterov_step(alpha, max_backtracks, [&](double step) {
    engine.trial_nesterov_step(step, coef);
    return evaluate_trial();
  });
  engine.accept_trial();
  a_k = a_next;
  return trials;
}

}  // namespace global_place
