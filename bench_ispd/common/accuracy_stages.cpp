#include "common/accuracy_stages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "efield/error.hpp"
#include "efield/transforms.hpp"
#include "electrostatics/cell_layout.hpp"

namespace efield::bench {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The pipelines' CellGeometry (make_cell_geometry's fields) for a stand-in without movable macros.
template <typename T>
detail::CellGeometry<T> geometry(const StandInDesign& d, const ElectrostaticOptions& o) {
  if (!d.movable.movable_macro_mask.empty())
    throw Error("bench_accuracy: stand-ins with movable macros are not supported by the stage references");
  const double bx = (o.xh - o.xl) / o.num_bins_x, by = (o.yh - o.yl) / o.num_bins_y;
  detail::CellGeometry<T> g;
  g.M = o.num_bins_x;
  g.N = o.num_bins_y;
  g.bx = static_cast<T>(bx);
  g.by = static_cast<T>(by);
  g.wx = detail::split_bin_width(g.bx, g.M);
  g.wy = detail::split_bin_width(g.by, g.N);
  g.inv_bx = static_cast<T>(1.0 / bx);
  g.inv_by = static_cast<T>(1.0 / by);
  g.min_w = static_cast<T>(std::sqrt(2.0) * bx);
  g.min_h = static_cast<T>(std::sqrt(2.0) * by);
  g.xl = static_cast<T>(o.xl);
  g.yl = static_cast<T>(o.yl);
  g.num_movable = static_cast<std::int64_t>(d.movable.widths.size());
  g.num_cells = g.num_movable + static_cast<std::int64_t>(d.fillers.widths.size());
  g.filler_offset = g.num_movable;
  g.target_density = static_cast<T>(o.target_density);
  return g;
}

double cell_width(const StandInDesign& d, std::int64_t c) {
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.widths.size());
  return c < nm ? d.movable.widths[c] : d.fillers.widths[c - nm];
}
double cell_height(const StandInDesign& d, std::int64_t c) {
  const std::int64_t nm = static_cast<std::int64_t>(d.movable.heights.size());
  return c < nm ? d.movable.heights[c] : d.fillers.heights[c - nm];
}

}  // namespace

SpectralReference spectral_in_double(const ElectrostaticOptions& o, const std::vector<double>& rho) {
  const int M = o.num_bins_x, N = o.num_bins_y;
  const double bx = (o.xh - o.xl) / M, by = (o.yh - o.yl) / N;
  PlanOptions po;
  po.backend = Backend::Cpu;
  po.cpu_threads = o.cpu_threads;
  po.reproducible = true;
  std::vector<double> a(rho.size()), in_x(rho.size()), in_y(rho.size());
  Plan2D<double>(Transform2D::Dct2, M, N, po).execute_host(rho.data(), a.data());
  const double coef_scale = 4.0 / (static_cast<double>(M) * N);
  double energy = 0;
  for (int u = 0; u < M; ++u)
    for (int v = 0; v < N; ++v) {
      const std::size_t k = static_cast<std::size_t>(u) * N + v;
      const double wu = 2 * kPi * u / M, wv = 2 * kPi * v / N * (bx / by);
      const double s = wu * wu + wv * wv, inv = s > 0 ? 1 / s : 0;
      const double c = coef_scale * a[k];
      energy += (u == 0 ? 1.0 : 2.0) * (v == 0 ? 1.0 : 2.0) * c * c * inv;
      in_x[k] = c * wu * inv / 2;
      in_y[k] = c * wv * inv / 2;
    }
  SpectralReference r;
  r.energy = energy * (static_cast<double>(M) * N / 4.0);
  r.ex.resize(rho.size());
  r.ey.resize(rho.size());
  Plan2D<double>(Transform2D::IdxstIdct, M, N, po).execute_host(in_x.data(), r.ex.data());
  Plan2D<double>(Transform2D::IdctIdxst, M, N, po).execute_host(in_y.data(), r.ey.data());
  return r;
}

