#pragma once
// The float64 reference of docs/math.md section 2, written from the text with plain loops and the
// dense transforms of tests/reference/dense_transforms.hpp. Independent of the fast path: no
// FFT, no permutation, no fixed point, no shared formula headers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "efield/electrostatic_system.hpp"
#include "reference/dense_transforms.hpp"

namespace efield::test {

struct ReferenceResult {
  std::vector<double> rho, phi, ex, ey;  // [M][N]
  std::vector<double> fixed;             // F, area units
  std::vector<double> gx, gy;            // per cell: movable first, then fillers
  double energy = 0, overflow = 0, max_density = 0;
};

// Positions per cell in the order movable..., fillers... (lower-left corners).
inline ReferenceResult reference_electrostatics(const ElectrostaticOptions& o, const CellSizes& movable,
                                                const CellSizes& fillers, const FixedCells& fixed,
                                                const std::vector<double>& cx, const std::vector<double>& cy) {
  const int M = o.num_bins_x, N = o.num_bins_y;
  const double bx = (o.xh - o.xl) / M, by = (o.yh - o.yl) / N;
  const double td = o.target_density;
  const size_t bins = static_cast<size_t>(M) * N;
  // ox(m) = max(0, min(x1, xl+(m+1)bx) - max(x0, xl+m bx))
  const auto overlaps = [&](double x0, double x1, double lo, double b, int K) {
    std::vector<double> o1(K);
    for (int m = 0; m < K; ++m) o1[m] = std::max(0.0, std::min(x1, lo + (m + 1) * b) - std::max(x0, lo + m * b));
    return o1;
  };
  ReferenceResult r;
  r.fixed.assign(bins, 0.0);
  for (size_t i = 0; i < fixed.widths.size(); ++i) {
    const auto ox = overlaps(fixed.x[i], fixed.x[i] + fixed.widths[i], o.xl, bx, M);
    const auto oy = overlaps(fixed.y[i], fixed.y[i] + fixed.heights[i], o.yl, by, N);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) r.fixed[static_cast<size_t>(m) * N + n] += ox[m] * oy[n];
  }
  for (double& f : r.fixed) f = std::min(f, bx * by) * td;

  const size_t nm = movable.widths.size(), nf = fillers.widths.size();
  struct Stretched {
    std::vector<double> ox, oy;
    double charge;
  };
  std::vector<Stretched> cells(nm + nf);
  std::vector<double> Dm = r.fixed, D = r.fixed;
  double movable_area = 0;
  for (size_t c = 0; c < nm + nf; ++c) {
    const double w = c < nm ? movable.widths[c] : fillers.widths[c - nm];
    const double h = c < nm ? movable.heights[c] : fillers.heights[c - nm];
    if (c < nm) movable_area += w * h;
    const double ws = std::max(w, std::sqrt(2.0) * bx), hs = std::max(h, std::sqrt(2.0) * by);
    const double xs = cx[c] + (w - ws) / 2, ys = cy[c] + (h - hs) / 2;
    // DREAMPlace's movable-macro rule: below td = 1 a marked movable cell's ratio is td.
    const bool macro = c < nm && !movable.movable_macro_mask.empty() && movable.movable_macro_mask[c] != 0;
    cells[c].charge = macro && td < 1 ? td : w * h / (ws * hs);
    cells[c].ox = overlaps(xs, xs + ws, o.xl, bx, M);
    cells[c].oy = overlaps(ys, ys + hs, o.yl, by, N);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        const double q = cells[c].charge * cells[c].ox[m] * cells[c].oy[n];
        D[static_cast<size_t>(m) * N + n] += q;
        if (c < nm) Dm[static_cast<size_t>(m) * N + n] += q;
      }
  }
  r.rho.resize(bins);
  for (size_t k = 0; k < bins; ++k) r.rho[k] = D[k] / (bx * by);
  double ovf = 0, mx = 0;
  for (size_t k = 0; k < bins; ++k) {
    ovf += std::max(0.0, Dm[k] - td * bx * by);
    mx = std::max(mx, Dm[k] / (bx * by));
  }
  r.overflow = ovf / movable_area;
  r.max_density = mx;

  std::vector<double> a = dense_2d(Transform2D::Dct2, r.rho, M, N);
  for (double& v : a) v *= 4.0 / (static_cast<double>(M) * N);
  const double pi = 3.14159265358979323846;
  std::vector<double> a_inv(bins), a_ex(bins), a_ey(bins);
  for (int u = 0; u < M; ++u)
    for (int v = 0; v < N; ++v) {
      const double wu = 2 * pi * u / M, wv = 2 * pi * v / N * (bx / by);
      const double inv = (u == 0 && v == 0) ? 0.0 : 1.0 / (wu * wu + wv * wv);
      const size_t k = static_cast<size_t>(u) * N + v;
      a_inv[k] = a[k] * inv;
      a_ex[k] = a[k] * wu * inv / 2;
      a_ey[k] = a[k] * wv * inv / 2;
    }
  r.phi = dense_2d(Transform2D::Idct2, a_inv, M, N);
  r.ex = dense_2d(Transform2D::IdxstIdct, a_ex, M, N);
  r.ey = dense_2d(Transform2D::IdctIdxst, a_ey, M, N);
  r.energy = 0;
  for (size_t k = 0; k < bins; ++k) r.energy += r.phi[k] * r.rho[k];

  r.gx.assign(nm + nf, 0.0);
  r.gy.assign(nm + nf, 0.0);
  for (size_t c = 0; c < nm + nf; ++c) {
    double sx = 0, sy = 0;
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        const double wgt = cells[c].ox[m] * cells[c].oy[n];
        sx += wgt * r.ex[static_cast<size_t>(m) * N + n];
        sy += wgt * r.ey[static_cast<size_t>(m) * N + n];
      }
    r.gx[c] = -cells[c].charge * sx;
    r.gy[c] = -cells[c].charge * sy;
  }
  return r;
}

}  // namespace efield::test
