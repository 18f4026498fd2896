// The CPU engine: host arrays, OpenMP loops, efield's CPU backend.
#include <omp.h>

#include <chrono>
#include <cmath>

#include "engine.hpp"
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
        system_(make_system(p, o)) {
    const std::size_t m = 2 * static_cast<std::size_t>(n_);
    for (auto* b : {&v_k_, &g_k_, &u_k_, &v_, &g_, &u_, &lo_, &hi_}) b->assign(m, T(0));
    pins_.resize(n_), area_.resize(n_);
    for (int i = 0; i < n_; ++i) {
      pins_[i] = wirelength_.pins(i);
      area_[i] = p.width[i] * p.height[i];
      lo_[i] = static_cast<T>(p.region.xl), hi_[i] = static_cast<T>(p.region.xh - p.width[i]);
      lo_[n_ + i] = static_cast<T>(p.region.yl), hi_[n_ + i] = static_cast<T>(p.region.yh - p.height[i]);
    }
  }

  std::string description() const override {
    return std::string("cpu (") + std::to_string(threads_) + " threads, " + (sizeof(T) == 4 ? "float" : "double") + ")";
  }

  void set_positions(const std::vector<double>& pos) override {
    for (std::size_t j = 0; j < pos.size(); ++j) v_k_[j] = u_k_[j] = static_cast<T>(pos[j]);
  }

  std::vector<double> positions() override { return std::vector<double>(v_k_.begin(), v_k_.end()); }

  GradientNorms gradient_norms(double gamma) override {
    const auto l1 = [](const std::vector<T>& g) {
      double s = 0;
      for (T v : g) s += std::abs(static_cast<double>(v));
      return s;
    };
    GradientNorms norms;
    system_.evaluate(v_k_.data(), v_k_.data() + n_, g_.data(), g_.data() + n_);
    norms.density = l1(g_);
    wirelength_(v_k_.data(), g_.data(), gamma);
    norms.wirelength = l1(g_);
    return norms;
  }

  Evaluation evaluate_current(double gamma, double lambda) override {
    return evaluate(v_k_.data(), g_k_.data(), gamma, lambda, false);
  }

  void trial_gradient_step(double step) override {
    const T s = static_cast<T>(step);
#pragma omp parallel for num_threads(threads_)
    for (std::ptrdiff_t j = 0; j < static_cast<std::ptrdiff_t>(v_.size()); ++j) v_[j] = v_k_[j] - s * g_k_[j];
  }

  void trial_nesterov_step(double alpha, double coef) override {
    const T a = static_cast<T>(alpha), c = static_cast<T>(coef);
#pragma omp parallel for num_threads(threads_)
    for (std::ptrdiff_t j = 0; j < static_cast<std::ptrdiff_t>(v_.size()); ++j)
      nesterov_coordinate(v_k_[j], g_k_[j], u_k_[j], a, c, lo_[j], hi_[j], &u_[j], &v_[j]);
  }

  Evaluation evaluate_trial(double gamma, double lambda) override {
    return evaluate(v_.data(), g_.data(), gamma, lambda, true);
  }

  void accept_trial() override { v_k_.swap(v_), g_k_.swap(g_), u_k_.swap(u_); }

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
        n_, threads_, pos, grad, v_k_.data(), g_k_.data(), against_current,
        [&](int i) {
          const T scale = static_cast<T>(precondition_factor(pins_[i], lambda, area_[i]));
          grad[i] *= scale, grad[n_ + i] *= scale;
        },
        ev.step_norm2, ev.gradient_change2);
    ev.other_ms = ms_since(t0);
    return ev;
  }

  int n_;
  int threads_;
  HostWirelength<T> wirelength_;
  std::vector<double> pins_, area_;
  std::vector<T> v_k_, g_k_, u_k_, v_, g_, u_, lo_, hi_;
  efield::ElectrostaticSystem system_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const PlacementProblem& problem, const EngineOptions& options) {
  if (options.precision == efield::Precision::Float) return std::make_unique<CpuEngine<float>>(problem, options);
  return std::make_unique<CpuEngine<double>>(problem, options);
}

}  // namespace global_place