void gather_in_double(const StandInDesign& d, const ElectrostaticOptions& o, const std::vector<double>& ex,
                      const std::vector<double>& ey, const std::vector<double>& x, const std::vector<double>& y,
                      std::vector<double>* gx, std::vector<double>* gy) {
  const detail::CellGeometry<double> g = geometry<double>(d, o);
  gx->assign(static_cast<std::size_t>(g.num_cells), 0.0);
  gy->assign(static_cast<std::size_t>(g.num_cells), 0.0);
  for (std::int64_t c = 0; c < g.num_cells; ++c) {
    const detail::Footprint<double> f = detail::cell_footprint(g, c, x[c], y[c], cell_width(d, c), cell_height(d, c));
    if (detail::misses_grid(f, g)) continue;
    double sx = 0, sy = 0;
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n) {
        const double w = detail::footprint_weight(f, g, m, n);
        const std::size_t k = static_cast<std::size_t>(m) * g.N + n;
        sx += w * ex[k];
        sy += w * ey[k];
      }
    (*gx)[c] = -sx;
    (*gy)[c] = -sy;
  }
}

template <typename T>
std::vector<double> density_in_double(const StandInDesign& d, const ElectrostaticOptions& o,
                                      const std::vector<T>& x, const std::vector<T>& y,
                                      const std::vector<double>& fixed_map, int fraction_bits) {
  const detail::CellGeometry<T> g = geometry<T>(d, o);
  const double area = ((o.xh - o.xl) / o.num_bins_x) * ((o.yh - o.yl) / o.num_bins_y);
  // The CUDA rasterize's to_fixed (2^bits / (bx by), in T) and its inverse.
  const T to_fixed = static_cast<T>(std::ldexp(1.0, fraction_bits) / area);
  const double from_fixed = std::ldexp(area, -fraction_bits);
  const auto rounded = [&](T w) {
    return fraction_bits > 0 ? static_cast<double>(std::rint(w * to_fixed)) * from_fixed : static_cast<double>(w);
  };
  std::vector<double> acc = fixed_map;
  for (std::int64_t c = 0; c < g.num_cells; ++c) {
    const detail::Footprint<T> f = detail::cell_footprint(g, c, x[c], y[c], static_cast<T>(cell_width(d, c)),
                                                          static_cast<T>(cell_height(d, c)));
    if (detail::misses_grid(f, g)) continue;
    for (int m = f.m0; m <= f.m1; ++m)
      for (int n = f.n0; n <= f.n1; ++n)
        acc[static_cast<std::size_t>(m) * g.N + n] += rounded(detail::footprint_weight(f, g, m, n));
  }
  for (double& v : acc) v /= area;
  return acc;
}
template std::vector<double> density_in_double<float>(const StandInDesign&, const ElectrostaticOptions&,
                                                      const std::vector<float>&, const std::vector<float>&,
                                                      const std::vector<double>&, int);
template std::vector<double> density_in_double<double>(const StandInDesign&, const ElectrostaticOptions&,
                                                       const std::vector<double>&, const std::vector<double>&,
                                                       const std::vector<double>&, int);

double relative_l2(const std::vector<double>& a, const std::vector<double>& b, double shift) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += (b[i] - shift) * (b[i] - shift);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double relative_l2(const std::vector<double>& ax, const std::vector<double>& ay, const std::vector<double>& bx,
                   const std::vector<double>& by) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < bx.size(); ++i) {
    num += (ax[i] - bx[i]) * (ax[i] - bx[i]) + (ay[i] - by[i]) * (ay[i] - by[i]);
    den += bx[i] * bx[i] + by[i] * by[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double relative_max(const std::vector<double>& ax, const std::vector<double>& ay, const std::vector<double>& bx,
                    const std::vector<double>& by) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < bx.size(); ++i) {
    num = std::max({num, std::fabs(ax[i] - bx[i]), std::fabs(ay[i] - by[i])});
    den = std::max({den, std::fabs(bx[i]), std::fabs(by[i])});
  }
  return den > 0 ? num / den : num;
}

}  // namespace efield::bench
