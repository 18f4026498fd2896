#pragma once
// Random test designs with the cases that break electrostatic code: cells smaller and larger
// than a bin, movable macros (the CUDA "large cell" path), fixed cells overlapping each other
// and the region edge, cells partly or wholly outside the region.
#include <cstdint>
#include <random>
#include <vector>

#include "efield/electrostatic_system.hpp"

namespace efield::test {

struct TestDesign {
  ElectrostaticOptions options;
  CellSizes movable, fillers;
  FixedCells fixed;
  std::vector<double> cx, cy;  // per cell: movable..., fillers... (the reference's order)
  // The caller's arrays: movable at [0, nm), fillers at [filler_offset, filler_offset + nf),
  // `gap` unused entries (fixed terminals in DREAMPlace) in between.
  std::int64_t array_size = 0;
  template <typename T>
  std::vector<T> array(const std::vector<double>& per_cell, T fill = T(12345)) const {
    std::vector<T> a(static_cast<size_t>(array_size), fill);
    const size_t nm = movable.widths.size();
    const std::int64_t fo = options.filler_offset < 0 ? static_cast<std::int64_t>(nm) : options.filler_offset;
    for (size_t c = 0; c < per_cell.size(); ++c)
      a[c < nm ? c : static_cast<size_t>(fo) + (c - nm)] = static_cast<T>(per_cell[c]);
    return a;
  }
  template <typename T>
  std::vector<double> per_cell(const std::vector<T>& arr) const {
    const size_t nm = movable.widths.size(), nc = nm + fillers.widths.size();
    const std::int64_t fo = options.filler_offset < 0 ? static_cast<std::int64_t>(nm) : options.filler_offset;
    std::vector<double> v(nc);
    for (size_t c = 0; c < nc; ++c) v[c] = arr[c < nm ? c : static_cast<size_t>(fo) + (c - nm)];
    return v;
  }
};

struct DesignSpec {
  int M = 16, N = 16;
  double xl = 0, yl = 0, xh = 160, yh = 160;
  double td = 1.0;
  int num_movable = 120, num_fillers = 40, num_fixed = 6;
  int gap = 0;            // entries between movable and fillers in the arrays (0: default offset)
  bool macros = true;     // some movable cells several bins wide
  bool outside = true;    // some cells partly or wholly outside the region
  double min_size_bins = 0.2;  // smallest cell, in bins
};

inline TestDesign make_random_design(const DesignSpec& s, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); };
  TestDesign d;
  d.options.xl = s.xl;
  d.options.yl = s.yl;
  d.options.xh = s.xh;
  d.options.yh = s.yh;
  d.options.num_bins_x = s.M;
  d.options.num_bins_y = s.N;
  d.options.target_density = s.td;
  const double bx = (s.xh - s.xl) / s.M, by = (s.yh - s.yl) / s.N;
  const double W = s.xh - s.xl, H = s.yh - s.yl;
  for (int i = 0; i < s.num_movable; ++i) {
    const double kind = uni(0, 1);
    double w, h;
    if (kind < 0.6) {  // smaller than a bin
      w = uni(s.min_size_bins, 1.0) * bx;
      h = uni(s.min_size_bins, 1.0) * by;
    } else if (kind < 0.93 || !s.macros) {  // one to three bins
      w = uni(1.0, 3.0) * bx;
      h = uni(1.0, 3.0) * by;
    } else {  // movable macro, more than 4 bins on an axis
      w = uni(4.5, 8.0) * bx;
      h = uni(1.0, 7.0) * by;
    }
    d.movable.widths.push_back(w);
    d.movable.heights.push_back(h);
    double x = uni(s.xl, s.xh - w), y = uni(s.yl, s.yh - h);
    if (s.outside && uni(0, 1) < 0.08) {  // partly or wholly outside
      x = uni(s.xl - 2 * w, s.xh + w);
      y = uni(s.yl - h, s.yh + 0.5 * h);
    }
    d.cx.push_back(x);
    d.cy.push_back(y);
  }
  const double fw = uni(0.4, 1.5) * bx, fh = uni(0.5, 1.2) * by;
  for (int i = 0; i < s.num_fillers; ++i) {
    d.fillers.widths.push_back(fw);
    d.fillers.heights.push_back(fh);
    d.cx.push_back(uni(s.xl, s.xh - fw));
    d.cy.push_back(uni(s.yl, s.yh - fh));
  }
  for (int i = 0; i < s.num_fixed; ++i) {
    const double w = uni(0.3, 0.25 * s.M) * bx, h = uni(0.3, 0.25 * s.N) * by;
    d.fixed.widths.push_back(w);
    d.fixed.heights.push_back(h);
    // overlapping each other (clustered) and the region edge
    d.fixed.x.push_back(i % 3 == 0 ? s.xl - 0.3 * w : uni(s.xl, s.xl + 0.6 * W));
    d.fixed.y.push_back(i % 4 == 1 ? s.yh - 0.5 * h : uni(s.yl, s.yl + 0.6 * H));
  }
  d.options.filler_offset = s.gap > 0 ? s.num_movable + s.gap : -1;
  d.array_size = static_cast<std::int64_t>(s.num_movable) + s.gap + s.num_fillers;
  return d;
}

}  // namespace efield::test
