#pragma once
// Random 3D designs for the ElectrostaticSystem3D tests, and one evaluate's outputs on the host.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "efield/electrostatic_system3d.hpp"

namespace efield::test {

struct Design3DCase {
  ElectrostaticOptions3D options;
  CellSizes3D movable, fillers;
  FixedCells3D fixed;
  std::vector<double> x, y, z;  // the caller's layout: movable, a gap, fillers at filler_offset
};

// Cells smaller and larger than a bin on every axis, some reaching out of the region in x and y,
// none deeper than the region. gap: entries between the movable cells and the fillers.
inline Design3DCase random_design3d(unsigned seed, int M, int N, int L, int num_movable = 60, int num_fillers = 15,
                                    int num_fixed = 3, int gap = 0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Design3DCase d;
  ElectrostaticOptions3D& o = d.options;
  o.xl = 2.0, o.yl = -1.0, o.zl = 0.5, o.xh = 16.0, o.yh = 11.0, o.zh = 6.5;
  o.num_bins_x = M, o.num_bins_y = N, o.num_bins_z = L;
  o.target_density = 0.8;
  o.backend = Backend::Cpu;
  o.precision = Precision::Double;
  if (gap > 0) o.filler_offset = num_movable + gap;
  const double bx = (o.xh - o.xl) / M, by = (o.yh - o.yl) / N, bz = (o.zh - o.zl) / L, depth = o.zh - o.zl;
  const auto add = [&](CellSizes3D& c, double lo, double hi) {
    c.widths.push_back((lo + (hi - lo) * u(rng)) * bx);
    c.heights.push_back((lo + (hi - lo) * u(rng)) * by);
    c.depths.push_back(std::fmin((lo + (hi - lo) * u(rng)) * bz, 0.9 * depth));
  };
  for (int i = 0; i < num_movable; ++i) add(d.movable, 0.3, 2.5);
  for (int i = 0; i < num_fillers; ++i) {
    d.fillers.widths.push_back(1.1 * bx);
    d.fillers.heights.push_back(0.9 * by);
    d.fillers.depths.push_back(std::fmin(1.2 * bz, 0.9 * depth));
  }
  for (int i = 0; i < num_fixed; ++i) {
    CellSizes3D s;
    add(s, 0.3, 3.0);
    d.fixed.widths.push_back(s.widths[0]);
    d.fixed.heights.push_back(s.heights[0]);
    d.fixed.depths.push_back(s.depths[0]);
    d.fixed.x.push_back(o.xl - bx + (o.xh - s.widths[0] - o.xl + bx) * u(rng));
    d.fixed.y.push_back(o.yl - by + (o.yh - s.heights[0] - o.yl + by) * u(rng));
    d.fixed.z.push_back(o.zl + (o.zh - s.depths[0] - o.zl) * u(rng));
  }
  const std::size_t length = static_cast<std::size_t>(num_movable + gap + num_fillers);
  d.x.assign(length, 0.0), d.y.assign(length, 0.0), d.z.assign(length, 0.0);
  const auto place = [&](std::size_t i, double w, double h, double dd) {
    d.x[i] = o.xl - 0.5 * w + (o.xh - o.xl) * u(rng);
    d.y[i] = o.yl - 0.5 * h + (o.yh - o.yl) * u(rng);
    d.z[i] = o.zl + (o.zh - dd - o.zl) * u(rng);
  };
  for (int i = 0; i < num_movable; ++i) place(i, d.movable.widths[i], d.movable.heights[i], d.movable.depths[i]);
  for (int j = 0; j < num_fillers; ++j)
    place(num_movable + gap + j, d.fillers.widths[j], d.fillers.heights[j], d.fillers.depths[j]);
  return d;
}

template <typename T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T>
struct Output3D {
  EvaluateResult result;
  std::vector<T> gx, gy, gz;
};

// One host evaluate of the case's positions (gradients start at `fill`).
template <typename T>
Output3D<T> evaluate_host(ElectrostaticSystem3D& es, const Design3DCase& d, const EvaluateOptions& eo = {},
                          T fill = T(0)) {
  const std::vector<T> x = as<T>(d.x), y = as<T>(d.y), z = as<T>(d.z);
  Output3D<T> out;
  out.gx.assign(x.size(), fill), out.gy.assign(x.size(), fill), out.gz.assign(x.size(), fill);
  out.result = es.evaluate(x.data(), y.data(), z.data(), out.gx.data(), out.gy.data(), out.gz.data(), eo);
  return out;
}

}  // namespace efield::test
