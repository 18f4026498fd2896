#pragma once
// The host engines' Nesterov state (CPU engine, fence engine): 2n values each, x of the n cells
// then y, as engine.hpp describes them, with each coordinate's bounds and each cell's pin count
// and area (the preconditioner's terms), and the vector steps on them (OpenMP).
#include <vector>

#include "placement_problem.hpp"
#include "placer_math.hpp"

namespace global_place {

template <class T>
struct HostNesterovState {
  int n = 0, threads = 1;
  std::vector<T> v_k, g_k, u_k, v, g, u;
  std::vector<T> lo, hi;  // bounds of each coordinate of v (the region, less the cell's size)
  std::vector<double> pins, area;

  HostNesterovState(const PlacementProblem& p, const std::vector<int>& pins_per_cell, int num_threads)
      : n(p.num_cells()), threads(num_threads) {
    const std::size_t m = 2 * static_cast<std::size_t>(n);
    for (auto* b : {&v_k, &g_k, &u_k, &v, &g, &u, &lo, &hi}) b->assign(m, T(0));
    pins.assign(pins_per_cell.begin(), pins_per_cell.end());
    area.resize(n);
    for (int i = 0; i < n; ++i) {
      area[i] = p.width[i] * p.height[i];
      lo[i] = static_cast<T>(p.region.xl), hi[i] = static_cast<T>(p.region.xh - p.width[i]);
      lo[n + i] = static_cast<T>(p.region.yl), hi[n + i] = static_cast<T>(p.region.yh - p.height[i]);
    }
  }

  // v_k = u_k = pos.
  void set_positions(const std::vector<double>& pos) {
    for (std::size_t j = 0; j < pos.size(); ++j) v_k[j] = u_k[j] = static_cast<T>(pos[j]);
  }
  std::vector<double> positions() const { return std::vector<double>(v_k.begin(), v_k.end()); }

  // v = v_k - step g_k (no clamping).
  void gradient_step(double step) {
    const T s = static_cast<T>(step);
#pragma omp parallel for num_threads(threads)
    for (std::ptrdiff_t j = 0; j < static_cast<std::ptrdiff_t>(v.size()); ++j) v[j] = v_k[j] - s * g_k[j];
  }

  // u = v_k - alpha g_k; v = clamp(u + coef (u - u_k)) to [lo, hi].
  void nesterov_step(double alpha, double coef) {
    const T a = static_cast<T>(alpha), c = static_cast<T>(coef);
#pragma omp parallel for num_threads(threads)
    for (std::ptrdiff_t j = 0; j < static_cast<std::ptrdiff_t>(v.size()); ++j)
      nesterov_coordinate(v_k[j], g_k[j], u_k[j], a, c, lo[j], hi[j], &u[j], &v[j]);
  }

  void accept() { v_k.swap(v), g_k.swap(g), u_k.swap(u); }
};

}  // namespace global_place
