// The CPU engine: host arrays, OpenMP loops, efield's CPU backend.
#include <omp.h>

#include <chrono>
#include <cmath>

#include "engine.hpp"
#include "host_state.hpp"
#include "host_wirelength.hpp"
#include "placer_math.hpp"

namespace global_place {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

efield::ElectrostaticSystem make_system(const PlacementProblem& p, const EngineOptions& o) {
  efield::ElectrostaticOptions eo = density_options(p, o.precision, efield::Backend::Cpu);
  eo.cpu_threads = o.cpu_threads;
  return efield::ElectrostaticSystem(eo, p.movable, p.fillers, p.fixed);
}

template <class T>
class CpuEngine final : public Engine {
 public:
  CpuEngine(const PlacementProblem& p, const EngineOptions& o)
      : n_(p.num_cells()),
        threads_(o.cpu_threads > 0 ? o.cpu_threads : omp_get_max_threads()),
        wirelength_(p, o.max_net_degree, threads_),
        s_(p, wirelength_.pins_per_cell(), threads_),
        system_(make_system(p, o)) {}

  std::string description() const override {
    return std::string("cpu (") + std::to_string(threads_) + " threads, " + (sizeof(T) == 4 ? "float" : "double") + ")";
  }

  void set_positions(const std::vector<double>& pos) override { s_.set_positions(pos); }

  std::vector<double> positions() override { return s_.positions(); }

  GradientNorms gradient_norms(double gamma) override {
    const auto l1 = [](const std::vector<T>& g) {
      double s = 0;
      for (T v : g) s += std::abs(static_cast<double>(v));
      return s;
    };
    GradientNorms norms;
    system_.evaluate(s_.v_k.data(), s_.v_k.data() + n_, s_.g.data(), s_.g.data() + n_);
    norms.density = l1(s_.g);
    wirelength_(s_.v_k.data(), s_.g.data(), gamma);
    norms.wirelength = l1(s_.g);
    return norms;
  }

  Evaluation evaluate_current(double gamma, double lambda) override {
    return evaluate(s_.v_k.data(), s_.g_k.data(), gamma, lambda, false);
  }

  void trial_gradient_step(double step) override { s_.gradient_step(step); }

  void trial_nesterov_step(double alpha, double coef) override { s_.nesterov_step(alpha, coef); }

  Evaluation evaluate_trial(double gamma, double lambda) override {
    return evaluate(s_.v.data(), s_.g.data(), gamma, lambda, true);
  }

  void accept_trial() override { s_.accept(); }

 private:
  Evaluation evaluate(const T* pos, T* grad, double gamma, double lambda, bool against_current) {
    Evaluation ev;
    auto t0 = Clock::now();
    ev.hpwl = wirelength_(pos, grad, gamma);
    ev.wirelength_ms = ms_since(t0);
    // grad += lambda * density gradient, in efield's gather pass.
    t0 = Clock::now();
    const efield::EvaluateResult r = system_.evaluate(pos, pos + n_, grad, grad + n_, {lambda, true});
    ev.density_ms = ms_since(t0);
    ev.overflow = r.overflow, ev.max_density = r.max_density;
    t0 = Clock::now();
    finish_cells(
        n_, threads_, pos, grad, s_.v_k.data(), s_.g_k.data(), against_current,
        [&](int i) {
          const T scale = static_cast<T>(precondition_factor(s_.pins[i], lambda, s_.area[i]));
          grad[i] *= scale, grad[n_ + i] *= scale;
        },
        ev.step_norm2, ev.gradient_change2);
    ev.other_ms = ms_since(t0);
    return ev;
  }

  int n_;
  int threads_;
  HostWirelength<T> wirelength_;
  HostNesterovState<T> s_;
  efield::ElectrostaticSystem system_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const PlacementProblem& problem, const EngineOptions& options) {
  if (options.precision == efield::Precision::Float) return std::make_unique<CpuEngine<float>>(problem, options);
  return std::make_unique<CpuEngine<double>>(problem, options);
}

}  // namespace global_place
