#pragma once
// The host engines' shared passes (CPU engine, fence engine): ePlace's weighted-average
// gradient of every cell and the HPWL, OpenMP over nets then over cells; and their last pass over the
// cells (finish_cells: the final gradient and the norms against the current point).
#include <omp.h>

#include <vector>

#include "placement_problem.hpp"
#include "placer_math.hpp"

namespace global_place {

template <class T>
class HostWirelength {
 public:
  HostWirelength(const PlacementProblem& p, int max_degree, int threads)
      : n_(p.num_cells()),
        max_degree_(max_degree),
        threads_(threads),
        net_start_(p.net_pin_start),
        pin_cell_(p.pin_cell),
        cell_pin_start_(p.cell_pin_start),
        cell_pins_(p.cell_pins),
        net_weight_(p.net_weight.begin(), p.net_weight.end()),
        pin_dx_(p.pin_dx.begin(), p.pin_dx.end()),
        pin_dy_(p.pin_dy.begin(), p.pin_dy.end()),
        pin_grad_(2 * static_cast<std::size_t>(p.num_pins()), T(0)),
        net_hpwl_(p.num_nets(), 0.0) {}

  // Pins of each cell (the wirelength term of the preconditioner).
  std::vector<int> pins_per_cell() const {
    std::vector<int> pins(n_);
    for (int i = 0; i < n_; ++i) pins[i] = cell_pin_start_[i + 1] - cell_pin_start_[i];
    return pins;
  }

  // Writes the wirelength gradient of every cell into grad (2n values; fillers: 0); returns the
  // HPWL, summed in net order (the same sum on every run).
  double operator()(const T* pos, T* grad, double gamma) {
    const T inv_gamma = static_cast<T>(1 / gamma);
    const int nets = static_cast<int>(net_hpwl_.size());
    const std::size_t pins = pin_cell_.size();
    T* pin_gx = pin_grad_.data();
    T* pin_gy = pin_grad_.data() + pins;
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_)
    for (int e = 0; e < nets; ++e) {
      const int b = net_start_[e], end = net_start_[e + 1];
      net_hpwl_[e] =
          wa_net_axis(b, end, pin_cell_.data(), pos, pin_dx_.data(), net_weight_[e], inv_gamma, max_degree_, pin_gx) +
          wa_net_axis(b, end, pin_cell_.data(), pos + n_, pin_dy_.data(), net_weight_[e], inv_gamma, max_degree_,
                      pin_gy);
    }
#pragma omp parallel for num_threads(threads_)
    for (int i = 0; i < n_; ++i) {
      T gx = 0, gy = 0;
      for (int q = cell_pin_start_[i]; q < cell_pin_start_[i + 1]; ++q) {
        gx += pin_gx[cell_pins_[q]];
        gy += pin_gy[cell_pins_[q]];
      }
      grad[i] = gx, grad[n_ + i] = gy;
    }
    double hpwl = 0;
    for (double h : net_hpwl_) hpwl += h;
    return hpwl;
  }

 private:
  int n_;
  int max_degree_;
  int threads_;
  std::vector<int> net_start_, pin_cell_, cell_pin_start_, cell_pins_;
  std::vector<T> net_weight_, pin_dx_, pin_dy_, pin_grad_;
  std::vector<double> net_hpwl_;
};

}  // namespace global_place

namespace global_place {

// The host engines' last pass over the cells: finish(i) writes cell i's final gradient (grad[i],
// grad[n + i]); with against_current, also |pos - v_k|^2 and |grad - g_k|^2. Fixed chunks summed
// in order: the norms (hence the step lengths) do not depend on the thread count or the threads'
// timing.
template <class T, class Finish>
void finish_cells(int n, int threads, const T* pos, const T* grad, const T* v_k, const T* g_k, bool against_current,
                  Finish&& finish, double& step_norm2, double& gradient_change2) {
  constexpr int kChunks = 256;
  double dv[kChunks] = {}, dg[kChunks] = {};
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (int c = 0; c < kChunks; ++c) {
    const int first = static_cast<int>(static_cast<long long>(n) * c / kChunks);
    const int last = static_cast<int>(static_cast<long long>(n) * (c + 1) / kChunks);
    for (int i = first; i < last; ++i) {
      finish(i);
      if (!against_current) continue;
      for (const int j : {i, n + i}) {
        const double a = static_cast<double>(pos[j]) - v_k[j], b = static_cast<double>(grad[j]) - g_k[j];
        dv[c] += a * a, dg[c] += b * b;
      }
    }
  }
  step_norm2 = gradient_change2 = 0;
  for (int c = 0; c < kChunks; ++c) step_norm2 += dv[c], gradient_change2 += dg[c];
}

}  // namespace global_place
