// The fence engine: the CPU engine's host loops with one MultiFieldSystem for the K + 1 fields.
// One evaluation: wirelength gradient into g -> the fields' unweighted density gradients into a
// buffer (one MultiFieldSystem::evaluate) -> per cell g = (g + w_f gd) * preconditioner, with w_f
// the weight of the cell's field at this point (it depends on E_f through the quadratic term, so
// it is applied after the evaluate, not passed to it) -> the norms.
#include "fence_engine.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "host_state.hpp"
#include "host_wirelength.hpp"
#include "placer_math.hpp"

namespace global_place {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

efield::Rect bounding_box(const efield::FenceRegion& fence) {
  efield::Rect b = fence.rects.front();
  for (const efield::Rect& r : fence.rects)
    b = {std::min(b.xl, r.xl), std::min(b.yl, r.yl), std::max(b.xh, r.xh), std::max(b.yh, r.yh)};
  return b;
}

efield::MultiFieldSystem make_system(const FenceProblem& fp, const EngineOptions& o) {
  efield::MultiFieldOptions mo;
  mo.system = density_options(fp.cells, o.precision, o.backend);
  mo.system.target_density = 1.0;  // per field (FieldSpec::target_density)
  mo.system.cpu_threads = o.cpu_threads;
  mo.num_entries = fp.cells.num_cells();
  return efield::MultiFieldSystem(mo, fp.fields);
}

template <class T>
class HostFenceEngine final : public FenceEngine {
 public:
  HostFenceEngine(const FenceProblem& fp, const EngineOptions& o, bool fence_bounds)
      : n_(fp.cells.num_cells()),
        threads_(o.cpu_threads > 0 ? o.cpu_threads : omp_get_max_threads()),
        cell_field_(fp.cell_field),
        frozen_(fp.num_fields(), 0),
        wirelength_(fp.cells, o.max_net_degree, threads_),
        s_(fp.cells, wirelength_.pins_per_cell(), threads_),
        gd_(2 * static_cast<std::size_t>(n_), T(0)),
        system_(make_system(fp, o)) {
    const PlacementProblem& p = fp.cells;
    if (fence_bounds)
      for (int i = 0; i < p.num_movable; ++i) {
        const int k = fp.region_id[i];
        if (k >= static_cast<int>(fp.fences.size())) continue;
        const efield::Rect b = bounding_box(fp.fences[k]);
        s_.lo[i] = static_cast<T>(b.xl), s_.hi[i] = static_cast<T>(std::max(b.xl, b.xh - p.width[i]));
        s_.lo[n_ + i] = static_cast<T>(b.yl), s_.hi[n_ + i] = static_cast<T>(std::max(b.yl, b.yh - p.height[i]));
      }
  }

  std::string description() const override {
    return std::string("host loops (") + std::to_string(threads_) + " threads, " +
           (sizeof(T) == 4 ? "float" : "double") + "), " + std::to_string(system_.num_fields()) + " fields on " +
           (system_.backend() == efield::Backend::Cuda ? "cuda" : "cpu");
  }

  void set_positions(const std::vector<double>& pos) override { s_.set_positions(pos); }

  std::vector<double> positions() override { return s_.positions(); }

  FenceGradientNorms gradient_norms(double gamma) override {
    FenceGradientNorms norms;
    const std::vector<efield::EvaluateResult> r =
        system_.evaluate(s_.v_k.data(), s_.v_k.data() + n_, gd_.data(), gd_.data() + n_);
    norms.density.assign(r.size(), 0.0);
    for (int i = 0; i < n_; ++i)
      norms.density[cell_field_[i]] +=
          std::abs(static_cast<double>(gd_[i])) + std::abs(static_cast<double>(gd_[n_ + i]));
    for (const efield::EvaluateResult& f : r) norms.energy.push_back(f.energy);
    wirelength_(s_.v_k.data(), s_.g.data(), gamma);
    for (T v : s_.g) norms.wirelength += std::abs(static_cast<double>(v));
    return norms;
  }

  FenceEvaluation evaluate_current(double gamma, const FenceDensityTerm& d) override {
    return evaluate(s_.v_k.data(), s_.g_k.data(), gamma, d, false);
  }

  void trial_gradient_step(double step) override { s_.gradient_step(step); }

  void trial_nesterov_step(double alpha, double coef) override { s_.nesterov_step(alpha, coef); }

  FenceEvaluation evaluate_trial(double gamma, const FenceDensityTerm& d) override {
    return evaluate(s_.v.data(), s_.g.data(), gamma, d, true);
  }

  void accept_trial() override { s_.accept(); }

  void freeze_field(int k) override {
    frozen_.at(k) = 1;
    // Bounds collapsed onto the current position: every trial point keeps the field's cells there.
    for (int i = 0; i < n_; ++i)
      if (cell_field_[i] == k)
        for (const int j : {i, n_ + i}) s_.lo[j] = s_.hi[j] = s_.v_k[j], s_.g_k[j] = 0;
  }

 private:
  FenceEvaluation evaluate(const T* pos, T* grad, double gamma, const FenceDensityTerm& d, bool against_current) {
    FenceEvaluation ev;
    auto t0 = Clock::now();
    ev.hpwl = wirelength_(pos, grad, gamma);
    ev.wirelength_ms = ms_since(t0);
    t0 = Clock::now();
    ev.fields = system_.evaluate(pos, pos + n_, gd_.data(), gd_.data() + n_);
    ev.density_ms = ms_since(t0);
    t0 = Clock::now();
    const int num_fields = system_.num_fields();
    std::vector<double> weight(num_fields), lambda(num_fields);
    for (int k = 0; k < num_fields; ++k) {
      const double e0 = d.initial_energy.empty() ? 0.0 : d.initial_energy[k];
      lambda[k] = frozen_[k] ? 0.0 : d.lambda[k];
      weight[k] = lambda[k] * (e0 > 0 ? 1 + 2 * d.quadratic * ev.fields[k].energy / e0 : 1.0);
    }
    finish_cells(
        n_, threads_, pos, grad, s_.v_k.data(), s_.g_k.data(), against_current,
        [&](int i) {
          const int f = cell_field_[i];
          // DREAMPlace's preconditioner with the cell's own field's weight; frozen cells get none.
          const T scale = frozen_[f] ? T(0) : static_cast<T>(precondition_factor(s_.pins[i], lambda[f], s_.area[i]));
          const T w = static_cast<T>(weight[f]);
          for (const int j : {i, n_ + i}) grad[j] = (grad[j] + w * gd_[j]) * scale;
        },
        ev.step_norm2, ev.gradient_change2);
    ev.other_ms = ms_since(t0);
    return ev;
  }

  int n_;
  int threads_;
  std::vector<int> cell_field_;
  std::vector<char> frozen_;
  HostWirelength<T> wirelength_;
  HostNesterovState<T> s_;
  std::vector<T> gd_;  // the fields' unweighted density gradients
  efield::MultiFieldSystem system_;
};

}  // namespace

std::unique_ptr<FenceEngine> make_fence_engine(const FenceProblem& problem, const EngineOptions& options,
                                               bool fence_bounds) {
  if (options.precision == efield::Precision::Float)
    return std::make_unique<HostFenceEngine<float>>(problem, options, fence_bounds);
  return std::make_unique<HostFenceEngine<double>>(problem, options, fence_bounds);
}

}  // namespace global_place
